//go:build amd64 && !noasm

#include "textflag.h"

// func dotGatherTBlockAVX2(dst, ht, x []float64, ind []int, b []float64, n4, ldb8, maxRow, k4, last int) bool
//
// Register use:
//	DI  dst            SI  x              R8  ind            R9  b
//	DX  n*8, the stride of ht's columns   BX  p (the group's first entry)
//	AX, R11, R12, R13  the group's four rows         CX  c, or a scratch row
//	R14 &ht[c*n+p]     R10 &ht[(c+2)*n+p]
//	Y0..Y7  the 4 x 4 block and its transpose, broadcasts of x
//	Y8..Y11 the sums of coordinates c = 0, 1, 2, 3 mod 4 (the tail's in Y8)
//
// The transpose: with rows a0..a3 of the block, VUNPCKLPD/VUNPCKHPD pair
// a0 with a1 and a2 with a3 within each 128-bit half, and VPERM2F128
// joins the low halves (columns c, c+1) and the high ones (c+2, c+3).

// ROW(i, r) points r at the row of ind[p+i], leaving with false if the
// index is out of range (unsigned, so negative ones fail too).
#define ROW(i, r) \
	MOVQ  (i*8)(R8)(BX*8), r; \
	CMPQ  r, maxRow+136(FP); \
	JA    bad; \
	IMULQ ldb8+128(FP), r; \
	ADDQ  R9, r

// AHEAD(i) prefetches the row of ind[p+8+i]: its first four lines and
// the line of its last element. The index is not checked: a prefetch
// never faults.
#define AHEAD(i) \
	MOVQ       (64+i*8)(R8)(BX*8), CX; \
	IMULQ      ldb8+128(FP), CX; \
	ADDQ       R9, CX; \
	PREFETCHT0 (CX); \
	PREFETCHT0 64(CX); \
	PREFETCHT0 128(CX); \
	PREFETCHT0 192(CX); \
	ADDQ       last+152(FP), CX; \
	PREFETCHT0 (CX)

TEXT ·dotGatherTBlockAVX2(SB), NOSPLIT, $0-161
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+48(FP), SI
	MOVQ ind_base+72(FP), R8
	MOVQ ind_len+80(FP), DX
	SHLQ $3, DX
	MOVQ b_base+96(FP), R9
	XORQ BX, BX

group:
	// Prefetch the rows of the group after next while they exist.
	MOVQ BX, CX
	ADDQ $12, CX
	CMPQ CX, ind_len+80(FP)
	JA   rows
	AHEAD(0)
	AHEAD(1)
	AHEAD(2)
	AHEAD(3)

rows:
	ROW(0, AX)
	ROW(1, R11)
	ROW(2, R12)
	ROW(3, R13)
	MOVQ   ht_base+24(FP), R14
	LEAQ   (R14)(BX*8), R14
	LEAQ   (R14)(DX*2), R10
	VXORPD Y8, Y8, Y8
	VXORPD Y9, Y9, Y9
	VXORPD Y10, Y10, Y10
	VXORPD Y11, Y11, Y11
	XORQ   CX, CX
	CMPQ   CX, k4+144(FP)
	JAE    tail

block:
	VMOVUPD      (AX)(CX*8), Y0
	VMOVUPD      (R11)(CX*8), Y1
	VMOVUPD      (R12)(CX*8), Y2
	VMOVUPD      (R13)(CX*8), Y3
	VUNPCKLPD    Y1, Y0, Y4
	VUNPCKHPD    Y1, Y0, Y5
	VUNPCKLPD    Y3, Y2, Y6
	VUNPCKHPD    Y3, Y2, Y7
	VPERM2F128   $0x20, Y6, Y4, Y0
	VPERM2F128   $0x20, Y7, Y5, Y1
	VPERM2F128   $0x31, Y6, Y4, Y2
	VPERM2F128   $0x31, Y7, Y5, Y3
	VMOVUPD      Y0, (R14)
	VMOVUPD      Y1, (R14)(DX*1)
	VMOVUPD      Y2, (R10)
	VMOVUPD      Y3, (R10)(DX*1)
	VBROADCASTSD (SI)(CX*8), Y4
	VBROADCASTSD 8(SI)(CX*8), Y5
	VBROADCASTSD 16(SI)(CX*8), Y6
	VBROADCASTSD 24(SI)(CX*8), Y7
	VFMADD231PD  Y4, Y0, Y8
	VFMADD231PD  Y5, Y1, Y9
	VFMADD231PD  Y6, Y2, Y10
	VFMADD231PD  Y7, Y3, Y11
	LEAQ         (R14)(DX*4), R14
	LEAQ         (R10)(DX*4), R10
	ADDQ         $4, CX
	CMPQ         CX, k4+144(FP)
	JB           block

tail:
	// The last k - k4 columns, one at a time, into the first sum.
	CMPQ         CX, x_len+56(FP)
	JAE          sum
	VMOVSD       (AX)(CX*8), X0
	VMOVHPD      (R11)(CX*8), X0, X0
	VMOVSD       (R12)(CX*8), X1
	VMOVHPD      (R13)(CX*8), X1, X1
	VINSERTF128  $1, X1, Y0, Y0
	VMOVUPD      Y0, (R14)
	VBROADCASTSD (SI)(CX*8), Y4
	VFMADD231PD  Y4, Y0, Y8
	ADDQ         DX, R14
	INCQ         CX
	JMP          tail

sum:
	VADDPD  Y9, Y8, Y8
	VADDPD  Y11, Y10, Y10
	VADDPD  Y10, Y8, Y8
	VMOVUPD Y8, (DI)(BX*8)
	ADDQ    $4, BX
	CMPQ    BX, n4+120(FP)
	JB      group
	MOVB    $1, ret+160(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ret+160(FP)
	VZEROUPPER
	RET
