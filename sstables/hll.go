package sstables

import (
	"encoding/binary"
	"fmt"
	"math"
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
// merged into the sparse list (see mergeTemp: its comparisons are of the
// raw ints, so a list holding an odd k is neither sorted nor free of
// duplicate indexes, which Cassandra's files show); when that merge leaves
// more than 6144 entries the estimator converts to NORMAL. Serializing and
// estimating merge the temporary list without converting, so a serialized
// sparse list holds up to 6144 + 1536 entries (a flush of 6145 to 6147
// keys is usually one). NORMAL registers take the maximum rank:
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
// reproduce its serialization, merges (Merge, MergeHyperLogLogs) and
// estimate (Cardinality) bit for bit. The zero value is an empty sparse
// estimator. Offer does not allocate in steady state. A HyperLogLog is not
// safe for concurrent use; Cardinality and Merge, like stream-lib's, may
// merge pending values into the sparse list.
type HyperLogLog struct {
	temp      []int32
	sparse    []int32
	scratch   []int32
	registers []int32 // non-nil once NORMAL
	spare     []int32 // the registers before a Reset, for the next toNormal
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
		// offerHashed: only a merge the full temporary list forces
		// converts; getBytes and cardinality merge without converting.
		h.mergeTemp()
		if len(h.sparse) > hllSparseMax {
			h.toNormal()
		}
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

// sparseRank is decodeRunLength: the rank a sparse entry gives its
// register.
func sparseRank(k int32) int32 {
	if k&1 == 1 {
		return int32(uint32(k)>>1&63) ^ 63
	}
	return int32(bits.LeadingZeros32(uint32(k)<<(hllP+31-hllSP)) + 1)
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

// mergeTemp is mergeTempList: it sorts the temporary list and merges it
// into the sparse list the way stream-lib 2.5.2 does. It never converts to
// NORMAL, so a sparse list may hold up to 6144 + 1536 entries.
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
}

// toNormal is convertToNormal: pending values are merged first, then every
// sparse entry updates its register.
func (h *HyperLogLog) toNormal() {
	h.mergeTemp()
	if cap(h.spare) >= hllWords {
		h.registers, h.spare = h.spare[:hllWords], nil
		clear(h.registers)
	} else {
		h.registers = make([]int32, hllWords)
	}
	for _, k := range h.sparse {
		h.updateRegister(int(uint32(sparseIndex(k))>>(hllSP-hllP)), sparseRank(k))
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
// sp = 25), so that it can be re-serialized unchanged, offered more values,
// merged or estimated. path and c name the file in errors and base is the
// blob's file offset. It is stricter than stream-lib's
// HyperLogLogPlus.Builder.build, which also takes other precisions, a
// register array of another length and bytes after the sketch: such input
// is a CorruptionError here, as is a sparse entry whose index does not fit
// in 25 bits (stream-lib fails on it only once it converts to NORMAL).
func ParseHyperLogLog(b []byte, path string, c Component, base int64) (*HyperLogLog, error) {
	d := decodeHLL(b, path, c, base)
	switch {
	case d.err != nil:
		return nil, d.err
	case d.h == nil:
		return nil, Corruptf(path, string(c), base, "%s", d.unmodeled)
	case d.normal && d.registerBytes != 4*hllWords:
		return nil, Corruptf(path, string(c), d.registersAt, "HyperLogLog register array of %d bytes, want %d", d.registerBytes, 4*hllWords)
	case d.end != len(b):
		return nil, Corruptf(path, string(c), base+int64(d.end), "%d bytes after the HyperLogLog", len(b)-d.end)
	}
	return d.h, nil
}

// hllFailure says how stream-lib 2.5.2's HyperLogLogPlus.Builder.build
// fails on a sketch, which decides what SSTableReader.getApproximateKeyCount
// does with it.
type hllFailure int

const (
	// hllEOF: the bytes end before the sketch does (an EOFException, an
	// IOException).
	hllEOF hllFailure = iota + 1
	// hllRuntime: a RuntimeException (a varint of more than 6 bytes, a
	// negative array length, a precision the constructor refuses, a sparse
	// index out of range).
	hllRuntime
)

// hllDecoded is a serialized sketch as stream-lib 2.5.2 reads it.
type hllDecoded struct {
	// h is the sketch when castable models it (p = 13, sp = 25, a
	// register array of at least 1366 words); nil otherwise.
	h *HyperLogLog
	// unmodeled says why h is nil when the sketch is otherwise readable.
	unmodeled string
	// p is the precision stored; javaWords is the length of stream-lib's
	// register array, HyperLogLogPlus.sizeof() / 4, which merge compares
	// (-1: not known, the legacy encoding is not read).
	p         int32
	javaWords int
	// words4 are the registers of a NORMAL sketch of precision 4 (what
	// ScyllaDB writes), which castable estimates only alone.
	words4 []int32
	// sp is the sparse precision stored.
	sp int32
	// normal reports the NORMAL format; registerBytes and registersAt are
	// its register array's stored length and file offset.
	normal        bool
	registerBytes int
	registersAt   int64
	// end is the offset in the blob after the sketch.
	end int
	// err is a CorruptionError naming what build fails on, and failure
	// how it fails.
	err     error
	failure hllFailure
}

// decodeHLL reads b the way HyperLogLogPlus.Builder.build (decodeBytes)
// of stream-lib 2.5.2 does: big-endian version int (negative: this
// encoding), varints p, sp and format (0 NORMAL, any other SPARSE), then
// the register array or the sparse deltas; bytes after the sketch are left
// unread. Its varints are Varint.readUnsignedVarInt, int arithmetic
// included: up to 6 bytes, the shift taken modulo 32.
func decodeHLL(b []byte, path string, c Component, base int64) (d hllDecoded) {
	pos := 0
	fail := func(f hllFailure, at int, format string, args ...any) hllDecoded {
		return hllDecoded{err: Corruptf(path, string(c), base+int64(at), format, args...), failure: f}
	}
	varint := func() (int32, hllFailure) {
		var v int32
		for i := uint(0); ; i += 7 {
			if pos >= len(b) {
				return 0, hllEOF
			}
			x := int32(b[pos])
			pos++
			if x&0x80 == 0 {
				return v | x<<(i&31), 0
			}
			v |= (x & 0x7f) << (i & 31)
			if i+7 > 35 {
				return 0, hllRuntime
			}
		}
	}
	if len(b) < 4 {
		return fail(hllEOF, 0, "truncated: the HyperLogLog needs 4 bytes, %d there", len(b))
	}
	if v := int32(binary.BigEndian.Uint32(b)); v >= 0 {
		// legacyDecode: an encoding older than any Cassandra release's.
		return hllDecoded{unmodeled: fmt.Sprintf("HyperLogLog version %d, want %d", v, hllVersion), javaWords: -1}
	}
	pos = 4
	var head [3]int32
	for i, what := range []string{"p", "sp", "format"} {
		at := pos
		v, f := varint()
		if f != 0 {
			return fail(f, at, "bad varint for the HyperLogLog %s", what)
		}
		head[i] = v
	}
	p, sp, format := head[0], head[1], head[2]
	d.p, d.sp = p, sp
	if format == hllFormatNormal {
		at := pos
		n, f := varint()
		switch {
		case f != 0:
			return fail(f, at, "bad varint for the HyperLogLog register length")
		case n < 0:
			return fail(hllRuntime, at, "HyperLogLog register array of %d bytes", n)
		case int(n) > len(b)-pos:
			return fail(hllEOF, at, "truncated: the HyperLogLog register array of %d bytes has %d", n, len(b)-pos)
		}
		d.normal, d.registerBytes, d.registersAt = true, int(n), base+int64(pos)
		d.javaWords = int(n) / 4
		regs := b[pos : pos+int(n)]
		pos += int(n)
		if f := hllCheckPrecision(p, sp); f != "" {
			return fail(hllRuntime, 4, "%s", f)
		}
		d.end = pos
		if p != hllP || sp != hllSP {
			d.unmodeled = fmt.Sprintf("HyperLogLog p=%d sp=%d, castable models p=%d sp=%d", p, sp, hllP, hllSP)
			if p == 4 && d.javaWords >= 3 {
				// ScyllaDB's: estimated alone as Cassandra estimates it.
				d.words4 = make([]int32, d.javaWords)
				for i := range d.words4 {
					d.words4[i] = int32(binary.BigEndian.Uint32(regs[4*i:]))
				}
			}
			return d
		}
		if d.javaWords < hllWords {
			// cardinality() and merges read 1366 words: stream-lib fails
			// with an ArrayIndexOutOfBoundsException.
			d.unmodeled = fmt.Sprintf("HyperLogLog register array of %d bytes, want %d", n, 4*hllWords)
			return d
		}
		h := &HyperLogLog{registers: make([]int32, hllWords)}
		for i := range h.registers {
			h.registers[i] = int32(binary.BigEndian.Uint32(regs[4*i:]))
		}
		d.h = h
		return d
	}
	at := pos
	n, f := varint()
	switch {
	case f != 0:
		return fail(f, at, "bad varint for the HyperLogLog sparse count")
	case n < 0:
		return fail(hllRuntime, at, "HyperLogLog sparse count %d", n)
	case int(n) > len(b)-pos:
		// Every entry takes at least one byte.
		return fail(hllEOF, at, "truncated: the HyperLogLog sparse count %d exceeds the %d bytes left", n, len(b)-pos)
	}
	sparse := make([]int32, n)
	var prev int32
	wild := -1
	for i := range sparse {
		at := pos
		v, f := varint()
		if f != 0 {
			return fail(f, at, "bad varint for the HyperLogLog sparse entry %d", i)
		}
		prev += v
		sparse[i] = prev
		if wild < 0 && uint32(sparseIndex(prev)) >= 1<<hllSP {
			wild = at
		}
	}
	if f := hllCheckPrecision(p, sp); f != "" {
		return fail(hllRuntime, 4, "%s", f)
	}
	d.end = pos
	d.javaWords = hllJavaWords(p)
	if p != hllP || sp != hllSP {
		d.unmodeled = fmt.Sprintf("HyperLogLog p=%d sp=%d, castable models p=%d sp=%d", p, sp, hllP, hllSP)
		return d
	}
	if wild >= 0 {
		return fail(hllRuntime, wild, "HyperLogLog sparse entry with an index beyond %d bits", hllSP)
	}
	d.h = &HyperLogLog{sparse: sparse}
	return d
}

// hllCheckPrecision is the HyperLogLogPlus constructor's check; it returns
// what it throws an IllegalArgumentException for, or "".
func hllCheckPrecision(p, sp int32) string {
	switch {
	case p < 4 || (p > sp && sp != 0):
		return fmt.Sprintf("HyperLogLog p=%d sp=%d: p must be between 4 and sp", p, sp)
	case sp > 32:
		return fmt.Sprintf("HyperLogLog sp=%d greater than 32", sp)
	}
	return ""
}

// hllJavaWords is the length of the RegisterSet stream-lib 2.5.2 allocates
// for precision p: RegisterSet((int) Math.pow(2, p)).
func hllJavaWords(p int32) int {
	var count int64 // (int) of a double: 2^p saturates, 2^-n truncates to 0
	switch {
	case p >= 31:
		count = math.MaxInt32
	case p >= 0:
		count = 1 << p
	}
	bits := count / 6
	switch {
	case bits == 0:
		return 1
	case bits%32 == 0:
		return int(bits)
	}
	return int(bits) + 1
}
