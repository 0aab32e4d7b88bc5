//go:build amd64 && !noasm

#include "textflag.h"

// dotMask<>+8*s holds four lane masks of which the first 4-s are set: the
// mask for a last x register that covers only 4-s columns. It is a copy of
// gatherMask<> in gather_amd64.s, whose <> symbols are private to that file.
DATA dotMask<>+0(SB)/8, $-1
DATA dotMask<>+8(SB)/8, $-1
DATA dotMask<>+16(SB)/8, $-1
DATA dotMask<>+24(SB)/8, $-1
DATA dotMask<>+32(SB)/8, $0
DATA dotMask<>+40(SB)/8, $0
DATA dotMask<>+48(SB)/8, $0
DATA dotMask<>+56(SB)/8, $0
GLOBL dotMask<>(SB), RODATA|NOPTR, $64

// Register use in dotGatherBlockAVX2:
//	DI  dst            SI  x, then the row prefetched ahead
//	R8  ind            R9  &b[col]        R10 ldb*8          R11 maxRow
//	DX  len(ind)       BX  p              CX  len(ind)-1     AX  add
//	R12 &b[ind[p]*ldb+col]                R13 &b[ind[p+1]*ldb+col]
//	Y0..Y11  x[0:48], the last register used masked (zero past len(x))
//	Y10, Y11 accumulators for p and Y12, Y13 for p+1 (n <= 10); for
//	         n = 11 and 12, where x needs Y10 and Y11, one entry in Y12, Y13
//	Y14 masked row load, reduction scratch           Y15 last-lane mask

// XLn loads the first n full registers of x; XLM loads the last, masked
// one.
#define XL1 VMOVUPD (SI), Y0
#define XL2 XL1; VMOVUPD 32(SI), Y1
#define XL3 XL2; VMOVUPD 64(SI), Y2
#define XL4 XL3; VMOVUPD 96(SI), Y3
#define XL5 XL4; VMOVUPD 128(SI), Y4
#define XL6 XL5; VMOVUPD 160(SI), Y5
#define XL7 XL6; VMOVUPD 192(SI), Y6
#define XL8 XL7; VMOVUPD 224(SI), Y7
#define XL9 XL8; VMOVUPD 256(SI), Y8
#define XL10 XL9; VMOVUPD 288(SI), Y9
#define XL11 XL10; VMOVUPD 320(SI), Y10
#define XLM(off, xr) VMASKMOVPD off(SI), Y15, xr

// ROW(off, r) loads ind[p+off/8], leaves with ok=false if it is out of
// range (an unsigned compare, so negative indices fail too) and points r at
// its row.
#define ROW(off, r) \
	MOVQ  off(R8)(BX*8), r; \
	CMPQ  r, R11; \
	JA    bad; \
	IMULQ R10, r; \
	ADDQ  R9, r

// AHEAD(off) points SI at the row of ind[p+off/8] for PREFn, which
// prefetches n cache lines from SI, and LAST, which prefetches the line
// holding the last column (off(SI)); together they cover the row whatever its
// alignment. The index is not checked: a prefetch never faults. PREF1 is
// not needed, since only n >= 4 prefetches.
#define AHEAD(off) MOVQ off(R8)(BX*8), SI; IMULQ R10, SI; ADDQ R9, SI
#define LAST(off) PREFETCHT0 off(SI)
#define PREF2 PREFETCHT0 (SI); PREFETCHT0 64(SI)
#define PREF3 PREF2; PREFETCHT0 128(SI)
#define PREF4 PREF3; PREFETCHT0 192(SI)
#define PREF5 PREF4; PREFETCHT0 256(SI)
#define PREF6 PREF5; PREFETCHT0 320(SI)

// FULLn(r, a, b) multiplies the first n full x registers by the row at r,
// accumulating the even ones into a and the odd ones into b; TAIL does the
// same for the last, masked register, so that no byte past the row's len(x)
// columns is read. DOTn(r, a, b) is a whole row of n registers.
#define F(off, r, xr, acc) VFMADD231PD off(r), xr, acc
#define TAIL(off, r, xr, acc) VMASKMOVPD off(r), Y15, Y14; VFMADD231PD Y14, xr, acc
#define FULL1(r, a, b) F(0, r, Y0, a)
#define FULL2(r, a, b) FULL1(r, a, b); F(32, r, Y1, b)
#define FULL3(r, a, b) FULL2(r, a, b); F(64, r, Y2, a)
#define FULL4(r, a, b) FULL3(r, a, b); F(96, r, Y3, b)
#define FULL5(r, a, b) FULL4(r, a, b); F(128, r, Y4, a)
#define FULL6(r, a, b) FULL5(r, a, b); F(160, r, Y5, b)
#define FULL7(r, a, b) FULL6(r, a, b); F(192, r, Y6, a)
#define FULL8(r, a, b) FULL7(r, a, b); F(224, r, Y7, b)
#define FULL9(r, a, b) FULL8(r, a, b); F(256, r, Y8, a)
#define FULL10(r, a, b) FULL9(r, a, b); F(288, r, Y9, b)
#define FULL11(r, a, b) FULL10(r, a, b); F(320, r, Y10, a)
#define DOT1(r, a, b) TAIL(0, r, Y0, a)
#define DOT2(r, a, b) FULL1(r, a, b); TAIL(32, r, Y1, b)
#define DOT3(r, a, b) FULL2(r, a, b); TAIL(64, r, Y2, a)
#define DOT4(r, a, b) FULL3(r, a, b); TAIL(96, r, Y3, b)
#define DOT5(r, a, b) FULL4(r, a, b); TAIL(128, r, Y4, a)
#define DOT6(r, a, b) FULL5(r, a, b); TAIL(160, r, Y5, b)
#define DOT7(r, a, b) FULL6(r, a, b); TAIL(192, r, Y6, a)
#define DOT8(r, a, b) FULL7(r, a, b); TAIL(224, r, Y7, b)
#define DOT9(r, a, b) FULL8(r, a, b); TAIL(256, r, Y8, a)
#define DOT10(r, a, b) FULL9(r, a, b); TAIL(288, r, Y9, b)
#define DOT11(r, a, b) FULL10(r, a, b); TAIL(320, r, Y10, a)
#define DOT12(r, a, b) FULL11(r, a, b); TAIL(352, r, Y11, b)

// ZERO clears the two accumulators of an entry and FOLD adds them. With a
// single register (n = 1) only a is used.
#define ZERO(a, b) VXORPD a, a, a; VXORPD b, b, b
#define FOLD(a, b) VADDPD b, a, a

// SUM1 reduces the lanes of a (whose low half is xa) to a scalar in xa;
// SUM2 reduces a and q to the pair (sum a, sum q) in xa. Both add
// (a0+a1) + (a2+a3), so an entry's result does not depend on which of them
// computes it.
#define SUM1(a, xa) VHADDPD a, a, a; VEXTRACTF128 $1, a, X14; VADDSD X14, xa, xa
#define SUM2(a, q, xa) VHADDPD q, a, a; VEXTRACTF128 $1, a, X14; VADDPD X14, xa, xa

// func dotGatherBlockAVX2(dst, x []float64, ind []int, b []float64, ldb, col, maxRow int, add bool) bool
//
// One pass over the sparse row with x held in n = ceil(len(x)/4) registers:
// each entry costs n loads and n FMAs into two accumulators, then a
// horizontal reduction and a store. Up to n = 10 the loop takes two entries
// at a time, so their loads and reductions overlap and the two sums share
// one horizontal add and one 16-byte store (faster than one entry at a time
// with two or four accumulators, most at small n); n = 11 and 12 leave
// registers for one entry. From n = 4 (k > 12) the rows of the entries 8
// ahead are prefetched: SampledTo at TDT2 size (9394 x 36771, 130 entries a
// row, b from L3) runs about 15% faster at k = 30 with it; at k <= 12, rows
// of one or two cache lines, it slowed rows in L1 and did not help from L3.
// A branch chooses the loop for n once per call; every entry's range check
// is a fused compare and branch, and add is tested per entry (a predictable
// branch) rather than doubling the loops.
TEXT ·dotGatherBlockAVX2(SB), NOSPLIT, $0-129
	MOVQ dst_base+0(FP), DI
	MOVQ x_base+24(FP), SI
	MOVQ x_len+32(FP), CX
	MOVQ ind_base+48(FP), R8
	MOVQ ind_len+56(FP), DX
	MOVQ b_base+72(FP), R9
	MOVQ ldb+96(FP), R10
	SHLQ $3, R10
	MOVQ col+104(FP), AX
	LEAQ (R9)(AX*8), R9
	MOVQ maxRow+112(FP), R11

	// R12 = n, the register count; Y15 = the mask for the last register,
	// whose lanes cover columns 4(n-1) .. len(x)-1.
	LEAQ    3(CX), R12
	SHRQ    $2, R12
	LEAQ    (R12*4), BX
	SUBQ    CX, BX
	LEAQ    dotMask<>(SB), AX
	VMOVUPD (AX)(BX*8), Y15
	MOVBQZX add+120(FP), AX
	XORQ    BX, BX
	LEAQ    -1(DX), CX

	CMPQ R12, $1
	JEQ  d1
	CMPQ R12, $2
	JEQ  d2
	CMPQ R12, $3
	JEQ  d3
	CMPQ R12, $4
	JEQ  d4
	CMPQ R12, $5
	JEQ  d5
	CMPQ R12, $6
	JEQ  d6
	CMPQ R12, $7
	JEQ  d7
	CMPQ R12, $8
	JEQ  d8
	CMPQ R12, $9
	JEQ  d9
	CMPQ R12, $10
	JEQ  d10
	CMPQ R12, $11
	JEQ  d11
	CMPQ R12, $12
	JEQ  d12
	JMP  bad

d1:
	XLM(0, Y0)
	CMPQ BX, CX
	JAE  d1odd

d1pair:
	ROW(0, R12)
	ROW(8, R13)
	VXORPD Y10, Y10, Y10
	DOT1(R12, Y10, Y11)
	VXORPD Y12, Y12, Y12
	DOT1(R13, Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d1put2
	VADDPD (DI)(BX*8), X10, X10

d1put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d1pair

d1odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	VXORPD Y10, Y10, Y10
	DOT1(R12, Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d1put1
	VADDSD (DI)(BX*8), X10, X10

d1put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d2:
	XL1
	XLM(32, Y1)
	CMPQ BX, CX
	JAE  d2odd

d2pair:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT2(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT2(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d2put2
	VADDPD (DI)(BX*8), X10, X10

d2put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d2pair

d2odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT2(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d2put1
	VADDSD (DI)(BX*8), X10, X10

d2put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d3:
	XL2
	XLM(64, Y2)
	CMPQ BX, CX
	JAE  d3odd

d3pair:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT3(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT3(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d3put2
	VADDPD (DI)(BX*8), X10, X10

d3put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d3pair

d3odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT3(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d3put1
	VADDSD (DI)(BX*8), X10, X10

d3put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d4:
	XL3
	XLM(96, Y3)
	CMPQ BX, CX
	JAE  d4odd

d4pair:
	LEAQ 8(BX), SI
	CMPQ SI, CX
	JAE  d4near
	AHEAD(64)
	PREF2
	LAST(120)
	AHEAD(72)
	PREF2
	LAST(120)

d4near:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT4(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT4(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d4put2
	VADDPD (DI)(BX*8), X10, X10

d4put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d4pair

d4odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT4(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d4put1
	VADDSD (DI)(BX*8), X10, X10

d4put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d5:
	XL4
	XLM(128, Y4)
	CMPQ BX, CX
	JAE  d5odd

d5pair:
	LEAQ 8(BX), SI
	CMPQ SI, CX
	JAE  d5near
	AHEAD(64)
	PREF3
	LAST(152)
	AHEAD(72)
	PREF3
	LAST(152)

d5near:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT5(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT5(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d5put2
	VADDPD (DI)(BX*8), X10, X10

d5put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d5pair

d5odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT5(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d5put1
	VADDSD (DI)(BX*8), X10, X10

d5put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d6:
	XL5
	XLM(160, Y5)
	CMPQ BX, CX
	JAE  d6odd

d6pair:
	LEAQ 8(BX), SI
	CMPQ SI, CX
	JAE  d6near
	AHEAD(64)
	PREF3
	LAST(184)
	AHEAD(72)
	PREF3
	LAST(184)

d6near:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT6(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT6(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d6put2
	VADDPD (DI)(BX*8), X10, X10

d6put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d6pair

d6odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT6(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d6put1
	VADDSD (DI)(BX*8), X10, X10

d6put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d7:
	XL6
	XLM(192, Y6)
	CMPQ BX, CX
	JAE  d7odd

d7pair:
	LEAQ 8(BX), SI
	CMPQ SI, CX
	JAE  d7near
	AHEAD(64)
	PREF4
	LAST(216)
	AHEAD(72)
	PREF4
	LAST(216)

d7near:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT7(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT7(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d7put2
	VADDPD (DI)(BX*8), X10, X10

d7put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d7pair

d7odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT7(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d7put1
	VADDSD (DI)(BX*8), X10, X10

d7put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d8:
	XL7
	XLM(224, Y7)
	CMPQ BX, CX
	JAE  d8odd

d8pair:
	LEAQ 8(BX), SI
	CMPQ SI, CX
	JAE  d8near
	AHEAD(64)
	PREF4
	LAST(248)
	AHEAD(72)
	PREF4
	LAST(248)

d8near:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT8(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT8(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d8put2
	VADDPD (DI)(BX*8), X10, X10

d8put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d8pair

d8odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT8(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d8put1
	VADDSD (DI)(BX*8), X10, X10

d8put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d9:
	XL8
	XLM(256, Y8)
	CMPQ BX, CX
	JAE  d9odd

d9pair:
	LEAQ 8(BX), SI
	CMPQ SI, CX
	JAE  d9near
	AHEAD(64)
	PREF5
	LAST(280)
	AHEAD(72)
	PREF5
	LAST(280)

d9near:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT9(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT9(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d9put2
	VADDPD (DI)(BX*8), X10, X10

d9put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d9pair

d9odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT9(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d9put1
	VADDSD (DI)(BX*8), X10, X10

d9put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d10:
	XL9
	XLM(288, Y9)
	CMPQ BX, CX
	JAE  d10odd

d10pair:
	LEAQ 8(BX), SI
	CMPQ SI, CX
	JAE  d10near
	AHEAD(64)
	PREF5
	LAST(312)
	AHEAD(72)
	PREF5
	LAST(312)

d10near:
	ROW(0, R12)
	ROW(8, R13)
	ZERO(Y10, Y11)
	DOT10(R12, Y10, Y11)
	ZERO(Y12, Y13)
	DOT10(R13, Y12, Y13)
	FOLD(Y10, Y11)
	FOLD(Y12, Y13)
	SUM2(Y10, Y12, X10)
	TESTQ  AX, AX
	JZ     d10put2
	VADDPD (DI)(BX*8), X10, X10

d10put2:
	VMOVUPD X10, (DI)(BX*8)
	ADDQ    $2, BX
	CMPQ    BX, CX
	JB      d10pair

d10odd:
	CMPQ BX, DX
	JAE  ok
	ROW(0, R12)
	ZERO(Y10, Y11)
	DOT10(R12, Y10, Y11)
	FOLD(Y10, Y11)
	SUM1(Y10, X10)
	TESTQ  AX, AX
	JZ     d10put1
	VADDSD (DI)(BX*8), X10, X10

d10put1:
	VMOVSD X10, (DI)(BX*8)
	JMP    ok

d11:
	XL10
	XLM(320, Y10)

d11loop:
	LEAQ 8(BX), SI
	CMPQ SI, DX
	JAE  d11near
	AHEAD(64)
	PREF6
	LAST(344)

d11near:
	ROW(0, R12)
	ZERO(Y12, Y13)
	DOT11(R12, Y12, Y13)
	FOLD(Y12, Y13)
	SUM1(Y12, X12)
	TESTQ  AX, AX
	JZ     d11put
	VADDSD (DI)(BX*8), X12, X12

d11put:
	VMOVSD X12, (DI)(BX*8)
	INCQ   BX
	CMPQ   BX, DX
	JB     d11loop
	JMP    ok

d12:
	XL11
	XLM(352, Y11)

d12loop:
	LEAQ 8(BX), SI
	CMPQ SI, DX
	JAE  d12near
	AHEAD(64)
	PREF6
	LAST(376)

d12near:
	ROW(0, R12)
	ZERO(Y12, Y13)
	DOT12(R12, Y12, Y13)
	FOLD(Y12, Y13)
	SUM1(Y12, X12)
	TESTQ  AX, AX
	JZ     d12put
	VADDSD (DI)(BX*8), X12, X12

d12put:
	VMOVSD X12, (DI)(BX*8)
	INCQ   BX
	CMPQ   BX, DX
	JB     d12loop
	JMP    ok

ok:
	MOVB $1, ret+128(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ret+128(FP)
	VZEROUPPER
	RET
