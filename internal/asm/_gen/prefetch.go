package main

import (
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// prefetch writes prefetchRow32 and prefetchInt, which use PREFETCHT0
// (every amd64 processor has it) and no vector register.
//
// prefetchRow32 asks for the cache lines holding ind[lo:hi] and
// val[lo:hi], at most 16 of each (lo < hi, both in range: the loops count
// the lines down to zero and would not stop for an empty row).
func prefetch(g *gen) {
	g.text("prefetchRow32")
	g.Load(g.Param("ind").Base(), RAX)
	g.Load(g.Param("val").Base(), RBX)
	g.Load(g.Param("lo"), RCX)
	g.Load(g.Param("hi"), RDX)
	g.SUBQ(RCX, RDX)
	g.SHLQ(U8(2), RDX)
	g.LEAQ(idx(0, RAX, RCX, 4), RAX)
	g.LEAQ(idx(0, RBX, RCX, 4), RBX)
	prefetchLines(g, RAX, RDX, R8, R9)
	prefetchLines(g, RBX, RDX, R10, R9)

	g.Label("indLoop")
	g.PREFETCHT0(mem(0, RAX))
	g.ADDQ(U8(64), RAX)
	g.DECQ(R8)
	g.JNZ(lbl("indLoop"))

	g.Label("valLoop")
	g.PREFETCHT0(mem(0, RBX))
	g.ADDQ(U8(64), RBX)
	g.DECQ(R10)
	g.JNZ(lbl("valLoop"))
	g.RET()

	g.text("prefetchInt")
	g.Load(g.Param("s").Base(), RAX)
	g.Load(g.Param("i"), RCX)
	g.PREFETCHT0(idx(0, RAX, RCX, 8))
	g.RET()
}

// prefetchLines sets count to the number of cache lines holding the n
// bytes from address start (n >= 1), at most 16.
func prefetchLines(g *gen, start, n, count, tmp Register) {
	g.LEAQ(idx(-1, start, n, 1), count)
	g.SHRQ(U8(6), count)
	g.MOVQ(start, tmp)
	g.SHRQ(U8(6), tmp)
	g.SUBQ(tmp, count)
	g.INCQ(count)
	g.MOVQ(U32(16), tmp)
	g.CMPQ(count, tmp)
	g.CMOVQGT(tmp, count)
}
