package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// dotGather writes dotGatherBlockAVX2: one pass over the sparse row with x
// held in n = ceil(len(x)/4) registers. Each entry costs n loads and n FMAs
// into two accumulators, then a horizontal reduction and a store. Up to
// n = 10 the loop takes two entries at a time, so their loads and
// reductions overlap and the two sums share one horizontal add and one
// 16-byte store (faster than one entry at a time with two or four
// accumulators, most at small n); n = 11 and 12 leave registers for one
// entry. From n = 4 (k > 12) the rows of the entries 8 ahead are
// prefetched: it made SampledTo at TDT2 size (b from L3) faster at k = 30,
// while at k <= 12, rows of one or two cache lines, it slowed rows in L1
// and did not help from L3. A branch chooses the loop for n once per call
// (one Go loop below writes each); every entry's range check is a fused
// compare and branch, and add is tested per entry (a predictable branch)
// rather than doubling the loops.
func dotGather(g *gen) {
	mask := g.laneMasks("dotMask")

	g.text("dotGatherBlockAVX2")
	g.Comment(
		"Register use:",
		"DI  dst            SI  x, then the row prefetched ahead",
		"R8  ind            R9  &b[col]        R10 ldb*8          R11 maxRow",
		"DX  len(ind)       BX  p              CX  len(ind)-1     AX  add",
		"R12 &b[ind[p]*ldb+col]                R13 &b[ind[p+1]*ldb+col]",
		"Y0..Y11  x[0:48], the last register used masked (zero past len(x))",
		"Y10, Y11 accumulators for p and Y12, Y13 for p+1 (n <= 10); for",
		"         n = 11 and 12, where x needs Y10 and Y11, one entry in Y12, Y13",
		"Y14 masked row load, reduction scratch           Y15 last-lane mask",
	)
	g.Load(g.Param("dst").Base(), RDI)
	g.Load(g.Param("x").Base(), RSI)
	g.Load(g.Param("x").Len(), RCX)
	g.Load(g.Param("ind").Base(), R8)
	g.Load(g.Param("ind").Len(), RDX)
	blockRows(g)
	// R12 = n, the register count of x; Y15 = the mask for the last one.
	blockMask(g, mask, R12, RAX, Y15)
	g.MOVBQZX(g.addr(g.Param("add")), RAX)
	g.XORQ(RBX, RBX)
	g.LEAQ(mem(-1, RDX), RCX)

	var labels []string
	for n := 1; n <= 12; n++ {
		labels = append(labels, fmt.Sprint("d", n))
	}
	g.dispatch(R12, labels)
	for n := 1; n <= 10; n++ {
		dotGatherPaired(g, n)
	}
	for n := 11; n <= 12; n++ {
		dotGatherSingle(g, n)
	}
	g.okBad()
}

// dotGatherPaired writes the loop for n registers of x (n <= 10), two
// entries a step, an odd last one alone.
func dotGatherPaired(g *gen, n int) {
	name := fmt.Sprint("d", n)
	g.Label(name)
	dotGatherLoadX(g, n)
	g.CMPQ(RBX, RCX)
	g.JAE(lbl(name + "odd"))

	g.Label(name + "pair")
	if n >= 4 {
		// The rows of entries p+8 and p+9, while they exist.
		g.LEAQ(mem(8, RBX), RSI)
		g.CMPQ(RSI, RCX)
		g.JAE(lbl(name + "near"))
		dotGatherAhead(g, 64, n)
		dotGatherAhead(g, 72, n)
		g.Label(name + "near")
	}
	dotGatherRow(g, 0, R12)
	dotGatherRow(g, 8, R13)
	dotGatherEntry(g, n, R12, Y10, Y11)
	dotGatherEntry(g, n, R13, Y12, Y13)
	if n > 1 {
		g.VADDPD(Y11, Y10, Y10)
		g.VADDPD(Y13, Y12, Y12)
	}
	// The pair (sum Y10, sum Y12) into X10, each sum in the order of
	// dotGatherSum1, so that an entry's result does not depend on which
	// of the two computes it.
	g.VHADDPD(Y12, Y10, Y10)
	g.VEXTRACTF128(U8(1), Y10, X14)
	g.VADDPD(X14, X10, X10)
	g.TESTQ(RAX, RAX)
	g.JZ(lbl(name + "put2"))
	g.VADDPD(idx(0, RDI, RBX, 8), X10, X10)
	g.Label(name + "put2")
	g.VMOVUPD(X10, idx(0, RDI, RBX, 8))
	g.ADDQ(U8(2), RBX)
	g.CMPQ(RBX, RCX)
	g.JB(lbl(name + "pair"))

	g.Label(name + "odd")
	g.CMPQ(RBX, RDX)
	g.JAE(lbl("ok"))
	dotGatherRow(g, 0, R12)
	dotGatherEntry(g, n, R12, Y10, Y11)
	if n > 1 {
		g.VADDPD(Y11, Y10, Y10)
	}
	dotGatherSum1(g, name+"put1", Y10, X10)
	g.JMP(lbl("ok"))
}

// dotGatherSingle writes the loop for n registers of x (n = 11, 12), one
// entry a step in Y12 and Y13, since x takes Y10 and Y11.
func dotGatherSingle(g *gen, n int) {
	name := fmt.Sprint("d", n)
	g.Label(name)
	dotGatherLoadX(g, n)

	g.Label(name + "loop")
	g.LEAQ(mem(8, RBX), RSI)
	g.CMPQ(RSI, RDX)
	g.JAE(lbl(name + "near"))
	dotGatherAhead(g, 64, n)
	g.Label(name + "near")
	dotGatherRow(g, 0, R12)
	dotGatherEntry(g, n, R12, Y12, Y13)
	g.VADDPD(Y13, Y12, Y12)
	dotGatherSum1(g, name+"put", Y12, X12)
	g.INCQ(RBX)
	g.CMPQ(RBX, RDX)
	g.JB(lbl(name + "loop"))
	g.JMP(lbl("ok"))
}

// dotGatherLoadX loads x into Y0.., the last of the n registers under the
// mask Y15, so that its lanes past len(x) are zero.
func dotGatherLoadX(g *gen, n int) {
	for i := range n - 1 {
		g.VMOVUPD(mem(32*i, RSI), ys[i])
	}
	g.VMASKMOVPD(mem(32*(n-1), RSI), Y15, ys[n-1])
}

// dotGatherRow loads ind[p+off/8], leaves with false if it is out of
// range (an unsigned compare, so negative indices fail too) and points r
// at its row.
func dotGatherRow(g *gen, off int, r Register) {
	g.MOVQ(idx(off, R8, RBX, 8), r)
	g.CMPQ(r, R11)
	g.JA(lbl("bad"))
	g.IMULQ(R10, r)
	g.ADDQ(R9, r)
}

// dotGatherAhead points SI at the row of ind[p+off/8] and prefetches the
// first (n+1)/2 cache lines from it and the line holding the row's last
// column: together they cover the row of 32n bytes whatever its
// alignment. The index is not checked: a prefetch never faults.
func dotGatherAhead(g *gen, off, n int) {
	g.MOVQ(idx(off, R8, RBX, 8), RSI)
	g.IMULQ(R10, RSI)
	g.ADDQ(R9, RSI)
	for i := range (n + 1) / 2 {
		g.PREFETCHT0(mem(64*i, RSI))
	}
	g.PREFETCHT0(mem(32*n-8, RSI))
}

// dotGatherEntry zeroes a and b and multiplies the n registers of x by the
// row at r, the even registers into a and the odd ones into b (two chains
// to hide the FMA latency); the last register's columns are loaded under
// the mask Y15, so that no byte past the row's len(x) columns is read.
// With one register only a is used.
func dotGatherEntry(g *gen, n int, r Register, a, b VecPhysical) {
	g.VXORPD(a, a, a)
	if n > 1 {
		g.VXORPD(b, b, b)
	}
	acc := func(i int) VecPhysical {
		if i%2 == 0 {
			return a
		}
		return b
	}
	for i := range n - 1 {
		g.VFMADD231PD(mem(32*i, r), ys[i], acc(i))
	}
	g.VMASKMOVPD(mem(32*(n-1), r), Y15, Y14)
	g.VFMADD231PD(Y14, ys[n-1], acc(n-1))
}

// dotGatherSum1 reduces the lanes of a (whose low half is xa) to a scalar
// in xa, as (a0+a1) + (a2+a3), adds dst[p] to it if add (AX) is set and
// stores it in dst[p]; put is the label of the store.
func dotGatherSum1(g *gen, put string, a, xa VecPhysical) {
	g.VHADDPD(a, a, a)
	g.VEXTRACTF128(U8(1), a, X14)
	g.VADDSD(X14, xa, xa)
	g.TESTQ(RAX, RAX)
	g.JZ(lbl(put))
	g.VADDSD(idx(0, RDI, RBX, 8), xa, xa)
	g.Label(put)
	g.VMOVSD(xa, idx(0, RDI, RBX, 8))
}
