package solver

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestNewCompactData: a fit on compact Data (X^T alone) agrees with the
// fit on both orientations within rounding, iteration by iteration, for
// every method and solver, does not depend on the threads, leaves the
// samples without arrays; and EachFeature lists the same rows of X.
func TestNewCompactData(t *testing.T) {
	ctx := context.Background()
	a, _ := randomSamples(5, 80, 30, 0.3)
	g := randomGraph(6, 80, 4)
	for _, method := range Methods() {
		solvers := []Algorithm{MU}
		if method.HasCD() {
			solvers = append(solvers, CD)
		}
		if method.HasMiniBatch() {
			solvers = append(solvers, MiniBatch)
		}
		for _, s := range solvers {
			name := fmt.Sprintf("%v %v", method, s)
			both, err := NewSparseData(a)
			if err != nil {
				t.Fatal(err)
			}
			o := Options{Method: method, K: 3, Seed: 7, Control: Control{MaxIter: 15, Tol: -1, Algorithm: s}}
			if s == MiniBatch {
				o.BatchSize = 20
			}
			if method.TakesGraph() {
				o.Graph, o.Lambda = g, Fixed(2)
			}
			want, err := Fit(ctx, both, o)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var first *Result
			for _, threads := range []int{1, 3} {
				b := a.Clone()
				compact, err := NewCompactData(b)
				if err != nil {
					t.Fatal(err)
				}
				if b.Indptr != nil || b.Ind != nil || b.Val != nil || !compact.compact() || compact.x != nil {
					t.Fatalf("%s: the samples kept arrays, or X is held", name)
				}
				o.Threads = threads
				got, err := Fit(ctx, compact, o)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if first != nil {
					if !mat.Equal(got.V, first.V) || !slices.Equal(got.Objective, first.Objective) {
						t.Fatalf("%s: 3 threads differ from 1 on compact data", name)
					}
					continue
				}
				first = got
				if len(got.Objective) != len(want.Objective) {
					t.Fatalf("%s: %d objectives, both orientations %d", name, len(got.Objective), len(want.Objective))
				}
				for i, w := range want.Objective {
					if !relClose(got.Objective[i], w, 1e-8) {
						t.Fatalf("%s: objective %d is %v, both orientations %v", name, i, got.Objective[i], w)
					}
				}
				if !mat.EqualApprox(got.V, want.V, 1e-6) {
					t.Errorf("%s: V differs from both orientations' beyond rounding", name)
				}
			}
		}
	}
	both, _ := NewSparseData(a)
	compact, _ := NewCompactData(a.Clone())
	for _, threads := range []int{1, 3} {
		want, got := make([][]float64, 30), make([][]float64, 30)
		wantRows, gotRows := make([][]int, 30), make([][]int, 30)
		both.EachFeature(threads, func(j int, samples []int, values []float64) {
			wantRows[j], want[j] = slices.Clone(samples), slices.Clone(values)
		})
		compact.EachFeature(threads, func(j int, samples []int, values []float64) {
			gotRows[j], got[j] = slices.Clone(samples), slices.Clone(values)
		})
		for j := range want {
			if !slices.Equal(gotRows[j], wantRows[j]) || !slices.Equal(got[j], want[j]) {
				t.Fatalf("threads %d: feature %d lists %v, both orientations %v", threads, j, gotRows[j], wantRows[j])
			}
		}
	}
}
