//go:build amd64 && !noasm

#include "textflag.h"

// func extrapolateAVX2(cur, base []float64, beta float64)
//
// x = c + beta*(c - b); b = c; c = max(0 over x, NaN passing) + 0.
// VMAXPD x, zero, dst gives zero where zero > x and x otherwise (a NaN x
// included); adding +0 turns the -0 that passes into +0, as Go's max does.
TEXT ·extrapolateAVX2(SB), NOSPLIT, $0-56
	MOVQ         cur_base+0(FP), DI
	MOVQ         cur_len+8(FP), CX
	MOVQ         base_base+24(FP), SI
	VBROADCASTSD beta+48(FP), Y15
	VXORPD       Y14, Y14, Y14
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-8, DX
	JZ           quad

loop8:
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD 32(DI)(AX*8), Y1
	VMOVUPD (SI)(AX*8), Y2
	VMOVUPD 32(SI)(AX*8), Y3
	VSUBPD  Y2, Y0, Y4
	VSUBPD  Y3, Y1, Y5
	VMULPD  Y15, Y4, Y4
	VMULPD  Y15, Y5, Y5
	VADDPD  Y4, Y0, Y4
	VADDPD  Y5, Y1, Y5
	VMOVUPD Y0, (SI)(AX*8)
	VMOVUPD Y1, 32(SI)(AX*8)
	VMAXPD  Y4, Y14, Y4
	VMAXPD  Y5, Y14, Y5
	VADDPD  Y14, Y4, Y4
	VADDPD  Y14, Y5, Y5
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y5, 32(DI)(AX*8)
	ADDQ    $8, AX
	CMPQ    AX, DX
	JB      loop8

quad:
	MOVQ CX, DX
	ANDQ $-4, DX
	CMPQ AX, DX
	JAE  tail

loop4:
	VMOVUPD (DI)(AX*8), Y0
	VMOVUPD (SI)(AX*8), Y2
	VSUBPD  Y2, Y0, Y4
	VMULPD  Y15, Y4, Y4
	VADDPD  Y4, Y0, Y4
	VMOVUPD Y0, (SI)(AX*8)
	VMAXPD  Y4, Y14, Y4
	VADDPD  Y14, Y4, Y4
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
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
	CMPQ   AX, CX
	JB     loop1

done:
	VZEROUPPER
	RET
