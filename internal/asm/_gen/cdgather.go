package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// cdGather writes cdGatherAVX2: sixteen rows at a time (then four, then
// one), each row's sum over the k columns split into the even and the odd
// columns' FMA chains (so that two chains hide the FMA's latency), then
// the coordinate step of each row (cdStep).
func cdGather(g *gen) {
	g.text("cdGatherAVX2")
	g.Comment(
		"Registers: SI row i of u's column 0, R11 row i of column c, R8 p, R9 d,",
		"R10 ih, R12 den (all at row i), AX the rows left, DX the column stride",
		"in bytes, BX s; in the sum over the columns R13 walks down u's columns,",
		"DI along s, CX counts pairs of columns. Y15 zero, Y12 and Y14 the two",
		"sums of squares.",
	)
	g.Load(g.Param("u").Base(), RSI)
	g.Load(g.Param("ld"), RDX)
	g.SHLQ(U8(3), RDX)
	g.Load(g.Param("c"), R11)
	g.IMULQ(RDX, R11)
	g.ADDQ(RSI, R11)
	g.Load(g.Param("s").Base(), RBX)
	g.Load(g.Param("p").Base(), R8)
	g.Load(g.Param("p").Len(), RAX)
	g.Load(g.Param("d").Base(), R9)
	g.Load(g.Param("ih").Base(), R10)
	g.Load(g.Param("den").Base(), R12)
	g.VXORPD(Y15, Y15, Y15)
	g.VXORPD(Y12, Y12, Y12)
	g.VXORPD(Y14, Y14, Y14)
	sLen := g.addr(g.Param("s").Len())
	g.cdBlocks([]VecPhysical{Y12, Y14}, func(s shape, regs int, name string) {
		// The sums over the columns: column j's values times s[j], the
		// even columns into registers 0.., the odd ones into 4..
		cdZeroSums(g, s, regs)
		g.MOVQ(RSI, R13)
		g.MOVQ(RBX, RDI)
		g.MOVQ(sLen, RCX)
		g.SHRQ(U8(1), RCX)
		g.JZ(lbl("odd" + name))

		g.Label("pair" + name)
		for half := range 2 {
			s.bcast(mem(8*half, RDI), s.r(8+half))
			for i := range regs {
				s.fmadd231(mem(32*i, R13), s.r(8+half), s.r(4*half+i))
			}
			g.ADDQ(RDX, R13)
		}
		g.ADDQ(U8(16), RDI)
		g.DECQ(RCX)
		g.JNZ(lbl("pair" + name))

		g.Label("odd" + name)
		g.MOVQ(sLen, RCX)
		g.TESTQ(U32(1), RCX)
		g.JZ(lbl("step" + name))
		s.bcast(mem(0, RDI), s.r(8))
		for i := range regs {
			s.fmadd231(mem(32*i, R13), s.r(8), s.r(i))
		}

		g.Label("step" + name)
		for i := range regs {
			s.add(s.r(4+i), s.r(i), s.r(i))
		}
		for i := range regs {
			off := 32 * i
			cdStep(g, s, s.r(i), s.r(12), mem(off, R11), mem(off, R9), mem(off, R12), mem(off, R8), mem(off, R10), nil)
		}
		cdAdvance(g, 8*s.n*regs, R12)
	})
	g.VMOVSD(X12, g.addr(g.Return("sq")))
	g.VMOVSD(X14, g.addr(g.Return("sqd")))
	g.done()
}

// cdGather2 writes cdGather2AVX2: sixteen rows at a time (then four, then
// one), each value of the block loaded once into both columns' sums:
// eight FMA chains, two vector multiply-adds per load. Column c+1's sum
// takes column c's change times S_{c+1,c} before its step.
func cdGather2(g *gen) {
	g.text("cdGather2AVX2")
	g.Comment(
		"Registers: SI row i of u's column 0; R11, R8, R10 and R14 row i of",
		"column c of u, p, ih and den (column c+1 is DX bytes further); R9 d at",
		"row i; AX the rows left; DX the column stride in bytes; BX s; R12 k in",
		"bytes (row c+1 of S); in the sums over the columns R13 walks down u's",
		"columns, DI along s, CX counts the columns. Registers 0-3 column c's",
		"sums, 4-7 column c+1's; Y12, Y13 and Y14 the sums of squares; Y15 zero.",
	)
	g.Load(g.Param("u").Base(), RSI)
	g.Load(g.Param("ld"), RDX)
	g.SHLQ(U8(3), RDX)
	g.Load(g.Param("c"), R13)
	g.IMULQ(RDX, R13)
	g.MOVQ(RSI, R11)
	g.ADDQ(R13, R11)
	g.Load(g.Param("p").Base(), R8)
	g.ADDQ(R13, R8)
	g.Load(g.Param("ih").Base(), R10)
	g.ADDQ(R13, R10)
	g.Load(g.Param("den").Base(), R14)
	g.ADDQ(R13, R14)
	g.Load(g.Param("d").Base(), R9)
	g.Load(g.Param("d").Len(), RAX)
	g.Load(g.Param("s").Base(), RBX)
	g.Load(g.Param("k"), R12)
	g.SHLQ(U8(3), R12)
	g.VXORPD(Y15, Y15, Y15)
	g.VXORPD(Y12, Y12, Y12)
	g.VXORPD(Y13, Y13, Y13)
	g.VXORPD(Y14, Y14, Y14)
	s1c := g.addr(g.Param("s1c"))
	g.cdBlocks([]VecPhysical{Y12, Y13, Y14}, func(s shape, regs int, name string) {
		cdZeroSums(g, s, regs)
		g.MOVQ(RSI, R13)
		g.MOVQ(RBX, RDI)
		g.Load(g.Param("k"), RCX)

		// Row c of S into register 8 and row c+1 into 9; each value of u
		// (through registers 10 and 11) into both sums.
		g.Label("col" + name)
		s.bcast(mem(0, RDI), s.r(8))
		s.bcast(idx(0, RDI, R12, 1), s.r(9))
		for i := range regs {
			t := s.r(10 + i%2)
			s.mov(mem(32*i, R13), t)
			s.fmadd231(t, s.r(8), s.r(i))
			s.fmadd231(t, s.r(9), s.r(4+i))
		}
		g.ADDQ(RDX, R13)
		g.ADDQ(U8(8), RDI)
		g.DECQ(RCX)
		g.JNZ(lbl("col" + name))

		// Column c, then column c+1, whose sum takes column c's change
		// (register 10) times S_{c+1,c}, broadcast into the spent sum.
		for i := range regs {
			off := 32 * i
			acc, acc1 := s.r(i), s.r(4+i)
			cdStep(g, s, acc, s.r(12), mem(off, R11), mem(off, R9), mem(off, R14), mem(off, R8), mem(off, R10), func() {
				s.bcast(s1c, acc)
				s.fmadd231(acc, s.r(10), acc1)
			})
		}
		for i := range regs {
			off := 32 * i
			cdStep(g, s, s.r(4+i), s.r(13), idx(off, R11, RDX, 1), mem(off, R9), idx(off, R14, RDX, 1), idx(off, R8, RDX, 1), idx(off, R10, RDX, 1), nil)
		}
		cdAdvance(g, 8*s.n*regs, R14)
	})
	g.VMOVSD(X12, g.addr(g.Return("sq0")))
	g.VMOVSD(X13, g.addr(g.Return("sq1")))
	g.VMOVSD(X14, g.addr(g.Return("sqd")))
	g.done()
}

// cdBlocks is the loop over the rows (AX of them left) that both cdGather
// kernels share: rows(vec, 4, "16") sixteen rows a step, rows(vec, 1, "4")
// four, then the horizontal sums of squares, then rows(scalar, 1, "1")
// one; rows labels its loops with its name. It leaves "done" for the
// epilogue.
func (g *gen) cdBlocks(squares []VecPhysical, rows func(s shape, regs int, name string)) {
	v := g.vec()
	g.CMPQ(RAX, U8(16))
	g.JB(lbl("quad"))

	g.Label("rows16")
	rows(v, 4, "16")
	g.SUBQ(U8(16), RAX)
	g.CMPQ(RAX, U8(16))
	g.JAE(lbl("rows16"))

	g.Label("quad")
	g.CMPQ(RAX, U8(4))
	g.JB(lbl("hsum"))

	g.Label("rows4")
	rows(v, 1, "4")
	g.SUBQ(U8(4), RAX)
	g.CMPQ(RAX, U8(4))
	g.JAE(lbl("rows4"))

	g.Label("hsum")
	for _, y := range squares {
		x := xs[y.PhysicalIndex()]
		g.hsum(y, x, X6)
	}
	g.TESTQ(RAX, RAX)
	g.JZ(lbl("done"))

	g.Label("row1")
	rows(g.scalar(), 1, "1")
	g.DECQ(RAX)
	g.JNZ(lbl("row1"))

	g.Label("done")
}

// cdZeroSums zeroes the sums over the columns, registers 0 to regs-1 and
// 4 to 4+regs-1.
func cdZeroSums(g *gen, s shape, regs int) {
	for i := range regs {
		g.VXORPD(s.r(i), s.r(i), s.r(i))
	}
	for i := range regs {
		g.VXORPD(s.r(4+i), s.r(4+i), s.r(4+i))
	}
}

// cdStep finishes a column for the rows of acc, their sum over the
// columns: acc += d*x for x the column's values at xm (the diagonal term)
// is stored in den; g = acc - p; the coordinate step (cdMove) moves x;
// then (after extra, if not nil) the change's square goes into squares
// and its square times d into register 14.
func cdStep(g *gen, s shape, acc, squares VecPhysical, xm, dm, denm, pm, ihm Mem, extra func()) {
	s.mov(xm, s.r(8))
	s.fmadd231(dm, s.r(8), acc)
	s.mov(acc, denm)
	s.sub(pm, acc, acc)
	cdMove(g, s, acc, xm, ihm)
	if extra != nil {
		extra()
	}
	s.mul(s.r(10), s.r(10), s.r(10))
	s.add(s.r(10), squares, squares)
	s.fmadd231(dm, s.r(10), s.r(14))
}

// cdMove steps the rows of one column, whose values are in register 8
// and at xm, with the gradient grad and the curvature reciprocals at ihm:
// the new values max(0, x - grad ih) go to xm, except on rows with ih = 0,
// which keep x (so that no gradient, NaN included, moves them), and the
// change is left in register 10. VMAXPD with zero as its second source
// gives zero for NaN, as the reference's !(y > 0) does. Registers 9 and
// 11 are scratch; 15 must be zero.
func cdMove(g *gen, s shape, grad VecPhysical, xm, ihm Mem) {
	s.mov(ihm, s.r(9))
	g.VMOVAPD(s.r(8), s.r(10))
	s.fnmadd231(s.r(9), grad, s.r(10))
	s.max(s.r(15), s.r(10), s.r(10))
	s.cmp(U8(0), s.r(15), s.r(9), s.r(11))
	g.VBLENDVPD(s.r(11), s.r(8), s.r(10), s.r(10))
	s.mov(s.r(10), xm)
	s.sub(s.r(8), s.r(10), s.r(10))
}

// cdAdvance moves the row pointers both kernels keep (u's column 0 and
// column c, p, d and ih at row i) and den's, bytes further.
func cdAdvance(g *gen, bytes int, den Register) {
	for _, r := range []Register{RSI, R11, R8, R9, R10, den} {
		g.ADDQ(Imm(uint64(bytes)), r)
	}
}
