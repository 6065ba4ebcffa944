package mc

// indexStart returns the Index.db offset from which a lookup of key
// scans. Without a usable Summary.db this is the start of the index.
func (r *Reader) indexStart(key []byte) (int64, error) {
	return 0, nil
}

// verifyAux checks the components the sstables package parses besides
// Data.db.
func (r *Reader) verifyAux() error {
	return nil
}
