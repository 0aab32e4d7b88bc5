package sparse

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"
)

// edgeCSR returns an r x c matrix whose rows put entries on and beside
// the block edges of width w (columns w-1, w, w+1, 2w-1, ...), the first
// and last column, a row filling every column, empty rows (the last
// one too) and random rows, so that every way a segment can start and end
// at an edge occurs.
func edgeCSR(rng *rand.Rand, r, c, w int) *CSR {
	var ri, ci []int
	var v []float64
	add := func(i, j int) {
		if j >= 0 && j < c {
			ri, ci, v = append(ri, i), append(ci, j), append(v, 1-rng.Float64())
		}
	}
	for i := 0; i < r; i++ {
		if i == r-1 && r > 1 {
			break // a trailing empty row
		}
		switch i % 6 {
		case 0: // on and beside every edge
			for e := 0; e <= c; e += w {
				add(i, e-1)
				add(i, e)
				add(i, e+1)
			}
		case 1: // full row
			for j := 0; j < c; j++ {
				add(i, j)
			}
		case 2: // empty row
		case 3: // only the first and the last column
			add(i, 0)
			add(i, c-1)
		default: // random, dense enough to be blocked at small minimums
			for j := 0; j < c; j++ {
				if rng.Float64() < 0.4 {
					add(i, j)
				}
			}
		}
	}
	return mustTriplets(r, c, ri, ci, v)
}

// TestColBlocksMatchReference checks the blocked product against a plain
// sum for block widths that put entries exactly on block edges, a last
// block that is partly outside the matrix, one block, and one column a
// block; for blocking thresholds that block every row (empty ones too),
// some and none; for k on both sides of the kernel's paired loops; and
// for 1, 2 and 7 goroutines, which must agree bit for bit. For k > 16 the
// kernel sums every entry into the same accumulator in stored order, so
// the result must also equal CSR.MulDenseTo bit for bit.
func TestColBlocksMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	for _, shape := range [][2]int{{1, 1}, {7, 10}, {30, 64}, {25, 97}} {
		r, c := shape[0], shape[1]
		for _, w := range []int{1, 2, 3, 8, 16, c - 1, c, c + 5} {
			if w < 1 {
				continue
			}
			a := edgeCSR(rng, r, c, w)
			d := toDense(a)
			for _, minPer := range []int{0, 1, 3, 1 << 30} {
				cb := a.ColBlocks(w, minPer)
				if minPer == 0 && cb.Blocked() != r {
					t.Fatalf("%v w %d: minPerBlock 0 blocks %d of %d rows", shape, w, cb.Blocked(), r)
				}
				if minPer == 1<<30 && cb.Blocked() != 0 {
					t.Fatalf("%v w %d: an unreachable minimum blocks %d rows", shape, w, cb.Blocked())
				}
				for _, k := range []int{1, 4, 5, 17, 30} {
					b := randomGeneral(rng, c, k, k+2)
					var first []float64
					for _, threads := range []int{1, 2, 7} {
						const guard = -777.0
						dst := guarded(r, k, k+1, guard)
						cb.MulDenseTo(dst, b, threads)
						checkProduct(t, fmt.Sprintf("%v w %d min %d k %d threads %d", shape, w, minPer, k, threads), dst, d, b, guard)
						if first == nil {
							first = dst.Data
						} else {
							for i := range first {
								if first[i] != dst.Data[i] {
									t.Fatalf("%v w %d min %d k %d: %d threads differ from 1 at %d", shape, w, minPer, k, threads, i)
								}
							}
						}
					}
					if k > 16 {
						// The guard column is copied, the rest overwritten.
						plain := blas64.General{Rows: r, Cols: k, Stride: k + 1, Data: append([]float64(nil), first...)}
						a.MulDenseTo(plain, b, 2)
						for i := range first {
							if first[i] != plain.Data[i] {
								t.Fatalf("%v w %d min %d k %d: blocked differs from MulDenseTo at %d", shape, w, minPer, k, i)
							}
						}
					}
				}
			}
		}
	}
}

func TestColBlocksRejectsBadInput(t *testing.T) {
	a := edgeCSR(rand.New(rand.NewPCG(1, 1)), 3, 4, 2)
	mustPanic(t, "width 0", func() { a.ColBlocks(0, 1) })
	cb := a.ColBlocks(2, 1)
	mustPanic(t, "dimensions", func() {
		cb.MulDenseTo(blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: make([]float64, 6)}, blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: make([]float64, 6)}, 1)
	})
}
