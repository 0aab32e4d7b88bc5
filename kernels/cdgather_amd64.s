//go:build amd64 && !noasm

#include "textflag.h"
#include "cdstep_amd64.h"

// func cdGatherAVX2(u []float64, ld, c int, s, p, d, ih, den []float64) (sq, sqd float64)
//
// Registers: SI row i of u's column 0, R11 row i of column c, R8 p, R9 d,
// R10 ih, R12 den (all at row i), AX the rows left, DX the column stride
// in bytes, BX s; in the sum over the columns R13 walks down u's columns,
// DI along s, CX counts pairs of columns. Y15 zero, Y12 and Y14 the two
// sums of squares.

// CDSTEP finishes four rows whose sum over the columns is in acc: the
// diagonal term, den, the step (CDMOVE) and the sums.
#define CDSTEP(acc, off) \
	VMOVUPD     off(R11), Y8; \
	VFMADD231PD off(R9), Y8, acc; \
	VMOVUPD     acc, off(R12); \
	VSUBPD      off(R8), acc, acc; \
	CDMOVE(acc, off(R11), off(R10)); \
	VMULPD      Y10, Y10, Y10; \
	VADDPD      Y10, Y12, Y12; \
	VFMADD231PD off(R9), Y10, Y14

// ADVANCE moves the row pointers, den's too, bytes further.
#define ADVANCE(bytes) \
	CDADVANCE(bytes); \
	ADDQ $bytes, R12

TEXT ·cdGatherAVX2(SB), NOSPLIT, $0-176
	MOVQ   u_base+0(FP), SI
	MOVQ   ld+24(FP), DX
	SHLQ   $3, DX
	MOVQ   c+32(FP), R11
	IMULQ  DX, R11
	ADDQ   SI, R11
	MOVQ   s_base+40(FP), BX
	MOVQ   p_base+64(FP), R8
	MOVQ   p_len+72(FP), AX
	MOVQ   d_base+88(FP), R9
	MOVQ   ih_base+112(FP), R10
	MOVQ   den_base+136(FP), R12
	VXORPD Y15, Y15, Y15
	VXORPD Y12, Y12, Y12
	VXORPD Y14, Y14, Y14
	CMPQ   AX, $16
	JB     quad

rows16:
	VXORPD Y0, Y0, Y0
	VXORPD Y1, Y1, Y1
	VXORPD Y2, Y2, Y2
	VXORPD Y3, Y3, Y3
	VXORPD Y4, Y4, Y4
	VXORPD Y5, Y5, Y5
	VXORPD Y6, Y6, Y6
	VXORPD Y7, Y7, Y7
	MOVQ   SI, R13
	MOVQ   BX, DI
	MOVQ   s_len+48(FP), CX
	SHRQ   $1, CX
	JZ     odd16

pair16:
	VBROADCASTSD (DI), Y8
	VFMADD231PD  (R13), Y8, Y0
	VFMADD231PD  32(R13), Y8, Y1
	VFMADD231PD  64(R13), Y8, Y2
	VFMADD231PD  96(R13), Y8, Y3
	ADDQ         DX, R13
	VBROADCASTSD 8(DI), Y9
	VFMADD231PD  (R13), Y9, Y4
	VFMADD231PD  32(R13), Y9, Y5
	VFMADD231PD  64(R13), Y9, Y6
	VFMADD231PD  96(R13), Y9, Y7
	ADDQ         DX, R13
	ADDQ         $16, DI
	DECQ         CX
	JNZ          pair16

odd16:
	MOVQ         s_len+48(FP), CX
	TESTQ        $1, CX
	JZ           step16
	VBROADCASTSD (DI), Y8
	VFMADD231PD  (R13), Y8, Y0
	VFMADD231PD  32(R13), Y8, Y1
	VFMADD231PD  64(R13), Y8, Y2
	VFMADD231PD  96(R13), Y8, Y3

step16:
	VADDPD Y4, Y0, Y0
	VADDPD Y5, Y1, Y1
	VADDPD Y6, Y2, Y2
	VADDPD Y7, Y3, Y3
	CDSTEP(Y0, 0)
	CDSTEP(Y1, 32)
	CDSTEP(Y2, 64)
	CDSTEP(Y3, 96)
	ADVANCE(128)
	SUBQ   $16, AX
	CMPQ   AX, $16
	JAE    rows16

quad:
	CMPQ AX, $4
	JB   hsum

rows4:
	VXORPD Y0, Y0, Y0
	VXORPD Y4, Y4, Y4
	MOVQ   SI, R13
	MOVQ   BX, DI
	MOVQ   s_len+48(FP), CX
	SHRQ   $1, CX
	JZ     odd4

pair4:
	VBROADCASTSD (DI), Y8
	VFMADD231PD  (R13), Y8, Y0
	ADDQ         DX, R13
	VBROADCASTSD 8(DI), Y9
	VFMADD231PD  (R13), Y9, Y4
	ADDQ         DX, R13
	ADDQ         $16, DI
	DECQ         CX
	JNZ          pair4

odd4:
	MOVQ         s_len+48(FP), CX
	TESTQ        $1, CX
	JZ           step4
	VBROADCASTSD (DI), Y8
	VFMADD231PD  (R13), Y8, Y0

step4:
	VADDPD Y4, Y0, Y0
	CDSTEP(Y0, 0)
	ADVANCE(32)
	SUBQ   $4, AX
	CMPQ   AX, $4
	JAE    rows4

hsum:
	VEXTRACTF128 $1, Y12, X6
	VADDPD       X6, X12, X12
	VHADDPD      X12, X12, X12
	VEXTRACTF128 $1, Y14, X6
	VADDPD       X6, X14, X14
	VHADDPD      X14, X14, X14
	TESTQ        AX, AX
	JZ           done

row1:
	VXORPD X0, X0, X0
	VXORPD X4, X4, X4
	MOVQ   SI, R13
	MOVQ   BX, DI
	MOVQ   s_len+48(FP), CX
	SHRQ   $1, CX
	JZ     odd1

pair1:
	VMOVSD      (DI), X8
	VFMADD231SD (R13), X8, X0
	ADDQ        DX, R13
	VMOVSD      8(DI), X9
	VFMADD231SD (R13), X9, X4
	ADDQ        DX, R13
	ADDQ        $16, DI
	DECQ        CX
	JNZ         pair1

odd1:
	MOVQ        s_len+48(FP), CX
	TESTQ       $1, CX
	JZ          step1
	VMOVSD      (DI), X8
	VFMADD231SD (R13), X8, X0

step1:
	VADDSD      X4, X0, X0
	VMOVSD      (R11), X8
	VFMADD231SD (R9), X8, X0
	VMOVSD      X0, (R12)
	VSUBSD      (R8), X0, X0
	CDMOVE1(X0, (R11), (R10))
	VMULSD      X10, X10, X10
	VADDSD      X10, X12, X12
	VFMADD231SD (R9), X10, X14
	ADVANCE(8)
	DECQ         AX
	JNZ          row1

done:
	VMOVSD X12, sq+160(FP)
	VMOVSD X14, sqd+168(FP)
	VZEROUPPER
	RET
