//go:build amd64 && !noasm

#include "textflag.h"
#include "cdstep_amd64.h"

// func cdGather2AVX2(u []float64, ld, c, k int, s, p, ih, d []float64, s1c float64, den []float64) (sq0, sq1, sqd float64)
//
// Registers: SI row i of u's column 0; R11, R8, R10 and R14 row i of
// column c of u, p, ih and den (column c+1 is DX bytes further); R9 d at
// row i; AX the
// rows left; DX the column stride in bytes; BX s; R12 k in bytes (row
// c+1 of S); in the sums over the columns R13 walks down u's columns, DI
// along s, CX counts the columns. Y0-Y3 column c's sums, Y4-Y7 column
// c+1's; Y12, Y13 and Y14 the sums of squares; Y15 zero.

// STEP0 finishes column c for four rows (sum in acc): S u + d x to den,
// the step as cdGatherAVX2's, then acc1 += S_{c+1,c} delta.
#define STEP0(acc, acc1, off) \
	VMOVUPD      off(R11), Y8; \
	VFMADD231PD  off(R9), Y8, acc; \
	VMOVUPD      acc, off(R14); \
	VSUBPD       off(R8), acc, acc; \
	CDMOVE(acc, off(R11), off(R10)); \
	VBROADCASTSD s1c+144(FP), acc; \
	VFMADD231PD  acc, Y10, acc1; \
	VMULPD       Y10, Y10, Y10; \
	VADDPD       Y10, Y12, Y12; \
	VFMADD231PD  off(R9), Y10, Y14

// STEP1 finishes column c+1 for four rows (sum in acc).
#define STEP1(acc, off) \
	VMOVUPD     off(R11)(DX*1), Y8; \
	VFMADD231PD off(R9), Y8, acc; \
	VMOVUPD     acc, off(R14)(DX*1); \
	VSUBPD      off(R8)(DX*1), acc, acc; \
	CDMOVE(acc, off(R11)(DX*1), off(R10)(DX*1)); \
	VMULPD      Y10, Y10, Y10; \
	VADDPD      Y10, Y13, Y13; \
	VFMADD231PD off(R9), Y10, Y14

// CDADVANCE2 is CDADVANCE with den's row pointer too.
#define CDADVANCE2(bytes) \
	CDADVANCE(bytes); \
	ADDQ $bytes, R14

TEXT ·cdGather2AVX2(SB), NOSPLIT, $0-200
	MOVQ   u_base+0(FP), SI
	MOVQ   ld+24(FP), DX
	SHLQ   $3, DX
	MOVQ   c+32(FP), R13
	IMULQ  DX, R13
	MOVQ   SI, R11
	ADDQ   R13, R11
	MOVQ   p_base+72(FP), R8
	ADDQ   R13, R8
	MOVQ   ih_base+96(FP), R10
	ADDQ   R13, R10
	MOVQ   den_base+152(FP), R14
	ADDQ   R13, R14
	MOVQ   d_base+120(FP), R9
	MOVQ   d_len+128(FP), AX
	MOVQ   s_base+48(FP), BX
	MOVQ   k+40(FP), R12
	SHLQ   $3, R12
	VXORPD Y15, Y15, Y15
	VXORPD Y12, Y12, Y12
	VXORPD Y13, Y13, Y13
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
	MOVQ   k+40(FP), CX

col16:
	VBROADCASTSD (DI), Y8
	VBROADCASTSD (DI)(R12*1), Y9
	VMOVUPD      (R13), Y10
	VFMADD231PD  Y10, Y8, Y0
	VFMADD231PD  Y10, Y9, Y4
	VMOVUPD      32(R13), Y11
	VFMADD231PD  Y11, Y8, Y1
	VFMADD231PD  Y11, Y9, Y5
	VMOVUPD      64(R13), Y10
	VFMADD231PD  Y10, Y8, Y2
	VFMADD231PD  Y10, Y9, Y6
	VMOVUPD      96(R13), Y11
	VFMADD231PD  Y11, Y8, Y3
	VFMADD231PD  Y11, Y9, Y7
	ADDQ         DX, R13
	ADDQ         $8, DI
	DECQ         CX
	JNZ          col16

	STEP0(Y0, Y4, 0)
	STEP0(Y1, Y5, 32)
	STEP0(Y2, Y6, 64)
	STEP0(Y3, Y7, 96)
	STEP1(Y4, 0)
	STEP1(Y5, 32)
	STEP1(Y6, 64)
	STEP1(Y7, 96)
	CDADVANCE2(128)
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
	MOVQ   k+40(FP), CX

col4:
	VBROADCASTSD (DI), Y8
	VBROADCASTSD (DI)(R12*1), Y9
	VMOVUPD      (R13), Y10
	VFMADD231PD  Y10, Y8, Y0
	VFMADD231PD  Y10, Y9, Y4
	ADDQ         DX, R13
	ADDQ         $8, DI
	DECQ         CX
	JNZ          col4

	STEP0(Y0, Y4, 0)
	STEP1(Y4, 0)
	CDADVANCE2(32)
	SUBQ   $4, AX
	CMPQ   AX, $4
	JAE    rows4

hsum:
	VEXTRACTF128 $1, Y12, X6
	VADDPD       X6, X12, X12
	VHADDPD      X12, X12, X12
	VEXTRACTF128 $1, Y13, X6
	VADDPD       X6, X13, X13
	VHADDPD      X13, X13, X13
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
	MOVQ   k+40(FP), CX

col1:
	VMOVSD      (DI), X8
	VMOVSD      (DI)(R12*1), X9
	VMOVSD      (R13), X10
	VFMADD231SD X10, X8, X0
	VFMADD231SD X10, X9, X4
	ADDQ        DX, R13
	ADDQ        $8, DI
	DECQ        CX
	JNZ         col1

	// Column c.
	VMOVSD      (R11), X8
	VFMADD231SD (R9), X8, X0
	VMOVSD      X0, (R14)
	VSUBSD      (R8), X0, X0
	CDMOVE1(X0, (R11), (R10))
	VMOVSD      s1c+144(FP), X0
	VFMADD231SD X0, X10, X4
	VMULSD      X10, X10, X10
	VADDSD      X10, X12, X12
	VFMADD231SD (R9), X10, X14

	// Column c+1.
	VMOVSD      (R11)(DX*1), X8
	VFMADD231SD (R9), X8, X4
	VMOVSD      X4, (R14)(DX*1)
	VSUBSD      (R8)(DX*1), X4, X4
	CDMOVE1(X4, (R11)(DX*1), (R10)(DX*1))
	VMULSD      X10, X10, X10
	VADDSD      X10, X13, X13
	VFMADD231SD (R9), X10, X14
	CDADVANCE2(8)
	DECQ         AX
	JNZ          row1

done:
	VMOVSD X12, sq0+176(FP)
	VMOVSD X13, sq1+184(FP)
	VMOVSD X14, sqd+192(FP)
	VZEROUPPER
	RET
