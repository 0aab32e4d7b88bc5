//go:build amd64 && !noasm

#include "textflag.h"

// func cdColumnAVX2(u, g, delta []float64, ih float64) float64
//
// u = max(0, u - g*ih), delta = the change, returns sum delta^2: four rows
// per step with the sum in Y5, then a scalar tail into X5's low lane
// after the horizontal sum. VMAXPD with zero as its second source gives
// zero for NaN, as the reference's !(y > 0) does.
TEXT ·cdColumnAVX2(SB), NOSPLIT, $0-88
	MOVQ         u_base+0(FP), SI
	MOVQ         u_len+8(FP), CX
	MOVQ         g_base+24(FP), DI
	MOVQ         delta_base+48(FP), R8
	VBROADCASTSD ih+72(FP), Y0
	VXORPD       Y15, Y15, Y15
	VXORPD       Y5, Y5, Y5
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-4, DX
	JZ           hsum

loop4:
	VMOVUPD      (SI)(AX*8), Y1
	VMOVUPD      (DI)(AX*8), Y2
	VMOVAPD      Y1, Y3
	VFNMADD231PD Y0, Y2, Y3
	VMAXPD       Y15, Y3, Y3
	VSUBPD       Y1, Y3, Y4
	VMOVUPD      Y3, (SI)(AX*8)
	VMOVUPD      Y4, (R8)(AX*8)
	VFMADD231PD  Y4, Y4, Y5
	ADDQ         $4, AX
	CMPQ         AX, DX
	JB           loop4

hsum:
	VEXTRACTF128 $1, Y5, X6
	VADDPD       X6, X5, X5
	VHADDPD      X5, X5, X5
	CMPQ         AX, CX
	JAE          done

loop1:
	VMOVSD       (SI)(AX*8), X1
	VMOVSD       (DI)(AX*8), X2
	VMOVAPD      X1, X3
	VFNMADD231SD X0, X2, X3
	VMAXSD       X15, X3, X3
	VSUBSD       X1, X3, X4
	VMOVSD       X3, (SI)(AX*8)
	VMOVSD       X4, (R8)(AX*8)
	VFMADD231SD  X4, X4, X5
	INCQ         AX
	CMPQ         AX, CX
	JB           loop1

done:
	VMOVSD X5, ret+80(FP)
	VZEROUPPER
	RET
