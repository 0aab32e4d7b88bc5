package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// scatter writes axpyScatterAVX2: for each p, one fused multiply-add a
// column, dst row ind[p] += val[p] x, four columns a step, the last
// len(x)%4 under a mask. x is read from memory at every entry (it stays
// in L1), so that one loop serves every length. ind and val are asked for
// ahead with the non-temporal hint (gatherStream): read once, they would
// otherwise push the rows of dst out of the caches. It returns false at
// the first ind[p] outside 0..maxRow (an unsigned compare), with the rows
// of the entries before it updated.
func scatter(g *gen) {
	mask := g.laneMasks("scatterMask")

	g.text("axpyScatterAVX2")
	g.Comment(
		"Register use:",
		"DI  dst            R10 ldd*8          SI  val            R8  ind",
		"R9  x              DX  len(val)       BX  p              CX  len(x)/4",
		"R14 len(x)%4       R11 maxRow         R12 &dst[ind[p]*ldd]",
		"AX  byte offset in the row            R13 4-column steps left",
		"Y15 val[p]         Y14 mask of the last len(x)%4 columns",
		"Y0, Y1 the row's columns in flight",
	)
	g.Load(g.Param("dst").Base(), RDI)
	g.Load(g.Param("ldd"), R10)
	g.SHLQ(U8(3), R10)
	g.Load(g.Param("val").Base(), RSI)
	g.Load(g.Param("val").Len(), RDX)
	g.Load(g.Param("ind").Base(), R8)
	g.Load(g.Param("x").Base(), R9)
	g.Load(g.Param("x").Len(), RCX)
	g.Load(g.Param("maxRow"), R11)

	g.MOVQ(RCX, R14)
	g.ANDQ(U8(3), R14)
	g.SHRQ(U8(2), RCX)
	g.MOVQ(U32(4), RAX)
	g.SUBQ(R14, RAX)
	g.LEAQ(mask, R12)
	g.VMOVUPD(idx(0, R12, RAX, 8), Y14)
	g.XORQ(RBX, RBX)

	g.Label("loop")
	g.CMPQ(RBX, RDX)
	g.JAE(lbl("ok"))
	g.MOVQ(idx(0, R8, RBX, 8), R12)
	g.CMPQ(R12, R11)
	g.JA(lbl("bad"))
	g.IMULQ(R10, R12)
	g.ADDQ(RDI, R12)
	g.VBROADCASTSD(idx(0, RSI, RBX, 8), Y15)
	gatherStream(g)
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, R13)
	g.TESTQ(R13, R13)
	g.JZ(lbl("tail"))

	g.Label("step")
	g.VMOVUPD(idx(0, R9, RAX, 1), Y0)
	g.VFMADD213PD(idx(0, R12, RAX, 1), Y15, Y0)
	g.VMOVUPD(Y0, idx(0, R12, RAX, 1))
	g.ADDQ(U8(32), RAX)
	g.DECQ(R13)
	g.JNZ(lbl("step"))

	g.Label("tail")
	g.TESTQ(R14, R14)
	g.JZ(lbl("next"))
	g.VMASKMOVPD(idx(0, R9, RAX, 1), Y14, Y0)
	g.VMASKMOVPD(idx(0, R12, RAX, 1), Y14, Y1)
	g.VFMADD231PD(Y0, Y15, Y1)
	g.VMASKMOVPD(Y1, Y14, idx(0, R12, RAX, 1))

	g.Label("next")
	g.INCQ(RBX)
	g.JMP(lbl("loop"))
	g.okBad()
}
