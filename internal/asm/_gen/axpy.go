package main

import (
	. "github.com/mmcloughlin/avo/reg"
)

// axpy writes axpyAVX2, y[i] += a*x[i]: sixteen doubles a step in four
// independent FMAs, then four, then one. a is broadcast into Y0.
func axpy(g *gen) {
	g.text("axpyAVX2")
	g.Load(g.Param("x").Base(), RSI)
	g.Load(g.Param("x").Len(), RCX)
	g.Load(g.Param("y").Base(), RDI)
	g.VBROADCASTSD(g.addr(g.Param("a")), Y0)
	g.strided(func() {
		for i := range 4 {
			g.VMOVUPD(elem(32*i, RSI), ys[1+i])
		}
		for i := range 4 {
			g.VFMADD213PD(elem(32*i, RDI), Y0, ys[1+i])
		}
		for i := range 4 {
			g.VMOVUPD(ys[1+i], elem(32*i, RDI))
		}
	}, func(s shape) {
		s.mov(elem(0, RSI), s.r(1))
		s.fmadd213(elem(0, RDI), s.r(0), s.r(1))
		s.mov(s.r(1), elem(0, RDI))
	}, nil)
	g.done()
}
