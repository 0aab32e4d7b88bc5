//go:build amd64 && !noasm

#include "textflag.h"

// func dotAVX2(x, y []float64) float64
//
// Four vector accumulators: with an FMA latency of 4 cycles and two 256-bit
// loads per cycle, four chains keep the loads (the bound: two per FMA) busy.
TEXT ·dotAVX2(SB), NOSPLIT, $0-56
	MOVQ   x_base+0(FP), SI
	MOVQ   x_len+8(FP), CX
	MOVQ   y_base+24(FP), DI
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	XORQ   AX, AX
	MOVQ   CX, DX
	ANDQ   $-16, DX
	JZ     quad

loop16:
	VMOVUPD     (SI)(AX*8), Y4
	VMOVUPD     32(SI)(AX*8), Y5
	VMOVUPD     64(SI)(AX*8), Y6
	VMOVUPD     96(SI)(AX*8), Y7
	VFMADD231PD (DI)(AX*8), Y4, Y0
	VFMADD231PD 32(DI)(AX*8), Y5, Y1
	VFMADD231PD 64(DI)(AX*8), Y6, Y2
	VFMADD231PD 96(DI)(AX*8), Y7, Y3
	ADDQ        $16, AX
	CMPQ        AX, DX
	JB          loop16

quad:
	MOVQ CX, DX
	ANDQ $-4, DX
	CMPQ AX, DX
	JAE  reduce

loop4:
	VMOVUPD     (SI)(AX*8), Y4
	VFMADD231PD (DI)(AX*8), Y4, Y0
	ADDQ        $4, AX
	CMPQ        AX, DX
	JB          loop4

reduce:
	VADDPD       Y1, Y0, Y0
	VADDPD       Y3, Y2, Y2
	VADDPD       Y2, Y0, Y0
	VEXTRACTF128 $1, Y0, X1
	VADDPD       X1, X0, X0
	VUNPCKHPD    X0, X0, X1
	VADDSD       X1, X0, X0
	CMPQ         AX, CX
	JAE          done

loop1:
	VMOVSD      (SI)(AX*8), X1
	VFMADD231SD (DI)(AX*8), X1, X0
	INCQ        AX
	CMPQ        AX, CX
	JB          loop1

done:
	VMOVSD X0, ret+48(FP)
	VZEROUPPER
	RET
