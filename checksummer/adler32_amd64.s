//go:build amd64 && !purego

#include "textflag.h"

// Adler-32 block sums with AVX2 and AVX-512BW (see adler32_generic.go for
// the arithmetic). Each kernel returns, for p of n bytes,
//
//	sum      = Σ d_i
//	weighted = Σ (n − i)·d_i
//
// Data is read in units of V bytes (V = 32 for AVX2, 64 for AVX-512), two
// units per loop iteration. With S_u the byte sum of unit u (of U units),
//
//	weighted = V·Σ_u (U − 1 − u)·S_u + Σ_u Σ_j (V − j)·d_{u,j}
//
// The first term is accumulated without multiplications: P += S1 before
// each pair (S1 = byte sums so far, from VPSADBW, 64-bit lanes), plus
// H = Σ S of the first unit of every pair, since Σ_u (U−1−u)·S_u =
// 2·P + H. The second term is VPMADDUBSW (bytes × weights V..1, pairs
// summed into 16-bit lanes: at most 255·(64+63) = 32385, no saturation)
// then VPMADDWD by ones into 32-bit lanes, summed in two accumulators.
// A trailing single unit is added after the loop. For n ≤ 1 MiB
// (adler32Block) no 32-bit lane exceeds 2^31 and no 64-bit lane overflows;
// the caller reduces modulo 65521.

// adler32Weights holds the bytes 64, 63, …, 1; its second half is 32 … 1.
DATA adler32Weights<>+0(SB)/8, $0x393a3b3c3d3e3f40
DATA adler32Weights<>+8(SB)/8, $0x3132333435363738
DATA adler32Weights<>+16(SB)/8, $0x292a2b2c2d2e2f30
DATA adler32Weights<>+24(SB)/8, $0x2122232425262728
DATA adler32Weights<>+32(SB)/8, $0x191a1b1c1d1e1f20
DATA adler32Weights<>+40(SB)/8, $0x1112131415161718
DATA adler32Weights<>+48(SB)/8, $0x090a0b0c0d0e0f10
DATA adler32Weights<>+56(SB)/8, $0x0102030405060708
GLOBL adler32Weights<>(SB), RODATA|NOPTR, $64

// func adler32SumsAVX2(p []byte) (sum, weighted uint64)
// len(p) is a non-zero multiple of 32, at most adler32Block.
TEXT ·adler32SumsAVX2(SB), NOSPLIT, $0-40
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), CX

	VPXOR   Y2, Y2, Y2                        // zero, for VPSADBW
	VMOVDQU adler32Weights<>+32(SB), Y3       // 32 … 1
	VPCMPEQW Y4, Y4, Y4
	VPSRLW  $15, Y4, Y4                       // 16-bit ones
	VPXOR   Y5, Y5, Y5                        // S1
	VPXOR   Y6, Y6, Y6                        // P
	VPXOR   Y7, Y7, Y7                        // H
	VPXOR   Y8, Y8, Y8                        // weighted, 32-bit lanes
	VPXOR   Y9, Y9, Y9                        // weighted, second accumulator

	MOVQ CX, DX
	SHRQ $6, DX                               // pairs of 32-byte units
	JZ   avx2Pairs

avx2Loop:
	VMOVDQU    (SI), Y0
	VMOVDQU    32(SI), Y1
	VPADDQ     Y5, Y6, Y6
	VPSADBW    Y2, Y0, Y10
	VPSADBW    Y2, Y1, Y11
	VPADDQ     Y10, Y7, Y7
	VPADDQ     Y10, Y11, Y11
	VPADDQ     Y11, Y5, Y5
	VPMADDUBSW Y3, Y0, Y12
	VPMADDUBSW Y3, Y1, Y13
	VPMADDWD   Y4, Y12, Y12
	VPMADDWD   Y4, Y13, Y13
	VPADDD     Y12, Y8, Y8
	VPADDD     Y13, Y9, Y9
	ADDQ       $64, SI
	DECQ       DX
	JNZ        avx2Loop

avx2Pairs:
	VPADDQ Y6, Y6, Y6                         // P = 2·P + H
	VPADDQ Y7, Y6, Y6
	TESTQ  $32, CX
	JZ     avx2Reduce
	VMOVDQU    (SI), Y0                       // trailing unit
	VPADDQ     Y5, Y6, Y6
	VPSADBW    Y2, Y0, Y10
	VPADDQ     Y10, Y5, Y5
	VPMADDUBSW Y3, Y0, Y12
	VPMADDWD   Y4, Y12, Y12
	VPADDD     Y12, Y8, Y8

avx2Reduce:
	VPADDD Y9, Y8, Y8                         // < 2^32 per lane, unsigned
	VPSRLQ $32, Y8, Y9                        // widen to 64-bit lanes
	VPSLLQ $32, Y8, Y8
	VPSRLQ $32, Y8, Y8
	VPADDQ Y9, Y8, Y8

	VEXTRACTI128 $1, Y5, X10                  // sum
	VPADDQ       X10, X5, X10
	VPSHUFD      $0x4e, X10, X11
	VPADDQ       X11, X10, X10
	VMOVQ        X10, AX

	VEXTRACTI128 $1, Y6, X10                  // P
	VPADDQ       X10, X6, X10
	VPSHUFD      $0x4e, X10, X11
	VPADDQ       X11, X10, X10
	VMOVQ        X10, BX

	VEXTRACTI128 $1, Y8, X10                  // weighted within units
	VPADDQ       X10, X8, X10
	VPSHUFD      $0x4e, X10, X11
	VPADDQ       X11, X10, X10
	VMOVQ        X10, DX

	SHLQ $5, BX                               // weighted = 32·P + Σ
	ADDQ DX, BX
	MOVQ AX, sum+24(FP)
	MOVQ BX, weighted+32(FP)
	VZEROUPPER
	RET

// func adler32SumsAVX512(p []byte) (sum, weighted uint64)
// len(p) is a non-zero multiple of 64, at most adler32Block.
TEXT ·adler32SumsAVX512(SB), NOSPLIT, $0-40
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), CX

	VPXORQ     Z2, Z2, Z2                     // zero, for VPSADBW
	VMOVDQU64  adler32Weights<>(SB), Z3       // 64 … 1
	VPTERNLOGD $0xff, Z4, Z4, Z4
	VPSRLW     $15, Z4, Z4                    // 16-bit ones
	VPXORQ     Z5, Z5, Z5                     // S1
	VPXORQ     Z6, Z6, Z6                     // P
	VPXORQ     Z7, Z7, Z7                     // H
	VPXORQ     Z8, Z8, Z8                     // weighted, 32-bit lanes
	VPXORQ     Z9, Z9, Z9                     // weighted, second accumulator

	MOVQ CX, DX
	SHRQ $7, DX                               // pairs of 64-byte units
	JZ   avx512Pairs

avx512Loop:
	VMOVDQU64  (SI), Z0
	VMOVDQU64  64(SI), Z1
	VPADDQ     Z5, Z6, Z6
	VPSADBW    Z2, Z0, Z10
	VPSADBW    Z2, Z1, Z11
	VPADDQ     Z10, Z7, Z7
	VPADDQ     Z10, Z11, Z11
	VPADDQ     Z11, Z5, Z5
	VPMADDUBSW Z3, Z0, Z12
	VPMADDUBSW Z3, Z1, Z13
	VPMADDWD   Z4, Z12, Z12
	VPMADDWD   Z4, Z13, Z13
	VPADDD     Z12, Z8, Z8
	VPADDD     Z13, Z9, Z9
	ADDQ       $128, SI
	DECQ       DX
	JNZ        avx512Loop

avx512Pairs:
	VPADDQ Z6, Z6, Z6                         // P = 2·P + H
	VPADDQ Z7, Z6, Z6
	TESTQ  $64, CX
	JZ     avx512Reduce
	VMOVDQU64  (SI), Z0                       // trailing unit
	VPADDQ     Z5, Z6, Z6
	VPSADBW    Z2, Z0, Z10
	VPADDQ     Z10, Z5, Z5
	VPMADDUBSW Z3, Z0, Z12
	VPMADDWD   Z4, Z12, Z12
	VPADDD     Z12, Z8, Z8

avx512Reduce:
	VPADDD Z9, Z8, Z8                         // < 2^32 per lane, unsigned
	VPSRLQ $32, Z8, Z9                        // widen to 64-bit lanes
	VPSLLQ $32, Z8, Z8
	VPSRLQ $32, Z8, Z8
	VPADDQ Z9, Z8, Z8

	VEXTRACTI64X4 $1, Z5, Y10                 // sum
	VPADDQ        Y10, Y5, Y10
	VEXTRACTI128  $1, Y10, X11
	VPADDQ        X11, X10, X10
	VPSHUFD       $0x4e, X10, X11
	VPADDQ        X11, X10, X10
	VMOVQ         X10, AX

	VEXTRACTI64X4 $1, Z6, Y10                 // P
	VPADDQ        Y10, Y6, Y10
	VEXTRACTI128  $1, Y10, X11
	VPADDQ        X11, X10, X10
	VPSHUFD       $0x4e, X10, X11
	VPADDQ        X11, X10, X10
	VMOVQ         X10, BX

	VEXTRACTI64X4 $1, Z8, Y10                 // weighted within units
	VPADDQ        Y10, Y8, Y10
	VEXTRACTI128  $1, Y10, X11
	VPADDQ        X11, X10, X10
	VPSHUFD       $0x4e, X10, X11
	VPADDQ        X11, X10, X10
	VMOVQ         X10, DX

	SHLQ $6, BX                               // weighted = 64·P + Σ
	ADDQ DX, BX
	MOVQ AX, sum+24(FP)
	MOVQ BX, weighted+32(FP)
	VZEROUPPER
	RET

// adler32Ramp holds the bytes 63, 62, …, 0 (Σ (127 − t)·d for the first
// vector of a pair is ramp + 64; for the second, the ramp itself).
DATA adler32Ramp<>+0(SB)/8, $0x38393a3b3c3d3e3f
DATA adler32Ramp<>+8(SB)/8, $0x3031323334353637
DATA adler32Ramp<>+16(SB)/8, $0x28292a2b2c2d2e2f
DATA adler32Ramp<>+24(SB)/8, $0x2021222324252627
DATA adler32Ramp<>+32(SB)/8, $0x18191a1b1c1d1e1f
DATA adler32Ramp<>+40(SB)/8, $0x1011121314151617
DATA adler32Ramp<>+48(SB)/8, $0x08090a0b0c0d0e0f
DATA adler32Ramp<>+56(SB)/8, $0x0001020304050607
GLOBL adler32Ramp<>(SB), RODATA|NOPTR, $64

// adler32NegIota holds the bytes 0, −1, …, −63 (signed weights of a tail).
DATA adler32NegIota<>+0(SB)/8, $0xf9fafbfcfdfeff00
DATA adler32NegIota<>+8(SB)/8, $0xf1f2f3f4f5f6f7f8
DATA adler32NegIota<>+16(SB)/8, $0xe9eaebecedeeeff0
DATA adler32NegIota<>+24(SB)/8, $0xe1e2e3e4e5e6e7e8
DATA adler32NegIota<>+32(SB)/8, $0xd9dadbdcdddedfe0
DATA adler32NegIota<>+40(SB)/8, $0xd1d2d3d4d5d6d7d8
DATA adler32NegIota<>+48(SB)/8, $0xc9cacbcccdcecfd0
DATA adler32NegIota<>+56(SB)/8, $0xc1c2c3c4c5c6c7c8
GLOBL adler32NegIota<>(SB), RODATA|NOPTR, $64

// adler32Low32 is 0x00000000ffffffff, for broadcasting.
DATA adler32Low32<>+0(SB)/8, $0x00000000ffffffff
GLOBL adler32Low32<>(SB), RODATA|NOPTR, $8

// adler32Ones holds four bytes of 1, for broadcasting.
DATA adler32Ones<>+0(SB)/4, $0x01010101
GLOBL adler32Ones<>(SB), RODATA|NOPTR, $4

// HSUMQ adds the eight 64-bit lanes of Z register zr into GPR r, using the
// Y/X views yr/xr of zr and a scratch X register xt.
#define HSUMQ(zr, yr, xr, yt, xt, r) \
	VEXTRACTI64X4 $1, zr, yt \
	VPADDQ        yt, yr, yr \
	VEXTRACTI32X4 $1, yr, xt \
	VPADDQ        xt, xr, xr \
	VPSHUFD       $0x4e, xr, xt \
	VPADDQ        xt, xr, xr \
	VMOVQ         xr, r

// WIDEN turns the sixteen 32-bit lanes of zr into eight 64-bit sums of
// adjacent pairs, in place (zt is scratch, zmask holds 0x00000000ffffffff
// in every 64-bit lane).
#define WIDEN(zr, zt, zmask) \
	VPSRLQ $32, zr, zt \
	VPANDQ zmask, zr, zr \
	VPADDQ zt, zr, zr

// func UpdateAdler32(prev uint32, p []byte) uint32
//
// The dispatch, chosen once at start-up (adler32_amd64.go): fewer than
// adler32Short bytes are summed here by a scalar loop (any amd64 CPU; a
// vector kernel's set-up costs more than 15 bytes); then a tail jump to the
// VNNI kernel for up to adler32BlockVNNI bytes, so a call through the
// registry costs one call; anything else goes to adler32UpdateOther.
TEXT ·UpdateAdler32(SB), NOSPLIT, $0-36
	MOVQ  p_len+16(FP), CX
	CMPQ  CX, $16                      // adler32Short
	JB    short
	CMPB  ·useAdler32VNNI(SB), $0
	JEQ   other
	CMPQ  CX, $0x80000                 // adler32BlockVNNI
	JA    other
	JMP   ·adler32VNNIBlock(SB)

other:
	JMP ·adler32UpdateOther(SB)

	// a, b < 65521 plus at most 15 bytes: a < 2^17 and b < 2^21, so both
	// reduce by 2^16 ≡ 15 (mod 65521) to below 2·65521, then by one
	// conditional subtraction.
short:
	MOVL  prev+0(FP), AX
	MOVL  AX, BX
	ANDL  $0xffff, AX                  // a
	SHRL  $16, BX                      // b
	TESTQ CX, CX
	JZ    shortDone
	MOVQ  p_base+8(FP), SI

shortLoop:
	MOVBLZX (SI), DX
	ADDL    DX, AX
	ADDL    AX, BX
	INCQ    SI
	DECQ    CX
	JNZ     shortLoop
	MOVL    AX, DX
	SHRL    $16, DX
	IMULL   $15, DX
	ANDL    $0xffff, AX
	ADDL    DX, AX
	LEAL    -65521(AX), DX
	CMPL    AX, $65521
	CMOVLCC DX, AX
	MOVL    BX, DX
	SHRL    $16, DX
	IMULL   $15, DX
	ANDL    $0xffff, BX
	ADDL    DX, BX
	LEAL    -65521(BX), DX
	CMPL    BX, $65521
	CMOVLCC DX, BX

shortDone:
	SHLL $16, BX
	ORL  BX, AX
	MOVL AX, ret+32(FP)
	RET

// func adler32VNNIBlock(adler uint32, p []byte) uint32
//
// The Adler-32 of adler's input followed by p, 1 ≤ len(p) ≤
// adler32BlockVNNI. Requires AVX-512 F/BW, VNNI and BMI2. The arithmetic is
// that of the other kernels (Σ d_i and Σ (n − i)·d_i, see
// adler32_generic.go), reduced mod 65521 at the end; VPDPBUSD multiplies 64
// unsigned bytes by 64 signed weights and adds each group of four products
// into a 32-bit lane.
//
// Main part, 1 KiB per step: eight groups g of two vectors. For a step k of
// K and byte t of its group (0 … 127), n − i = 1024·(K−1−k) + 128·(7−g) +
// (127 − t) + 1, so
//
//	weighted = 1024·P + 128·Σ_g (7−g)·A_g + W + sum
//
// where A_g accumulates the bytes of group g (VPDPBUSD by ones), W the bytes
// weighted 127 − t (ramp + 64 for the first vector, ramp for the second),
// and P the sum of all A_g before each step (so P = Σ_k (K−1−k)·T_k). Every
// accumulator takes two VPDPBUSD per step, so no dependency chain is longer
// than the step's 20 cycles of port time: 2.5 vector instructions per 64
// bytes, and one reduction for the whole call.
//
// Lane bounds for K ≤ 512 (adler32BlockVNNI): A_g ≤ 2040·K ≈ 2^20,
// P ≤ 8·2040·K²/2 < 2^31, W ≤ 8·190740·K < 2^30: no 32-bit lane overflows,
// and the lanes are widened to 64 bits before they are combined.
//
// Rest (< 1 KiB): its whole vectors in up to four steps of four slots (one
// vector each), padded in front to whole steps and entered at the first
// slot holding data, then its last R mod 64 bytes by one masked load (see
// rest: below).
TEXT ·adler32VNNIBlock(SB), NOSPLIT, $0-36
	MOVQ p_base+8(FP), SI
	MOVQ p_len+16(FP), CX

	VPBROADCASTD adler32Ones<>(SB), Z31 // bytes of 1
	XORL       R8, R8                   // main sum
	XORL       R9, R9                   // main weighted
	MOVQ       CX, BX
	SHRQ       $10, BX                  // K
	JZ         rest
	// From adler32AlignMin bytes, an input that does not start on a 64-byte
	// boundary goes to adler32VNNI (its arguments are still in place),
	// which sums the bytes before the boundary first, so that the main
	// part's loads are aligned.
	CMPQ       CX, $32768               // adler32AlignMin
	JB         mainAligned
	TESTQ      $63, SI
	JZ         mainAligned
	VZEROUPPER
	JMP        ·adler32VNNI(SB)

mainAligned:
	VMOVDQU64  adler32Ramp<>(SB), Z27   // 63 … 0
	MOVL       $64, AX
	VPBROADCASTB AX, Z28
	VPADDB     Z27, Z28, Z28            // 127 … 64

	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z4, Z4, Z4
	VPXORQ Z5, Z5, Z5
	VPXORQ Z6, Z6, Z6
	VPXORQ Z7, Z7, Z7
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z12, Z12, Z12
	VPXORQ Z13, Z13, Z13
	VPXORQ Z14, Z14, Z14
	VPXORQ Z15, Z15, Z15
	VPXORQ Z16, Z16, Z16

mainLoop:
	VPADDD    Z1, Z0, Z24
	VPADDD    Z3, Z2, Z25
	VPADDD    Z5, Z4, Z26
	VPADDD    Z7, Z6, Z29
	VMOVDQU64 (SI), Z17
	VMOVDQU64 64(SI), Z18
	VMOVDQU64 128(SI), Z19
	VMOVDQU64 192(SI), Z20
	VPDPBUSD  Z31, Z17, Z0
	VPDPBUSD  Z28, Z17, Z8
	VPDPBUSD  Z31, Z18, Z0
	VPDPBUSD  Z27, Z18, Z8
	VPDPBUSD  Z31, Z19, Z1
	VPDPBUSD  Z28, Z19, Z9
	VPDPBUSD  Z31, Z20, Z1
	VPDPBUSD  Z27, Z20, Z9
	VPADDD    Z25, Z24, Z24
	VPADDD    Z29, Z26, Z26
	VMOVDQU64 256(SI), Z17
	VMOVDQU64 320(SI), Z18
	VMOVDQU64 384(SI), Z19
	VMOVDQU64 448(SI), Z20
	VPDPBUSD  Z31, Z17, Z2
	VPDPBUSD  Z28, Z17, Z10
	VPDPBUSD  Z31, Z18, Z2
	VPDPBUSD  Z27, Z18, Z10
	VPDPBUSD  Z31, Z19, Z3
	VPDPBUSD  Z28, Z19, Z11
	VPDPBUSD  Z31, Z20, Z3
	VPDPBUSD  Z27, Z20, Z11
	VPADDD    Z26, Z24, Z24
	VMOVDQU64 512(SI), Z17
	VMOVDQU64 576(SI), Z18
	VMOVDQU64 640(SI), Z19
	VMOVDQU64 704(SI), Z20
	VPDPBUSD  Z31, Z17, Z4
	VPDPBUSD  Z28, Z17, Z12
	VPDPBUSD  Z31, Z18, Z4
	VPDPBUSD  Z27, Z18, Z12
	VPDPBUSD  Z31, Z19, Z5
	VPDPBUSD  Z28, Z19, Z13
	VPDPBUSD  Z31, Z20, Z5
	VPDPBUSD  Z27, Z20, Z13
	VPADDD    Z24, Z16, Z16
	VMOVDQU64 768(SI), Z17
	VMOVDQU64 832(SI), Z18
	VMOVDQU64 896(SI), Z19
	VMOVDQU64 960(SI), Z20
	VPDPBUSD  Z31, Z17, Z6
	VPDPBUSD  Z28, Z17, Z14
	VPDPBUSD  Z31, Z18, Z6
	VPDPBUSD  Z27, Z18, Z14
	VPDPBUSD  Z31, Z19, Z7
	VPDPBUSD  Z28, Z19, Z15
	VPDPBUSD  Z31, Z20, Z7
	VPDPBUSD  Z27, Z20, Z15
	ADDQ      $1024, SI
	DECQ      BX
	JNZ       mainLoop

	// T = Σ_g (7−g)·A_g by running sums; S = Σ_g A_g; W = Σ_g W_g.
	VMOVDQA64 Z0, Z17
	VMOVDQA64 Z0, Z18
	VPADDD    Z1, Z17, Z17
	VPADDD    Z17, Z18, Z18
	VPADDD    Z2, Z17, Z17
	VPADDD    Z17, Z18, Z18
	VPADDD    Z3, Z17, Z17
	VPADDD    Z17, Z18, Z18
	VPADDD    Z4, Z17, Z17
	VPADDD    Z17, Z18, Z18
	VPADDD    Z5, Z17, Z17
	VPADDD    Z17, Z18, Z18
	VPADDD    Z6, Z17, Z17
	VPADDD    Z17, Z18, Z18             // T
	VPADDD    Z7, Z17, Z17              // S
	VPADDD    Z9, Z8, Z8
	VPADDD    Z11, Z10, Z10
	VPADDD    Z13, Z12, Z12
	VPADDD    Z15, Z14, Z14
	VPADDD    Z10, Z8, Z8
	VPADDD    Z14, Z12, Z12
	VPADDD    Z12, Z8, Z8               // W
	VPTERNLOGD $0xff, Z30, Z30, Z30
	VPSRLQ    $32, Z30, Z30             // 0x00000000ffffffff
	WIDEN(Z16, Z19, Z30)
	WIDEN(Z18, Z19, Z30)
	WIDEN(Z8, Z19, Z30)
	WIDEN(Z17, Z19, Z30)
	VPSLLQ    $10, Z16, Z16
	VPSLLQ    $7, Z18, Z18
	VPADDQ    Z18, Z16, Z16
	VPADDQ    Z8, Z16, Z16
	VPADDQ    Z17, Z16, Z16             // weighted, 64-bit lanes
	HSUMQ(Z17, Y17, X17, Y19, X19, R8)
	HSUMQ(Z16, Y16, X16, Y19, X19, R9)
	ANDQ      $1023, CX                 // rest length
	JZ        store
	MOVQ      R8, AX                    // the rest follows the main part:
	IMULQ     CX, AX                    // its bytes weigh len(rest) more
	ADDQ      AX, R9

rest:
	// CX = rest length R (1 … 1023 here, or all of p when it is shorter
	// than 1 KiB), SI its start.
	//
	// Its F = R − r whole vectors are read from its start, so they are
	// aligned when p is: padded in front with whole vectors (never read) to
	// whole steps of four slots (one vector each, weights 64 + r − j for its
	// byte j, r more than if the vectors ended the rest; Σ_s (3−s)·A_s for
	// the slot offsets and P for the steps, as in the main part), entered at
	// the first slot holding data. The last r = R mod 64 bytes are one masked
	// load, byte t weighted r − t (see restTail:).
	//
	// A_s in Z0…Z3, W_s in Z8…Z11, the tail's in Z4/Z12, P in Z16.
	VPXORQ Z0, Z0, Z0
	VPXORQ Z1, Z1, Z1
	VPXORQ Z2, Z2, Z2
	VPXORQ Z3, Z3, Z3
	VPXORQ Z8, Z8, Z8
	VPXORQ Z9, Z9, Z9
	VPXORQ Z10, Z10, Z10
	VPXORQ Z11, Z11, Z11
	VPXORQ Z4, Z4, Z4
	VPXORQ Z12, Z12, Z12
	VPXORQ Z16, Z16, Z16
	MOVQ   CX, R13
	ANDQ   $63, R13                     // r
	MOVQ   CX, BX
	ANDQ   $-64, BX                     // F
	JZ     restTail
	VMOVDQU64 adler32Weights<>(SB), Z26 // 64 … 1
	TESTQ  R13, R13
	JZ     restVectors
	VPBROADCASTB R13, Z25
	VPADDB Z25, Z26, Z26                // 64 + r … 1 + r

restVectors:
	LEAQ   192(BX), DX
	ANDQ   $-256, DX                    // F padded to whole steps
	SUBQ   BX, DX                       // padding in front: 0, 64, 128 or 192
	ADDQ   DX, BX
	SUBQ   DX, SI                       // start of the padded vectors
	SHRQ   $8, BX                       // steps (1 … 4)
	SHRQ   $6, DX                       // first slot holding data
	CMPQ   DX, $1
	JB     restSlot0
	JE     restSlot1
	CMPQ   DX, $2
	JE     restSlot2
	JMP    restSlot3

restStep:
	VPADDD    Z1, Z0, Z21
	VPADDD    Z3, Z2, Z22
	VPADDD    Z22, Z21, Z21
	VPADDD    Z21, Z16, Z16             // P += Σ A_s before this step

restSlot0:
	VMOVDQU64 (SI), Z21
	VPDPBUSD  Z31, Z21, Z0
	VPDPBUSD  Z26, Z21, Z8

restSlot1:
	VMOVDQU64 64(SI), Z22
	VPDPBUSD  Z31, Z22, Z1
	VPDPBUSD  Z26, Z22, Z9

restSlot2:
	VMOVDQU64 128(SI), Z23
	VPDPBUSD  Z31, Z23, Z2
	VPDPBUSD  Z26, Z23, Z10

restSlot3:
	VMOVDQU64 192(SI), Z24
	VPDPBUSD  Z31, Z24, Z3
	VPDPBUSD  Z26, Z24, Z11
	ADDQ      $256, SI
	DECQ      BX
	JNZ       restStep

restTail:
	// SI = the r tail bytes (r = R13, 0 … 63), read
	// with a byte mask and summed in Z4/Z12 (added to A3/W3 at the end, so
	// as not to wait for them); byte t weighs r − t. The masked-off bytes
	// lie after the tail; a masked load takes a slow assist (over 100 ns)
	// when they are in a page the process cannot read, so when the load
	// would cross into the next page but the tail does not reach it, the
	// vector read is the one ending at that page's start, the tail at byte
	// o of it (weights r + o − j for vector byte j).
	TESTQ  R13, R13
	JZ     restCombine
	MOVQ   $-1, AX
	BZHIQ  R13, AX, AX                  // r low bits
	LEAQ   63(SI), DX
	XORQ   SI, DX
	SHRQ   $12, DX
	JNZ    restTailPage

restTailLoad:
	KMOVQ      AX, K1
	VMOVDQU8.Z (SI), K1, Z21
	VPBROADCASTB R13, Z22
	VPADDB     adler32NegIota<>(SB), Z22, Z22 // r … r − 63
	VPDPBUSD   Z31, Z21, Z4
	VPDPBUSD   Z22, Z21, Z12

restTailSums:
	VPADDD Z4, Z3, Z3
	VPADDD Z12, Z11, Z11

restCombine:
	// weighted = 256·P + 64·(3·A0 + 2·A1 + A2) + Σ_s W_s; every lane stays
	// far below 2^32 for fewer than 1024 bytes.
	VPADDD Z1, Z0, Z21
	VPADDD Z9, Z8, Z8
	VPADDD Z11, Z10, Z10
	VPSLLD $8, Z16, Z16
	VPADDD Z2, Z21, Z22                // A0+A1+A2
	VPADDD Z21, Z0, Z21                // 2·A0+A1
	VPADDD Z3, Z22, Z17                // sum
	VPADDD Z22, Z21, Z21               // 3·A0+2·A1+A2
	VPADDD Z10, Z8, Z8
	VPSLLD $6, Z21, Z21
	VPADDD Z8, Z16, Z16
	VPADDD Z21, Z16, Z16               // weighted

restSums:
	// Horizontal sums of both at once: add neighbouring 32-bit lanes, keep
	// weighted's pair sums in the even lanes and the sum's in the odd ones,
	// then one tree over the eight 64-bit lanes (each 32-bit half stays
	// below 2^32).
	VPSRLQ        $32, Z16, Z18
	VPSLLQ        $32, Z17, Z19
	VPADDD        Z18, Z16, Z16
	VPADDD        Z19, Z17, Z17
	VPTERNLOGQ.BCST $0xe4, adler32Low32<>(SB), Z17, Z16 // low halves from Z16
	VEXTRACTI64X4 $1, Z16, Y18
	VPADDD        Y18, Y16, Y16
	VEXTRACTI32X4 $1, Y16, X18
	VPADDD        X18, X16, X16
	VPSHUFD       $0x4e, X16, X18
	VPADDD        X18, X16, X16
	VMOVQ         X16, AX
	MOVQ          AX, BX
	SHRQ          $32, BX              // sum
	MOVL          AX, AX               // weighted
	ADDQ          BX, R8
	ADDQ          AX, R9

store:
	// a' = a + sum, b' = b + n·a + weighted (< 2^46 for n ≤ 512 KiB), each
	// reduced mod 65521 by multiplying with a rounded-up reciprocal:
	// ⌈2^47/65521⌉ is exact for a' < 2^32, ⌈2^79/65521⌉ for b' < 2^47.
	MOVL  adler+0(FP), AX
	MOVL  AX, BX
	ANDL  $0xffff, AX                  // a
	SHRL  $16, BX                      // b
	MOVQ  p_len+16(FP), CX
	IMULQ AX, CX
	ADDQ  CX, R9
	ADDQ  BX, R9                       // b'
	ADDQ  AX, R8                       // a'
	MOVQ  $0x80078071, AX
	IMULQ R8, AX
	SHRQ  $47, AX
	IMULQ $65521, AX
	SUBQ  AX, R8
	MOVQ  $0x800780708697e2e7, AX
	MULQ  R9
	SHRQ  $15, DX
	IMULQ $65521, DX
	SUBQ  DX, R9
	SHLQ  $16, R9
	ORQ   R8, R9
	MOVL  R9, ret+32(FP)
	VZEROUPPER
	RET


restTailPage:
	// The load [SI, SI+64) crosses a page. If the tail reaches the next
	// page that page is readable; otherwise read [B−64, B) for the page
	// start B, which lies wholly in the tail's page.
	LEAQ   -1(SI)(R13*1), DX
	XORQ   SI, DX
	SHRQ   $12, DX
	JNZ    restTailLoad
	MOVQ   SI, DX
	ORQ    $4095, DX
	SUBQ   $63, DX                      // B − 64
	MOVQ   SI, R10
	SUBQ   DX, R10                      // o
	SHLXQ  R10, AX, AX
	KMOVQ  AX, K1
	VMOVDQU8.Z (DX), K1, Z21
	ADDQ   R13, R10
	VPBROADCASTB R10, Z22
	VPADDB adler32NegIota<>(SB), Z22, Z22 // r + o − j
	VPDPBUSD Z31, Z21, Z4
	VPDPBUSD Z22, Z21, Z12
	JMP    restTailSums
