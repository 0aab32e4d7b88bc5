package main

import (
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/sparse"
)

// TestWeighTF checks that --tf picks the weighting: auto gives counts the
// authors' 1 + ln tf and other values paper 004's tf, for sparse and dense
// data alike.
func TestWeighTF(t *testing.T) {
	counts := []float64{1, 0, 3, 2, 4, 0, 0, 7, 1}
	fractions := []float64{0.5, 0, 3, 2, 4, 0, 0, 7, 1}
	build := func(data []float64, dense bool) *dataset.Dataset {
		if dense {
			return &dataset.Dataset{Source: "d", Dense: mat.NewDense(3, 3, append([]float64(nil), data...))}
		}
		var ri, ci []int
		var v []float64
		for p, x := range data {
			if x != 0 {
				ri, ci, v = append(ri, p/3), append(ci, p%3), append(v, x)
			}
		}
		a, err := sparse.FromTriplets(3, 3, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		return &dataset.Dataset{Source: "s", Sparse: a}
	}
	values := func(d *dataset.Dataset) []float64 {
		if d.Sparse != nil {
			out := make([]float64, 9)
			for p := range out {
				out[p] = d.Sparse.At(p/3, p%3)
			}
			return out
		}
		return d.Dense.RawMatrix().Data
	}
	for _, dense := range []bool{false, true} {
		for _, c := range []struct {
			tf   string
			data []float64
			log  bool
		}{
			{"auto", counts, true}, {"log", counts, true}, {"raw", counts, false}, {"auto", fractions, false}, {"raw", fractions, false},
		} {
			got, want := build(c.data, dense), build(c.data, dense)
			if err := (&dataFlags{tf: c.tf}).weigh(got); err != nil {
				t.Fatalf("--tf %s: %v", c.tf, err)
			}
			weigh := want.TFIDF
			if c.log {
				weigh = want.LogTFIDF
			}
			if err := weigh(); err != nil {
				t.Fatal(err)
			}
			if g, w := values(got), values(want); !floats.Equal(g, w) {
				t.Errorf("dense %v, --tf %s on %v: got %v, want %v", dense, c.tf, c.data, g, w)
			}
		}
	}
	if err := (&dataFlags{tf: "log"}).weigh(build(fractions, false)); err == nil {
		t.Error("--tf log on a value of 0.5: no error")
	}
}
