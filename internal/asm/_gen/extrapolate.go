package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// extrapolate writes extrapolateAVX2: cur = max(0, c + beta*(c - b)) + 0
// and base = c, for c = cur and b = base, eight entries a step, then four
// once, then one at a time. beta is in Y15 and zero in Y14.
func extrapolate(g *gen) {
	g.text("extrapolateAVX2")
	g.Load(g.Param("cur").Base(), RDI)
	g.Load(g.Param("cur").Len(), RCX)
	g.Load(g.Param("base").Base(), RSI)
	g.VBROADCASTSD(g.addr(g.Param("beta")), Y15)
	g.VXORPD(Y14, Y14, Y14)
	g.XORQ(RAX, RAX)
	g.MOVQ(RCX, RDX)
	g.ANDQ(I8(-8), RDX)
	g.JZ(lbl("four"))

	v := g.vec()
	g.Label("eight")
	extrapolateStep(v, 0, 0)
	extrapolateStep(v, 32, 1)
	g.ADDQ(U8(8), RAX)
	g.CMPQ(RAX, RDX)
	g.JB(lbl("eight"))

	g.Label("four")
	g.LEAQ(mem(4, RAX), RDX)
	g.CMPQ(RDX, RCX)
	g.JA(lbl("one"))
	extrapolateStep(v, 0, 0)
	g.ADDQ(U8(4), RAX)

	g.Label("one")
	g.CMPQ(RAX, RCX)
	g.JAE(lbl("done"))
	extrapolateStep(g.scalar(), 0, 0)
	g.INCQ(RAX)
	g.JMP(lbl("one"))

	g.Label("done")
	g.done()
}

// extrapolateStep moves the entries at byte offset off (AX entries in),
// with c in register j, b in j+2 and x in j+4: x = c + beta*(c - b), in
// the reference's order of operations; base = c; cur = the maximum of x
// and zero, with zero as the first source so that a NaN x passes, plus
// +0, which turns -0 into +0 and changes nothing else.
func extrapolateStep(s shape, off, j int) {
	c, b, x := s.r(j), s.r(j+2), s.r(j+4)
	s.mov(elem(off, RDI), c)
	s.mov(elem(off, RSI), b)
	s.sub(b, c, x)
	s.mul(s.r(15), x, x)
	s.add(x, c, x)
	s.mov(c, elem(off, RSI))
	s.max(x, s.r(14), x)
	s.add(s.r(14), x, x)
	s.mov(x, elem(off, RDI))
}
