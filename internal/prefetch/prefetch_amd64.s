//go:build amd64 && !purego

#include "textflag.h"

// func t0(p unsafe.Pointer)
TEXT ·t0(SB), NOSPLIT, $0-8
	MOVQ p+0(FP), AX
	PREFETCHT0 (AX)
	RET

// func lines(p unsafe.Pointer, n uintptr)
TEXT ·lines(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	ANDQ $~63, AX
	MOVQ n+8(FP), CX
	TESTQ CX, CX
	JZ done
loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	DECQ CX
	JNZ loop
done:
	RET
