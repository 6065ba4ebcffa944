package checksummer

//go:generate go run gen_crc32_consts.go

// CRC-32 by carry-less multiplication: the constants of crc32_amd64.s.
//
// Notation (see crc32_poly.go for the reflected bit order). A 128-bit lane
// loaded from 16 message bytes holds the polynomial whose x^127 coefficient
// is bit 0 of the first byte: lane bit i is the coefficient of x^(127-i). Its
// low 64-bit half L (the first 8 bytes) and high half H then satisfy
// lane = L·x^64 + H, each half read with bit j as the coefficient of
// x^(63-j). A multiplier m = x^e mod G is stored as the reflected 32-bit
// polynomial in the low half of a uint64, which read that way is m·x^32.
// PCLMULQDQ of halves a and b yields, read as a lane, x·a·b: so
// clmul(L, x^e mod G) ≡ L·x^(e+33) (mod G), a polynomial of degree ≤ 127
// whose x^0 … x^32 coefficients are zero.
//
// The raw CRC of a message M of n bytes is M·x^32 mod G; zlib's value
// starts by xoring ^prev into the first four bytes and ends with ^. Every
// step below is linear, which is all the kernels rely on.
//
// Folding. A lane whose end lies D bits before the end of another lane
// contributes lane·x^D = L·x^(D+64) + H·x^D, and
//
//	clmul(L, x^(D+31) mod G) ⊕ clmul(H, x^(D-33) mod G)
//
// is congruent to it and fits in one lane, so it can be xored into the later
// lane: eight 512-bit accumulators (32 lanes) move forward by D = 4096 bits
// per 512 bytes read, eight 256-bit ones by D = 2048 per 256 bytes.
//
// Distance multipliers. The short path does not fold step by step: every
// lane goes straight to the end. Lane k lanes before the last one (k = 0 for
// the last) contributes lane·x^(128k)·x^64 to W = M·x^64 (mod G), that is
//
//	clmul(L, x^(128k+95) mod G) ⊕ clmul(H, x^(128k+31) mod G)
//
// (for k = 0 the second multiplier is x^31, a plain move of H). All lanes
// are multiplied at once, then xored together: the critical path is one
// multiplication deep instead of one per folding step. The table lists
// lanes k = 63 … 0, so the 512-bit vector j of a run of N vectors ending at
// the end of the message (distance N−1−j vectors) finds its four pairs at
// 64·j bytes from crc32DistEnd − 64·N, and a 256-bit vector likewise at
// 32·j from crc32DistEnd − 32·N.
//
// Seed. zlib's convention xors ^prev into the first four message bytes,
// which adds prev'·x^(8n) to the raw CRC of an n-byte message (prev' =
// ^prev): in W that is prev'·x^(8n+32), the product of prev' placed in the
// high half of a 64-bit operand (there it reads as prev' itself) and
// x^(8n-1) mod G in the low half of the other. The long path xors the
// seed into the first vector; the short path multiplies it apart by
// crc32SeedConsts[n], in parallel with everything else, so the first
// vector's products need not wait for it, and the seed can sit anywhere,
// even past the first vector or beyond a message shorter than four bytes.
//
// Reduction. W is a sum of such products, so it has degree ≤ 127 with
// x^0 … x^32 zero: Z = W / x^32 is a polynomial of degree ≤ 95 with
// Z ≡ M·x^32, whose remainder mod G is the raw CRC. Write Z = A·x^32 + B
// (A is W's low 64-bit half, B its third 32-bit word). Barrett: with
// µ = floor(x^96 / G) the quotient is floor(A·µ / x^64), exactly (the
// error term A·(x^96 mod G) has degree < 96). The kernel multiplies A by
// floor(x^95 / G) — PCLMULQDQ's extra factor x makes that A·µ up to a term
// of degree < 64, which the floor drops — and keeps the low half q. Then
// clmul(q, G·x^31) ≡ q·G·x^32, xored into W, leaves Z mod G in W's third
// 32-bit word. Three multiplications on the path after the sum (one fold of
// L — here part of the distance products — and two for Barrett).
//
// All values come from gen_crc32_consts.go, which needs nothing but G;
// TestCRC32FoldConsts recomputes them with mulModBitwise and checks the
// whole method on a pure-Go model of the kernels.

// Layout of crc32FoldConsts, in uint64 words.
const (
	// crc32DistLanes is the number of 128-bit lanes with distance
	// multipliers: 64, enough for sixteen 512-bit vectors.
	crc32DistLanes = 64
	// crc32DistEnd is the word index just past the distance table: the
	// pair of lane k = 0 is at crc32DistEnd−2.
	crc32DistEnd = 2 * crc32DistLanes
	// crc32Fold4096 is the index of the pair folding across 4096 bits.
	crc32Fold4096 = crc32DistEnd
	// crc32Fold2048 is the index of the pair folding across 2048 bits.
	crc32Fold2048 = crc32DistEnd + 2
	// crc32BarrettConsts is the index of floor(x^95/G) and G·x^31.
	crc32BarrettConsts = crc32DistEnd + 4
	// crc32ConstsLen is the length of the table.
	crc32ConstsLen = crc32DistEnd + 6
	// crc32SeedLen is the length of crc32SeedConsts: one more than the
	// longest input of the short path (1024 bytes of vectors and up to three
	// leading bytes folded into the seed).
	crc32SeedLen = 1028
)
