//go:build amd64 && !noasm

#include "textflag.h"

// func mulUpdateAVX2(x, num, den []float64, eps float64)
//
// x[i] *= num[i] / max(den[i], eps). VMAXPD with eps as the first source
// returns eps only when eps > den[i] and otherwise den[i] (also when den[i]
// is NaN), which is exactly the reference's "if d < eps { d = eps }". Four
// independent divisions per iteration overlap the divider's latency.
TEXT ·mulUpdateAVX2(SB), NOSPLIT, $0-80
	MOVQ         x_base+0(FP), DI
	MOVQ         x_len+8(FP), CX
	MOVQ         num_base+24(FP), SI
	MOVQ         den_base+48(FP), R8
	VBROADCASTSD eps+72(FP), Y15
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-16, DX
	JZ           quad

loop16:
	VMAXPD  (R8)(AX*8), Y15, Y0
	VMAXPD  32(R8)(AX*8), Y15, Y1
	VMAXPD  64(R8)(AX*8), Y15, Y2
	VMAXPD  96(R8)(AX*8), Y15, Y3
	VMOVUPD (SI)(AX*8), Y4
	VMOVUPD 32(SI)(AX*8), Y5
	VMOVUPD 64(SI)(AX*8), Y6
	VMOVUPD 96(SI)(AX*8), Y7
	VDIVPD  Y0, Y4, Y4
	VDIVPD  Y1, Y5, Y5
	VDIVPD  Y2, Y6, Y6
	VDIVPD  Y3, Y7, Y7
	VMULPD  (DI)(AX*8), Y4, Y4
	VMULPD  32(DI)(AX*8), Y5, Y5
	VMULPD  64(DI)(AX*8), Y6, Y6
	VMULPD  96(DI)(AX*8), Y7, Y7
	VMOVUPD Y4, (DI)(AX*8)
	VMOVUPD Y5, 32(DI)(AX*8)
	VMOVUPD Y6, 64(DI)(AX*8)
	VMOVUPD Y7, 96(DI)(AX*8)
	ADDQ    $16, AX
	CMPQ    AX, DX
	JB      loop16

quad:
	MOVQ CX, DX
	ANDQ $-4, DX
	CMPQ AX, DX
	JAE  tail

loop4:
	VMAXPD  (R8)(AX*8), Y15, Y0
	VMOVUPD (SI)(AX*8), Y4
	VDIVPD  Y0, Y4, Y4
	VMULPD  (DI)(AX*8), Y4, Y4
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, DX
	JB      loop4

tail:
	CMPQ AX, CX
	JAE  done

loop1:
	VMAXSD (R8)(AX*8), X15, X0
	VMOVSD (SI)(AX*8), X4
	VDIVSD X0, X4, X4
	VMULSD (DI)(AX*8), X4, X4
	VMOVSD X4, (DI)(AX*8)
	INCQ   AX
	CMPQ   AX, CX
	JB     loop1

done:
	VZEROUPPER
	RET
