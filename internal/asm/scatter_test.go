package asm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The scatter's inputs are newGatherCase's with the roles exchanged: the
// gather's b (rows of stride ldb, ending exactly after the k-th element
// of its last row, so that a write past any row runs into the guard) is
// the scatter's dst, and the gather's dst (k values) its x.

func TestAxpyScatter(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(17, 18))
		for _, k := range append(lengths(gatherWidth)[:2*gatherWidth+2], 100, 150, 193) {
			for _, nnz := range []int{0, 1, 2, 3, 7, 24} {
				for off := range 4 {
					pad := off % 3 // ldd == k and ldd > k
					c := newGatherCase(rnd, k, nnz, off, pad)
					dst, x, ldd := c.b, c.dst, c.ldb
					dst0, val0, x0 := slices.Clone(dst), slices.Clone(c.val), slices.Clone(x)
					ind0 := slices.Clone(c.ind)
					want := slices.Clone(dst0)
					axpyScatterGeneric(want, ldd, val0, ind0, x0)

					AxpyScatter(dst, ldd, c.val, c.ind, x)

					name := fmt.Sprintf("k=%d nnz=%d off=%d ldd=%d", k, nnz, off, ldd)
					checkSame(t, name+" val", c.val, val0)
					checkSame(t, name+" x", x, x0)
					if !slices.Equal(c.ind, ind0) {
						t.Errorf("%s: ind modified", name)
					}
					checkGuards(t, name+" dst", dst, c.bB, c.bOff)
					checkGuards(t, name+" val", c.val, c.valB, (off+1)%4)
					checkGuards(t, name+" x", x, c.dstB, c.dstOff)
					for e := range dst {
						// The padding between rows must keep its values.
						if k == 0 || e%ldd >= k {
							if dst[e] != dst0[e] {
								t.Errorf("%s: padding dst[%d] changed", name, e)
							}
							continue
						}
						i, j := e/ldd, e%ldd
						scale := math.Abs(dst0[e])
						for p, a := range val0 {
							if ind0[p] == i {
								scale += math.Abs(a * x0[j])
							}
						}
						if !near(dst[e], want[e], scale) {
							t.Errorf("%s: dst[%d] = %v, want %v", name, e, dst[e], want[e])
						}
					}
				}
			}
		}
	})
}

// TestAxpyScatterIsGatherTransposed checks the property sparse.ColPanels
// rests on: a^T b formed by scatters of b's rows over a's rows in order
// equals, bit for bit, the gathers of b's rows over a^T's rows, on every
// path wherever the gather keeps one accumulator a column (more than 16
// columns on avx2, every width on generic); elsewhere within rounding.
func TestAxpyScatterIsGatherTransposed(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(19, 20))
		const r, c = 40, 9
		for _, k := range []int{1, 3, 4, 8, 16, 17, 20, 30, 48, 49, 100} {
			// a as rows of (column, value), columns increasing; a^T built
			// alongside, its rows in a's row order.
			type entry struct {
				j int
				v float64
			}
			rows := make([][]entry, r)
			tInd, tVal := make([][]int, c), make([][]float64, c)
			for i := range rows {
				for j := range c {
					if rnd.Float64() < 0.5 {
						v := rnd.Float64()
						rows[i] = append(rows[i], entry{j, v})
						tInd[j], tVal[j] = append(tInd[j], i), append(tVal[j], v)
					}
				}
			}
			b := make([]float64, r*k)
			for i := range b {
				b[i] = 2*rnd.Float64() - 1
			}
			scat := make([]float64, c*k)
			for i, row := range rows {
				var ind []int
				var val []float64
				for _, e := range row {
					ind, val = append(ind, e.j), append(val, e.v)
				}
				AxpyScatter(scat, k, val, ind, b[i*k:i*k+k])
			}
			exact := Path() == "generic" || k > 16
			for j := range c {
				gath := make([]float64, k)
				AxpyGather(gath, tVal[j], tInd[j], b, k)
				for col := range k {
					got, want := scat[j*k+col], gath[col]
					if exact && math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("k=%d: scatter [%d][%d] = %v, gather %v (must be the same bits)", k, j, col, got, want)
					}
					if !exact && !near(got, want, float64(r)) {
						t.Fatalf("k=%d: scatter [%d][%d] = %v, gather %v", k, j, col, got, want)
					}
				}
			}
		}
	})
}

// TestAxpyScatterRange checks that every path panics, rather than writing
// outside dst, on a row index that is negative or past the last row.
func TestAxpyScatterRange(t *testing.T) {
	forEachPath(t, func(t *testing.T) {
		rnd := rand.New(rand.NewPCG(21, 22))
		for _, k := range []int{1, 4, 30, 48, 49, 100} {
			for _, bad := range []int{-1, 23, math.MaxInt / 2} {
				c := newGatherCase(rnd, k, 5, 0, 2)
				dst := c.b[:len(c.b):len(c.b)]
				ind := slices.Clone(c.ind)
				ind[3] = bad
				func() {
					defer func() {
						if recover() == nil {
							t.Errorf("k=%d ind=%d: no panic", k, bad)
						}
					}()
					AxpyScatter(dst, c.ldb, c.val, ind, c.dst)
				}()
				checkGuards(t, fmt.Sprintf("k=%d ind=%d dst", k, bad), c.b, c.bB, c.bOff)
			}
		}
	})
}
