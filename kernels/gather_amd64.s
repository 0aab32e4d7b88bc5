//go:build amd64 && !noasm

#include "textflag.h"

// PFD is how many entries ahead the loops prefetch rows of b.
#define PFD 32

// gatherMask<>+8*s holds four lane masks of which the first 4-s are set: the
// mask for a last accumulator that covers only 4-s columns.
DATA gatherMask<>+0(SB)/8, $-1
DATA gatherMask<>+8(SB)/8, $-1
DATA gatherMask<>+16(SB)/8, $-1
DATA gatherMask<>+24(SB)/8, $-1
DATA gatherMask<>+32(SB)/8, $0
DATA gatherMask<>+40(SB)/8, $0
DATA gatherMask<>+48(SB)/8, $0
DATA gatherMask<>+56(SB)/8, $0
GLOBL gatherMask<>(SB), RODATA|NOPTR, $64

// Register use in gatherBlockAVX2:
//	DI  dst            SI  val            R8  ind
//	R9  &b[col]        R10 ldb*8          R11 maxRow
//	DX  len(val)       BX  p              CX  len(val)-1 (prefetch clamp, paired loops)
//	AX  accumulator count n, then the row PFD entries ahead
//	R12 &b[ind[p]*ldb+col]                R13 &b[ind[p+1]*ldb+col]
//	Y0..Y11  accumulators for dst[0:48]; the paired loops (n <= 4) use
//	         Y0..Y3 for even p and Y6..Y9 for odd p
//	Y12 masked row load   Y13 val[p+1]   Y14 last-lane mask   Y15 val[p]

// ROW loads ind[p], leaves with ok=false if it is out of range (an unsigned
// compare, so negative indices fail too), points R12 at its row and
// broadcasts val[p] into Y15. ROW2 does the same for p and p+1.
#define ROW \
	MOVQ         (R8)(BX*8), R12; \
	CMPQ         R12, R11; \
	JA           bad; \
	IMULQ        R10, R12; \
	ADDQ         R9, R12; \
	VBROADCASTSD (SI)(BX*8), Y15

#define ROW2 \
	MOVQ         (R8)(BX*8), R12; \
	MOVQ         8(R8)(BX*8), R13; \
	CMPQ         R12, R11; \
	JA           bad; \
	CMPQ         R13, R11; \
	JA           bad; \
	IMULQ        R10, R12; \
	IMULQ        R10, R13; \
	ADDQ         R9, R12; \
	ADDQ         R9, R13; \
	VBROADCASTSD (SI)(BX*8), Y15; \
	VBROADCASTSD 8(SI)(BX*8), Y13

// PFROW(d) points AX at the row of entry p+d (clamped to the last entry,
// CX = len(val)-1), and PLn prefetches its first n cache lines. The rows
// of b are gathered in an order the hardware cannot predict; at 500,000
// samples a factor of 120 MB misses every cache and every entry waited
// for memory (X V took 3.5x as long per entry as X^T U). Asking PFD
// entries ahead halves that product's time there and costs nothing
// measurable when b fits in cache. A prefetch never faults, so an index
// past b needs no check here (ROW still checks the entries it uses).
#define PFROW(d) \
	MOVQ    BX, AX; \
	ADDQ    $(PFD+d), AX; \
	CMPQ    AX, CX; \
	CMOVQGT CX, AX; \
	MOVQ    (R8)(AX*8), AX; \
	IMULQ   R10, AX; \
	ADDQ    R9, AX

// PSTREAM asks for ind and val SDIST bytes ahead with the non-temporal
// hint: they are read once, and fetched like the rows of b they would
// push the rows of b, which are read again and again, out of the caches.
// At 500,000 samples X^T U took 330-480 ms with the hint, 430-530 with
// a plain prefetch of the same lines and 485-580 ms without
// (bench/RESULTS.md, 2026-11-27).
#define SDIST 512
#define PSTREAM PREFETCHNTA SDIST(R8)(BX*8); PREFETCHNTA SDIST(SI)(BX*8)

#define PL2 PREFETCHT0 (AX); PREFETCHT0 64(AX)
#define PL3 PL2; PREFETCHT0 128(AX)
#define PL4 PL3; PREFETCHT0 192(AX)
#define PL5 PL4; PREFETCHT0 256(AX)
#define PL6 PL5; PREFETCHT0 320(AX)
#define PL7 PL6; PREFETCHT0 384(AX)

// MLD, MFM and MST load, update and store the last, masked accumulator;
// MFMB updates the odd-p copy of it.
#define MLD(off, acc) VMASKMOVPD off(DI), Y14, acc
#define MFM(off, acc) VMASKMOVPD off(R12), Y14, Y12; VFMADD231PD Y12, Y15, acc
#define MFMB(off, acc) VMASKMOVPD off(R13), Y14, Y12; VFMADD231PD Y12, Y13, acc
#define MST(off, acc) VMASKMOVPD acc, Y14, off(DI)

// LDn, FMn and STn load, update and store the first n full accumulators;
// FMBn, ZBn and ADDBn update, zero and fold in their odd-p copies.

#define LD1 VMOVUPD (DI), Y0
#define LD2 LD1; VMOVUPD 32(DI), Y1
#define LD3 LD2; VMOVUPD 64(DI), Y2
#define LD4 LD3; VMOVUPD 96(DI), Y3
#define LD5 LD4; VMOVUPD 128(DI), Y4
#define LD6 LD5; VMOVUPD 160(DI), Y5
#define LD7 LD6; VMOVUPD 192(DI), Y6
#define LD8 LD7; VMOVUPD 224(DI), Y7
#define LD9 LD8; VMOVUPD 256(DI), Y8
#define LD10 LD9; VMOVUPD 288(DI), Y9
#define LD11 LD10; VMOVUPD 320(DI), Y10

#define FM1 VFMADD231PD (R12), Y15, Y0
#define FM2 FM1; VFMADD231PD 32(R12), Y15, Y1
#define FM3 FM2; VFMADD231PD 64(R12), Y15, Y2
#define FM4 FM3; VFMADD231PD 96(R12), Y15, Y3
#define FM5 FM4; VFMADD231PD 128(R12), Y15, Y4
#define FM6 FM5; VFMADD231PD 160(R12), Y15, Y5
#define FM7 FM6; VFMADD231PD 192(R12), Y15, Y6
#define FM8 FM7; VFMADD231PD 224(R12), Y15, Y7
#define FM9 FM8; VFMADD231PD 256(R12), Y15, Y8
#define FM10 FM9; VFMADD231PD 288(R12), Y15, Y9
#define FM11 FM10; VFMADD231PD 320(R12), Y15, Y10

#define ST1 VMOVUPD Y0, (DI)
#define ST2 ST1; VMOVUPD Y1, 32(DI)
#define ST3 ST2; VMOVUPD Y2, 64(DI)
#define ST4 ST3; VMOVUPD Y3, 96(DI)
#define ST5 ST4; VMOVUPD Y4, 128(DI)
#define ST6 ST5; VMOVUPD Y5, 160(DI)
#define ST7 ST6; VMOVUPD Y6, 192(DI)
#define ST8 ST7; VMOVUPD Y7, 224(DI)
#define ST9 ST8; VMOVUPD Y8, 256(DI)
#define ST10 ST9; VMOVUPD Y9, 288(DI)
#define ST11 ST10; VMOVUPD Y10, 320(DI)

#define FMB1 VFMADD231PD (R13), Y13, Y6
#define FMB2 FMB1; VFMADD231PD 32(R13), Y13, Y7
#define FMB3 FMB2; VFMADD231PD 64(R13), Y13, Y8

#define ZB1 VXORPD Y6, Y6, Y6
#define ZB2 ZB1; VXORPD Y7, Y7, Y7
#define ZB3 ZB2; VXORPD Y8, Y8, Y8
#define ZB4 ZB3; VXORPD Y9, Y9, Y9

#define ADDB1 VADDPD Y6, Y0, Y0
#define ADDB2 ADDB1; VADDPD Y7, Y1, Y1
#define ADDB3 ADDB2; VADDPD Y8, Y2, Y2
#define ADDB4 ADDB3; VADDPD Y9, Y3, Y3

// func gatherBlockAVX2(dst, val []float64, ind []int, b []float64, ldb, col, maxRow int) bool
//
// One register-resident pass over the sparse row: n = ceil(len(dst)/4)
// accumulators hold dst, and for each p the row of b is streamed through n
// FMAs with a broadcast val[p]. From n = 5 up the n independent chains hide
// the FMA latency and the loop is bound by loads (2 + n per entry); below,
// the loop takes two entries at a time into two sets of accumulators. A
// branch chooses the loop for n once per call. The range check of ind[p]
// costs a fused compare-and-branch per entry, which the load-bound loop
// absorbs; it keeps a bad index from reading outside b.
TEXT ·gatherBlockAVX2(SB), NOSPLIT, $0-121
	MOVQ dst_base+0(FP), DI
	MOVQ dst_len+8(FP), CX
	MOVQ val_base+24(FP), SI
	MOVQ val_len+32(FP), DX
	MOVQ ind_base+48(FP), R8
	MOVQ b_base+72(FP), R9
	MOVQ ldb+96(FP), R10
	SHLQ $3, R10
	MOVQ col+104(FP), AX
	LEAQ (R9)(AX*8), R9
	MOVQ maxRow+112(FP), R11

	// AX = n, the accumulator count; Y14 = the mask for the last one,
	// whose lanes cover columns 4(n-1) .. len(dst)-1.
	LEAQ    3(CX), AX
	SHRQ    $2, AX
	LEAQ    (AX*4), BX
	SUBQ    CX, BX
	LEAQ    gatherMask<>(SB), R12
	VMOVUPD (R12)(BX*8), Y14
	XORQ    BX, BX
	LEAQ    -1(DX), CX

	CMPQ AX, $1
	JEQ  h1
	CMPQ AX, $2
	JEQ  h2
	CMPQ AX, $3
	JEQ  h3
	CMPQ AX, $4
	JEQ  h4
	CMPQ AX, $5
	JEQ  g5
	CMPQ AX, $6
	JEQ  g6
	CMPQ AX, $7
	JEQ  g7
	CMPQ AX, $8
	JEQ  g8
	CMPQ AX, $9
	JEQ  g9
	CMPQ AX, $10
	JEQ  g10
	CMPQ AX, $11
	JEQ  g11
	CMPQ AX, $12
	JEQ  g12
	JMP  bad

h1:
	MLD(0, Y0)
	ZB1
	CMPQ BX, CX
	JAE  h1odd

h1loop:
	PSTREAM
	PFROW(0); PL2
	PFROW(1); PL2
	ROW2
	MFM(0, Y0)
	MFMB(0, Y6)
	ADDQ $2, BX
	CMPQ BX, CX
	JB   h1loop

h1odd:
	CMPQ BX, DX
	JAE  h1sum
	ROW
	MFM(0, Y0)

h1sum:
	ADDB1
	MST(0, Y0)
	JMP ok

h2:
	LD1
	MLD(32, Y1)
	ZB2
	CMPQ BX, CX
	JAE  h2odd

h2loop:
	PSTREAM
	PFROW(0); PL2
	PFROW(1); PL2
	ROW2
	FM1
	MFM(32, Y1)
	FMB1
	MFMB(32, Y7)
	ADDQ $2, BX
	CMPQ BX, CX
	JB   h2loop

h2odd:
	CMPQ BX, DX
	JAE  h2sum
	ROW
	FM1
	MFM(32, Y1)

h2sum:
	ADDB2
	ST1
	MST(32, Y1)
	JMP ok

h3:
	LD2
	MLD(64, Y2)
	ZB3
	CMPQ BX, CX
	JAE  h3odd

h3loop:
	PSTREAM
	PFROW(0); PL3
	PFROW(1); PL3
	ROW2
	FM2
	MFM(64, Y2)
	FMB2
	MFMB(64, Y8)
	ADDQ $2, BX
	CMPQ BX, CX
	JB   h3loop

h3odd:
	CMPQ BX, DX
	JAE  h3sum
	ROW
	FM2
	MFM(64, Y2)

h3sum:
	ADDB3
	ST2
	MST(64, Y2)
	JMP ok

h4:
	LD3
	MLD(96, Y3)
	ZB4
	CMPQ BX, CX
	JAE  h4odd

h4loop:
	PSTREAM
	PFROW(0); PL3
	PFROW(1); PL3
	ROW2
	FM3
	MFM(96, Y3)
	FMB3
	MFMB(96, Y9)
	ADDQ $2, BX
	CMPQ BX, CX
	JB   h4loop

h4odd:
	CMPQ BX, DX
	JAE  h4sum
	ROW
	FM3
	MFM(96, Y3)

h4sum:
	ADDB4
	ST3
	MST(96, Y3)
	JMP ok

g5:
	LD4
	MLD(128, Y4)

g5loop:
	PSTREAM
	PFROW(0); PL4
	ROW
	FM4
	MFM(128, Y4)
	INCQ BX
	CMPQ BX, DX
	JB   g5loop
	ST4
	MST(128, Y4)
	JMP ok

g6:
	LD5
	MLD(160, Y5)

g6loop:
	PSTREAM
	PFROW(0); PL4
	ROW
	FM5
	MFM(160, Y5)
	INCQ BX
	CMPQ BX, DX
	JB   g6loop
	ST5
	MST(160, Y5)
	JMP ok

g7:
	LD6
	MLD(192, Y6)

g7loop:
	PSTREAM
	PFROW(0); PL5
	ROW
	FM6
	MFM(192, Y6)
	INCQ BX
	CMPQ BX, DX
	JB   g7loop
	ST6
	MST(192, Y6)
	JMP ok

g8:
	LD7
	MLD(224, Y7)

g8loop:
	PSTREAM
	PFROW(0); PL5
	ROW
	FM7
	MFM(224, Y7)
	INCQ BX
	CMPQ BX, DX
	JB   g8loop
	ST7
	MST(224, Y7)
	JMP ok

g9:
	LD8
	MLD(256, Y8)

g9loop:
	PSTREAM
	PFROW(0); PL6
	ROW
	FM8
	MFM(256, Y8)
	INCQ BX
	CMPQ BX, DX
	JB   g9loop
	ST8
	MST(256, Y8)
	JMP ok

g10:
	LD9
	MLD(288, Y9)

g10loop:
	PSTREAM
	PFROW(0); PL6
	ROW
	FM9
	MFM(288, Y9)
	INCQ BX
	CMPQ BX, DX
	JB   g10loop
	ST9
	MST(288, Y9)
	JMP ok

g11:
	LD10
	MLD(320, Y10)

g11loop:
	PSTREAM
	PFROW(0); PL7
	ROW
	FM10
	MFM(320, Y10)
	INCQ BX
	CMPQ BX, DX
	JB   g11loop
	ST10
	MST(320, Y10)
	JMP ok

g12:
	LD11
	MLD(352, Y11)

g12loop:
	PSTREAM
	PFROW(0); PL7
	ROW
	FM11
	MFM(352, Y11)
	INCQ BX
	CMPQ BX, DX
	JB   g12loop
	ST11
	MST(352, Y11)
	JMP ok

ok:
	MOVB $1, ret+120(FP)
	VZEROUPPER
	RET

bad:
	MOVB $0, ret+120(FP)
	VZEROUPPER
	RET
