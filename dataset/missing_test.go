package dataset

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// TestMissing: a mask read with the data drops the values at its entries
// and marks them Missing, which selecting samples and features keeps in
// step; a mask of another shape is refused with both shapes.
func TestMissing(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "x.mtx")
	os.WriteFile(data, []byte("%%MatrixMarket matrix coordinate real general\n3 4 6\n1 1 1\n1 2 2\n2 2 3\n2 4 4\n3 1 5\n3 3 6\n"), 0o644)
	mask := filepath.Join(dir, "m.mtx")
	os.WriteFile(mask, []byte("%%MatrixMarket matrix coordinate pattern general\n3 4 3\n1 2\n2 3\n3 1\n"), 0o644)
	d, err := Load(context.Background(), data, LoadOptions{Mask: mask})
	if err != nil {
		t.Fatal(err)
	}
	if d.Missing == nil || d.Missing.NNZ() != 3 || d.Sparse.NNZ() != 4 {
		t.Fatalf("missing %v, stored %d", d.Missing, d.Sparse.NNZ())
	}
	for _, e := range [][2]int{{0, 1}, {2, 0}} {
		if d.Sparse.At(e[0], e[1]) != 0 {
			t.Errorf("value at masked %v kept", e)
		}
	}
	sub := d.SelectSamples([]int{2, 0})
	if !slices.Equal(sub.Missing.Indptr, []int{0, 1, 2}) || !slices.Equal(sub.Missing.Ind, []int{0, 1}) {
		t.Errorf("SelectSamples: missing %+v", sub.Missing)
	}
	kept := sub.KeepUsedFeatures([]int{1, 0, 1, 1}) // drop feature 2 (1-based)
	if !slices.Equal(kept, []int{0, 2, 3}) || !slices.Equal(sub.Missing.Ind, []int{0}) || sub.Missing.Cols != 3 {
		t.Errorf("KeepUsedFeatures: kept %v, missing %+v", kept, sub.Missing)
	}
	if err := sub.Validate(); err != nil {
		t.Error(err)
	}
	sub.Missing = &sparse.CSR{Rows: 1, Cols: 3, Indptr: []int{0, 0}}
	if err := sub.Validate(); err == nil || !strings.Contains(err.Error(), "missing entries") {
		t.Errorf("a mask of the wrong shape: %v", err)
	}
	os.WriteFile(mask, []byte("%%MatrixMarket matrix coordinate pattern general\n4 4 1\n4 4\n"), 0o644)
	if _, err := Load(context.Background(), data, LoadOptions{Mask: mask}); err == nil || !strings.Contains(err.Error(), "4 x 4 entries for") {
		t.Errorf("a 4 x 4 mask for 3 x 4 data: %v", err)
	}
}

// TestMissingNaN: NaN in a .csv or .mat file (.npy: matrixio's
// TestReadNPYNaN) is an error that names
// the option, or with MissingNaN an unknown entry whose value is dropped.
func TestMissingNaN(t *testing.T) {
	dir := t.TempDir()
	nan := math.NaN()
	colMajorVals := []float64{1, 3, nan, 4, 2, nan}
	files := map[string][]byte{
		"x.csv": []byte("1,NaN,2\n3,4,nan\n"),
		"x.mat": matWriter{bo: binary.LittleEndian}.file(denseVar("fea", 2, 3, miDOUBLE, colMajorVals)),
	}
	for name, b := range files {
		path := testenv.WriteFile(t, dir, name, b)
		if _, err := Load(context.Background(), path, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "--missing nan") {
			t.Errorf("%s without MissingNaN: %v", name, err)
		}
		d, err := Load(context.Background(), path, LoadOptions{MissingNaN: true})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if d.Missing == nil || !slices.Equal(d.Missing.Indptr, []int{0, 1, 2}) || !slices.Equal(d.Missing.Ind, []int{1, 2}) {
			t.Errorf("%s: missing %+v", name, d.Missing)
		}
		if d.Dense == nil || d.Dense.At(0, 1) != 0 || d.Dense.At(1, 2) != 0 || d.Dense.At(1, 1) != 4 {
			t.Errorf("%s: values %v", name, d.Dense)
		}
	}
}

// TestWithMissing: the copy has the entries unknown and dropped, the
// original keeps its values; a second set of unknown entries and one of
// another shape are refused.
func TestWithMissing(t *testing.T) {
	d := &Dataset{Source: "x", Dense: mat.NewDense(2, 3, []float64{1, 2, 3, 4, 5, 6})}
	h, _ := sparse.FromTriplets(2, 3, []int{0, 1}, []int{2, 0}, []float64{9, 9})
	c, err := d.WithMissing(h)
	if err != nil {
		t.Fatal(err)
	}
	if c.Dense.At(0, 2) != 0 || c.Dense.At(1, 0) != 0 || c.Missing.NNZ() != 2 || d.Dense.At(0, 2) != 3 || d.Missing != nil {
		t.Errorf("copy %v missing %v, original %v", c.Dense, c.Missing, d.Dense)
	}
	if _, err := c.WithMissing(h); err == nil {
		t.Error("unknown entries set twice")
	}
	if _, err := d.WithMissing(&sparse.CSR{Rows: 3, Cols: 3, Indptr: make([]int, 4)}); err == nil || !strings.Contains(err.Error(), "3 x 3 unknown entries for 2 samples x 3 features") {
		t.Errorf("another shape: %v", err)
	}
}
