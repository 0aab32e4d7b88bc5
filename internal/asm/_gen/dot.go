package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// dot writes dotAVX2, sum x[i]*y[i]. Four vector accumulators, Y0-Y3:
// with an FMA latency of 4 cycles and two 256-bit loads per cycle, four
// chains keep the loads (the bound: two per FMA) busy. The four are
// reduced before the scalar tail, which adds into X0.
func dot(g *gen) {
	g.text("dotAVX2")
	g.Load(g.Param("x").Base(), RSI)
	g.Load(g.Param("x").Len(), RCX)
	g.Load(g.Param("y").Base(), RDI)
	for i := range 4 {
		g.VXORPD(ys[i], ys[i], ys[i])
	}
	g.strided(func() {
		for i := range 4 {
			g.VMOVUPD(elem(32*i, RSI), ys[4+i])
		}
		for i := range 4 {
			g.VFMADD231PD(elem(32*i, RDI), ys[4+i], ys[i])
		}
	}, func(s shape) {
		// The entry of x in Y4, or in X1 in the tail (free once the
		// accumulators are reduced).
		t := s.r(4)
		if s.n == 1 {
			t = s.r(1)
		}
		s.mov(elem(0, RSI), t)
		s.fmadd231(elem(0, RDI), t, s.r(0))
	}, func() {
		g.VADDPD(Y1, Y0, Y0)
		g.VADDPD(Y3, Y2, Y2)
		g.VADDPD(Y2, Y0, Y0)
		g.VEXTRACTF128(U8(1), Y0, X1)
		g.VADDPD(X1, X0, X0)
		g.VUNPCKHPD(X0, X0, X1)
		g.VADDSD(X1, X0, X0)
	})
	g.VMOVSD(X0, g.addr(g.ReturnIndex(0)))
	g.done()
}
