package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestDotGather(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(11, 12))
		for _, k := range append(lengths(gatherWidth)[:2*gatherWidth+2], 100, 150, 193) {
			for n := range 21 {
				for off := range 4 {
					pad := off % 3 // ldb == k and ldb > k
					// A gather case has the layout DotGather needs: its
					// k-long dst serves as x, and b ends right after the
					// k-th column of its last row.
					c := newGatherCase(rnd, k, n, off, pad)
					x, xB := c.dst, c.dstB
					// dst is longer than ind: dst[n:] must stay as it is.
					dstOff := (off + 2) % 4
					dst, dstB := guarded(n+2, dstOff, uniform(rnd))
					x0, b0, dst0 := slices.Clone(x), slices.Clone(c.b), slices.Clone(dst)
					ind0 := slices.Clone(c.ind)
					want := slices.Clone(dst0)
					dotGatherGeneric(want, x0, ind0, b0, c.ldb)

					DotGather(dst, x, c.ind, c.b, c.ldb)

					name := fmt.Sprintf("k=%d n=%d off=%d ldb=%d", k, n, off, c.ldb)
					checkSame(t, name+" x", x, x0)
					checkSame(t, name+" b", c.b, b0)
					checkSame(t, name+" dst past n", dst[n:], dst0[n:])
					if !slices.Equal(c.ind, ind0) {
						t.Errorf("%s: ind modified", name)
					}
					checkGuards(t, name+" x", x, xB, c.dstOff)
					checkGuards(t, name+" b", c.b, c.bB, c.bOff)
					checkGuards(t, name+" dst", dst, dstB, dstOff)
					for p, j := range ind0 {
						var scale float64
						for t, v := range x0 {
							scale += math.Abs(v * b0[j*c.ldb+t])
						}
						if !near(dst[p], want[p], scale) {
							t.Errorf("%s: dst[%d] = %v, want %v", name, p, dst[p], want[p])
						}
					}
				}
			}
		}
	})
}

// TestDotGatherDeterministic checks that a path gives the same bits for the
// same entry wherever it falls in ind: the paired loop and the odd entry
// after it must sum in one order.
func TestDotGatherDeterministic(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(13, 14))
		for _, k := range []int{1, 5, 30, 48, 49, 100} {
			c := newGatherCase(rnd, k, 7, 0, 1)
			ind := slices.Repeat([]int{c.ind[3]}, 7)
			dst := make([]float64, len(ind))
			DotGather(dst, c.dst, ind, c.b, c.ldb)
			one := make([]float64, 1)
			DotGather(one, c.dst, ind[:1], c.b, c.ldb)
			for p, v := range dst {
				if math.Float64bits(v) != math.Float64bits(one[0]) {
					t.Errorf("k=%d: dst[%d] = %v, alone %v", k, p, v, one[0])
				}
			}
		}
	})
}

// TestDotGatherRange checks that every path panics, rather than reading
// outside b, on a row index that is negative or past the last row, wherever
// it is in ind.
func TestDotGatherRange(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(15, 16))
		for _, k := range []int{1, 4, 30, 48, 49, 100} {
			for _, bad := range []int{-1, 23, math.MaxInt / 2} {
				for _, at := range []int{0, 3, 4} {
					c := newGatherCase(rnd, k, 5, 0, 2)
					b := c.b[:len(c.b):len(c.b)] // the reference slices up to cap
					ind := slices.Clone(c.ind)
					ind[at] = bad
					func() {
						defer func() {
							if recover() == nil {
								t.Errorf("k=%d ind[%d]=%d: no panic", k, at, bad)
							}
						}()
						DotGather(make([]float64, len(ind)), c.dst, ind, b, c.ldb)
					}()
				}
			}
		}
	})
}

func TestDotGatherLength(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Error("no panic on dst shorter than ind")
			}
		}()
		DotGather(make([]float64, 2), make([]float64, 3), make([]int, 3), make([]float64, 9), 3)
	})
}
