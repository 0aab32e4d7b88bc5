package rank

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/corpus"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// planted returns n samples x m features of rank r, factors density
// non-zero, with 5 % multiplicative noise (corpus.LowRank), as sparse data.
func planted(seed uint64, n, m, r int, density float64) *dataset.Dataset {
	return &dataset.Dataset{Source: "planted", Sparse: sparse.FromMatrix(corpus.LowRank(seed, n, m, r, density, false))}
}

// TestCrossValidatePlanted: the curve's minimum and the chosen rank are
// the planted rank, warm or cold, and the same seed gives the same curve
// whatever the threads.
func TestCrossValidatePlanted(t *testing.T) {
	t.Parallel()
	ds := planted(1, 300, 120, 4, 0.4)
	o := Options{Fit: model.Options{Method: solver.NMF, Seed: 2, Threads: 1}, Ks: []int{2, 3, 4, 5, 6, 7}}
	res, err := CrossValidate(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if res.Chosen != 4 || res.Best != 4 {
		t.Errorf("chosen %d, best %d, want 4: %+v", res.Chosen, res.Best, res.Curve)
	}
	n, m := ds.Dims()
	if want := DefaultTestShare * float64(n*m); math.Abs(float64(res.Hidden)-want) > 0.1*want {
		t.Errorf("%d entries hidden, want about %.0f", res.Hidden, want)
	}
	for _, pt := range res.Curve {
		if len(pt.Errors) != DefaultReplicates || pt.Iterations < DefaultReplicates {
			t.Errorf("k = %d: %d errors, %d iterations", pt.K, len(pt.Errors), pt.Iterations)
		}
	}
	o.Fit.Threads = 4
	again, err := CrossValidate(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(again, res) {
		t.Error("4 threads changed the curve")
	}
	o.Cold = true
	cold, err := CrossValidate(context.Background(), ds, o)
	if err != nil {
		t.Fatal(err)
	}
	if cold.Chosen != 4 {
		t.Errorf("cold starts chose %d", cold.Chosen)
	}
}

// TestCrossValidateKL: nmf-kl is scored by the divergence at the hidden
// entries and finds the planted rank too.
func TestCrossValidateKL(t *testing.T) {
	t.Parallel()
	ds := planted(5, 300, 120, 3, 0.4)
	res, err := CrossValidate(context.Background(), ds, Options{Fit: model.Options{Method: solver.NMFKL, Seed: 1}, Ks: []int{2, 3, 4, 5}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Chosen != 3 {
		t.Errorf("nmf-kl chose %d: %+v", res.Chosen, res.Curve)
	}
}

// TestSpeckle: about share of all entries hidden, zeros and non-zeros
// alike, the values those of the data, and no sample or feature hidden
// whole even at a large share on a small matrix.
func TestSpeckle(t *testing.T) {
	t.Parallel()
	ds := planted(7, 400, 200, 3, 0.3)
	h := speckle(ds, 0.1, 1, 0)
	n, m := ds.Dims()
	if got, want := float64(h.set.NNZ()), 0.1*float64(n*m); math.Abs(got-want) > 0.05*want {
		t.Errorf("%v hidden, want about %v", got, want)
	}
	if h.weights != nil || h.zeroShare != 0.1 {
		t.Errorf("weights %v, zero share %v on data %.2f non-zero", h.weights != nil, h.zeroShare, float64(ds.Sparse.NNZ())/float64(n*m))
	}
	checkHeldOut(t, ds, h)
	zeros := 0
	for _, x := range h.values {
		if x == 0 {
			zeros++
		}
	}
	density := float64(ds.Sparse.NNZ()) / float64(n*m)
	if got := float64(zeros) / float64(h.set.NNZ()); math.Abs(got-(1-density)) > 0.05 {
		t.Errorf("%.3f of the hidden entries are zeros, the data %.3f", got, 1-density)
	}
	small := planted(8, 3, 4, 1, 1)
	for seed := uint64(0); seed < 50; seed++ {
		h := speckle(small, 0.5, seed, 0).set
		rows, cols := make([]int, 3), make([]int, 4)
		for j := 0; j < 3; j++ {
			rows[j] = h.Indptr[j+1] - h.Indptr[j]
			for _, c := range h.Ind[h.Indptr[j]:h.Indptr[j+1]] {
				cols[c]++
			}
		}
		for j, c := range rows {
			if c == 4 {
				t.Fatalf("seed %d: sample %d hidden whole", seed, j)
			}
		}
		for c, k := range cols {
			if k == 3 {
				t.Fatalf("seed %d: feature %d hidden whole", seed, c)
			}
		}
	}
}

// TestSpeckleSparse: on data a percent non-zero, the stored entries are
// hidden at the share and the zeros at the lower share that makes them
// four for each hidden stored entry, weighed by the ratio of the shares;
// the weighted loss of the all-zero model, the data's mean square, is
// estimated well.
func TestSpeckleSparse(t *testing.T) {
	t.Parallel()
	ds := planted(12, 2000, 1000, 1, 0.1)
	a := ds.Sparse
	n, m := ds.Dims()
	stored := float64(a.NNZ())
	if d := stored / float64(n*m); d > 0.02 {
		t.Fatalf("data %.3f non-zero", d)
	}
	h := speckle(ds, 0.05, 3, 1)
	checkHeldOut(t, ds, h)
	wantZS := 0.05 * zerosPerStored * stored / (float64(n*m) - stored)
	if h.zeroShare != wantZS {
		t.Errorf("zero share %v, want %v", h.zeroShare, wantZS)
	}
	var hs, hz int
	var sq, total float64
	for q, x := range h.values {
		w := h.weights[q]
		if x != 0 {
			hs++
			if w != 1 {
				t.Fatalf("stored entry weighed %v", w)
			}
		} else {
			hz++
			if w != 0.05/wantZS {
				t.Fatalf("zero weighed %v, want %v", w, 0.05/wantZS)
			}
		}
		sq += w * x * x
		total += w
	}
	if want := 0.05 * stored; math.Abs(float64(hs)-want) > 0.05*want {
		t.Errorf("%d stored entries hidden, want about %.0f", hs, want)
	}
	if want := zerosPerStored * float64(hs); math.Abs(float64(hz)-want) > 0.05*want {
		t.Errorf("%d zeros hidden, want about %.0f", hz, want)
	}
	var all float64
	for _, x := range a.Val {
		all += x * x
	}
	all /= float64(n * m)
	if got := sq / total; math.Abs(got-all) > 0.05*all {
		t.Errorf("weighted mean square %.4g, the data's %.4g", got, all)
	}
	// The error of the all-zero model is the same estimate.
	zero := mat.NewDense(m, 1, nil)
	if got := testError(h, zero, mat.NewDense(n, 1, nil), false); math.Abs(got-sq/total) > 1e-12*got {
		t.Errorf("test error %v, weighted mean square %v", got, sq/total)
	}
}

// checkHeldOut checks that h is a valid set with ds's values at its
// entries.
func checkHeldOut(t *testing.T, ds *dataset.Dataset, h heldOut) {
	t.Helper()
	if err := h.set.Validate(); err != nil {
		t.Fatal(err)
	}
	if len(h.values) != h.set.NNZ() || (h.weights != nil && len(h.weights) != h.set.NNZ()) {
		t.Fatalf("%d values, %d weights for %d entries", len(h.values), len(h.weights), h.set.NNZ())
	}
	d := ds.Sparse.ToDense()
	for j := 0; j < h.set.Rows; j++ {
		for q := h.set.Indptr[j]; q < h.set.Indptr[j+1]; q++ {
			if c := h.set.Ind[q]; h.values[q] != d.At(j, c) {
				t.Fatalf("value at (%d, %d): %v, data %v", j, c, h.values[q], d.At(j, c))
			}
		}
	}
}

// TestCrossValidateErrors: what cannot be cross-validated is refused by
// name.
func TestCrossValidateErrors(t *testing.T) {
	t.Parallel()
	ds := planted(9, 30, 12, 2, 0.5)
	fit := model.Options{Method: solver.NMF}
	for _, c := range []struct {
		o    Options
		want string
	}{
		{Options{Fit: fit, Ks: []int{2, 3}, TestShare: -0.1}, "test share -0.1"},
		{Options{Fit: fit, Ks: []int{2, 3}, TestShare: 0.6}, "test share 0.6"},
		{Options{Fit: fit, Ks: []int{2, 12}}, "ranks up to 12, but the data (30 samples x 12 features) allow 1 to 11"},
		{Options{Fit: fit, Ks: []int{0, 2}}, "rank 0 out of range"},
		{Options{Fit: fit, Ks: []int{2, 2}}, "rank 2 given twice"},
		{Options{Fit: fit}, "no ranks"},
		{Options{Fit: fit, Ks: []int{2}, Replicates: 101}, "101 replicates"},
		{Options{Fit: model.Options{Method: solver.CF}, Ks: []int{2}}, "cf cannot leave entries out"},
		{Options{Fit: model.Options{Method: solver.GNMF, Lambda: solver.Auto}, Ks: []int{2}}, "lambda auto"},
	} {
		if _, err := CrossValidate(context.Background(), ds, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
}

// TestCrossValidateProgress: every fit is reported once, one report at a
// time (the race detector watches the counter).
func TestCrossValidateProgress(t *testing.T) {
	t.Parallel()
	ds := planted(11, 80, 40, 2, 0.5)
	calls := 0
	_, err := CrossValidate(context.Background(), ds, Options{Fit: model.Options{Method: solver.NMF, Seed: 1}, Ks: []int{1, 2, 3},
		Progress: func(r, k int, e float64) { calls++ }})
	if err != nil {
		t.Fatal(err)
	}
	if calls != 3*DefaultReplicates {
		t.Errorf("%d reports, want %d", calls, 3*DefaultReplicates)
	}
}
