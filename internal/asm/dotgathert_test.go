package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDotGatherT checks every path against the reference bit for bit (the
// sums run in one defined order everywhere): k from 0 past two groups of
// four and the widths the solvers use, entries from 0 past three groups
// of four and a few hundred (the prefetch ahead), strides equal to and
// wider than k, guard bands on every slice, dst past n and ht past n k
// untouched, and the inputs unchanged.
func TestDotGatherT(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(21, 22))
		for _, k := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 13, 17, 30, 31, 64, 100} {
			for _, n := range []int{0, 1, 2, 3, 4, 5, 7, 8, 9, 11, 12, 13, 16, 17, 33, 100, 303} {
				for off := range 3 {
					c := newGatherCase(rnd, max(k, 1), n, off, off%2)
					x, xB := c.dst[:k], c.dstB
					dstOff, htOff := (off+2)%4, (off+1)%4
					dst, dstB := guarded(n+2, dstOff, uniform(rnd))
					ht, htB := guarded(n*k+3, htOff, uniform(rnd))
					x0, b0, dst0, ht0, ind0 := slices.Clone(x), slices.Clone(c.b), slices.Clone(dst), slices.Clone(ht), slices.Clone(c.ind)
					wantDst, wantHt := slices.Clone(dst0), slices.Clone(ht0)
					dotGatherTGeneric(wantDst, wantHt, x0, ind0, b0, c.ldb)

					DotGatherT(dst, ht, x, c.ind, c.b, c.ldb)

					name := fmt.Sprintf("k=%d n=%d off=%d ldb=%d", k, n, off, c.ldb)
					checkSame(t, name+" x", x, x0)
					checkSame(t, name+" b", c.b, b0)
					checkSame(t, name+" dst", dst, wantDst)
					checkSame(t, name+" ht", ht, wantHt)
					checkSame(t, name+" dst past n", dst[n:], dst0[n:])
					checkSame(t, name+" ht past n k", ht[n*k:], ht0[n*k:])
					if !slices.Equal(c.ind, ind0) {
						t.Errorf("%s: ind modified", name)
					}
					checkGuards(t, name+" x", c.dst, xB, c.dstOff)
					checkGuards(t, name+" b", c.b, c.bB, c.bOff)
					checkGuards(t, name+" dst", dst, dstB, dstOff)
					checkGuards(t, name+" ht", ht, htB, htOff)
				}
			}
		}
	})
}

// TestDotGatherTReference checks the reference against its definition:
// ht holds the rows transposed exactly, and dst their dot products with
// x up to rounding.
func TestDotGatherTReference(t *testing.T) {
	rnd := rand.New(rand.NewPCG(23, 24))
	for _, k := range []int{1, 3, 4, 30} {
		c := newGatherCase(rnd, k, 9, 0, 1)
		n := len(c.ind)
		dst, ht := make([]float64, n), make([]float64, n*k)
		dotGatherTGeneric(dst, ht, c.dst, c.ind, c.b, c.ldb)
		for p, j := range c.ind {
			var s, scale float64
			for col := range k {
				v := c.b[j*c.ldb+col]
				if ht[col*n+p] != v {
					t.Errorf("k=%d: ht[%d*%d+%d] = %v, want %v", k, col, n, p, ht[col*n+p], v)
				}
				s += c.dst[col] * v
				scale += math.Abs(c.dst[col] * v)
			}
			if !near(dst[p], s, scale) {
				t.Errorf("k=%d: dst[%d] = %v, want %v", k, p, dst[p], s)
			}
		}
	}
}

// TestDotGatherTPanics: every path panics, rather than reading or writing
// outside the slices, on a row index negative or past the last row
// wherever it lies in ind (in a group of four or after the last), and on
// a dst or ht too short.
func TestDotGatherTPanics(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(25, 26))
		try := func(name string, f func()) {
			t.Helper()
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", name)
				}
			}()
			f()
		}
		for _, k := range []int{1, 4, 30} {
			for _, bad := range []int{-1, 23, math.MaxInt / 2} {
				for _, at := range []int{0, 3, 4, 8} {
					c := newGatherCase(rnd, k, 9, 0, 2)
					b := c.b[:len(c.b):len(c.b)]
					ind := slices.Clone(c.ind)
					ind[at] = bad
					try(fmt.Sprintf("k=%d ind[%d]=%d", k, at, bad), func() {
						DotGatherT(make([]float64, 9), make([]float64, 9*k), c.dst, ind, b, c.ldb)
					})
				}
			}
			c := newGatherCase(rnd, k, 9, 0, 0)
			try(fmt.Sprintf("k=%d short dst", k), func() { DotGatherT(make([]float64, 8), make([]float64, 9*k), c.dst, c.ind, c.b, c.ldb) })
			try(fmt.Sprintf("k=%d short ht", k), func() { DotGatherT(make([]float64, 9), make([]float64, 9*k-1), c.dst, c.ind, c.b, c.ldb) })
		}
	})
}
