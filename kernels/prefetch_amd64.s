//go:build amd64 && !noasm

#include "textflag.h"

// LINES(start, n, count, tmp) sets count to the number of cache lines
// holding the n bytes from address start (n >= 1), at most 16.
#define LINES(start, n, count, tmp) \
	LEAQ  -1(start)(n*1), count; \
	SHRQ  $6, count; \
	MOVQ  start, tmp; \
	SHRQ  $6, tmp; \
	SUBQ  tmp, count; \
	INCQ  count; \
	MOVQ  $16, tmp; \
	CMPQ  count, tmp; \
	CMOVQGT tmp, count

// func prefetchRow32(ind []int32, val []float32, lo, hi int)
//
// The cache lines holding ind[lo:hi] and val[lo:hi], at most 16 of each
// (lo < hi, both in range).
TEXT ·prefetchRow32(SB), NOSPLIT, $0-64
	MOVQ ind_base+0(FP), AX
	MOVQ val_base+24(FP), BX
	MOVQ lo+48(FP), CX
	MOVQ hi+56(FP), DX
	SUBQ CX, DX
	SHLQ $2, DX
	LEAQ (AX)(CX*4), AX
	LEAQ (BX)(CX*4), BX
	LINES(AX, DX, R8, R9)
	LINES(BX, DX, R10, R9)

indLoop:
	PREFETCHT0 (AX)
	ADDQ       $64, AX
	DECQ       R8
	JNZ        indLoop

valLoop:
	PREFETCHT0 (BX)
	ADDQ       $64, BX
	DECQ       R10
	JNZ        valLoop
	RET

// func prefetchInt(s []int, i int)
TEXT ·prefetchInt(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), AX
	MOVQ i+24(FP), CX
	PREFETCHT0 (AX)(CX*8)
	RET
