package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// klStep writes klStepAVX2 and klDerivAVX2.
//
// klStepAVX2 takes four entries a step: y += t*hOld (stored),
// r = 1/max(eps, y) (VMAXPD with y as its second source passes a NaN y
// through, as Go's max does), xr = x*r (both stored), then gOld += hOld*xr,
// gNew += hNew*xr, hess += hNew*(hNew*(xr*r)) in Y10, Y11 and Y12; a
// scalar tail after the horizontal sums. The division dominates: one
// VDIVPD per four entries. Registers: SI y, DI x, R8 hOld, R9 hNew, R10
// xr, R11 r; Y0 t, Y1 eps, Y2 one.
//
// klDerivAVX2 is klStepAVX2's gNew and hess from the ratios it stored,
// with no move of y: the same operations (klNewSums) in the same lanes,
// horizontal sums and tail, so the sums equal, bit for bit, those of a
// step with t = 0 at the same y.
func klStep(g *gen) {
	g.text("klStepAVX2")
	g.Load(g.Param("y").Base(), RSI)
	g.Load(g.Param("x").Base(), RDI)
	g.Load(g.Param("x").Len(), RCX)
	g.Load(g.Param("hOld").Base(), R8)
	g.Load(g.Param("hNew").Base(), R9)
	g.Load(g.Param("xr").Base(), R10)
	g.Load(g.Param("r").Base(), R11)
	g.VBROADCASTSD(g.addr(g.Param("t")), Y0)
	g.VBROADCASTSD(g.addr(g.Param("eps")), Y1)
	// 1.0 through AX. VMOVQ, not MOVQ: a legacy SSE instruction here,
	// after Y0 and Y1 are written, costs Intel cores an AVX-SSE
	// transition on every call.
	g.MOVQ(U64(0x3FF0000000000000), RAX)
	g.VMOVQ(RAX, X2)
	g.VBROADCASTSD(X2, Y2)
	g.VXORPD(Y10, Y10, Y10)
	g.VXORPD(Y11, Y11, Y11)
	g.VXORPD(Y12, Y12, Y12)
	g.strided(nil, func(s shape) {
		s.mov(elem(0, RSI), s.r(3))
		s.mov(elem(0, R8), s.r(4))
		s.fmadd231(s.r(0), s.r(4), s.r(3))
		s.mov(s.r(3), elem(0, RSI))
		s.max(s.r(3), s.r(1), s.r(5))
		s.div(s.r(5), s.r(2), s.r(6))
		s.mov(s.r(6), elem(0, R11))
		s.mul(elem(0, RDI), s.r(6), s.r(7))
		s.mov(s.r(7), elem(0, R10))
		s.fmadd231(s.r(7), s.r(4), s.r(10))
		s.mov(elem(0, R9), s.r(8))
		klNewSums(s)
	}, func() {
		g.hsum(Y10, X10, X13)
		g.hsum(Y11, X11, X13)
		g.hsum(Y12, X12, X13)
	})
	g.VMOVSD(X10, g.addr(g.Return("gOld")))
	g.VMOVSD(X11, g.addr(g.Return("gNew")))
	g.VMOVSD(X12, g.addr(g.Return("hess")))
	g.done()

	g.text("klDerivAVX2")
	g.Load(g.Param("xr").Base(), R10)
	g.Load(g.Param("xr").Len(), RCX)
	g.Load(g.Param("r").Base(), R11)
	g.Load(g.Param("h").Base(), R9)
	g.VXORPD(Y11, Y11, Y11)
	g.VXORPD(Y12, Y12, Y12)
	g.strided(nil, func(s shape) {
		s.mov(elem(0, R10), s.r(7))
		s.mov(elem(0, R11), s.r(6))
		s.mov(elem(0, R9), s.r(8))
		klNewSums(s)
	}, func() {
		g.hsum(Y11, X11, X13)
		g.hsum(Y12, X12, X13)
	})
	g.VMOVSD(X11, g.addr(g.Return("gNew")))
	g.VMOVSD(X12, g.addr(g.Return("hess")))
	g.done()
}

// klNewSums adds an entry's terms of gNew and hess from r in register 6,
// xr in 7 and hNew in 8: gNew += hNew*xr in 11, hess += hNew*(hNew*(xr*r))
// in 12 (13 scratch). klStepAVX2 and klDerivAVX2 share it, so that a step
// that moves nothing and KLDeriv give the same sums bit for bit.
func klNewSums(s shape) {
	s.fmadd231(s.r(7), s.r(8), s.r(11))
	s.mul(s.r(6), s.r(7), s.r(13))
	s.mul(s.r(8), s.r(13), s.r(13))
	s.fmadd231(s.r(13), s.r(8), s.r(12))
}
