//go:build !((amd64 || arm64) && !purego)

package compress

import "encoding/binary"

// lz4Src reads little-endian words of an LZ4 encoder's input, with bounds
// checks (lz4_load_unsafe.go has the unchecked loads of amd64 and arm64).
type lz4Src struct{}

// newLZ4Src returns the reader of b.
func newLZ4Src([]byte) lz4Src { return lz4Src{} }

func (lz4Src) load32(b []byte, i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }
func (lz4Src) load64(b []byte, i int) uint64 { return binary.LittleEndian.Uint64(b[i:]) }
