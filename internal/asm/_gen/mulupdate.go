package main

import (
	. "github.com/mmcloughlin/avo/reg"
)

// mulUpdate writes mulUpdateAVX2, x[i] *= num[i] / max(den[i], eps).
// VMAXPD with eps (Y15) as the first source returns eps only when
// eps > den[i] and otherwise den[i] (also when den[i] is NaN), which is
// exactly the reference's "if d < eps { d = eps }". Four independent
// divisions a step overlap the divider's latency.
func mulUpdate(g *gen) {
	g.text("mulUpdateAVX2")
	g.Load(g.Param("x").Base(), RDI)
	g.Load(g.Param("x").Len(), RCX)
	g.Load(g.Param("num").Base(), RSI)
	g.Load(g.Param("den").Base(), R8)
	g.VBROADCASTSD(g.addr(g.Param("eps")), Y15)
	g.strided(func() {
		for i := range 4 {
			g.VMAXPD(elem(32*i, R8), Y15, ys[i])
		}
		for i := range 4 {
			g.VMOVUPD(elem(32*i, RSI), ys[4+i])
		}
		for i := range 4 {
			g.VDIVPD(ys[i], ys[4+i], ys[4+i])
		}
		for i := range 4 {
			g.VMULPD(elem(32*i, RDI), ys[4+i], ys[4+i])
		}
		for i := range 4 {
			g.VMOVUPD(ys[4+i], elem(32*i, RDI))
		}
	}, func(s shape) {
		s.max(elem(0, R8), s.r(15), s.r(0))
		s.mov(elem(0, RSI), s.r(4))
		s.div(s.r(0), s.r(4), s.r(4))
		s.mul(elem(0, RDI), s.r(4), s.r(4))
		s.mov(s.r(4), elem(0, RDI))
	}, nil)
	g.done()
}
