package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// cg writes the block conjugate-gradient passes (cg.go): an outer loop
// over rows, m entries a row, and in each row four columns a step, then
// one. The per-column vectors (shift, alpha, beta and the sums) are
// indexed by the column, AX, in every row. Products and sums are separate
// instructions in the reference's order, so the results equal it bit for
// bit.
func cg(g *gen) {
	g.text("cgApplyAVX2")
	g.Load(g.Param("out").Base(), RDI)
	g.Load(g.Param("out").Len(), R12)
	g.Load(g.Param("in").Base(), RSI)
	g.Load(g.Param("m"), RCX)
	g.Load(g.Param("shift").Base(), R8)
	g.VBROADCASTSD(g.addr(g.Param("scale")), Y15)
	g.Load(g.Param("base").Base(), R9)
	g.Load(g.Param("g").Base(), R10)
	g.Load(g.Param("part").Base(), R11)
	g.cgRows(R13, func() {
		g.VBROADCASTSD(mem(0, R9), Y14)  // base[i]
		g.VBROADCASTSD(mem(0, R10), Y13) // g[i]
	}, func(s shape) {
		next := fmt.Sprint("next", s.n)
		s.mov(elem(0, RDI), s.r(0))
		s.mul(s.r(15), s.r(0), s.r(0)) // scale*out
		s.mov(elem(0, R8), s.r(1))
		s.mul(s.r(1), s.r(13), s.r(1)) // g*shift
		s.add(s.r(1), s.r(14), s.r(1)) // base + g*shift
		s.mov(elem(0, RSI), s.r(2))
		s.mul(s.r(2), s.r(1), s.r(1)) // (base + g*shift)*in
		s.add(s.r(1), s.r(0), s.r(0)) // v
		s.mov(s.r(0), elem(0, RDI))
		// part, when not nil, gathers in*v.
		g.TESTQ(R11, R11)
		g.JZ(lbl(next))
		s.mul(s.r(0), s.r(2), s.r(3))
		s.add(elem(0, R11), s.r(3), s.r(3))
		s.mov(s.r(3), elem(0, R11))
		g.Label(next)
	}, func() {
		g.ADDQ(R13, RDI)
		g.ADDQ(R13, RSI)
		g.ADDQ(U8(8), R9)
		g.ADDQ(U8(8), R10)
	})

	g.text("cgResidualAVX2")
	g.Load(g.Param("r").Base(), RDI)
	g.Load(g.Param("r").Len(), R12)
	g.Load(g.Param("q").Base(), RSI)
	g.Load(g.Param("d").Base(), R8)
	g.Load(g.Param("m"), RCX)
	g.Load(g.Param("alpha").Base(), R9)
	g.Load(g.Param("rr").Base(), R10)
	g.Load(g.Param("rz").Base(), R11)
	g.cgRows(R13, nil, func(s shape) {
		s.mov(elem(0, R9), s.r(0))
		s.mul(elem(0, RSI), s.r(0), s.r(0)) // alpha*q
		s.mov(elem(0, RDI), s.r(1))
		s.sub(s.r(0), s.r(1), s.r(1)) // v = r - alpha*q
		s.mov(s.r(1), elem(0, RDI))
		s.mul(s.r(1), s.r(1), s.r(2)) // v*v
		s.add(elem(0, R10), s.r(2), s.r(2))
		s.mov(s.r(2), elem(0, R10))
		s.mul(elem(0, R8), s.r(1), s.r(3)) // v*d
		s.mul(s.r(3), s.r(1), s.r(3))      // v*(v*d)
		s.add(elem(0, R11), s.r(3), s.r(3))
		s.mov(s.r(3), elem(0, R11))
	}, func() {
		g.ADDQ(R13, RDI)
		g.ADDQ(R13, RSI)
		g.ADDQ(R13, R8)
	})

	g.text("cgDirectionAVX2")
	g.Load(g.Param("x").Base(), RBX)
	g.Load(g.Param("ldx"), R13)
	g.SHLQ(U8(3), R13) // bytes a row of x
	g.Load(g.Param("p").Base(), RDI)
	g.Load(g.Param("p").Len(), R12)
	g.Load(g.Param("r").Base(), RSI)
	g.Load(g.Param("d").Base(), R8)
	g.Load(g.Param("m"), RCX)
	g.Load(g.Param("alpha").Base(), R9)
	g.Load(g.Param("beta").Base(), R10)
	g.cgRows(R11, nil, func(s shape) {
		s.mov(elem(0, RDI), s.r(0))         // v, the old p
		s.mul(elem(0, R9), s.r(0), s.r(1))  // alpha*v
		s.add(elem(0, RBX), s.r(1), s.r(1)) // x + alpha*v
		s.mov(s.r(1), elem(0, RBX))
		s.mov(elem(0, RSI), s.r(2))
		s.mul(elem(0, R8), s.r(2), s.r(2))  // r*d
		s.mul(elem(0, R10), s.r(0), s.r(3)) // beta*v
		s.add(s.r(3), s.r(2), s.r(2))
		s.mov(s.r(2), elem(0, RDI))
	}, func() {
		g.ADDQ(R11, RDI)
		g.ADDQ(R11, RSI)
		g.ADDQ(R11, R8)
		g.ADDQ(R13, RBX)
	})
}

// cgRows is the loop of the CG passes over the rows, from DI (the first
// row of the array of m columns whose length is in R12) to its end, with
// m in CX: setup (may be nil) once a row, then body(vec) four columns a
// step and body(scalar) one, the column in AX; next moves the row
// pointers on by rowBytes, which cgRows sets to m*8.
func (g *gen) cgRows(rowBytes Register, setup func(), body func(shape), next func()) {
	g.LEAQ(idx(0, RDI, R12, 8), R12) // end of the first array
	g.MOVQ(RCX, rowBytes)
	g.SHLQ(U8(3), rowBytes) // bytes a row
	g.MOVQ(RCX, RDX)
	g.ANDQ(I8(-4), RDX)

	g.Label("row")
	if setup != nil {
		setup()
	}
	g.XORQ(RAX, RAX)
	g.TESTQ(RDX, RDX)
	g.JZ(lbl("tail"))

	g.fourThenOne(body, nil, "nextrow")
	next()
	g.CMPQ(RDI, R12)
	g.JB(lbl("row"))
	g.done()
}
