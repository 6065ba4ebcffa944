package sstables

import (
	"encoding/binary"
	"math/bits"
	"slices"
)

// HyperLogLog++ cardinality bytes of Statistics.db (stream-lib 2.5.2's
// HyperLogLogPlus(p=13, sp=25), the library Cassandra 2.2 and 3.x bundle),
// fed with Hash2_64 of every partition key in write order.
//
// Serialized form (getBytes; big-endian i32, LEB128 varints):
//
//	i32     -2                       version marker (FF FF FF FE)
//	varint  p = 13 ; varint sp = 25
//	varint  format                   1 = SPARSE, 0 = NORMAL
//	SPARSE: varint S ; S × varint (k_i − k_{i−1}) as a wrapping 32-bit int, k_{−1} = 0
//	NORMAL: varint 5464 (byte length) ; 1366 × i32 words of 5-bit registers,
//	        register r in word r/6 at bit 5·(r mod 6)
//	varint = unsigned LEB128 of a 32-bit value (7 bits per byte, low group first)
//
// Sparse encoding of a hash x (all k are Java ints, overflow included):
// idx' = x >>> 39 (top 25 bits); when the low 12 bits of idx' are zero,
// rl = nlz64((x << 13) | 0x1000) + 1 and k = ((idx' << 6 | (rl ^ 63)) << 1) | 1,
// otherwise k = idx' << 1. sparseIndex(k) = k >>> 7 for odd k, k >>> 1 for
// even k. Offered values collect in a temporary list; when it holds 1537
// (more than 8192·0.75/4) it is sorted by (sparseIndex, k << 19 signed) and
// merged into the sparse list (see merge); a sparse list of more than 6144
// entries converts to NORMAL, whose registers take the maximum rank:
// register x >>> 51 with rank nlz64((x << 13) | 0x1000) + 1, or, from a
// sparse k, register sparseIndex >>> 12 with rank ((k >>> 1) & 63) ^ 63
// (odd k) or nlz32(k << 19) + 1 (even k). Registers are updated with
// stream-lib's unmasked int arithmetic, reproduced exactly.
const (
	hllP              = 13
	hllSP             = 25
	hllRegisters      = 1 << hllP
	hllWords          = hllRegisters/6 + 1 // RegisterSet.getSizeForCount(8192) = 1366
	hllSparseMax      = hllRegisters * 3 / 4
	hllTempMax        = hllSparseMax / 4 // merge when the temp list holds more
	hllVersion        = -2
	hllFormatNormal   = 0
	hllFormatSparse   = 1
	maxHLLVarintBytes = 5
)

// HyperLogLog is stream-lib 2.5.2's HyperLogLogPlus(13, 25), kept to
// reproduce its serialization byte for byte. The zero value is an empty
// sparse estimator. Offer does not allocate in steady state.
type HyperLogLog struct {
	temp      []int32
	sparse    []int32
	scratch   []int32
	registers []int32 // non-nil once NORMAL
}

// NewHyperLogLog returns an empty estimator.
func NewHyperLogLog() *HyperLogLog { return &HyperLogLog{} }

// OfferKey offers Hash2_64(key, 0).
func (h *HyperLogLog) OfferKey(key []byte) { h.Offer(Hash2_64(key, 0)) }

// Offer offers one 64-bit hash.
func (h *HyperLogLog) Offer(x uint64) {
	if h.registers != nil {
		h.updateRegister(int(x>>(64-hllP)), int32(bits.LeadingZeros64(x<<hllP|1<<(hllP-1))+1))
		return
	}
	if h.temp == nil {
		h.temp = make([]int32, 0, hllTempMax+1)
	}
	h.temp = append(h.temp, encodeSparse(x))
	if len(h.temp) > hllTempMax {
		h.mergeTemp()
	}
}

func encodeSparse(x uint64) int32 {
	idx := int32(x >> (64 - hllSP))
	if idx<<(32-hllSP+hllP) == 0 {
		rl := int32(bits.LeadingZeros64(x<<hllP|1<<(hllP-1)) + 1)
		return ((idx<<6 | (rl ^ 63)) << 1) | 1
	}
	return idx << 1
}

func sparseIndex(k int32) int32 {
	if k&1 == 1 {
		return int32(uint32(k) >> 7)
	}
	return int32(uint32(k) >> 1)
}

// updateRegister is RegisterSet.updateIfGreater with its int arithmetic:
// the value is neither masked nor range-checked.
func (h *HyperLogLog) updateRegister(pos int, value int32) {
	bucket := pos / 6
	shift := uint(5 * (pos - bucket*6))
	mask := int32(0x1f) << shift
	cur := int64(h.registers[bucket] & mask)
	nv := int64(value << shift)
	if cur < nv {
		h.registers[bucket] = (h.registers[bucket] &^ mask) | int32(nv)
	}
}

// mergeTemp sorts the temporary list and merges it into the sparse list
// the way stream-lib 2.5.2 does, converting to NORMAL when the list grows
// past 6144 entries.
func (h *HyperLogLog) mergeTemp() {
	if len(h.temp) == 0 {
		return
	}
	t := h.temp
	slices.SortFunc(t, func(a, b int32) int {
		if sa, sb := sparseIndex(a), sparseIndex(b); sa != sb {
			if sa < sb {
				return -1
			}
			return 1
		}
		a19, b19 := a<<19, b<<19
		switch {
		case a19 < b19:
			return -1
		case a19 > b19:
			return 1
		}
		return 0
	})
	s := h.sparse
	out := h.scratch[:0]
	si, ti := 0, 0
	skipDups := func(idx int32) {
		for ti < len(t) && sparseIndex(t[ti]) == idx {
			ti++
		}
	}
	for si < len(s) || ti < len(t) {
		switch {
		case si >= len(s):
			v := t[ti]
			out = append(out, v)
			ti++
			skipDups(sparseIndex(v))
		case ti >= len(t):
			out = append(out, s[si])
			si++
		default:
			sv, tv := s[si], t[ti]
			si1, ti1 := sparseIndex(sv), sparseIndex(tv)
			switch {
			case si1 == ti1:
				out = append(out, min(sv, tv))
				ti++
				skipDups(ti1)
				si++
			case sv < tv:
				out = append(out, sv)
				si++
			default:
				out = append(out, tv)
				ti++
				skipDups(ti1)
			}
		}
	}
	h.scratch, h.sparse = s[:0], out
	h.temp = h.temp[:0]
	if len(h.sparse) > hllSparseMax {
		h.toNormal()
	}
}

func (h *HyperLogLog) toNormal() {
	h.registers = make([]int32, hllWords)
	for _, k := range h.sparse {
		idx := int(uint32(sparseIndex(k)) >> (hllSP - hllP))
		var r int32
		if k&1 == 1 {
			r = int32(uint32(k)>>1&63) ^ 63
		} else {
			r = int32(bits.LeadingZeros32(uint32(k)<<(hllP+31-hllSP)) + 1)
		}
		h.updateRegister(idx, r)
	}
	h.sparse, h.scratch, h.temp = nil, nil, nil
}

// Normal reports whether the estimator switched to the NORMAL format.
func (h *HyperLogLog) Normal() bool { return h.registers != nil }

// AppendTo appends the serialized estimator (merging pending values first,
// as getBytes does).
func (h *HyperLogLog) AppendTo(dst []byte) []byte {
	if h.registers == nil {
		h.mergeTemp()
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(0xFFFFFFFE)) // -2
	dst = binary.AppendUvarint(dst, hllP)
	dst = binary.AppendUvarint(dst, hllSP)
	if h.registers != nil {
		dst = binary.AppendUvarint(dst, hllFormatNormal)
		dst = binary.AppendUvarint(dst, uint64(4*len(h.registers)))
		for _, w := range h.registers {
			dst = binary.BigEndian.AppendUint32(dst, uint32(w))
		}
		return dst
	}
	dst = binary.AppendUvarint(dst, hllFormatSparse)
	dst = binary.AppendUvarint(dst, uint64(len(h.sparse)))
	var prev int32
	for _, k := range h.sparse {
		dst = binary.AppendUvarint(dst, uint64(uint32(k-prev)))
		prev = k
	}
	return dst
}

// ParseHyperLogLog decodes a serialized estimator of this layout (p = 13,
// sp = 25), so that it can be re-serialized unchanged or offered more
// values. path and c name the file in errors and base is the blob's file
// offset.
func ParseHyperLogLog(b []byte, path string, c Component, base int64) (*HyperLogLog, error) {
	r := NewByteReader(b, path, c, base)
	if v := r.I32(); r.Err() == nil && v != hllVersion {
		r.FailAt(base, "HyperLogLog version %d, want %d", v, hllVersion)
	}
	varint := func(what string) uint32 {
		off := r.Offset()
		rest := r.Rest()
		v, n := binary.Uvarint(rest)
		if r.Err() == nil && (n <= 0 || n > maxHLLVarintBytes || v > 0xFFFFFFFF) {
			r.FailAt(off, "bad varint for the HyperLogLog %s", what)
			return 0
		}
		r.Skip(n)
		return uint32(v)
	}
	if p, sp := varint("p"), varint("sp"); r.Err() == nil && (p != hllP || sp != hllSP) {
		r.Fail("HyperLogLog p=%d sp=%d, want p=%d sp=%d", p, sp, hllP, hllSP)
	}
	format := varint("format")
	h := &HyperLogLog{}
	switch {
	case r.Err() != nil:
	case format == hllFormatNormal:
		if n := varint("register length"); r.Err() == nil && n != 4*hllWords {
			r.Fail("HyperLogLog register array of %d bytes, want %d", n, 4*hllWords)
		}
		h.registers = make([]int32, hllWords)
		for i := range h.registers {
			h.registers[i] = r.I32()
		}
	case format == hllFormatSparse:
		off := r.Offset()
		n := varint("sparse count")
		if r.Err() == nil && (n > hllSparseMax || int(n) > r.Remaining()) {
			r.FailAt(off, "HyperLogLog sparse count %d out of range", n)
			break
		}
		h.sparse = make([]int32, n)
		var prev int32
		for i := range h.sparse {
			prev += int32(varint("sparse delta"))
			h.sparse[i] = prev
		}
	default:
		r.Fail("HyperLogLog format %d", format)
	}
	if r.Err() == nil && r.Remaining() != 0 {
		r.Fail("%d bytes after the HyperLogLog", r.Remaining())
	}
	if err := r.Err(); err != nil {
		return nil, err
	}
	return h, nil
}
