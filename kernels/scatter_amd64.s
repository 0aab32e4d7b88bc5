//go:build amd64 && !noasm

#include "textflag.h"

// scatterMask<>+8*s holds four lane masks of which the first 4-s are set
// (gatherMask<> of gather_amd64.s, which is local to that file).
DATA scatterMask<>+0(SB)/8, $-1
DATA scatterMask<>+8(SB)/8, $-1
DATA scatterMask<>+16(SB)/8, $-1
DATA scatterMask<>+24(SB)/8, $-1
DATA scatterMask<>+32(SB)/8, $0
DATA scatterMask<>+40(SB)/8, $0
DATA scatterMask<>+48(SB)/8, $0
DATA scatterMask<>+56(SB)/8, $0
GLOBL scatterMask<>(SB), RODATA|NOPTR, $64

// Register use in axpyScatterAVX2:
//	DI  dst            R10 ldd*8          SI  val            R8  ind
//	R9  x              DX  len(val)       BX  p              CX  len(x)/4
//	R14 len(x)%4       R11 maxRow         R12 &dst[ind[p]*ldd]
//	AX  byte offset in the row            R13 4-column steps left
//	Y15 val[p]         Y14 mask of the last len(x)%4 columns
//	Y0, Y1 the row's columns in flight

// func axpyScatterAVX2(dst []float64, ldd int, val []float64, ind []int, x []float64, maxRow int) bool
//
// For each p, one fused multiply-add a column: dst row ind[p] += val[p] x,
// four columns a step, the last len(x)%4 under a mask. x is read from
// memory at every entry (it stays in L1), so that one loop serves every
// length. ind and val are asked for 512 bytes ahead with the non-temporal
// hint (see PSTREAM in gather_amd64.s): read once, they would otherwise
// push the rows of dst out of the caches. It returns false at the first
// ind[p] outside 0..maxRow (an unsigned compare), with the rows of the
// entries before it updated.
TEXT ·axpyScatterAVX2(SB), NOSPLIT, $0-113
	MOVQ dst_base+0(FP), DI
	MOVQ ldd+24(FP), R10
	SHLQ $3, R10
	MOVQ val_base+32(FP), SI
	MOVQ val_len+40(FP), DX
	MOVQ ind_base+56(FP), R8
	MOVQ x_base+80(FP), R9
	MOVQ x_len+88(FP), CX
	MOVQ maxRow+104(FP), R11

	MOVQ    CX, R14
	ANDQ    $3, R14
	SHRQ    $2, CX
	MOVQ    $4, AX
	SUBQ    R14, AX
	LEAQ    scatterMask<>(SB), R12
	VMOVUPD (R12)(AX*8), Y14
	XORQ    BX, BX

loop:
	CMPQ         BX, DX
	JAE          ok
	MOVQ         (R8)(BX*8), R12
	CMPQ         R12, R11
	JA           bad
	IMULQ        R10, R12
	ADDQ         DI, R12
	VBROADCASTSD (SI)(BX*8), Y15
	PREFETCHNTA  512(R8)(BX*8)
	PREFETCHNTA  512(SI)(BX*8)
	XORQ         AX, AX
	MOVQ         CX, R13
	TESTQ        R13, R13
	JZ           tail

step:
	VMOVUPD     (R9)(AX*1), Y0
	VFMADD213PD (R12)(AX*1), Y15, Y0
	VMOVUPD     Y0, (R12)(AX*1)
	ADDQ        $32, AX
	DECQ        R13
	JNZ         step

tail:
	TESTQ       R14, R14
	JZ          next
	VMASKMOVPD  (R9)(AX*1), Y14, Y0
	VMASKMOVPD  (R12)(AX*1), Y14, Y1
	VFMADD231PD Y0, Y15, Y1
	VMASKMOVPD  Y1, Y14, (R12)(AX*1)

next:
	INCQ BX
	JMP  loop

ok:
	MOVB $1, ret+112(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ret+112(FP)
	VZEROUPPER
	RET
