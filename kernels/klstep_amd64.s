//go:build amd64 && !noasm

#include "textflag.h"

// NEWSUMS4 and NEWSUMS1 add an entry's terms of gNew and hess from r in
// Y6 (X6), xr in Y7 (X7) and hNew in Y8 (X8): gNew += hNew*xr in Y11,
// hess += hNew*(hNew*(xr*r)) in Y12 (Y13 scratch). klStepAVX2 and
// klDerivAVX2 share them, so that a step that moves nothing and KLDeriv
// give the same sums bit for bit.
#define NEWSUMS4 \
	VFMADD231PD Y7, Y8, Y11; \
	VMULPD      Y6, Y7, Y13; \
	VMULPD      Y8, Y13, Y13; \
	VFMADD231PD Y13, Y8, Y12

#define NEWSUMS1 \
	VFMADD231SD X7, X8, X11; \
	VMULSD      X6, X7, X13; \
	VMULSD      X8, X13, X13; \
	VFMADD231SD X13, X8, X12

// HSUM(y, x) leaves in x's low lane the sum of y's four lanes, as
// (l0 + l2) + (l1 + l3) (X13 scratch).
#define HSUM(y, x) \
	VEXTRACTF128 $1, y, X13; \
	VADDPD       X13, x, x; \
	VHADDPD      x, x, x

// func klStepAVX2(y, x, hOld, hNew, xr, r []float64, t, eps float64) (gOld, gNew, hess float64)
//
// Four entries per step: y += t*hOld (stored), r = 1/max(eps, y) (VMAXPD
// with y as its second source passes a NaN y through, as Go's max does),
// xr = x*r (both stored), then gOld += hOld*xr, gNew += hNew*xr,
// hess += hNew*(hNew*(xr*r)) in Y10, Y11 and Y12; a scalar tail after the
// horizontal sums. The division dominates: one VDIVPD per four entries.
TEXT ·klStepAVX2(SB), NOSPLIT, $0-184
	MOVQ         y_base+0(FP), SI
	MOVQ         x_base+24(FP), DI
	MOVQ         x_len+32(FP), CX
	MOVQ         hOld_base+48(FP), R8
	MOVQ         hNew_base+72(FP), R9
	MOVQ         xr_base+96(FP), R10
	MOVQ         r_base+120(FP), R11
	VBROADCASTSD t+144(FP), Y0
	VBROADCASTSD eps+152(FP), Y1
	MOVQ         $0x3FF0000000000000, AX
	VMOVQ        AX, X2 // VEX: a legacy MOVQ here, after Y0 and Y1 are written, costs Intel cores an AVX-SSE transition (about 100 ns a call)
	VBROADCASTSD X2, Y2
	VXORPD       Y10, Y10, Y10
	VXORPD       Y11, Y11, Y11
	VXORPD       Y12, Y12, Y12
	XORQ         AX, AX
	MOVQ         CX, DX
	ANDQ         $-4, DX
	JZ           hsum

loop4:
	VMOVUPD      (SI)(AX*8), Y3
	VMOVUPD      (R8)(AX*8), Y4
	VFMADD231PD  Y0, Y4, Y3
	VMOVUPD      Y3, (SI)(AX*8)
	VMAXPD       Y3, Y1, Y5
	VDIVPD       Y5, Y2, Y6
	VMOVUPD      Y6, (R11)(AX*8)
	VMULPD       (DI)(AX*8), Y6, Y7
	VMOVUPD      Y7, (R10)(AX*8)
	VFMADD231PD  Y7, Y4, Y10
	VMOVUPD      (R9)(AX*8), Y8
	NEWSUMS4
	ADDQ         $4, AX
	CMPQ         AX, DX
	JB           loop4

hsum:
	HSUM(Y10, X10)
	HSUM(Y11, X11)
	HSUM(Y12, X12)
	CMPQ         AX, CX
	JAE          done

loop1:
	VMOVSD       (SI)(AX*8), X3
	VMOVSD       (R8)(AX*8), X4
	VFMADD231SD  X0, X4, X3
	VMOVSD       X3, (SI)(AX*8)
	VMAXSD       X3, X1, X5
	VDIVSD       X5, X2, X6
	VMOVSD       X6, (R11)(AX*8)
	VMULSD       (DI)(AX*8), X6, X7
	VMOVSD       X7, (R10)(AX*8)
	VFMADD231SD  X7, X4, X10
	VMOVSD       (R9)(AX*8), X8
	NEWSUMS1
	INCQ         AX
	CMPQ         AX, CX
	JB           loop1

done:
	VMOVSD X10, gOld+160(FP)
	VMOVSD X11, gNew+168(FP)
	VMOVSD X12, hess+176(FP)
	VZEROUPPER
	RET

// func klDerivAVX2(xr, r, h []float64) (gNew, hess float64)
//
// klStepAVX2's gNew and hess from the ratios it stored, with no move of y:
// the same operations (NEWSUMS4, NEWSUMS1) in the same lanes, horizontal
// sums and tail, so the sums equal, bit for bit, those of a step with
// t = 0 at the same y.
TEXT ·klDerivAVX2(SB), NOSPLIT, $0-88
	MOVQ        xr_base+0(FP), R10
	MOVQ        xr_len+8(FP), CX
	MOVQ        r_base+24(FP), R11
	MOVQ        h_base+48(FP), R9
	VXORPD      Y11, Y11, Y11
	VXORPD      Y12, Y12, Y12
	XORQ        AX, AX
	MOVQ        CX, DX
	ANDQ        $-4, DX
	JZ          dhsum

dloop4:
	VMOVUPD     (R10)(AX*8), Y7
	VMOVUPD     (R11)(AX*8), Y6
	VMOVUPD     (R9)(AX*8), Y8
	NEWSUMS4
	ADDQ        $4, AX
	CMPQ        AX, DX
	JB          dloop4

dhsum:
	HSUM(Y11, X11)
	HSUM(Y12, X12)
	CMPQ         AX, CX
	JAE          ddone

dloop1:
	VMOVSD      (R10)(AX*8), X7
	VMOVSD      (R11)(AX*8), X6
	VMOVSD      (R9)(AX*8), X8
	NEWSUMS1
	INCQ        AX
	CMPQ        AX, CX
	JB          dloop1

ddone:
	VMOVSD X11, gNew+72(FP)
	VMOVSD X12, hess+80(FP)
	VZEROUPPER
	RET
