package dist_test

import (
	"context"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// randomSamples returns an n x m sparse non-negative matrix (samples as
// rows) with about density of its entries stored, every row and column
// non-empty.
func randomSamples(seed uint64, n, m int, density float64) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 7))
	var ri, ci []int
	var v []float64
	for s := 0; s < n; s++ {
		for f := 0; f < m; f++ {
			if rng.Float64() < density || f == s%m || s == f%n {
				ri, ci, v = append(ri, s), append(ci, f), append(v, 1+4*rng.Float64())
			}
		}
	}
	a, err := sparse.FromTriplets(n, m, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a
}

// fitter is FitNMF or FitNMFKL.
type fitter func(context.Context, dist.GridComms, dist.Grid, *sparse.CSR, dist.NMFOptions) (*dist.NMFResult, error)

// fitGrid runs FitNMF on every rank of g as goroutines and returns rank
// 0's result with the gathered factors (see runGrid).
func fitGrid(t *testing.T, g dist.Grid, samples *sparse.CSR, opts dist.NMFOptions, countWords bool) (*dist.NMFResult, []float64, []float64) {
	t.Helper()
	return runGrid(t, dist.FitNMF, g, samples, opts, countWords)
}

// runGrid runs fit on every rank of g as goroutines, each with its block
// of samples, and returns rank 0's result with the gathered factors, after
// checking that every rank saw the same objectives and, with countWords,
// moved what the formula says.
func runGrid(t *testing.T, fit fitter, g dist.Grid, samples *sparse.CSR, opts dist.NMFOptions, countWords bool) (*dist.NMFResult, []float64, []float64) {
	t.Helper()
	comms := dist.LocalGrid(g)
	results := make([]*dist.NMFResult, g.Size())
	us, vs := make([][]float64, g.Size()), make([][]float64, g.Size())
	errs := make([]error, g.Size())
	var wg sync.WaitGroup
	for r := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := fit(context.Background(), comms[r], g, g.Block(samples, r), opts)
			if err != nil {
				errs[r] = err
				return
			}
			results[r] = res
			us[r], vs[r], errs[r] = res.Gather(comms[r].World, g)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	for r := 0; r < g.Size() && countWords; r++ {
		// What the collectives moved is what the formula says.
		if got, want := results[r].Words, results[r].Formula; got != want {
			t.Errorf("%d x %d grid, rank %d: %d values moved per iteration, the formula says %d", g.Rows, g.Cols, r, got, want)
		}
	}
	for r := 1; r < g.Size(); r++ {
		for it, x := range results[r].Objective {
			if x != results[0].Objective[it] {
				t.Fatalf("rank %d's objective at iteration %d is %v, rank 0's %v", r, it, x, results[0].Objective[it])
			}
		}
	}
	return results[0], us[0], vs[0]
}

// TestFitNMFMatchesOneProcess: on every grid shape of 1 to 6 ranks, with
// feature and sample counts that no grid divides evenly, the objective
// after each iteration equals solver.Fit's (MU, one start, the same seed)
// to 1e-9 relative, and so do the factors.
func TestFitNMFMatchesOneProcess(t *testing.T) {
	const m, n, k, iters = 41, 29, 4, 25
	samples := randomSamples(3, n, m, 0.2)
	data, err := solver.NewSparseData(samples)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := solver.Fit(context.Background(), data, solver.Options{
		Method:  solver.NMF,
		K:       k,
		Seed:    5,
		Threads: 1,
		Control: solver.Control{Algorithm: solver.MU, MaxIter: iters, Tol: -1, PGTol: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(ref.Objective) != iters+1 {
		t.Fatalf("reference trace of %d objectives, want %d", len(ref.Objective), iters+1)
	}
	eachGrid(t, 6, m, n, func(g dist.Grid) {
		res, u, v := fitGrid(t, g, samples, dist.NMFOptions{K: k, Seed: 5, Threads: 1, Control: solver.Control{MaxIter: iters, Tol: -1}}, true)
		if want := g.WordsPerIter(0, k); res.Formula != want {
			t.Errorf("%d x %d grid: formula %d, Grid.WordsPerIter %d", g.Rows, g.Cols, res.Formula, want)
		}
		for it, want := range ref.Objective {
			if got := res.Objective[it]; math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Fatalf("%d x %d grid: objective at iteration %d is %v, one process %v", g.Rows, g.Cols, it, got, want)
			}
		}
		// The factors, through their product: Fit returns U's columns
		// normalized (V scaled to match), the same model.
		for f := 0; f < m; f++ {
			for s := 0; s < n; s++ {
				var got, want float64
				for c := 0; c < k; c++ {
					got += u[f*k+c] * v[s*k+c]
					want += ref.U.At(f, c) * ref.V.At(s, c)
				}
				if math.Abs(got-want) > 1e-9*(1+math.Abs(want)) {
					t.Fatalf("%d x %d grid: (U V^T)(%d,%d) = %v, one process %v", g.Rows, g.Cols, f, s, got, want)
				}
			}
		}
	})
}

// TestFitNMFMonotone: the distributed updates never increase the
// objective (paper 004's theorem, which the distribution must not break).
func TestFitNMFMonotone(t *testing.T) {
	samples := randomSamples(9, 60, 50, 0.1)
	g, err := dist.NewGrid(4, 50, 60, 0)
	if err != nil {
		t.Fatal(err)
	}
	res, _, _ := fitGrid(t, g, samples, dist.NMFOptions{K: 6, Seed: 2, Control: solver.Control{MaxIter: 60, Tol: -1}}, true)
	for it := 1; it < len(res.Objective); it++ {
		if res.Objective[it] > res.Objective[it-1]*(1+1e-12) {
			t.Fatalf("objective rose at iteration %d: %v -> %v", it, res.Objective[it-1], res.Objective[it])
		}
	}
}

// TestNewGrid: the shape follows m/n, a forced shape must divide the
// ranks, and every feature and sample belongs to exactly one block and
// every factor row to exactly one owner.
func TestNewGrid(t *testing.T) {
	for _, c := range []struct{ p, m, n, rows, want int }{
		{4, 1000, 1000, 0, 2}, {4, 100000, 10, 0, 4}, {4, 10, 100000, 0, 1}, {6, 300, 200, 0, 3}, {6, 300, 200, 2, 2}, {1, 5, 5, 0, 1},
	} {
		g, err := dist.NewGrid(c.p, c.m, c.n, c.rows)
		if err != nil || g.Rows != c.want || g.Rows*g.Cols != c.p {
			t.Errorf("NewGrid(%d, %d, %d, %d) = %+v, %v; want %d rows", c.p, c.m, c.n, c.rows, g, err, c.want)
		}
	}
	if _, err := dist.NewGrid(6, 10, 10, 4); err == nil {
		t.Error("4 grid rows for 6 ranks accepted")
	}
	if _, err := dist.NewGrid(8, 3, 100, 8); err == nil {
		t.Error("8 grid rows for 3 features accepted")
	}
	g, _ := dist.NewGrid(6, 17, 13, 3)
	ownU, ownV := make([]int, 17), make([]int, 13)
	for r := 0; r < g.Size(); r++ {
		i, j := g.Pos(r)
		lo, hi := g.URows(i, j)
		for f := lo; f < hi; f++ {
			ownU[f]++
		}
		lo, hi = g.VRows(i, j)
		for s := lo; s < hi; s++ {
			ownV[s]++
		}
	}
	for f, c := range ownU {
		if c != 1 {
			t.Errorf("U row %d has %d owners", f, c)
		}
	}
	for s, c := range ownV {
		if c != 1 {
			t.Errorf("V row %d has %d owners", s, c)
		}
	}
}

// TestFitNMFStopsAsSolver: the relative-decrease rule stops the ranks
// together at the iteration where solver.Fit's same rule stops.
func TestFitNMFStopsAsSolver(t *testing.T) {
	const m, n, k = 41, 29, 4
	samples := randomSamples(4, n, m, 0.2)
	data, err := solver.NewSparseData(samples)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := solver.Fit(context.Background(), data, solver.Options{
		Method:  solver.NMF,
		K:       k,
		Seed:    8,
		Threads: 1,
		Control: solver.Control{Algorithm: solver.MU, MaxIter: 500, Tol: 1e-4, PGTol: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	g, _ := dist.NewGrid(4, m, n, 0)
	res, _, _ := fitGrid(t, g, samples, dist.NMFOptions{K: k, Seed: 8, Control: solver.Control{MaxIter: 500, Tol: 1e-4}}, true)
	if res.Status != solver.Converged || len(res.Objective) != len(ref.Objective) {
		t.Fatalf("stopped after %d iterations (%v), one process after %d", len(res.Objective)-1, res.Status, len(ref.Objective)-1)
	}
	if it := len(res.Objective) - 1; it < 5 || it >= 500 {
		t.Errorf("stopped after %d iterations: the rule did not decide anything", it)
	}
	t.Logf("both stopped after %d iterations", len(res.Objective)-1)
}

// TestFitGNMFMatchesOneProcess: with a graph term, in both formulations,
// every grid of 1 to 4 ranks follows solver.Fit's GNMF (MU, one start) to
// 1e-9 relative; the neighbours' rows of V cross ranks by the halo
// exchange.
func TestFitGNMFMatchesOneProcess(t *testing.T) {
	const m, n, k, iters = 33, 40, 3, 20
	samples := randomSamples(12, n, m, 0.25)
	gr, err := graph.Sparse(context.Background(), samples, graph.Options{Neighbors: 4})
	if err != nil {
		t.Fatal(err)
	}
	data, err := solver.NewSparseData(samples)
	if err != nil {
		t.Fatal(err)
	}
	for _, form := range []solver.Formulation{solver.ScaleInvariant, solver.Papers} {
		ref, err := solver.Fit(context.Background(), data, solver.Options{
			Method:      solver.GNMF,
			K:           k,
			Seed:        6,
			Threads:     1,
			Lambda:      solver.Fixed(10),
			Graph:       gr,
			Formulation: form,
			Control:     solver.Control{Algorithm: solver.MU, MaxIter: iters, Tol: -1, PGTol: -1},
		})
		if err != nil {
			t.Fatal(err)
		}
		eachGrid(t, 4, m, n, func(g dist.Grid) {
			res, _, _ := fitGrid(t, g, samples, dist.NMFOptions{
				K:           k,
				Seed:        6,
				Threads:     1,
				Lambda:      10,
				Graph:       gr,
				Formulation: form,
				Control:     solver.Control{MaxIter: iters, Tol: -1},
			}, true)
			for it, want := range ref.Objective {
				if got := res.Objective[it]; math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Fatalf("%v, %d x %d grid: objective at iteration %d is %v, one process %v", form, g.Rows, g.Cols, it, got, want)
				}
			}
		})
	}
}

// TestFitNMFKLMatchesOneProcess: the KL divergence's updates on every
// grid of 1 to 6 ranks follow solver.Fit's NMF-KL (MU, one start) to 1e-9
// relative, and never increase the divergence.
func TestFitNMFKLMatchesOneProcess(t *testing.T) {
	const m, n, k, iters = 37, 31, 4, 25
	samples := randomSamples(14, n, m, 0.2)
	data, err := solver.NewSparseData(samples)
	if err != nil {
		t.Fatal(err)
	}
	ref, err := solver.Fit(context.Background(), data, solver.Options{
		Method:  solver.NMFKL,
		K:       k,
		Seed:    3,
		Threads: 1,
		Control: solver.Control{Algorithm: solver.MU, MaxIter: iters, Tol: -1, PGTol: -1},
	})
	if err != nil {
		t.Fatal(err)
	}
	eachGrid(t, 6, m, n, func(g dist.Grid) {
		res, _, _ := runGrid(t, dist.FitNMFKL, g, samples, dist.NMFOptions{K: k, Seed: 3, Threads: 1, Control: solver.Control{MaxIter: iters, Tol: -1}}, true)
		for it, want := range ref.Objective {
			if got := res.Objective[it]; math.Abs(got-want) > 1e-9*math.Abs(want) {
				t.Fatalf("%d x %d grid: divergence at iteration %d is %v, one process %v", g.Rows, g.Cols, it, got, want)
			}
			if it > 0 && res.Objective[it] > res.Objective[it-1]*(1+1e-12) {
				t.Fatalf("%d x %d grid: divergence rose at iteration %d", g.Rows, g.Cols, it)
			}
		}
	})
}

// eachGrid calls fn with every grid shape of 1 to most ranks on m
// features and n samples.
func eachGrid(t *testing.T, most, m, n int, fn func(g dist.Grid)) {
	t.Helper()
	for p := 1; p <= most; p++ {
		for rows := 1; rows <= p; rows++ {
			if p%rows != 0 {
				continue
			}
			g, err := dist.NewGrid(p, m, n, rows)
			if err != nil {
				t.Fatal(err)
			}
			fn(g)
		}
	}
}
