//go:build amd64 && !purego

#include "textflag.h"

// CRC-32 (IEEE) by carry-less multiplication with VPCLMULQDQ; the
// arithmetic and the constants are explained in crc32_fold.go, and a pure-Go
// model of both kernels is in crc32_fold_test.go.
//
// Byte offsets into crc32Table (a 64-byte aligned copy of crc32FoldConsts);
// TestCRC32AsmOffsets checks them against the Go constants.
#define DIST_END 1024  // 8·crc32DistEnd: just past the distance multipliers
#define FOLD4096 1024  // 8·crc32Fold4096
#define FOLD2048 1040  // 8·crc32Fold2048
#define BARRETT 1056   // 8·crc32BarrettConsts

// crc32Iota holds the bytes 0, 1, …, 63.
DATA crc32Iota<>+0(SB)/8, $0x0706050403020100
DATA crc32Iota<>+8(SB)/8, $0x0f0e0d0c0b0a0908
DATA crc32Iota<>+16(SB)/8, $0x1716151413121110
DATA crc32Iota<>+24(SB)/8, $0x1f1e1d1c1b1a1918
DATA crc32Iota<>+32(SB)/8, $0x2726252423222120
DATA crc32Iota<>+40(SB)/8, $0x2f2e2d2c2b2a2928
DATA crc32Iota<>+48(SB)/8, $0x3736353433323130
DATA crc32Iota<>+56(SB)/8, $0x3f3e3d3c3b3a3938
GLOBL crc32Iota<>(SB), RODATA|NOPTR, $64

// SHIFTED_VECTOR0 reads vector 0 into Z0 when its s = DX bytes of padding
// would reach into the previous page: the 64 − s message bytes from SI + s,
// moved up by s bytes (byte j takes byte j − s) under the message-byte mask
// K1. Scratch: R10, tmp, K3, Z1…Z3.
#define SHIFTED_VECTOR0(tmp) \
	MOVQ       $64, R10 \
	SUBQ       DX, R10 \
	MOVQ       $-1, tmp \
	BZHIQ      R10, tmp, tmp \
	KMOVQ      tmp, K3 \
	VMOVDQU8.Z (SI)(DX*1), K3, Z1 \
	VPBROADCASTB DX, Z2 \
	VMOVDQU64  crc32Iota<>(SB), Z3 \
	VPSUBB     Z2, Z3, Z3 \
	VPERMB.Z   Z1, Z3, K1, Z0

// func UpdateCRC32(prev uint32, p []byte) uint32
//
// The dispatch, chosen once at start-up (crc32_amd64.go): a tail jump to the
// kernel, so a call through the registry costs one call.
TEXT ·UpdateCRC32(SB), NOSPLIT, $0-36
	CMPB ·useCRC32AVX512(SB), $0
	JEQ  other
	JMP  ·crc32AVX512(SB)

other:
	JMP ·crc32UpdateOther(SB)

// func crc32AVX512(crc uint32, p []byte) uint32
//
// Any length. Requires AVX-512 F/BW/VL/VBMI, VPCLMULQDQ and BMI2.
//
// The message is cut into N 64-byte vectors aligned to its end: the first
// one is read with a byte mask that zeroes the s = 64N − n bytes before the
// message (masked-off bytes are never accessed, so this cannot fault). The
// seed ^crc is multiplied apart on the short path and xored into the first
// four message bytes on the long one; when n mod 64 ∈ {1,2,3} (and n > 64)
// the leading bytes are xored into the seed instead, and skipped (short
// path), or fed through the byte table first (long path).
//
// N ≤ 16: every lane is multiplied by its distance multipliers and the
// products are xored together (one multiplication deep), in straight-line
// code so that no loop bookkeeping competes with VPCLMULQDQ for its port.
// N > 16: vectors 0…7 become eight accumulators, folded forward by 4096 bits
// per 512 bytes; the accumulators and the last R < 8 vectors then take the
// short path's distance multipliers as N' = 8 + R vectors.
TEXT ·crc32AVX512(SB), NOSPLIT, $0-36
	MOVL  crc+0(FP), AX
	MOVQ  p_base+8(FP), SI
	MOVQ  p_len+16(FP), CX
	NOTL  AX
	TESTQ CX, CX
	JZ    done

	MOVQ  CX, DI              // n, for the seed's multiplier
	// When n mod 64 is 1, 2 or 3 and the message is longer than a vector,
	// its leading bytes do not get a vector of their own. Up to 1027 bytes
	// (the short path, which multiplies the seed apart by the multiplier
	// for the whole n) they go into the seed: xoring ^crc into the first
	// four bytes is what the seed means, so xoring those bytes into ^crc and
	// skipping them is the same message. Longer messages (the seed goes into
	// the first vector) take them through the byte table.
	LEAQ  -1(CX), BX
	ANDQ  $63, BX             // 0, 1 or 2 for them
	CMPQ  BX, $2
	JA    vectors
	CMPQ  CX, $64
	JB    vectors
	INCQ  BX                  // their number
	CMPQ  CX, $1027
	JA    bytes
	LEAQ  0(BX*8), R10
	BZHIL R10, (SI), R8       // them, of the message's first four bytes
	XORL  R8, AX
	ADDQ  BX, SI
	SUBQ  BX, CX
	JMP   vectors

bytes:
	SUBQ BX, CX
	MOVQ ·crc32Slicing(SB), R12

bytesLoop:
	MOVBLZX (SI), DX
	XORB    AL, DL
	SHRL    $8, AX
	XORL    (R12)(DX*4), AX
	INCQ    SI
	DECQ    BX
	JNZ     bytesLoop

vectors:
	MOVQ  CX, DX
	NEGQ  DX
	ANDQ  $63, DX             // s: zero bytes in front of the message
	MOVQ  SI, R13
	SUBQ  DX, SI              // SI = start of vector 0
	LEAQ  63(CX), R9
	SHRQ  $6, R9              // N
	MOVQ  ·crc32Table(SB), R11
	CMPQ  R9, $16
	JA    long

	// Short path. The seed's share, apart: ^crc in the high half of a
	// 64-bit operand times x^(8n−1) mod G, xored in just before the
	// reduction, so nothing waits for it. The seed reaches the vector unit
	// through memory (the argument slot p_cap, which the kernel does not
	// need), which keeps a GPR-to-vector move off the multiplier's port.
	SHLQ       $32, AX
	MOVQ       AX, p_cap+24(FP)
	VMOVQ      p_cap+24(FP), X12
	LEAQ       ·crc32SeedConsts(SB), R10
	VMOVD      (R10)(DI*4), X13
	VPCLMULQDQ $0x00, X13, X12, X12

	// Vector 0, its padding in front read as zeros (a byte mask). A masked
	// load takes a slow assist (over 100 ns) when its masked-off bytes lie
	// in a page the process cannot read, so when the padding would reach
	// into the previous page the 64 − s message bytes are read from p and
	// moved up by s bytes instead.
	TESTQ      DX, DX
	JZ         shortAligned
	MOVQ       $-1, R8
	SHLXQ      DX, R8, R8
	KMOVQ      R8, K1
	XORQ       SI, R13
	SHRQ       $12, R13
	JNZ        shortShifted
	VMOVDQU8.Z (SI), K1, Z0
	JMP        shortHead

shortAligned:
	VMOVDQU64 (SI), Z0

shortHead:
	// Every vector times its distance multipliers; vector 0's are at R12 =
	// crc32DistEnd − 64·N.
	MOVQ       R9, BX
	SHLQ       $6, BX
	LEAQ       DIST_END(R11), R12
	SUBQ       BX, R12
	VMOVDQU64  (R12), Z2
	VPCLMULQDQ $0x00, Z2, Z0, Z9
	VPCLMULQDQ $0x11, Z2, Z0, Z0
	VPXORQ     Z0, Z9, Z9
	LEAQ       -64(SI)(BX*1), SI
	LEAQ       -64(R12)(BX*1), R12

	// Vectors 1 … N−1, unrolled: SI and R12 point at the last vector and
	// its multipliers, body k takes the vector k before the last, and the
	// run is entered at body N−2.
	CMPQ R9, $8
	JAE  shortHigh
	CMPQ R9, $4
	JAE  shortMid
	CMPQ R9, $2
	JB   reduce
	JE   short0
	JMP  short1

shortMid:
	CMPQ R9, $6
	JB   shortMidLow
	JE   short4
	JMP  short5

shortMidLow:
	CMPQ R9, $4
	JE   short2
	JMP  short3

shortHigh:
	CMPQ R9, $12
	JAE  shortTop
	CMPQ R9, $10
	JB   shortHighLow
	JE   short8
	JMP  short9

shortHighLow:
	CMPQ R9, $8
	JE   short6
	JMP  short7

shortTop:
	CMPQ R9, $14
	JB   shortTopLow
	JE   short12
	CMPQ R9, $15
	JE   short13
	JMP  short14

shortTopLow:
	CMPQ R9, $12
	JE   short10
	JMP  short11

short14:
	VMOVDQU64  -896(SI), Z3
	VMOVDQU64  -896(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short13:
	VMOVDQU64  -832(SI), Z3
	VMOVDQU64  -832(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short12:
	VMOVDQU64  -768(SI), Z3
	VMOVDQU64  -768(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short11:
	VMOVDQU64  -704(SI), Z3
	VMOVDQU64  -704(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short10:
	VMOVDQU64  -640(SI), Z3
	VMOVDQU64  -640(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short9:
	VMOVDQU64  -576(SI), Z3
	VMOVDQU64  -576(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short8:
	VMOVDQU64  -512(SI), Z3
	VMOVDQU64  -512(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short7:
	VMOVDQU64  -448(SI), Z3
	VMOVDQU64  -448(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short6:
	VMOVDQU64  -384(SI), Z3
	VMOVDQU64  -384(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short5:
	VMOVDQU64  -320(SI), Z3
	VMOVDQU64  -320(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short4:
	VMOVDQU64  -256(SI), Z3
	VMOVDQU64  -256(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short3:
	VMOVDQU64  -192(SI), Z3
	VMOVDQU64  -192(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short2:
	VMOVDQU64  -128(SI), Z3
	VMOVDQU64  -128(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short1:
	VMOVDQU64  -64(SI), Z3
	VMOVDQU64  -64(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
short0:
	VMOVDQU64  -0(SI), Z3
	VMOVDQU64  -0(R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
	JMP reduce

shortShifted:
	SHIFTED_VECTOR0(R8)
	JMP shortHead

long:
	// From crc32AlignMin bytes, an input that does not end on a 64-byte
	// boundary is checksummed in two calls by crc32UpdateSplit (its
	// arguments are still in place), so that these loads are aligned.
	CMPQ  DI, $32768          // crc32AlignMin
	JB    longAligned
	LEAQ  (R13)(CX*1), R10
	TESTQ $63, R10
	JZ    longAligned
	VZEROUPPER
	JMP   ·crc32UpdateSplit(SB)

longAligned:
	VPXORQ X12, X12, X12      // the seed goes into vector 0 here
	// Vector 0 with ^crc xored into its first four message bytes: byte j of
	// the broadcast holds byte (j − s) mod 4 of ^crc (s ≤ 60 here).
	MOVQ  $-1, R8
	SHLXQ DX, R8, R8
	KMOVQ R8, K1              // the message bytes of vector 0
	MOVL  $15, R10
	SHLXQ DX, R10, R10
	KMOVQ R10, K2             // its first four
	MOVQ  DX, CX
	ANDL  $3, CX
	SHLL  $3, CX
	ROLL  CX, AX
	VPBROADCASTD AX, Z30
	VMOVDQU8.Z Z30, K2, Z31
	XORQ  SI, R13
	SHRQ  $12, R13
	JNZ   longShifted
	VMOVDQU8.Z (SI), K1, Z0

longHead:
	VPXORQ    Z31, Z0, Z0
	VMOVDQU64 64(SI), Z1
	VMOVDQU64 128(SI), Z2
	VMOVDQU64 192(SI), Z3
	VMOVDQU64 256(SI), Z4
	VMOVDQU64 320(SI), Z5
	VMOVDQU64 384(SI), Z6
	VMOVDQU64 448(SI), Z7
	ADDQ      $512, SI
	SUBQ      $8, R9          // vectors not yet read
	VBROADCASTI32X4 FOLD4096(R11), Z8
	CMPQ      R9, $8
	JB        longEnd

longLoop:
	VPCLMULQDQ $0x00, Z8, Z0, Z16
	VPCLMULQDQ $0x11, Z8, Z0, Z0
	VPCLMULQDQ $0x00, Z8, Z1, Z17
	VPCLMULQDQ $0x11, Z8, Z1, Z1
	VPCLMULQDQ $0x00, Z8, Z2, Z18
	VPCLMULQDQ $0x11, Z8, Z2, Z2
	VPCLMULQDQ $0x00, Z8, Z3, Z19
	VPCLMULQDQ $0x11, Z8, Z3, Z3
	VPTERNLOGD $0x96, (SI), Z16, Z0
	VPTERNLOGD $0x96, 64(SI), Z17, Z1
	VPTERNLOGD $0x96, 128(SI), Z18, Z2
	VPTERNLOGD $0x96, 192(SI), Z19, Z3
	VPCLMULQDQ $0x00, Z8, Z4, Z20
	VPCLMULQDQ $0x11, Z8, Z4, Z4
	VPCLMULQDQ $0x00, Z8, Z5, Z21
	VPCLMULQDQ $0x11, Z8, Z5, Z5
	VPCLMULQDQ $0x00, Z8, Z6, Z22
	VPCLMULQDQ $0x11, Z8, Z6, Z6
	VPCLMULQDQ $0x00, Z8, Z7, Z23
	VPCLMULQDQ $0x11, Z8, Z7, Z7
	VPTERNLOGD $0x96, 256(SI), Z20, Z4
	VPTERNLOGD $0x96, 320(SI), Z21, Z5
	VPTERNLOGD $0x96, 384(SI), Z22, Z6
	VPTERNLOGD $0x96, 448(SI), Z23, Z7
	ADDQ       $512, SI
	SUBQ       $8, R9
	CMPQ       R9, $8
	JAE        longLoop

longEnd:
	// The accumulators are vectors 0…7 of N' = 8 + R9 vectors.
	LEAQ       8(R9), BX
	SHLQ       $6, BX
	LEAQ       DIST_END(R11), R12
	SUBQ       BX, R12
	VPCLMULQDQ $0x00, (R12), Z0, Z16
	VPCLMULQDQ $0x11, (R12), Z0, Z0
	VPCLMULQDQ $0x00, 64(R12), Z1, Z17
	VPCLMULQDQ $0x11, 64(R12), Z1, Z1
	VPCLMULQDQ $0x00, 128(R12), Z2, Z18
	VPCLMULQDQ $0x11, 128(R12), Z2, Z2
	VPCLMULQDQ $0x00, 192(R12), Z3, Z19
	VPCLMULQDQ $0x11, 192(R12), Z3, Z3
	VPCLMULQDQ $0x00, 256(R12), Z4, Z20
	VPCLMULQDQ $0x11, 256(R12), Z4, Z4
	VPCLMULQDQ $0x00, 320(R12), Z5, Z21
	VPCLMULQDQ $0x11, 320(R12), Z5, Z5
	VPCLMULQDQ $0x00, 384(R12), Z6, Z22
	VPCLMULQDQ $0x11, 384(R12), Z6, Z6
	VPCLMULQDQ $0x00, 448(R12), Z7, Z23
	VPCLMULQDQ $0x11, 448(R12), Z7, Z7
	VPTERNLOGD $0x96, Z16, Z1, Z0
	VPTERNLOGD $0x96, Z17, Z18, Z2
	VPTERNLOGD $0x96, Z3, Z19, Z4
	VPTERNLOGD $0x96, Z20, Z5, Z6
	VPTERNLOGD $0x96, Z21, Z22, Z7
	VPTERNLOGD $0x96, Z0, Z2, Z4
	VPTERNLOGD $0x96, Z6, Z7, Z23
	VPXORQ     Z4, Z23, Z9
	TESTQ      R9, R9
	JZ         reduce
	ADDQ       $512, R12

longTail:
	VMOVDQU64  (SI), Z3
	VMOVDQU64  (R12), Z2
	VPCLMULQDQ $0x00, Z2, Z3, Z4
	VPCLMULQDQ $0x11, Z2, Z3, Z3
	VPTERNLOGD $0x96, Z4, Z3, Z9
	ADDQ       $64, SI
	ADDQ       $64, R12
	DECQ       R9
	JNZ        longTail

reduce:
	// Xor the four lanes of Z9 into W, then Barrett (crc32_fold.go).
	VEXTRACTI32X4 $1, Z9, X2
	VEXTRACTI32X4 $2, Z9, X3
	VEXTRACTI32X4 $3, Z9, X4
	VPTERNLOGD    $0x96, X2, X3, X9
	VPTERNLOGD    $0x96, X4, X12, X9  // and the seed's share (zero on the long path)
	VMOVDQU64     BARRETT(R11), X5
	VPCLMULQDQ    $0x00, X5, X9, X6   // floor(A·µ / x^64) in the low half
	VPCLMULQDQ    $0x10, X5, X6, X6   // q·G·x^32
	VPXORQ        X6, X9, X9
	VPEXTRD       $2, X9, AX
	VZEROUPPER

done:
	NOTL AX
	MOVL AX, ret+32(FP)
	RET

longShifted:
	SHIFTED_VECTOR0(R12)
	JMP longHead

// func crc32AVX2(crc uint32, p []byte) uint32
//
// len(p) is a multiple of 32, at least 256. Requires AVX2, VPCLMULQDQ and
// PCLMULQDQ. Vectors 0…7 (256-bit) are accumulators folded forward by 2048
// bits per 256 bytes; the accumulators and the last R < 8 vectors take the
// distance multipliers as N' = 8 + R vectors of 32 bytes.
TEXT ·crc32AVX2(SB), NOSPLIT, $0-36
	MOVL  crc+0(FP), AX
	MOVQ  p_base+8(FP), SI
	MOVQ  p_len+16(FP), R9
	NOTL  AX
	MOVQ  ·crc32Table(SB), R11
	VMOVD AX, X0
	VPXOR (SI), Y0, Y0
	VMOVDQU 32(SI), Y1
	VMOVDQU 64(SI), Y2
	VMOVDQU 96(SI), Y3
	VMOVDQU 128(SI), Y4
	VMOVDQU 160(SI), Y5
	VMOVDQU 192(SI), Y6
	VMOVDQU 224(SI), Y7
	ADDQ    $256, SI
	SHRQ    $5, R9
	SUBQ    $8, R9            // vectors not yet read
	VBROADCASTI128 FOLD2048(R11), Y8
	CMPQ    R9, $8
	JB      avx2End

avx2Loop:
	VPCLMULQDQ $0x00, Y8, Y0, Y9
	VPCLMULQDQ $0x11, Y8, Y0, Y0
	VPCLMULQDQ $0x00, Y8, Y1, Y10
	VPCLMULQDQ $0x11, Y8, Y1, Y1
	VPCLMULQDQ $0x00, Y8, Y2, Y11
	VPCLMULQDQ $0x11, Y8, Y2, Y2
	VPCLMULQDQ $0x00, Y8, Y3, Y12
	VPCLMULQDQ $0x11, Y8, Y3, Y3
	VPXOR      Y9, Y0, Y0
	VPXOR      Y10, Y1, Y1
	VPXOR      Y11, Y2, Y2
	VPXOR      Y12, Y3, Y3
	VPXOR      (SI), Y0, Y0
	VPXOR      32(SI), Y1, Y1
	VPXOR      64(SI), Y2, Y2
	VPXOR      96(SI), Y3, Y3
	VPCLMULQDQ $0x00, Y8, Y4, Y9
	VPCLMULQDQ $0x11, Y8, Y4, Y4
	VPCLMULQDQ $0x00, Y8, Y5, Y10
	VPCLMULQDQ $0x11, Y8, Y5, Y5
	VPCLMULQDQ $0x00, Y8, Y6, Y11
	VPCLMULQDQ $0x11, Y8, Y6, Y6
	VPCLMULQDQ $0x00, Y8, Y7, Y12
	VPCLMULQDQ $0x11, Y8, Y7, Y7
	VPXOR      Y9, Y4, Y4
	VPXOR      Y10, Y5, Y5
	VPXOR      Y11, Y6, Y6
	VPXOR      Y12, Y7, Y7
	VPXOR      128(SI), Y4, Y4
	VPXOR      160(SI), Y5, Y5
	VPXOR      192(SI), Y6, Y6
	VPXOR      224(SI), Y7, Y7
	ADDQ       $256, SI
	SUBQ       $8, R9
	CMPQ       R9, $8
	JAE        avx2Loop

avx2End:
	LEAQ       8(R9), BX
	SHLQ       $5, BX
	LEAQ       DIST_END(R11), R12
	SUBQ       BX, R12
	VPCLMULQDQ $0x00, (R12), Y0, Y9
	VPCLMULQDQ $0x11, (R12), Y0, Y0
	VPCLMULQDQ $0x00, 32(R12), Y1, Y10
	VPCLMULQDQ $0x11, 32(R12), Y1, Y1
	VPCLMULQDQ $0x00, 64(R12), Y2, Y11
	VPCLMULQDQ $0x11, 64(R12), Y2, Y2
	VPCLMULQDQ $0x00, 96(R12), Y3, Y12
	VPCLMULQDQ $0x11, 96(R12), Y3, Y3
	VPXOR      Y9, Y0, Y0
	VPXOR      Y10, Y1, Y1
	VPXOR      Y11, Y2, Y2
	VPXOR      Y12, Y3, Y3
	VPCLMULQDQ $0x00, 128(R12), Y4, Y9
	VPCLMULQDQ $0x11, 128(R12), Y4, Y4
	VPCLMULQDQ $0x00, 160(R12), Y5, Y10
	VPCLMULQDQ $0x11, 160(R12), Y5, Y5
	VPCLMULQDQ $0x00, 192(R12), Y6, Y11
	VPCLMULQDQ $0x11, 192(R12), Y6, Y6
	VPCLMULQDQ $0x00, 224(R12), Y7, Y12
	VPCLMULQDQ $0x11, 224(R12), Y7, Y7
	VPXOR      Y9, Y4, Y4
	VPXOR      Y10, Y5, Y5
	VPXOR      Y11, Y6, Y6
	VPXOR      Y12, Y7, Y7
	VPXOR      Y1, Y0, Y0
	VPXOR      Y3, Y2, Y2
	VPXOR      Y5, Y4, Y4
	VPXOR      Y7, Y6, Y6
	VPXOR      Y2, Y0, Y0
	VPXOR      Y6, Y4, Y4
	VPXOR      Y4, Y0, Y0
	TESTQ      R9, R9
	JZ         avx2Reduce
	ADDQ       $256, R12

avx2Tail:
	VMOVDQU    (SI), Y3
	VPCLMULQDQ $0x00, (R12), Y3, Y4
	VPCLMULQDQ $0x11, (R12), Y3, Y3
	VPXOR      Y4, Y0, Y0
	VPXOR      Y3, Y0, Y0
	ADDQ       $32, SI
	ADDQ       $32, R12
	DECQ       R9
	JNZ        avx2Tail

avx2Reduce:
	VEXTRACTI128 $1, Y0, X1
	VPXOR        X1, X0, X0
	VMOVDQU      BARRETT(R11), X5
	VPCLMULQDQ   $0x00, X5, X0, X6
	VPCLMULQDQ   $0x10, X5, X6, X6
	VPXOR        X6, X0, X0
	VPEXTRD      $2, X0, AX
	VZEROUPPER
	NOTL         AX
	MOVL         AX, ret+32(FP)
	RET

// func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
TEXT ·cpuid(SB), NOSPLIT, $0-24
	MOVL leaf+0(FP), AX
	MOVL sub+4(FP), CX
	CPUID
	MOVL AX, eax+8(FP)
	MOVL BX, ebx+12(FP)
	MOVL CX, ecx+16(FP)
	MOVL DX, edx+20(FP)
	RET
