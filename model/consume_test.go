package model

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/solver"
)

// TestConsumeData checks that Fit with ConsumeData gives the same result,
// bit for bit, as Fit without (Auto's candidates and their cohesion
// included, the k-means start, a concept method and a KL one), takes the
// sparse matrix, and leaves dense data alone; and that the cohesion Fit
// computes from the solver's copy is Cohesion's.
func TestConsumeData(t *testing.T) {
	ctx := context.Background()
	base := planted(t, 4, 200, 90, 3, 0.5)
	g := randomGraph(t, base.Labels, 0.9, 2)
	for _, o := range []Options{
		{Method: solver.GNMF, K: 3, Seed: 2, Lambdas: []float64{1, 10, 100}, Solver: solver.Control{MaxIter: 30}},
		{Method: solver.GNMF, K: 3, Seed: 2, SampleGraph: g, Lambdas: []float64{1, 10}, CandidateStart: autolambda.SameStart, Start: solver.KMeansStart, Solver: solver.Control{MaxIter: 20}},
		{Method: solver.LCCF, K: 3, Seed: 3, Lambdas: []float64{1, 10}, Solver: solver.Control{MaxIter: 20}},
		{Method: solver.NMFKL, K: 3, Seed: 3, Start: solver.NNDSVDStart, Solver: solver.Control{MaxIter: 20}},
		{Method: solver.NMFNCW, K: 3, Seed: 3, Solver: solver.Control{MaxIter: 20}},
	} {
		kept := &dataset.Dataset{Source: base.Source, Sparse: base.Sparse.Clone(), Labels: base.Labels}
		want, err := Fit(ctx, kept, o)
		if err != nil {
			t.Fatal(err)
		}
		if !kept.Sparse.Equal(base.Sparse) {
			t.Fatalf("%v: Fit changed the data without ConsumeData", o.Method)
		}
		taken := &dataset.Dataset{Source: base.Source, Sparse: base.Sparse.Clone(), Labels: base.Labels}
		o.ConsumeData = true
		got, err := Fit(ctx, taken, o)
		if err != nil {
			t.Fatal(err)
		}
		if taken.Sparse != nil {
			t.Errorf("%v: the data set kept its matrix", o.Method)
		}
		if !mat.Equal(got.V, want.V) || !slices.Equal(got.Labels, want.Labels) || got.Lambda != want.Lambda || !slices.Equal(got.Objective, want.Objective) {
			t.Errorf("%v: the fit on the consumed data differs", o.Method)
		}
		if len(got.Candidates) != len(want.Candidates) {
			t.Fatalf("%v: %d candidates, want %d", o.Method, len(got.Candidates), len(want.Candidates))
		}
		for c := range want.Candidates {
			if g, w := got.Candidates[c], want.Candidates[c]; g.Cohesion != w.Cohesion || g.RelativeCut != w.RelativeCut || g.Kept != w.Kept {
				t.Errorf("%v: candidate %d: %+v, want %+v", o.Method, c, g, w)
			}
			if wc := cohesion(base, want.Candidates[c].Labels); wc != want.Candidates[c].Cohesion {
				t.Errorf("%v: candidate %d: Fit's cohesion %v, Cohesion's %v", o.Method, c, want.Candidates[c].Cohesion, wc)
			}
		}
	}
	// Cohesion from the solver's copy, on samples of unequal lengths.
	a, labels := plantedCounts(t, 5, 1, 150, 70, 3, 0.6, func(_ *rand.Rand, i int) int { return i % 3 })
	rng := rand.New(rand.NewPCG(6, 7))
	for p := range a.Val {
		a.Val[p] *= 0.1 + rng.ExpFloat64()
	}
	raw := &dataset.Dataset{Source: "raw", Sparse: a}
	norms := rowNorms(a, 3)
	d, err := solver.NewSparseDataInPlace(a.Clone())
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range [][]int{labels, base.Labels[:150], make([]int, 150)} {
		for _, threads := range []int{1, 3} {
			if got, want := dataCohesion(raw, d, norms, l, threads), cohesion(raw, l); got != want {
				t.Errorf("threads %d: cohesion from the solver's copy %v, Cohesion %v", threads, got, want)
			}
		}
	}
	// A model of a consumed fit: NMF's transforms new samples as the
	// kept fit's does; a concept method's, which keeps the training data,
	// is refused.
	for _, method := range []solver.Method{solver.NMF, solver.CF} {
		var models [2]*Model
		for q, consume := range []bool{false, true} {
			a, labels := plantedCounts(t, 8, 1, 120, 60, 3, 0.5, func(_ *rand.Rand, i int) int { return i % 3 })
			p, err := Prepare(&dataset.Dataset{Source: "planted", Sparse: a, Labels: labels}, PrepareOptions{})
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Method: method, K: 3, Seed: 4, ConsumeData: consume, Solver: solver.Control{MaxIter: 20}}
			res, err := Fit(ctx, p.Data, o)
			if err != nil {
				t.Fatal(err)
			}
			models[q], err = FromFit(p, res, o)
			if method == solver.CF && consume {
				if err == nil {
					t.Error("FromFit made a cf model without its training data")
				}
				continue
			}
			if err != nil {
				t.Fatalf("%v, consume %v: %v", method, consume, err)
			}
		}
		if method == solver.CF {
			continue
		}
		a, _ := plantedCounts(t, 9, 2, 30, 60, 3, 0.5, func(_ *rand.Rand, i int) int { return i % 3 })
		var out [2]*Transformed
		for q := range models {
			var err error
			if out[q], err = models[q].Transform(ctx, &dataset.Dataset{Source: "new", Sparse: a.Clone()}, TransformOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		if !mat.Equal(out[0].V, out[1].V) || !slices.Equal(out[0].Labels, out[1].Labels) {
			t.Error("the consumed fit's model transforms differently")
		}
	}
	// Dense data is copied as before.
	dense := &dataset.Dataset{Source: "dense", Dense: base.Sparse.ToDense(), Labels: base.Labels}
	before := mat.DenseCopyOf(dense.Dense)
	if _, err := Fit(ctx, dense, Options{K: 3, Seed: 1, ConsumeData: true, Solver: solver.Control{MaxIter: 5}}); err != nil {
		t.Fatal(err)
	}
	if dense.Dense == nil || !mat.Equal(dense.Dense, before) {
		t.Error("ConsumeData changed dense data")
	}
}

// TestOneOrientation: Fit under OneOrientation (X^T alone) agrees with
// both orientations within rounding (Auto's candidates and cohesion
// included), takes the matrix only under ConsumeData, and gives a
// cohesion equal to Cohesion's from the compact copy.
func TestOneOrientation(t *testing.T) {
	ctx := context.Background()
	base := planted(t, 4, 200, 90, 3, 0.5)
	for _, o := range []Options{
		{Method: solver.GNMF, K: 3, Seed: 2, Lambdas: []float64{1, 10, 100}, Solver: solver.Control{MaxIter: 30, Tol: -1}},
		{Method: solver.NMF, K: 3, Seed: 2, Solver: solver.Control{MaxIter: 30, Tol: -1}},
		{Method: solver.NMFKL, K: 3, Seed: 3, Solver: solver.Control{MaxIter: 20, Tol: -1}},
	} {
		want, err := Fit(ctx, &dataset.Dataset{Source: base.Source, Sparse: base.Sparse.Clone(), Labels: base.Labels}, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, consume := range []bool{false, true} {
			ds := &dataset.Dataset{Source: base.Source, Sparse: base.Sparse.Clone(), Labels: base.Labels}
			o.Storage, o.ConsumeData = OneOrientation, consume
			got, err := Fit(ctx, ds, o)
			if err != nil {
				t.Fatal(err)
			}
			if (ds.Sparse == nil) != consume || (!consume && !ds.Sparse.Equal(base.Sparse)) {
				t.Errorf("%v, consume %v: the data set's matrix is %v", o.Method, consume, ds.Sparse != nil)
			}
			if !mat.EqualApprox(got.V, want.V, 1e-6) || !slices.Equal(got.Labels, want.Labels) || got.Lambda != want.Lambda {
				t.Errorf("%v, consume %v: the fit on one orientation differs beyond rounding", o.Method, consume)
			}
			for c := range want.Candidates {
				if g, w := got.Candidates[c], want.Candidates[c]; !relClose(g.Cohesion, w.Cohesion, 1e-9) || g.Kept != w.Kept {
					t.Errorf("%v: candidate %d: %+v, want %+v", o.Method, c, g, w)
				}
			}
		}
	}
	if err := (Options{K: 2, Storage: Storage(5)}).Check(); err == nil {
		t.Error("storage 5 accepted")
	}
}
