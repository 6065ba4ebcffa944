//go:build !(cgo && zlib)

package compress

// haveZlib reports whether the zlib deflater is built in.
const haveZlib = false

// newZlibEncoder is never called without zlib: haveZlib is false.
func newZlibEncoder(int) (deflateEncoder, error) { panic("compress: zlib not built in") }
