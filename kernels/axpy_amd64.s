//go:build amd64 && !noasm

#include "textflag.h"

// func axpyAVX2(a float64, x, y []float64)
//
// y[i] += a*x[i]: 16 doubles per iteration in four independent FMAs, then
// 4 at a time, then a scalar tail of at most 3.
TEXT ·axpyAVX2(SB), NOSPLIT, $0-56
	MOVQ         x_base+8(FP), SI
	MOVQ         x_len+16(FP), CX
	MOVQ         y_base+32(FP), DI
	VBROADCASTSD a+0(FP), Y0
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-16, DX
	JZ           quad

loop16:
	VMOVUPD     (SI)(AX*8), Y1
	VMOVUPD     32(SI)(AX*8), Y2
	VMOVUPD     64(SI)(AX*8), Y3
	VMOVUPD     96(SI)(AX*8), Y4
	VFMADD213PD (DI)(AX*8), Y0, Y1
	VFMADD213PD 32(DI)(AX*8), Y0, Y2
	VFMADD213PD 64(DI)(AX*8), Y0, Y3
	VFMADD213PD 96(DI)(AX*8), Y0, Y4
	VMOVUPD     Y1, (DI)(AX*8)
	VMOVUPD     Y2, 32(DI)(AX*8)
	VMOVUPD     Y3, 64(DI)(AX*8)
	VMOVUPD     Y4, 96(DI)(AX*8)
	ADDQ        $16, AX
	CMPQ        AX, DX
	JB          loop16

quad:
	MOVQ CX, DX
	ANDQ $-4, DX
	CMPQ AX, DX
	JAE  tail

loop4:
	VMOVUPD     (SI)(AX*8), Y1
	VFMADD213PD (DI)(AX*8), Y0, Y1
	VMOVUPD     Y1, (DI)(AX*8)
	ADDQ        $4, AX
	CMPQ        AX, DX
	JB          loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMOVSD      (SI)(AX*8), X1
	VFMADD213SD (DI)(AX*8), X0, X1
	VMOVSD      X1, (DI)(AX*8)
	INCQ        AX
	CMPQ        AX, CX
	JB          loop1

done:
	VZEROUPPER
	RET
