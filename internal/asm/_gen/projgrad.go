package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// projGrad writes projGradAVX2: g = den - num; g = 0 where f <= 0 and
// g >= 0; pg += g*g; ref += num*num; four entries a step, then one at a
// time. VCMPPD's predicate 2 (LE_OS) is false for NaN, as the reference's
// comparisons are, so a NaN keeps its component. Y15 is zero.
func projGrad(g *gen) {
	g.text("projGradAVX2")
	g.Load(g.Param("pg").Base(), RDI)
	g.Load(g.Param("ref").Base(), RSI)
	g.Load(g.Param("f").Base(), R8)
	g.Load(g.Param("f").Len(), RCX)
	g.Load(g.Param("den").Base(), R9)
	g.Load(g.Param("num").Base(), R10)
	g.VXORPD(Y15, Y15, Y15)
	g.strided(nil, func(s shape) {
		zero := s.r(15)
		s.mov(elem(0, R9), s.r(0))
		s.mov(elem(0, R10), s.r(1))
		s.sub(s.r(1), s.r(0), s.r(0)) // g = den - num
		s.mov(elem(0, R8), s.r(2))
		s.cmp(U8(2), zero, s.r(2), s.r(3)) // f <= 0
		s.cmp(U8(2), s.r(0), zero, s.r(4)) // 0 <= g
		g.VANDPD(s.r(4), s.r(3), s.r(3))   // dropped
		g.VANDNPD(s.r(0), s.r(3), s.r(0))  // g, or 0 where dropped
		s.mov(elem(0, RDI), s.r(5))
		s.fmadd231(s.r(0), s.r(0), s.r(5))
		s.mov(s.r(5), elem(0, RDI))
		s.mov(elem(0, RSI), s.r(6))
		s.fmadd231(s.r(1), s.r(1), s.r(6))
		s.mov(s.r(6), elem(0, RSI))
	}, nil)
	g.done()
}
