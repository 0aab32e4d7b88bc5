//go:build amd64 && !noasm

#include "textflag.h"

// The block conjugate-gradient passes (cg.go): an outer loop over rows, m
// entries a row, and in each row four columns a step, then one. The
// per-column vectors (shift, alpha, beta and the sums) are indexed by the
// column, AX, in every row. Products and sums are separate instructions
// in the reference's order, so the results equal it bit for bit.

// func cgApplyAVX2(out, in []float64, m int, shift []float64, scale float64, base, g, part []float64)
TEXT ·cgApplyAVX2(SB), NOSPLIT, $0-160
	MOVQ         out_base+0(FP), DI
	MOVQ         out_len+8(FP), R12
	MOVQ         in_base+24(FP), SI
	MOVQ         m+48(FP), CX
	MOVQ         shift_base+56(FP), R8
	VBROADCASTSD scale+80(FP), Y15
	MOVQ         base_base+88(FP), R9
	MOVQ         g_base+112(FP), R10
	MOVQ         part_base+136(FP), R11
	LEAQ         (DI)(R12*8), R12 // end of out
	MOVQ         CX, R13
	SHLQ         $3, R13          // bytes a row
	MOVQ         CX, DX
	ANDQ         $-4, DX

arow:
	VBROADCASTSD (R9), Y14  // base[i]
	VBROADCASTSD (R10), Y13 // g[i]
	XORQ         AX, AX
	TESTQ        DX, DX
	JZ           atail

aloop4:
	VMOVUPD (DI)(AX*8), Y0
	VMULPD  Y15, Y0, Y0    // scale*out
	VMOVUPD (R8)(AX*8), Y1
	VMULPD  Y1, Y13, Y1    // g*shift
	VADDPD  Y1, Y14, Y1    // base + g*shift
	VMOVUPD (SI)(AX*8), Y2
	VMULPD  Y2, Y1, Y1     // (base + g*shift)*in
	VADDPD  Y1, Y0, Y0     // v
	VMOVUPD Y0, (DI)(AX*8)
	TESTQ   R11, R11
	JZ      anext4
	VMULPD  Y0, Y2, Y3     // in*v
	VADDPD  (R11)(AX*8), Y3, Y3
	VMOVUPD Y3, (R11)(AX*8)

anext4:
	ADDQ $4, AX
	CMPQ AX, DX
	JB   aloop4

atail:
	CMPQ AX, CX
	JAE  anextrow

aloop1:
	VMOVSD (DI)(AX*8), X0
	VMULSD X15, X0, X0
	VMOVSD (R8)(AX*8), X1
	VMULSD X1, X13, X1
	VADDSD X1, X14, X1
	VMOVSD (SI)(AX*8), X2
	VMULSD X2, X1, X1
	VADDSD X1, X0, X0
	VMOVSD X0, (DI)(AX*8)
	TESTQ  R11, R11
	JZ     anext1
	VMULSD X0, X2, X3
	VADDSD (R11)(AX*8), X3, X3
	VMOVSD X3, (R11)(AX*8)

anext1:
	INCQ AX
	CMPQ AX, CX
	JB   aloop1

anextrow:
	ADDQ R13, DI
	ADDQ R13, SI
	ADDQ $8, R9
	ADDQ $8, R10
	CMPQ DI, R12
	JB   arow
	VZEROUPPER
	RET

// func cgResidualAVX2(r, q, d []float64, m int, alpha, rr, rz []float64)
TEXT ·cgResidualAVX2(SB), NOSPLIT, $0-152
	MOVQ r_base+0(FP), DI
	MOVQ r_len+8(FP), R12
	MOVQ q_base+24(FP), SI
	MOVQ d_base+48(FP), R8
	MOVQ m+72(FP), CX
	MOVQ alpha_base+80(FP), R9
	MOVQ rr_base+104(FP), R10
	MOVQ rz_base+128(FP), R11
	LEAQ (DI)(R12*8), R12
	MOVQ CX, R13
	SHLQ $3, R13
	MOVQ CX, DX
	ANDQ $-4, DX

rrow:
	XORQ  AX, AX
	TESTQ DX, DX
	JZ    rtail

rloop4:
	VMOVUPD (R9)(AX*8), Y0
	VMULPD  (SI)(AX*8), Y0, Y0  // alpha*q
	VMOVUPD (DI)(AX*8), Y1
	VSUBPD  Y0, Y1, Y1          // v = r - alpha*q
	VMOVUPD Y1, (DI)(AX*8)
	VMULPD  Y1, Y1, Y2          // v*v
	VADDPD  (R10)(AX*8), Y2, Y2
	VMOVUPD Y2, (R10)(AX*8)
	VMULPD  (R8)(AX*8), Y1, Y3  // v*d
	VMULPD  Y3, Y1, Y3          // v*(v*d)
	VADDPD  (R11)(AX*8), Y3, Y3
	VMOVUPD Y3, (R11)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, DX
	JB      rloop4

rtail:
	CMPQ AX, CX
	JAE  rnextrow

rloop1:
	VMOVSD (R9)(AX*8), X0
	VMULSD (SI)(AX*8), X0, X0
	VMOVSD (DI)(AX*8), X1
	VSUBSD X0, X1, X1
	VMOVSD X1, (DI)(AX*8)
	VMULSD X1, X1, X2
	VADDSD (R10)(AX*8), X2, X2
	VMOVSD X2, (R10)(AX*8)
	VMULSD (R8)(AX*8), X1, X3
	VMULSD X3, X1, X3
	VADDSD (R11)(AX*8), X3, X3
	VMOVSD X3, (R11)(AX*8)
	INCQ   AX
	CMPQ   AX, CX
	JB     rloop1

rnextrow:
	ADDQ R13, DI
	ADDQ R13, SI
	ADDQ R13, R8
	CMPQ DI, R12
	JB   rrow
	VZEROUPPER
	RET

// func cgDirectionAVX2(x []float64, ldx int, p, r, d []float64, m int, alpha, beta []float64)
TEXT ·cgDirectionAVX2(SB), NOSPLIT, $0-160
	MOVQ x_base+0(FP), BX
	MOVQ ldx+24(FP), R13
	SHLQ $3, R13           // bytes a row of x
	MOVQ p_base+32(FP), DI
	MOVQ p_len+40(FP), R12
	MOVQ r_base+56(FP), SI
	MOVQ d_base+80(FP), R8
	MOVQ m+104(FP), CX
	MOVQ alpha_base+112(FP), R9
	MOVQ beta_base+136(FP), R10
	LEAQ (DI)(R12*8), R12
	MOVQ CX, R11
	SHLQ $3, R11           // bytes a row of p, r, d
	MOVQ CX, DX
	ANDQ $-4, DX

drow:
	XORQ  AX, AX
	TESTQ DX, DX
	JZ    dtail

dloop4:
	VMOVUPD (DI)(AX*8), Y0      // v, the old p
	VMULPD  (R9)(AX*8), Y0, Y1  // alpha*v
	VADDPD  (BX)(AX*8), Y1, Y1  // x + alpha*v
	VMOVUPD Y1, (BX)(AX*8)
	VMOVUPD (SI)(AX*8), Y2
	VMULPD  (R8)(AX*8), Y2, Y2  // r*d
	VMULPD  (R10)(AX*8), Y0, Y3 // beta*v
	VADDPD  Y3, Y2, Y2
	VMOVUPD Y2, (DI)(AX*8)
	ADDQ    $4, AX
	CMPQ    AX, DX
	JB      dloop4

dtail:
	CMPQ AX, CX
	JAE  dnextrow

dloop1:
	VMOVSD (DI)(AX*8), X0
	VMULSD (R9)(AX*8), X0, X1
	VADDSD (BX)(AX*8), X1, X1
	VMOVSD X1, (BX)(AX*8)
	VMOVSD (SI)(AX*8), X2
	VMULSD (R8)(AX*8), X2, X2
	VMULSD (R10)(AX*8), X0, X3
	VADDSD X3, X2, X2
	VMOVSD X2, (DI)(AX*8)
	INCQ   AX
	CMPQ   AX, CX
	JB     dloop1

dnextrow:
	ADDQ R11, DI
	ADDQ R11, SI
	ADDQ R11, R8
	ADDQ R13, BX
	CMPQ DI, R12
	JB   drow
	VZEROUPPER
	RET
