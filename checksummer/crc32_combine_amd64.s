//go:build amd64 && !purego

#include "textflag.h"

// Carry-less multiplication modulo the CRC-32 polynomial G, for
// CRC32Combine. Polynomials are reflected (see crc32_poly.go): a 32-bit
// value has x^0 in bit 31, a 64-bit product has x^0 in bit 63.
//
// MULMOD(X, Y, T) sets the low dword of X to X·Y mod G (upper bits zero),
// for X and Y holding reflected 32-bit polynomials in their low dwords:
//   1. P = clmul(X, Y) << 1           the 63-bit product in the 64-bit frame
//   2. Barrett reduction (libdeflate's): with H = P & 0xffffffff (the
//      coefficients of x^32..x^63),
//      Q = clmul(clmul(H, µ) & 0xffffffff, G) and the remainder is the high
//      dword of P ⊕ Q; µ = floor(x^64/G) and G are 33-bit constants.
// Registers: X12 = G, X13 = 0xffffffff mask, X14 = µ.
#define MULMOD(X, Y, T) \
	PCLMULQDQ $0x00, Y, X; \
	PSLLQ     $1, X;       \
	MOVO      X, T;        \
	PAND      X13, T;      \
	PCLMULQDQ $0x00, X14, T; \
	PAND      X13, T;      \
	PCLMULQDQ $0x00, X12, T; \
	PXOR      T, X;        \
	PSRLQ     $32, X

// crc32CombineConsts: G and µ (33-bit, reflected) and the low-dword mask.
DATA crc32CombineConsts<>+0(SB)/8, $0x1DB710641
DATA crc32CombineConsts<>+8(SB)/8, $0x1F7011641
DATA crc32CombineConsts<>+16(SB)/8, $0x00000000ffffffff
GLOBL crc32CombineConsts<>(SB), RODATA|NOPTR, $24

// Table row offsets: crc32CombineTable is [4][256]uint32.
#define ROW1 1024
#define ROW2 2048
#define ROW3 3072

// func crc32Combine(a, b uint32, lenB int64) uint32
//
// CRC32Combine in one call: lenB ≤ 0 returns a; without PCLMULQDQ it
// continues in crc32CombineGeneric. Otherwise the length is folded below
// 2^32 (foldCRC32Length), a is multiplied by F = x^(8·lenB) mod G and b is
// added. F is the product of the table entries of the non-zero bytes of the
// folded length, built as a tree that does not involve a — L from bytes 0
// and 1 (X1, R8 = 1 once present), H from bytes 2 and 3 (X3, R9), F = L·H —
// so a running digest (a chain of combines) waits for one multiplication per
// call, and consecutive calls overlap.
TEXT ·crc32Combine(SB), NOSPLIT, $0-20
	MOVQ  lenB+8(FP), BX
	TESTQ BX, BX
	JLE   zeroLength
	CMPB  ·hasCLMUL(SB), $0
	JEQ   generic

	// Fold: s = lo + hi, twice; 2^32 − 1 ≡ 0.
	MOVL BX, CX
	SHRQ $32, BX
	ADDQ CX, BX
	MOVL BX, CX
	SHRQ $32, BX
	ADDQ CX, BX
	CMPQ BX, $0xffffffff
	JNE  folded
	XORL BX, BX

folded:
	// Loads straight into vector registers keep port 5 for PCLMULQDQ.
	MOVL a+0(FP), X0
	TESTL BX, BX
	JZ    done                                 // F = 1
	LEAQ  ·crc32CombineTable(SB), SI
	MOVQ  crc32CombineConsts<>+0(SB), X12
	MOVQ  crc32CombineConsts<>+8(SB), X14
	MOVQ  crc32CombineConsts<>+16(SB), X13

	// L = T0[b0] · T1[b1] over the non-zero bytes.
	XORL    R8, R8
	MOVBLZX BL, CX
	TESTL   CX, CX
	JZ      byte1
	MOVL    (SI)(CX*4), X1
	MOVL    $1, R8

byte1:
	MOVL    BX, CX
	SHRL    $8, CX
	MOVBLZX CL, CX
	TESTL   CX, CX
	JZ      byte2
	TESTL   R8, R8
	JNZ     mulLow
	MOVL    ROW1(SI)(CX*4), X1
	MOVL    $1, R8
	JMP     byte2

mulLow:
	MOVL ROW1(SI)(CX*4), X2
	MULMOD(X1, X2, X5)

byte2:
	// H = T2[b2] · T3[b3] over the non-zero bytes.
	XORL    R9, R9
	MOVL    BX, CX
	SHRL    $16, CX
	MOVBLZX CL, CX
	TESTL   CX, CX
	JZ      byte3
	MOVL    ROW2(SI)(CX*4), X3
	MOVL    $1, R9

byte3:
	MOVL  BX, CX
	SHRL  $24, CX
	JZ    joinHalves
	TESTL R9, R9
	JNZ   mulHigh
	MOVL  ROW3(SI)(CX*4), X3
	MOVL  $1, R9
	JMP   joinHalves

mulHigh:
	MOVL ROW3(SI)(CX*4), X4
	MULMOD(X3, X4, X6)

joinHalves:
	// F = L·H into X1 (n ≠ 0, so at least one half is present).
	TESTL R9, R9
	JZ    apply
	TESTL R8, R8
	JNZ   mulHalves
	MOVO  X3, X1
	JMP   apply

mulHalves:
	MULMOD(X1, X3, X5)

apply:
	MULMOD(X0, X1, X5)

done:
	MOVL b+4(FP), X1
	PXOR X1, X0
	MOVL X0, ret+16(FP)
	RET

zeroLength:
	MOVL a+0(FP), AX
	MOVL AX, ret+16(FP)
	RET

generic:
	JMP ·crc32CombineGeneric(SB)
