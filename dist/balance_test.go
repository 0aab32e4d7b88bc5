package dist_test

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// zipfSamples returns n samples of m features whose feature f occurs
// with probability about 1 / (1 + f), as a vocabulary lists terms: the
// first features hold most entries.
func zipfSamples(seed uint64, n, m int) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 3))
	var ri, ci []int
	var v []float64
	for s := 0; s < n; s++ {
		for f := 0; f < m; f++ {
			if rng.Float64() < 1/(1+0.3*float64(f)) || f == s%m {
				ri, ci, v = append(ri, s), append(ci, f), append(v, 1+rng.Float64())
			}
		}
	}
	a, err := sparse.FromTriplets(n, m, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a
}

// TestBalanceShard: on every grid, the balanced order gives every rank
// the same order, feature blocks within the largest feature's entries of
// each other (contiguous blocks are several times apart here), and a fit
// on it that follows the one-process fit on the data in its own order.
func TestBalanceShard(t *testing.T) {
	const m, n, k, iters = 40, 50, 3, 15
	samples := zipfSamples(8, n, m)
	data, err := solver.NewSparseData(samples)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := solver.Fit(context.Background(), data, solver.Options{
		Method:  solver.NMF,
		K:       k,
		Seed:    9,
		Threads: 1,
		Control: solver.Control{Algorithm: solver.MU, MaxIter: iters, Tol: -1, PGTol: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	colNNZ := samples.ColNNZ()
	eachGrid(t, 6, m, n, func(g dist.Grid) {
		orders := make([][]int, g.Size())
		errs := onRanks(g, samples, func(r int, cs dist.GridComms, shard *sparse.CSR) error {
			bal, order, err := dist.BalanceShard(cs.Row, g, shard)
			if err != nil {
				return err
			}
			orders[r] = order
			res, err := dist.FitNMF(context.Background(), cs, g, g.ShardBlock(bal, r), dist.NMFOptions{K: k, Seed: 9, Threads: 1, FeatureOrder: order, Control: solver.Control{MaxIter: iters, Tol: -1}})
			if err != nil {
				return err
			}
			checkTrace(t, g, r, res.Objective, ref.Objective)
			return nil
		})
		for r, err := range errs {
			if err != nil {
				t.Fatalf("%d x %d grid, rank %d: %v", g.Rows, g.Cols, r, err)
			}
			if !slices.Equal(orders[r], orders[0]) {
				t.Fatalf("%d x %d grid: rank %d's order differs from rank 0's", g.Rows, g.Cols, r)
			}
		}
		if g.Rows < 2 {
			return
		}
		lo, hi, biggest := math.Inf(1), 0.0, 0.0
		for i := 0; i < g.Rows; i++ {
			f0, f1 := g.FeatureBlock(i)
			sum := 0.0
			for _, f := range orders[0][f0:f1] {
				sum += float64(colNNZ[f])
				biggest = max(biggest, float64(colNNZ[f]))
			}
			lo, hi = min(lo, sum), max(hi, sum)
		}
		if hi-lo > biggest {
			t.Errorf("%d x %d grid: feature blocks hold %v to %v entries (largest feature %v)", g.Rows, g.Cols, lo, hi, biggest)
		}
	})
}
