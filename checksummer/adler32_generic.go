package checksummer

import "encoding/binary"

// Adler-32 (RFC 1950) of bytes d_0 … d_{n-1}, continuing from a = adler&0xffff
// and b = adler>>16:
//
//	a' = a + Σ d_i                      (mod 65521)
//	b' = b + n·a + Σ (n − i)·d_i        (mod 65521)
//
// Both fast paths (this SWAR one and the assembly) compute, per block, the
// plain sum Σ d_i and the weighted sum Σ (n − i)·d_i in 64-bit integers and
// reduce modulo 65521 once per block. A block is at most adler32Block bytes,
// which keeps n·a + Σ (n − i)·d_i < 255·n² far below 2^64.
const adler32Block = 1 << 20

// adler32Generic updates adler with p in pure Go. It is always compiled, so
// the tests cross-check it on every platform; it is the implementation
// without assembly (other architectures, or the purego tag).
func adler32Generic(adler uint32, p []byte) uint32 {
	if len(p) == 0 {
		return adler
	}
	a, b := uint64(adler&0xffff), uint64(adler>>16)
	for len(p) >= 64 {
		n := min(len(p), adler32Block) &^ 63
		sum, weighted := adler32SumsSWAR(p[:n])
		b = (b + uint64(n)*a + weighted) % adler32Mod
		a = (a + sum) % adler32Mod
		p = p[n:]
	}
	for _, c := range p { // fewer than 64 bytes: no overflow
		a += uint64(c)
		b += a
	}
	return uint32(b%adler32Mod)<<16 | uint32(a%adler32Mod)
}

// adler32SumsSWAR returns Σ d_i and Σ (n − i)·d_i for p, whose length n is a
// multiple of 64, treating each 64-bit word as four 16-bit lanes of even
// bytes and four of odd bytes ("SIMD within a register").
//
// Within a 64-byte chunk of eight words w_0 … w_7, lane sums L (bytes of
// each position) and P = Σ_k (7 − k)·w_k (accumulated by adding L before each
// word) stay below 2^16: L ≤ 8·255, P ≤ 28·255 per lane. The chunk's
// weighted sum relative to its end is 8·ΣP + Σ_j (8 − j)·L_j, where byte
// position j (0 = first in memory = lowest byte, little-endian) weighs
// 8 − j. The horizontal sums are one multiplication each: the top lane of
// v·0x0001000100010001 is the sum of v's lanes, and the top lane of
// v·(c0 | c1<<16 | c2<<32 | c3<<48) is Σ v_i·c_{3−i} (no lane overflows).
// Chunks then combine like bytes: weighted = 64·Σ_c (C − 1 − c)·S_c + Σ_c W_c.
func adler32SumsSWAR(p []byte) (sum, weighted uint64) {
	const (
		lanes    = 0x00ff00ff00ff00ff
		ones     = 0x0001000100010001
		evenW    = 2 | 4<<16 | 6<<32 | 8<<48 // bytes 0, 2, 4, 6 weigh 8, 6, 4, 2
		oddW     = 1 | 3<<16 | 5<<32 | 7<<48 // bytes 1, 3, 5, 7 weigh 7, 5, 3, 1
		topShift = 48
	)
	var s1, pre, ws uint64
	for ; len(p) >= 64; p = p[64:] {
		var le, lo, pe, po uint64
		w := binary.LittleEndian.Uint64(p[0:])
		le, lo = w&lanes, w>>8&lanes
		w = binary.LittleEndian.Uint64(p[8:])
		pe, po = le, lo
		le, lo = le+w&lanes, lo+w>>8&lanes
		w = binary.LittleEndian.Uint64(p[16:])
		pe, po = pe+le, po+lo
		le, lo = le+w&lanes, lo+w>>8&lanes
		w = binary.LittleEndian.Uint64(p[24:])
		pe, po = pe+le, po+lo
		le, lo = le+w&lanes, lo+w>>8&lanes
		w = binary.LittleEndian.Uint64(p[32:])
		pe, po = pe+le, po+lo
		le, lo = le+w&lanes, lo+w>>8&lanes
		w = binary.LittleEndian.Uint64(p[40:])
		pe, po = pe+le, po+lo
		le, lo = le+w&lanes, lo+w>>8&lanes
		w = binary.LittleEndian.Uint64(p[48:])
		pe, po = pe+le, po+lo
		le, lo = le+w&lanes, lo+w>>8&lanes
		w = binary.LittleEndian.Uint64(p[56:])
		pe, po = pe+le, po+lo
		le, lo = le+w&lanes, lo+w>>8&lanes

		chunkSum := (le + lo) * ones >> topShift
		chunkW := 8*((pe+po)*ones>>topShift) + le*evenW>>topShift + lo*oddW>>topShift
		pre += s1
		s1 += chunkSum
		ws += chunkW
	}
	return s1, 64*pre + ws
}
