package dist_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// TestFitNMFCDMatchesOneProcess: with the coordinate-descent steps, on an
// aligned grid and BalanceShard's order, every grid of 1 to 6 ranks
// whose blocks the data fill follows solver.Fit's NMF under CD (one
// start, the same seed) to 1e-9 relative at every iteration, and the
// objective never increases.
func TestFitNMFCDMatchesOneProcess(t *testing.T) {
	for _, ex := range []bool{false, true} {
		t.Run(fmt.Sprintf("extrapolate=%v", ex), func(t *testing.T) { fitNMFCDMatchesOneProcess(t, ex) })
	}
}

// fitNMFCDMatchesOneProcess is TestFitNMFCDMatchesOneProcess with or
// without the extrapolated steps (their keep-or-undo decisions, taken on
// each side's objective, must agree for the traces to).
func fitNMFCDMatchesOneProcess(t *testing.T, ex bool) {
	// Dense enough that a row takes many sweeps, so the inner loop's
	// rule, taken over blocks of rows, decides: the blocks must be the
	// one process's.
	const m, n, k = 3*nmfstep.Block + 41, 2*nmfstep.Block + 90, 3
	iters := 12
	if ex {
		iters = 30 // enough for steps to be undone
	}
	samples := randomSamples(17, n, m, 0.15)
	data, err := solver.NewSparseData(samples)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := solver.Fit(context.Background(), data, solver.Options{
		Method:  solver.NMF,
		K:       k,
		Seed:    4,
		Threads: 1,
		Control: solver.Control{Algorithm: solver.CD, MaxIter: iters, Tol: -1, PGTol: -1, PlainCD: !ex},
	})
	if err != nil {
		t.Fatal(err)
	}
	grids := 0
	eachGrid(t, 6, m, n, func(g0 dist.Grid) {
		g, err := g0.Aligned(nmfstep.Block)
		if err != nil {
			return // more blocks than the data has aligned units
		}
		grids++
		errs := onRanks(g, samples, func(r int, cs dist.GridComms, shard *sparse.CSR) error {
			bal, order, err := dist.BalanceShard(cs.Row, g, shard)
			if err != nil {
				return err
			}
			res, err := dist.FitNMF(context.Background(), cs, g, g.ShardBlock(bal, r), dist.NMFOptions{K: k, Seed: 4, Threads: 2, CD: true, FeatureOrder: order, Control: solver.Control{MaxIter: iters, Tol: -1, PlainCD: !ex}})
			if err != nil {
				return err
			}
			checkTrace(t, g, r, res.Objective, ref.Objective)
			// What the collectives moved is what the formula says, kept
			// and undone steps counted as the driver takes them.
			if res.Words != res.Formula {
				t.Errorf("%d x %d grid, rank %d: %d values moved per iteration, the formula says %d", g.Rows, g.Cols, r, res.Words, res.Formula)
			}
			for it := 1; it < len(res.Objective); it++ {
				if res.Objective[it] > res.Objective[it-1]*(1+1e-12) {
					t.Errorf("%d x %d grid: the objective rose at iteration %d", g.Rows, g.Cols, it)
				}
			}
			return nil
		})
		for r, err := range errs {
			if err != nil {
				t.Fatalf("%d x %d grid, rank %d: %v", g.Rows, g.Cols, r, err)
			}
		}
	})
	if grids < 6 {
		t.Fatalf("only %d grids ran", grids)
	}
	// An unaligned grid is refused.
	g, _ := dist.NewGrid(2, m, n, 1)
	errs := onRanks(g, samples, func(r int, cs dist.GridComms, shard *sparse.CSR) error {
		_, err := dist.FitNMF(context.Background(), cs, g, g.ShardBlock(shard, r), dist.NMFOptions{K: k, CD: true, Control: solver.Control{MaxIter: 1}})
		return err
	})
	for r, err := range errs {
		if err == nil {
			t.Errorf("rank %d: CD on an unaligned grid ran", r)
		}
	}
}
