package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// gatherPFD is how many entries ahead gatherBlockAVX2 prefetches rows of b.
const gatherPFD = 32

// streamDist is how many bytes ahead of entry p the gather and scatter
// ask for ind and val (gatherStream).
const streamDist = 512

// gather writes gatherBlockAVX2: one register-resident pass over the
// sparse row. n = ceil(len(dst)/4) accumulators hold dst, and for each p
// the row of b is streamed through n FMAs with a broadcast val[p]. From
// n = 5 up the n independent chains hide the FMA latency and the loop is
// bound by loads (2 + n per entry); below, the loop takes two entries at
// a time into two sets of accumulators. A branch chooses the loop for n
// once per call (one Go loop below writes each). The range check of
// ind[p] costs a fused compare-and-branch per entry, which the load-bound
// loop absorbs; it keeps a bad index from reading outside b.
func gather(g *gen) {
	mask := g.laneMasks("gatherMask")

	g.text("gatherBlockAVX2")
	g.Comment(
		"Register use:",
		"DI  dst            SI  val            R8  ind",
		"R9  &b[col]        R10 ldb*8          R11 maxRow",
		"DX  len(val)       BX  p              CX  len(val)-1 (prefetch clamp, paired loops)",
		"AX  accumulator count n, then the row prefetched ahead",
		"R12 &b[ind[p]*ldb+col]                R13 &b[ind[p+1]*ldb+col]",
		"Y0..Y11  accumulators for dst[0:48]; the paired loops (n <= 4) use",
		"         Y0..Y3 for even p and Y6..Y9 for odd p",
		"Y12 masked row load   Y13 val[p+1]   Y14 last-lane mask   Y15 val[p]",
	)
	g.Load(g.Param("dst").Base(), RDI)
	g.Load(g.Param("dst").Len(), RCX)
	g.Load(g.Param("val").Base(), RSI)
	g.Load(g.Param("val").Len(), RDX)
	g.Load(g.Param("ind").Base(), R8)
	blockRows(g)
	// AX = n, the accumulator count; Y14 = the mask for the last one.
	blockMask(g, mask, RAX, R12, Y14)
	g.XORQ(RBX, RBX)
	g.LEAQ(mem(-1, RDX), RCX)

	var labels []string
	for n := 1; n <= 12; n++ {
		labels = append(labels, fmt.Sprint("g", n))
	}
	g.dispatch(RAX, labels)
	for n := 1; n <= 4; n++ {
		gatherPaired(g, n)
	}
	for n := 5; n <= 12; n++ {
		gatherSingle(g, n)
	}
	g.okBad()
}

// blockRows loads what gatherBlockAVX2 and dotGatherBlockAVX2 need to
// reach the rows of b: R9 = &b[col], R10 = ldb*8 and R11 = maxRow (AX
// scratch).
func blockRows(g *gen) {
	g.Load(g.Param("b").Base(), R9)
	g.Load(g.Param("ldb"), R10)
	g.SHLQ(U8(3), R10)
	g.Load(g.Param("col"), RAX)
	g.LEAQ(idx(0, R9, RAX, 8), R9)
	g.Load(g.Param("maxRow"), R11)
}

// blockMask sets n to the count of registers that hold the block's CX
// columns, ceil(CX/4), and m to the lane mask of the last one (from the
// table mask, through tmp), whose lanes cover columns 4(n-1) .. CX-1. It
// leaves BX = 4n - CX, the lanes the last register lacks.
func blockMask(g *gen, mask Mem, n, tmp Register, m VecPhysical) {
	g.LEAQ(mem(3, RCX), n)
	g.SHRQ(U8(2), n)
	g.leaIndex(n, 4, RBX)
	g.SUBQ(RCX, RBX)
	g.LEAQ(mask, tmp)
	g.VMOVUPD(idx(0, tmp, RBX, 8), m)
}

// gatherLines is how many cache lines gatherBlockAVX2 prefetches of a row
// of n registers (32n bytes): (n+1)/2 when the row starts a line, and one
// more, since it may not.
func gatherLines(n int) int { return (n+1)/2 + 1 }

// gatherPaired writes the loop for n accumulators (n <= 4) that takes the
// entries two at a time, p into Y0.. and p+1 into Y6.., and adds the two
// sets at the end; an odd last entry goes into the first set alone.
func gatherPaired(g *gen, n int) {
	name := fmt.Sprint("g", n)
	last := 32 * (n - 1) // byte offset of the masked accumulator
	g.Label(name)
	gatherLoad(g, n)
	for i := range n {
		g.VXORPD(ys[6+i], ys[6+i], ys[6+i])
	}
	g.CMPQ(RBX, RCX)
	g.JAE(lbl(name + "odd"))

	g.Label(name + "loop")
	gatherStream(g)
	for d := range 2 {
		gatherAhead(g, d, gatherLines(n))
	}
	gatherRow2(g)
	for i := range n - 1 {
		g.VFMADD231PD(mem(32*i, R12), Y15, ys[i])
	}
	gatherMasked(g, last, R12, Y15, ys[n-1])
	for i := range n - 1 {
		g.VFMADD231PD(mem(32*i, R13), Y13, ys[6+i])
	}
	gatherMasked(g, last, R13, Y13, ys[6+n-1])
	g.ADDQ(U8(2), RBX)
	g.CMPQ(RBX, RCX)
	g.JB(lbl(name + "loop"))

	g.Label(name + "odd")
	g.CMPQ(RBX, RDX)
	g.JAE(lbl(name + "sum"))
	gatherRow(g)
	for i := range n - 1 {
		g.VFMADD231PD(mem(32*i, R12), Y15, ys[i])
	}
	gatherMasked(g, last, R12, Y15, ys[n-1])

	g.Label(name + "sum")
	for i := range n {
		g.VADDPD(ys[6+i], ys[i], ys[i])
	}
	gatherStore(g, n)
	g.JMP(lbl("ok"))
}

// gatherSingle writes the loop for n accumulators (n >= 5), one entry a
// step.
func gatherSingle(g *gen, n int) {
	name := fmt.Sprint("g", n)
	g.Label(name)
	gatherLoad(g, n)

	g.Label(name + "loop")
	gatherStream(g)
	gatherAhead(g, 0, gatherLines(n))
	gatherRow(g)
	for i := range n - 1 {
		g.VFMADD231PD(mem(32*i, R12), Y15, ys[i])
	}
	gatherMasked(g, 32*(n-1), R12, Y15, ys[n-1])
	g.INCQ(RBX)
	g.CMPQ(RBX, RDX)
	g.JB(lbl(name + "loop"))
	gatherStore(g, n)
	g.JMP(lbl("ok"))
}

// gatherLoad loads dst into the n accumulators, the last under the mask
// Y14; gatherStore stores them back.
func gatherLoad(g *gen, n int) {
	for i := range n - 1 {
		g.VMOVUPD(mem(32*i, RDI), ys[i])
	}
	g.VMASKMOVPD(mem(32*(n-1), RDI), Y14, ys[n-1])
}

func gatherStore(g *gen, n int) {
	for i := range n - 1 {
		g.VMOVUPD(ys[i], mem(32*i, RDI))
	}
	g.VMASKMOVPD(ys[n-1], Y14, mem(32*(n-1), RDI))
}

// gatherMasked adds a times the masked columns at off(row) to acc, through
// Y12.
func gatherMasked(g *gen, off int, row Register, a, acc VecPhysical) {
	g.VMASKMOVPD(mem(off, row), Y14, Y12)
	g.VFMADD231PD(Y12, a, acc)
}

// gatherRow loads ind[p], leaves with false if it is out of range (an
// unsigned compare, so negative indices fail too), points R12 at its row
// and broadcasts val[p] into Y15. gatherRow2 does the same for p and p+1
// (R13, Y13).
func gatherRow(g *gen) {
	g.MOVQ(idx(0, R8, RBX, 8), R12)
	g.CMPQ(R12, R11)
	g.JA(lbl("bad"))
	g.IMULQ(R10, R12)
	g.ADDQ(R9, R12)
	g.VBROADCASTSD(idx(0, RSI, RBX, 8), Y15)
}

func gatherRow2(g *gen) {
	g.MOVQ(idx(0, R8, RBX, 8), R12)
	g.MOVQ(idx(8, R8, RBX, 8), R13)
	g.CMPQ(R12, R11)
	g.JA(lbl("bad"))
	g.CMPQ(R13, R11)
	g.JA(lbl("bad"))
	g.IMULQ(R10, R12)
	g.IMULQ(R10, R13)
	g.ADDQ(R9, R12)
	g.ADDQ(R9, R13)
	g.VBROADCASTSD(idx(0, RSI, RBX, 8), Y15)
	g.VBROADCASTSD(idx(8, RSI, RBX, 8), Y13)
}

// gatherAhead points AX at the row of entry p+gatherPFD+d (clamped to the
// last entry, CX = len(val)-1) and prefetches its first lines cache lines.
// The rows of b are gathered in an order the hardware cannot predict;
// when b is much larger than the caches every entry waits for memory, and
// asking gatherPFD entries ahead took a large part of that wait off the
// product (docs/PERFORMANCE.md) while costing nothing measurable when b
// fits in cache. A prefetch never faults, so an index past b needs no
// check here (gatherRow still checks the entries it uses).
func gatherAhead(g *gen, d, lines int) {
	g.MOVQ(RBX, RAX)
	g.ADDQ(U8(gatherPFD+d), RAX)
	g.CMPQ(RAX, RCX)
	g.CMOVQGT(RCX, RAX)
	g.MOVQ(idx(0, R8, RAX, 8), RAX)
	g.IMULQ(R10, RAX)
	g.ADDQ(R9, RAX)
	for i := range lines {
		g.PREFETCHT0(mem(64*i, RAX))
	}
}

// gatherStream asks for ind (R8) and val (SI) streamDist bytes ahead of
// entry p (BX) with the non-temporal hint: they are read once, and
// fetched like the rows of b they would push the rows of b, which are
// read again and again, out of the caches. With the hint the product ran
// faster than with a plain prefetch of the same lines or none
// (docs/PERFORMANCE.md).
func gatherStream(g *gen) {
	g.PREFETCHNTA(idx(streamDist, R8, RBX, 8))
	g.PREFETCHNTA(idx(streamDist, RSI, RBX, 8))
}
