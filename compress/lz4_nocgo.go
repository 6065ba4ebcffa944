//go:build !(cgo && liblz4)

package compress

// haveLibLZ4 reports whether the liblz4 implementation is built in.
const haveLibLZ4 = false

// newLZ4C is never called without liblz4: HasImpl(LZ4, ImplC) is false.
func newLZ4C(lz4Settings) lz4Block { panic("compress: liblz4 not built in") }
