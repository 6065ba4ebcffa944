package sstables

import "math/bits"

// fastMod computes x mod d for a fixed 64-bit divisor without a division
// instruction (Lemire, Kaser and Kurz, "Faster Remainder by Direct
// Computation", 2019): with M = ceil(2^128 / d), x mod d is the high 64
// bits of (M·x mod 2^128)·d. It is exact for every 64-bit x and d ≥ 1.
type fastMod struct {
	d      uint64
	mhi    uint64
	mlo    uint64
	isPow2 bool
}

func newFastMod(d uint64) fastMod {
	if d&(d-1) == 0 {
		return fastMod{d: d, isPow2: true}
	}
	// M = floor((2^128 − 1) / d) + 1, which is ceil(2^128 / d) since d is
	// not a power of two.
	qhi := ^uint64(0) / d
	r := ^uint64(0) % d
	qlo, _ := bits.Div64(r, ^uint64(0), d)
	lo, carry := bits.Add64(qlo, 1, 0)
	return fastMod{d: d, mhi: qhi + carry, mlo: lo}
}

// mod returns x mod d.
func (f fastMod) mod(x uint64) uint64 {
	if f.isPow2 {
		return x & (f.d - 1)
	}
	// low = M·x mod 2^128
	h, l := bits.Mul64(f.mlo, x)
	lowHi := f.mhi*x + h
	// (low · d) >> 128
	p1, _ := bits.Mul64(l, f.d)
	q1, q0 := bits.Mul64(lowHi, f.d)
	_, c := bits.Add64(q0, p1, 0)
	return q1 + c
}

// javaAbsMod returns |x % d| with Java's truncating %, for d > 0: the
// remainder of |x| (2^63 for the minimum int64).
func (f fastMod) javaAbsMod(x int64) int64 {
	u := uint64(x)
	if x < 0 {
		u = -u
	}
	return int64(f.mod(u))
}
