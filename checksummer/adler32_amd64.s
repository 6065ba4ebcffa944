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
