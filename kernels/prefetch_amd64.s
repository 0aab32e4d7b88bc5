//go:build amd64 && !noasm

#include "textflag.h"

// func prefetchRow32(ind []int32, val []float32, lo int)
TEXT ·prefetchRow32(SB), NOSPLIT, $0-56
	MOVQ ind_base+0(FP), AX
	MOVQ val_base+24(FP), BX
	MOVQ lo+48(FP), CX
	LEAQ (AX)(CX*4), AX
	LEAQ (BX)(CX*4), BX
	PREFETCHT0 (AX)
	PREFETCHT0 64(AX)
	PREFETCHT0 (BX)
	PREFETCHT0 64(BX)
	RET

// func prefetchInt(s []int, i int)
TEXT ·prefetchInt(SB), NOSPLIT, $0-32
	MOVQ s_base+0(FP), AX
	MOVQ i+24(FP), CX
	PREFETCHT0 (AX)(CX*8)
	RET
