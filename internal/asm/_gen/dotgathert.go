package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// dotGatherT writes dotGatherTBlockAVX2: the entries p < n4, four rows at
// a time. A 4 x 4 block of the rows is loaded, transposed in registers,
// stored as four columns of ht and multiplied into four accumulators of
// the rows' sums, one per coordinate c mod 4 (the last k - k4
// coordinates, one column at a time, into the first), added at the end
// in the order the reference's sums take.
//
// The transpose: with rows a0..a3 of the block, VUNPCKLPD/VUNPCKHPD pair
// a0 with a1 and a2 with a3 within each 128-bit half, and VPERM2F128
// joins the low halves (columns c, c+1) and the high ones (c+2, c+3).
func dotGatherT(g *gen) {
	g.text("dotGatherTBlockAVX2")
	g.Comment(
		"Register use:",
		"DI  dst            SI  x              R8  ind            R9  b",
		"DX  n*8, the stride of ht's columns   BX  p (the group's first entry)",
		"AX, R11, R12, R13  the group's four rows         CX  c, or a scratch row",
		"R14 &ht[c*n+p]     R10 &ht[(c+2)*n+p]",
		"Y0..Y7  the 4 x 4 block and its transpose, broadcasts of x",
		"Y8..Y11 the sums of coordinates c = 0, 1, 2, 3 mod 4 (the tail's in Y8)",
	)
	indLen := g.addr(g.Param("ind").Len())
	k4 := g.addr(g.Param("k4"))
	g.Load(g.Param("dst").Base(), RDI)
	g.Load(g.Param("x").Base(), RSI)
	g.Load(g.Param("ind").Base(), R8)
	g.Load(g.Param("ind").Len(), RDX)
	g.SHLQ(U8(3), RDX)
	g.Load(g.Param("b").Base(), R9)
	g.XORQ(RBX, RBX)

	g.Label("group")
	// Prefetch the rows of the group after next while they exist.
	g.MOVQ(RBX, RCX)
	g.ADDQ(U8(12), RCX)
	g.CMPQ(RCX, indLen)
	g.JA(lbl("rows"))
	for i := range 4 {
		dotGatherTAhead(g, i)
	}

	g.Label("rows")
	for i, r := range []Register{RAX, R11, R12, R13} {
		dotGatherTRow(g, i, r)
	}
	g.Load(g.Param("ht").Base(), R14)
	g.LEAQ(idx(0, R14, RBX, 8), R14)
	g.LEAQ(idx(0, R14, RDX, 2), R10)
	for i := range 4 {
		g.VXORPD(ys[8+i], ys[8+i], ys[8+i])
	}
	g.XORQ(RCX, RCX)
	g.CMPQ(RCX, k4)
	g.JAE(lbl("tail"))

	g.Label("block")
	for i, r := range []Register{RAX, R11, R12, R13} {
		g.VMOVUPD(idx(0, r, RCX, 8), ys[i])
	}
	g.VUNPCKLPD(Y1, Y0, Y4)
	g.VUNPCKHPD(Y1, Y0, Y5)
	g.VUNPCKLPD(Y3, Y2, Y6)
	g.VUNPCKHPD(Y3, Y2, Y7)
	g.VPERM2F128(U8(0x20), Y6, Y4, Y0)
	g.VPERM2F128(U8(0x20), Y7, Y5, Y1)
	g.VPERM2F128(U8(0x31), Y6, Y4, Y2)
	g.VPERM2F128(U8(0x31), Y7, Y5, Y3)
	g.VMOVUPD(Y0, mem(0, R14))
	g.VMOVUPD(Y1, idx(0, R14, RDX, 1))
	g.VMOVUPD(Y2, mem(0, R10))
	g.VMOVUPD(Y3, idx(0, R10, RDX, 1))
	for i := range 4 {
		g.VBROADCASTSD(idx(8*i, RSI, RCX, 8), ys[4+i])
	}
	for i := range 4 {
		g.VFMADD231PD(ys[4+i], ys[i], ys[8+i])
	}
	g.LEAQ(idx(0, R14, RDX, 4), R14)
	g.LEAQ(idx(0, R10, RDX, 4), R10)
	g.ADDQ(U8(4), RCX)
	g.CMPQ(RCX, k4)
	g.JB(lbl("block"))

	g.Label("tail")
	// The last k - k4 columns, one at a time, into the first sum.
	g.CMPQ(RCX, g.addr(g.Param("x").Len()))
	g.JAE(lbl("sum"))
	g.VMOVSD(idx(0, RAX, RCX, 8), X0)
	g.VMOVHPD(idx(0, R11, RCX, 8), X0, X0)
	g.VMOVSD(idx(0, R12, RCX, 8), X1)
	g.VMOVHPD(idx(0, R13, RCX, 8), X1, X1)
	g.VINSERTF128(U8(1), X1, Y0, Y0)
	g.VMOVUPD(Y0, mem(0, R14))
	g.VBROADCASTSD(idx(0, RSI, RCX, 8), Y4)
	g.VFMADD231PD(Y4, Y0, Y8)
	g.ADDQ(RDX, R14)
	g.INCQ(RCX)
	g.JMP(lbl("tail"))

	g.Label("sum")
	g.VADDPD(Y9, Y8, Y8)
	g.VADDPD(Y11, Y10, Y10)
	g.VADDPD(Y10, Y8, Y8)
	g.VMOVUPD(Y8, idx(0, RDI, RBX, 8))
	g.ADDQ(U8(4), RBX)
	g.CMPQ(RBX, g.addr(g.Param("n4")))
	g.JB(lbl("group"))
	g.okBad()
}

// dotGatherTRow points r at the row of ind[p+i], leaving with false if the
// index is out of range (unsigned, so negative ones fail too).
func dotGatherTRow(g *gen, i int, r Register) {
	g.MOVQ(idx(8*i, R8, RBX, 8), r)
	g.CMPQ(r, g.addr(g.Param("maxRow")))
	g.JA(lbl("bad"))
	g.IMULQ(g.addr(g.Param("ldb8")), r)
	g.ADDQ(R9, r)
}

// dotGatherTAhead prefetches the row of ind[p+8+i]: its first four lines
// and the line of its last element. The index is not checked: a prefetch
// never faults.
func dotGatherTAhead(g *gen, i int) {
	g.MOVQ(idx(64+8*i, R8, RBX, 8), RCX)
	g.IMULQ(g.addr(g.Param("ldb8")), RCX)
	g.ADDQ(R9, RCX)
	for l := range 4 {
		g.PREFETCHT0(mem(64*l, RCX))
	}
	g.ADDQ(g.addr(g.Param("last")), RCX)
	g.PREFETCHT0(mem(0, RCX))
}
