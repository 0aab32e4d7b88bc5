//go:build amd64 && !noasm

#include "textflag.h"

// STEP moves the four entries at byte offset off: c = cur, b = base,
// x = c + beta*(c - b) (beta in Y15), base = c, cur = max over x and zero
// (Y14) with a NaN x passing, plus +0, which turns -0 into +0.
#define STEP(off, c, b, x) \
	VMOVUPD off(DI)(AX*8), c \
	VMOVUPD off(SI)(AX*8), b \
	VSUBPD  b, c, x          \
	VMULPD  Y15, x, x        \
	VADDPD  x, c, x          \
	VMOVUPD c, off(SI)(AX*8) \
	VMAXPD  x, Y14, x        \
	VADDPD  Y14, x, x        \
	VMOVUPD x, off(DI)(AX*8)

// func extrapolateAVX2(cur, base []float64, beta float64)
TEXT ·extrapolateAVX2(SB), NOSPLIT, $0-56
	MOVQ         cur_base+0(FP), DI
	MOVQ         cur_len+8(FP), CX
	MOVQ         base_base+24(FP), SI
	VBROADCASTSD beta+48(FP), Y15
	VXORPD       Y14, Y14, Y14
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-8, DX
	JZ           four

eight:
	STEP(0, Y0, Y2, Y4)
	STEP(32, Y1, Y3, Y5)
	ADDQ $8, AX
	CMPQ AX, DX
	JB   eight

four:
	LEAQ 4(AX), DX
	CMPQ DX, CX
	JA   one
	STEP(0, Y0, Y2, Y4)
	ADDQ $4, AX

one:
	CMPQ AX, CX
	JAE  done
	VMOVSD (DI)(AX*8), X0
	VMOVSD (SI)(AX*8), X2
	VSUBSD X2, X0, X4
	VMULSD X15, X4, X4
	VADDSD X4, X0, X4
	VMOVSD X0, (SI)(AX*8)
	VMAXSD X4, X14, X4
	VADDSD X14, X4, X4
	VMOVSD X4, (DI)(AX*8)
	INCQ   AX
	JMP    one

done:
	VZEROUPPER
	RET
