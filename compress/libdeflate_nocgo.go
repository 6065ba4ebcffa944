//go:build !(cgo && libdeflate)

package compress

// haveLibDeflate reports whether the libdeflate inflater is built in.
const haveLibDeflate = false

// newLibDeflateDecoder is never called without libdeflate: haveLibDeflate
// is false.
func newLibDeflateDecoder() (deflateDecoder, error) { panic("compress: libdeflate not built in") }
