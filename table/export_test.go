package table

// SimpleMerge makes sc merge the simple way (nextSimple), the reference
// for the ordered merge.
func SimpleMerge(sc *Scanner) { sc.simple = true }
