package compress

import (
	"encoding/binary"
	"math/bits"
)

// The fast compressors of old LZ4 releases in Go: r123's
// (LZ4_compress_limitedOutput), the one lz4-java 1.3.0 and 1.4.x bundle and
// so the one Cassandra 2.2, 3.0 and 3.11 write with, and r100's (lz4-java
// 1.2.0: Cassandra 2.1). Written from the algorithm of lz4.c r123 and
// lz4_encoder.h r100 (BSD 2-Clause, see LICENSES/lz4.txt); lz4-java's
// pure-Java compressor of 1.3.0 (and of every later release) follows r123's
// steps and emits the same bytes.
//
// It differs from today's LZ4_compress_fast (acceleration 1, liblz4 1.8.2
// on, which lz4-java 1.5+ binds and Cassandra 4.0+ writes with) in two
// ways:
//
//   - The match search stops one position earlier. r123 gives up once the
//     next position to probe passes mflimit (12 bytes before the end), so
//     the last position it probes is mflimit−step; liblz4 1.8.2 (commit
//     "edge case: compress up to end-mflimit (12 bytes)") probes up to
//     mflimit+1−step. A block whose best last match starts there (at most
//     7 bytes long, since the last 5 bytes are literals) is a few bytes
//     longer from r123, and the rest of the block is the same.
//   - Inputs of LZ4_64Klimit (64 KiB + 11) bytes or more hash 4 bytes into
//     a table of 4,096 positions; liblz4 1.7.3 on hashes 5 bytes there on
//     64-bit machines. Smaller inputs hash 4 bytes into 8,192 16-bit
//     positions in both.
//
// Everything else (skip strength 6, the catch-up, "fill table" at ip−2,
// "test next position", the 5 last literals) is common to both.
//
// r100 is r123 but for when the search starts probing further apart: its
// attempt counter starts at 2^6+3 and is read before the probe, so a run
// without a match reaches step 2 after 61 probes where r123 takes 65
// (r123 reads it after the probe, from 2^6, with a first step of 1). The
// counter's start is all that tells them apart here.
const (
	r123MinMatch     = 4
	r123LastLiterals = 5
	r123MFLimit      = 12                       // COPYLENGTH + MINMATCH
	r123MinLength    = r123MFLimit + 1          // shorter inputs are all literals
	r123Limit64K     = 64<<10 + r123MFLimit - 1 // LZ4_64KLIMIT
	r123HashLog      = 12                       // LZ4_MEMORY_USAGE 14 − 2
	r123SkipStrength = 6
	r123Attempts     = 1 << r123SkipStrength   // r123's first search attempt count
	r100Attempts     = 1<<r123SkipStrength + 4 // r100's, in r123's counting
	r123MaxDistance  = 1<<16 - 1
	r123Prime        = 2654435761
)

// lz4Legacy is the r123 (or r100) encoder's state: its hash tables,
// cleared before every block as lz4.c clears its stack state (the byU32
// one uses its first 2^12 entries; both are of one size so that a masked
// index needs no bounds check), and the release's first attempt count.
type lz4Legacy struct {
	small    [legacyTableSize]uint16 // byU16, inputs below r123Limit64K
	large    [legacyTableSize]uint32 // byU32
	attempts int                     // r123Attempts or r100Attempts
}

const legacyTableSize = 1 << (r123HashLog + 1)

// encode writes the raw LZ4 block of src to dst, which has room for
// lz4BlockBound(len(src)) bytes, and returns its length.
func (e *lz4Legacy) encode(dst, src []byte) (int, error) {
	if len(src) > lz4MaxInput || len(dst) < lz4BlockBound(len(src)) {
		return 0, errLZ4Output
	}
	if len(src) < r123Limit64K {
		clear(e.small[:])
		return legacyBlock(&e.small, 32-(r123HashLog+1), e.attempts, dst, src), nil
	}
	clear(e.large[:1<<r123HashLog])
	return legacyBlock(&e.large, 32-r123HashLog, e.attempts, dst, src), nil
}

// legacyBlock is LZ4_compress_generic of r123 without a dictionary, for
// both table types: positions in a table whose hash has 32−shift bits (all
// zero on entry: every slot first points at position 0, as r123's zeroed
// table does); attempts0 is the search's first attempt count. A uint16
// table holds every position it is asked to, because it is only used for
// inputs of fewer than 64 KiB + 11 bytes, whose probed positions end 12
// bytes before the end.
func legacyBlock[T uint16 | uint32](table *[legacyTableSize]T, shift uint, attempts0 int, dst, src []byte) int {
	n := len(src)
	op, anchor := 0, 0
	if n >= r123MinLength {
		in := newLZ4Src(src)
		shift &= 31
		mflimit := n - r123MFLimit
		matchLimit := n - r123LastLiterals
		// Every position hashed is at most mflimit: 4 bytes can be read.
		table[in.load32(src, 0)*r123Prime>>shift%legacyTableSize] = 0
		ip := 1
		forwardH := in.load32(src, 1) * r123Prime >> shift
	search:
		for {
			// Find a match, probing further apart the longer none is
			// found.
			forwardIP := ip
			step, attempts := 1, attempts0
			var ref int
			for {
				h := forwardH % legacyTableSize
				ip = forwardIP
				forwardIP += step
				step = attempts >> r123SkipStrength
				attempts++
				if forwardIP > mflimit {
					break search
				}
				ref = int(table[h])
				forwardH = in.load32(src, forwardIP) * r123Prime >> shift
				table[h] = T(ip)
				if ip-ref <= r123MaxDistance && in.load32(src, ref) == in.load32(src, ip) {
					break
				}
			}
			// Catch up: extend the match backwards over the literals.
			for ip > anchor && ref > 0 && src[ip-1] == src[ref-1] {
				ip--
				ref--
			}
			token := op
			if lits := ip - anchor; lits < 15 && anchor+16 <= n && op+17 <= len(dst) {
				// A short run: one token and 16 bytes copied, of which
				// the next writes overwrite what is not literals.
				dst[op] = byte(lits << 4)
				copy(dst[op+1:op+17], src[anchor:anchor+16])
				op += 1 + lits
			} else {
				op = r123Literals(dst, op+1, token, src[anchor:ip])
			}
			for {
				// The match: offset, then its length beyond MINMATCH.
				binary.LittleEndian.PutUint16(dst[op:], uint16(ip-ref))
				op += 2
				ml := r123Count(in, src, ip+r123MinMatch, ref+r123MinMatch, matchLimit)
				ip += r123MinMatch + ml
				if ml >= 15 {
					dst[token] |= 15
					op = r123Length(dst, op, ml-15)
				} else {
					dst[token] |= byte(ml)
				}
				anchor = ip
				if ip > mflimit {
					break search
				}
				table[in.load32(src, ip-2)*r123Prime>>shift%legacyTableSize] = T(ip - 2)
				// Test the position right after the match.
				h := in.load32(src, ip) * r123Prime >> shift % legacyTableSize
				ref = int(table[h])
				table[h] = T(ip)
				if ip-ref > r123MaxDistance || in.load32(src, ref) != in.load32(src, ip) {
					break
				}
				token = op
				dst[token] = 0
				op++
			}
			ip++
			forwardH = in.load32(src, ip) * r123Prime >> shift
		}
	}
	// The last literals: a token with no match.
	return r123Literals(dst, op+1, op, src[anchor:])
}

// r123Literals writes the literal length of lits into the token at
// dst[token] (its high nibble, the rest of the token zero) and after it
// from op, then lits, and returns the offset after them.
func r123Literals(dst []byte, op, token int, lits []byte) int {
	if n := len(lits); n >= 15 {
		dst[token] = 15 << 4
		op = r123Length(dst, op, n-15)
	} else {
		dst[token] = byte(n << 4)
	}
	return op + copy(dst[op:], lits)
}

// r123Length writes the bytes of a length's extension (255 while at least
// 255 remain, then the rest) from op and returns the offset after them.
func r123Length(dst []byte, op, n int) int {
	for ; n >= 255; n -= 255 {
		dst[op] = 255
		op++
	}
	dst[op] = byte(n)
	return op + 1
}

// r123Count returns how many bytes from src[p] equal those from src[ref]
// (ref < p), stopping at limit, as LZ4_count does.
func r123Count(in lz4Src, src []byte, p, ref, limit int) int {
	start := p
	for p+8 <= limit {
		if x := in.load64(src, p) ^ in.load64(src, ref); x != 0 {
			return p - start + bits.TrailingZeros64(x)>>3
		}
		p += 8
		ref += 8
	}
	for p < limit && src[p] == src[ref] {
		p++
		ref++
	}
	return p - start
}
