package sstables

import (
	"fmt"
	"hash/adler32"
	"hash/crc32"

	"github.com/castable-db/castable/checksummer"
)

// defaultChecksummer returns the checksummer used when options leave it
// unset.
//
// TODO(sstables): switch to checksummer.Default once package checksummer
// provides it; this stdlib fallback exists only so that the package builds
// and verifies meanwhile.
func defaultChecksummer(alg checksummer.Algorithm) (checksummer.Checksummer, error) {
	switch alg {
	case checksummer.CRC32, 0:
		return stdCRC32{}, nil
	case checksummer.Adler32:
		return stdAdler32{}, nil
	}
	return nil, fmt.Errorf("sstables: unknown checksum algorithm %v", alg)
}

type stdCRC32 struct{}

func (stdCRC32) Name() string                           { return "go-crc32" }
func (stdCRC32) Algorithm() checksummer.Algorithm       { return checksummer.CRC32 }
func (stdCRC32) Init() uint32                           { return 0 }
func (stdCRC32) Update(prev uint32, p []byte) uint32    { return crc32.Update(prev, crc32.IEEETable, p) }
func (stdCRC32) PreferCombine() bool                    { return true }
func (stdCRC32) Combine(a, b uint32, lenB int64) uint32 { return crc32Combine(a, b, lenB) }

// crc32Combine multiplies a by x^(8·lenB) modulo the CRC-32 polynomial
// (reflected) and adds b: CRC(A‖B) from CRC(A), CRC(B) and len(B).
func crc32Combine(a, b uint32, lenB int64) uint32 {
	if lenB <= 0 {
		return a
	}
	return crcMultModP(crcX2nModP(uint64(lenB), 3), a) ^ b
}

// crcMultModP multiplies two polynomials (reflected bit order) modulo P.
func crcMultModP(a, b uint32) uint32 {
	const poly = 0xEDB88320
	m := uint32(1) << 31
	var p uint32
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				break
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ poly
		} else {
			b >>= 1
		}
	}
	return p
}

// crcX2nPowers[k] is x^(2^k) mod P.
var crcX2nPowers = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	t[0] = p
	for k := 1; k < 32; k++ {
		p = crcMultModP(p, p)
		t[k] = p
	}
	return
}()

// crcX2nModP returns x^(n·2^k) mod P.
func crcX2nModP(n uint64, k uint) uint32 {
	p := uint32(1) << 31 // x^0
	for n != 0 {
		if n&1 != 0 {
			p = crcMultModP(crcX2nPowers[k&31], p)
		}
		n >>= 1
		k++
	}
	return p
}

type stdAdler32 struct{}

func (stdAdler32) Name() string                     { return "go-adler32" }
func (stdAdler32) Algorithm() checksummer.Algorithm { return checksummer.Adler32 }
func (stdAdler32) Init() uint32                     { return 1 }
func (stdAdler32) PreferCombine() bool              { return true }

func (stdAdler32) Update(prev uint32, p []byte) uint32 {
	if prev == 1 {
		return adler32.Checksum(p)
	}
	return adler32Update(prev, p)
}

// adler32Update continues an Adler-32 value (hash/adler32 only starts from
// 1 through its Hash; this is the plain RFC 1950 loop, NMAX-blocked).
func adler32Update(prev uint32, p []byte) uint32 {
	const mod = 65521
	const nmax = 5552
	s1, s2 := prev&0xffff, prev>>16
	for len(p) > 0 {
		q := p
		if len(q) > nmax {
			q = q[:nmax]
		}
		p = p[len(q):]
		for _, c := range q {
			s1 += uint32(c)
			s2 += s1
		}
		s1 %= mod
		s2 %= mod
	}
	return s2<<16 | s1
}

func (stdAdler32) Combine(a, b uint32, lenB int64) uint32 {
	const mod = 65521
	if lenB <= 0 {
		return a
	}
	rem := uint32(lenB % mod)
	s1 := a & 0xffff
	s2 := (rem * s1) % mod
	s1 += (b & 0xffff) + mod - 1
	s2 += (a >> 16) + (b >> 16) + mod - rem
	if s1 >= mod {
		s1 -= mod
	}
	if s1 >= mod {
		s1 -= mod
	}
	if s2 >= mod<<1 {
		s2 -= mod << 1
	}
	if s2 >= mod {
		s2 -= mod
	}
	return s2<<16 | s1
}

// fixedLengthCombiner is implemented by checksummers that can precompute
// the combine operator for one fixed second-operand length (a few table
// lookups instead of a general combine).
type fixedLengthCombiner interface {
	CombineFixed(lenB int64) func(a, b uint32) uint32
}

// fixedCombiner returns cs's precomputed combine for lenB, or nil.
func fixedCombiner(cs checksummer.Checksummer, lenB int64) func(a, b uint32) uint32 {
	if fc, ok := cs.(fixedLengthCombiner); ok {
		return fc.CombineFixed(lenB)
	}
	return nil
}
