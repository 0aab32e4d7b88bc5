package dataset

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/sparse"
	"gonum.org/v1/gonum/mat"
)

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	x, _ := sparse.FromTriplets(3, 4, []int{0, 0, 1, 1, 2, 2}, []int{0, 2, 2, 3, 0, 3}, []float64{1, 2, 3, 4, 5, 6})
	var mtx, mtxT, arr bytes.Buffer
	if err := matrixio.WriteMatrixMarket(&mtx, x); err != nil {
		t.Fatal(err)
	}
	if err := matrixio.WriteMatrixMarket(&mtxT, x.T()); err != nil {
		t.Fatal(err)
	}
	if err := matrixio.WriteMatrixMarketDense(&arr, mat.NewDense(3, 4, fixtureFea)); err != nil {
		t.Fatal(err)
	}
	labels := testenv.WriteFile(t, dir, "labels.txt", []byte("2\n1\n\n2\n"))
	w := matWriter{bo: bigEndian(), compress: true}
	cases := []struct {
		file   string
		data   []byte
		opt    LoadOptions
		sparse bool
	}{
		{"a.mtx", mtx.Bytes(), LoadOptions{Labels: labels}, true},
		{"t.mtx", mtxT.Bytes(), LoadOptions{Labels: labels, Transpose: true}, true},
		{"a.mtx.gz", testenv.Gzip(mtx.Bytes()), LoadOptions{Labels: labels}, true},
		{"T.MTX.GZ", testenv.Gzip(mtxT.Bytes()), LoadOptions{Labels: labels, Transpose: true}, true},
		{"d.mtx", arr.Bytes(), LoadOptions{Labels: labels}, false},
		{"a.mat", fixtureMAT(w, true, false, true), LoadOptions{}, true},
		{"t.mat", fixtureMAT(w, false, true, false), LoadOptions{Transpose: true}, false},
		{"l.mat", fixtureMAT(w, false, false, false), LoadOptions{Labels: labels}, false},
	}
	for _, c := range cases {
		path := testenv.WriteFile(t, dir, c.file, c.data)
		d, err := Load(context.Background(), path, c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
		if d.Source != path || (d.Sparse != nil) != c.sparse {
			t.Errorf("%s: source %q, sparse %v", c.file, d.Source, d.Sparse != nil)
		}
		if got := denseOf(d); !reflect.DeepEqual(got, fixtureFea) {
			t.Errorf("%s: data %v, want %v", c.file, got, fixtureFea)
		}
		if !reflect.DeepEqual(d.Labels, fixtureLabels) {
			t.Errorf("%s: labels %v, want %v", c.file, d.Labels, fixtureLabels)
		}
	}

	mtxPath := filepath.Join(dir, "a.mtx")
	bad := []struct {
		path string
		opt  LoadOptions
		want []string
	}{
		{testenv.WriteFile(t, dir, "x.xlsx", []byte("PK")), LoadOptions{}, []string{"x.xlsx", "unknown data format"}},
		// A missing file whose name has no known extension is missing,
		// not of an unknown format.
		{filepath.Join(dir, "nodata"), LoadOptions{}, []string{"nodata", "no such file"}},
		{filepath.Join(dir, "missing.mat"), LoadOptions{}, []string{"missing.mat"}},
		{mtxPath, LoadOptions{Labels: testenv.WriteFile(t, dir, "short.txt", []byte("1\n2\n"))}, []string{"short.txt", "2 labels for 3 samples"}},
		{mtxPath, LoadOptions{Labels: testenv.WriteFile(t, dir, "long.txt", []byte("1\n2\n3\n4\n"))}, []string{"long.txt:4:", "more labels"}},
		{mtxPath, LoadOptions{Labels: testenv.WriteFile(t, dir, "text.txt", []byte("1\nx\n3\n"))}, []string{"text.txt:2:", `"x"`}},
		{testenv.WriteFile(t, dir, "bad.mtx.gz", []byte("not gzip")), LoadOptions{}, []string{"bad.mtx.gz", "gzip"}},
		{testenv.WriteFile(t, dir, "trunc.mtx.gz", testenv.Gzip(mtx.Bytes())[:40]), LoadOptions{}, []string{"trunc.mtx.gz:"}},
		{testenv.WriteFile(t, dir, "empty.mtx", []byte("%%MatrixMarket matrix coordinate real general\n0 3 0\n")), LoadOptions{}, []string{"empty.mtx", "empty data set"}},
	}
	for _, c := range bad {
		_, err := Load(context.Background(), c.path, c.opt)
		testenv.WantErr(t, err, c.want...)
	}
}

// TestMatrixMarketRepeatsNoted: a data file's repeated positions are
// added, as the format's readers do, and the data set says how many, so
// that they are not added silently; a symmetric file's mirrored entries
// are not repeats.
func TestMatrixMarketRepeatsNoted(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		notes      int
	}{
		{"repeats.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 4\n1 1 1.5\n2 3 2\n1 1 0.5\n2 3 1\n", 1},
		{"symmetric.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n3 2 4\n", 0},
	} {
		d, err := Load(context.Background(), testenv.WriteFile(t, dir, c.name, []byte(c.text)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range d.Notes {
			if strings.Contains(n, "repeat a position") {
				got = append(got, n)
			}
		}
		if len(got) != c.notes || (c.notes > 0 && !strings.Contains(got[0], "2 entries repeat")) {
			t.Errorf("%s: notes %q", c.name, d.Notes)
		}
	}
}
