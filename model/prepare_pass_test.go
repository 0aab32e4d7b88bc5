package model

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/sparse"
)

// passData returns a sparse data set of whole counts spanning several of
// the parallel passes' chunks, with some rows all zero.
func passData(rng *rand.Rand) *dataset.Dataset {
	var ri, ci []int
	var v []float64
	for i := 0; i < 9000; i++ {
		if i%97 == 5 {
			continue
		}
		for j := 0; j < 60; j++ {
			if rng.Float64() < 0.3 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, float64(1+rng.IntN(5)))
			}
		}
	}
	a, err := sparse.FromTriplets(9000, 60, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return &dataset.Dataset{Source: "pass", Sparse: a}
}

// TestPreparePassesMatchSerial checks the parallel value passes of Prepare
// (checkScale's search, countZeroSamples; the kinds of values come from
// sparse.CSR.Scan, tested there) against plain loops, with the values
// that decide them on both sides of the chunk edges, for several thread
// counts.
func TestPreparePassesMatchSerial(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(7, 8))
	ds := passData(rng)
	a := ds.Sparse
	if a.NNZ() < 2*valueChunk {
		t.Fatalf("%d entries: too few to span the chunks", a.NNZ())
	}
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		for _, at := range []int{0, valueChunk - 1, valueChunk, a.NNZ() - 1} {
			// The largest value, twice: the first is named.
			b := &dataset.Dataset{Source: "pass", Sparse: a.Clone()}
			b.Sparse.Val[at] = 1e200
			b.Sparse.Val[min(at+valueChunk+1, a.NNZ()-1)] = 1e200
			row := b.Sparse.RowOf(at)
			want := fmt.Sprintf("sample %d, feature %d ", row+1, b.Sparse.Ind[at]+1)
			if err := checkScale(b, onePool{}); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%d procs, largest at %d: got %v, want %q", procs, at, err, want)
			}
		}
		zero := 0
		for i := 0; i < a.Rows; i++ {
			if a.Indptr[i] == a.Indptr[i+1] {
				zero++
			}
		}
		if got := countZeroSamples(ds); got != zero || zero == 0 {
			t.Errorf("%d procs: %d zero samples, want %d (> 0)", procs, got, zero)
		}
	}
}

// TestPrepareZeroFeaturesWithoutRecount: under log tf-idf, where Prepare
// takes the features left zero by the weighting from the counts before
// it (those in every sample), the result is the reference's, which
// weighs, normalizes and then counts: the same features dropped and the
// same values, with features in every sample, one in none and empty
// samples.
func TestPrepareZeroFeaturesWithoutRecount(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	var ri, ci []int
	var v []float64
	for i := 0; i < 300; i++ {
		for j := 0; j < 12; j++ {
			if j == 3 || j == 7 || (j != 5 && i%50 != 1 && rng.Float64() < 0.4) {
				ri, ci, v = append(ri, i), append(ci, j), append(v, float64(1+rng.IntN(6)))
			}
		}
	}
	data := func() *dataset.Dataset {
		a, err := sparse.FromTriplets(300, 12, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		return &dataset.Dataset{Source: "recount", Sparse: a}
	}
	p, err := Prepare(data(), PrepareOptions{Weighting: LogTFIDF, Normalize: L2})
	if err != nil {
		t.Fatal(err)
	}
	want := data()
	if err := want.LogTFIDF(); err != nil {
		t.Fatal(err)
	}
	want.NormalizeL2()
	want.DropZeroFeatures()
	if p.ZeroFeatures != 3 {
		t.Errorf("%d features dropped, want 3 (two in every sample, one in none)", p.ZeroFeatures)
	}
	got, w := p.Data.Sparse, want.Sparse
	if got.Cols != w.Cols || !slices.Equal(got.Indptr, w.Indptr) || !slices.Equal(got.Ind, w.Ind) || !slices.Equal(got.Val, w.Val) {
		t.Errorf("prepared data (%d features) differs from the reference's (%d)", got.Cols, w.Cols)
	}
}
