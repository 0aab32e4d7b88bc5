package dist_test

import (
	"context"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// onRanks runs fn on every rank of g as goroutines, each with its
// communicators and its sample block's rows (every feature).
func onRanks(g dist.Grid, samples *sparse.CSR, fn func(r int, cs dist.GridComms, shard *sparse.CSR) error) []error {
	comms := dist.LocalGrid(g)
	errs := make([]error, g.Size())
	var wg sync.WaitGroup
	for r := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, j := g.Pos(r)
			s0, s1 := g.SampleBlock(j)
			errs[r] = fn(r, comms[r], samples.RowSlice(s0, s1))
		}()
	}
	wg.Wait()
	return errs
}

// TestBuildGraphMatchesSparse: on every grid of 1 to 6 ranks, the rows
// the ranks build by the ring equal graph.Sparse's rows of their V rows,
// bit for bit, for every weight and rule; GNMF on those rows follows the
// one-process solver on Sparse's graph to 1e-9; options a search by
// blocks cannot run are an error on every rank.
func TestBuildGraphMatchesSparse(t *testing.T) {
	const m, n, k, iters = 23, 37, 3, 15
	samples := randomSamples(31, n, m, 0.2)
	// Copies of samples, so that ties between candidates are decided.
	for _, c := range [][2]int{{5, 4}, {20, 6}, {30, 29}} {
		samples = copyRow(samples, c[0], c[1])
	}
	for _, opt := range []graph.Options{
		{Neighbors: 4},
		{Neighbors: 3, Weight: graph.Cosine, Symmetry: graph.Mutual},
		{Neighbors: 5, Weight: graph.Heat, HeatT: 1.5},
	} {
		o := opt
		o.Search = graph.ExactSearch
		want, err := graph.Sparse(context.Background(), samples, o)
		if err != nil {
			t.Fatal(err)
		}
		eachGrid(t, 6, m, n, func(g dist.Grid) {
			errs := onRanks(g, samples, func(r int, cs dist.GridComms, shard *sparse.CSR) error {
				rows, err := dist.BuildGraph(context.Background(), cs.World, g, shard, opt)
				if err != nil {
					return err
				}
				i, j := g.Pos(r)
				v0, v1 := g.VRows(i, j)
				wantRows := want.W.RowSlice(v0, v1)
				if rows.Lo != v0 || !rows.W.Equal(wantRows) {
					t.Errorf("%+v, %d x %d grid, rank %d: rows %d-%d differ from graph.Sparse's", opt, g.Rows, g.Cols, r, v0, v1)
				}
				return nil
			})
			for r, err := range errs {
				if err != nil {
					t.Fatalf("%+v, %d x %d grid, rank %d: %v", opt, g.Rows, g.Cols, r, err)
				}
			}
		})
	}
	// GNMF on the ranks' own rows is GNMF on the whole graph.
	gr, err := graph.Sparse(context.Background(), samples, graph.Options{Neighbors: 4, Search: graph.ExactSearch})
	if err != nil {
		t.Fatal(err)
	}
	data, err := solver.NewSparseData(samples)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := solver.Fit(context.Background(), data, solver.Options{
		Method:  solver.GNMF,
		K:       k,
		Seed:    2,
		Threads: 1,
		Lambda:  solver.Fixed(10),
		Graph:   gr,
		Control: solver.Control{Algorithm: solver.MU, MaxIter: iters, Tol: -1, PGTol: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	eachGrid(t, 4, m, n, func(g dist.Grid) {
		errs := onRanks(g, samples, func(r int, cs dist.GridComms, shard *sparse.CSR) error {
			rows, err := dist.BuildGraph(context.Background(), cs.World, g, shard, graph.Options{Neighbors: 4})
			if err != nil {
				return err
			}
			res, err := dist.FitNMF(context.Background(), cs, g, g.ShardBlock(shard, r), dist.NMFOptions{K: k, Seed: 2, Threads: 1, Lambda: 10, GraphRows: rows, Control: solver.Control{MaxIter: iters, Tol: -1}})
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
		}
	})
	g, _ := dist.NewGrid(3, m, n, 1)
	errs := onRanks(g, samples, func(r int, cs dist.GridComms, shard *sparse.CSR) error {
		_, err := dist.BuildGraph(context.Background(), cs.World, g, shard, graph.Options{MinShared: 1})
		return err
	})
	for r, err := range errs {
		if err == nil || (!strings.Contains(err.Error(), "shared") && !strings.Contains(err.Error(), "another rank")) {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// copyRow returns a with row dst replaced by a copy of row src.
func copyRow(a *sparse.CSR, dst, src int) *sparse.CSR {
	b := &sparse.CSR{Rows: a.Rows, Cols: a.Cols, Indptr: make([]int, a.Rows+1)}
	for i := 0; i < a.Rows; i++ {
		from := i
		if i == dst {
			from = src
		}
		b.Ind = append(b.Ind, a.Ind[a.Indptr[from]:a.Indptr[from+1]]...)
		b.Val = append(b.Val, a.Val[a.Indptr[from]:a.Indptr[from+1]]...)
		b.Indptr[i+1] = len(b.Ind)
	}
	return b
}

// checkTrace reports where rank r's objectives on grid g leave one
// process's by more than 1e-9 relative (from goroutines: no Fatal).
func checkTrace(t *testing.T, g dist.Grid, r int, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%d x %d grid, rank %d: %d objectives, one process %d", g.Rows, g.Cols, r, len(got), len(want))
		return
	}
	for it, w := range want {
		if math.Abs(got[it]-w) > 1e-9*math.Abs(w) {
			t.Errorf("%d x %d grid, rank %d: objective at iteration %d is %v, one process %v", g.Rows, g.Cols, r, it, got[it], w)
			return
		}
	}
}
