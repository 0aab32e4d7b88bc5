package solver

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// TestNewSparseDataInPlace checks that the Data built over the samples'
// own arrays fits every method (both solvers where there are two) to the
// same bits as NewSparseData's copy, that it leaves the samples without
// arrays, that EachFeature lists X's rows in the caller's numbering, and
// that bad samples are refused untouched.
func TestNewSparseDataInPlace(t *testing.T) {
	ctx := context.Background()
	a, dense := randomSamples(3, 60, 25, 0.3)
	g := randomGraph(4, 60, 4)
	for _, method := range Methods() {
		solvers := []Algorithm{MU}
		if method.HasCD() {
			solvers = append(solvers, CD)
		}
		for _, s := range solvers {
			copied, err := NewSparseData(a)
			if err != nil {
				t.Fatal(err)
			}
			b := a.Clone()
			inPlace, err := NewSparseDataInPlace(b)
			if err != nil {
				t.Fatal(err)
			}
			if b.Indptr != nil || b.Ind != nil || b.Val != nil {
				t.Fatalf("%v: the samples kept arrays", method)
			}
			o := Options{Method: method, K: 3, Seed: 7, Control: Control{MaxIter: 15, Algorithm: s}}
			if method.TakesGraph() {
				o.Graph, o.Lambda = g, Fixed(2)
			}
			want, err := Fit(ctx, copied, o)
			if err != nil {
				t.Fatalf("%v %v: %v", method, s, err)
			}
			got, err := Fit(ctx, inPlace, o)
			if err != nil {
				t.Fatalf("%v %v: %v", method, s, err)
			}
			if !mat.Equal(got.V, want.V) || (want.U != nil && !mat.Equal(got.U, want.U)) || (want.W != nil && !mat.Equal(got.W, want.W)) || !slices.Equal(got.Objective, want.Objective) {
				t.Errorf("%v %v: the fit on the data in place differs from the copy's", method, s)
			}
		}
	}
	// EachFeature: X's rows, caller's feature numbers, samples in order.
	d, err := NewSparseDataInPlace(a.Clone())
	if err != nil {
		t.Fatal(err)
	}
	// fn runs concurrently, one call a feature: each call writes its own
	// feature's slot only, checked once all have returned.
	for _, threads := range []int{1, 3} {
		calls := make([]int, 25)
		gotSamples := make([][]int, 25)
		gotValues := make([][]float64, 25)
		d.EachFeature(threads, func(j int, samples []int, values []float64) {
			calls[j]++
			gotSamples[j] = slices.Clone(samples)
			gotValues[j] = slices.Clone(values)
		})
		for j := range calls {
			if calls[j] != 1 {
				t.Fatalf("threads %d: feature %d listed %d times", threads, j, calls[j])
			}
			var want []int
			for i := 0; i < 60; i++ {
				if dense.At(i, j) != 0 {
					want = append(want, i)
				}
			}
			if !slices.Equal(gotSamples[j], want) {
				t.Fatalf("threads %d, feature %d: samples %v, want %v", threads, j, gotSamples[j], want)
			}
			for q, i := range want {
				if gotValues[j][q] != dense.At(i, j) {
					t.Fatalf("threads %d, feature %d, sample %d: %v, want %v", threads, j, i, gotValues[j][q], dense.At(i, j))
				}
			}
		}
	}
	// X^T: each sample's entries, renumbered, in the caller's order, from
	// both constructors alike.
	dc, err := NewSparseData(a)
	if err != nil {
		t.Fatal(err)
	}
	for _, xt := range []*sparse.CSR{d.xt, dc.xt} {
		if !slices.Equal(xt.Indptr, a.Indptr) || !slices.Equal(xt.Val, a.Val) {
			t.Fatal("X^T's rows are not the samples' entries in their order")
		}
		for q, r := range xt.Ind {
			if d.feature(r) != a.Ind[q] {
				t.Fatalf("X^T entry %d: internal feature %d is the caller's %d, want %d", q, r, d.feature(r), a.Ind[q])
			}
		}
	}
	dd, err := NewDenseData(dense)
	if err != nil {
		t.Fatal(err)
	}
	for _, threads := range []int{1, 3} {
		calls := make([]int, 25)
		bad := make([]bool, 25)
		dd.EachFeature(threads, func(j int, samples []int, values []float64) {
			calls[j]++
			bad[j] = len(samples) != 60
			for q, i := range samples {
				bad[j] = bad[j] || i != q || values[q] != dense.At(i, j)
			}
		})
		for j := range calls {
			if calls[j] != 1 || bad[j] {
				t.Fatalf("threads %d: dense feature %d listed %d times, wrong values: %v", threads, j, calls[j], bad[j])
			}
		}
	}
	// Bad samples: an error, the samples as they were.
	bad := a.Clone()
	bad.Val[3] = math.NaN()
	before := bad.Clone()
	if _, err := NewSparseDataInPlace(bad); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN: got %v", err)
	}
	if bad.Indptr == nil || !slices.Equal(bad.Ind, before.Ind) || !slices.Equal(bad.Indptr, before.Indptr) {
		t.Error("a refused matrix was changed")
	}
	if _, err := NewSparseDataInPlace(&sparse.CSR{Rows: 0, Cols: 3, Indptr: []int{0}}); err == nil {
		t.Error("an empty matrix was accepted")
	}
}
