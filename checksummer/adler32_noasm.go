//go:build !amd64 || purego

package checksummer

// adler32Impl names the code behind UpdateAdler32.
func adler32Impl() string { return "pure Go" }

// UpdateAdler32 returns the Adler-32 of prev's input followed by p.
func UpdateAdler32(prev uint32, p []byte) uint32 { return adler32Generic(prev, p) }
