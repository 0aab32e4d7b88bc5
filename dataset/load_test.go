package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
	"gonum.org/v1/gonum/mat"
)

// TestLoadDispatch writes the same 3 x 2 data set in every format Load
// reads, plain and gzipped, and checks each reads back equal (and
// transposed with Transpose where that applies).
func TestLoadDispatch(t *testing.T) {
	dir := t.TempDir()
	want := mat.NewDense(3, 2, []float64{1, 0, 0, 2.5, 3, 4})
	write := func(name string, body []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, body, 0o644); err != nil {
			t.Fatal(err)
		}
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		zw.Write(body)
		zw.Close()
		if err := os.WriteFile(p+".gz", z.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var npy, csv, mtx bytes.Buffer
	if err := matrixio.WriteNPY(&npy, want); err != nil {
		t.Fatal(err)
	}
	if err := matrixio.WriteCSV(&csv, want, []string{"a", "b"}); err != nil {
		t.Fatal(err)
	}
	if err := matrixio.WriteMatrixMarketDense(&mtx, want); err != nil {
		t.Fatal(err)
	}
	files := []string{
		write("x.npy", npy.Bytes()),
		write("x.csv", csv.Bytes()),
		write("x.tsv", []byte("a\tb\n1\t0\n0\t2.5\n3\t4\n")),
		write("x.mtx", mtx.Bytes()),
		write("x.svm", []byte("7 1:1\n8 2:2.5\n7 1:3 2:4\n")),
	}
	for _, f := range files {
		for _, name := range []string{f, f + ".gz"} {
			d, err := Load(context.Background(), name, LoadOptions{})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if n, m := d.Dims(); n != 3 || m != 2 {
				t.Fatalf("%s: %d x %d", name, n, m)
			}
			for i := 0; i < 3; i++ {
				for j := 0; j < 2; j++ {
					if got := at(d, i, j); got != want.At(i, j) {
						t.Fatalf("%s: (%d,%d) = %v, want %v", name, i, j, got, want.At(i, j))
					}
				}
			}
			if strings.Contains(name, ".svm") && (len(d.Labels) != 3 || len(d.Notes) != 1) {
				t.Fatalf("%s: labels %v notes %v", name, d.Labels, d.Notes)
			}
			if strings.Contains(name, ".csv") && strings.Join(d.Vocabulary, ",") != "a,b" {
				t.Fatalf("%s: vocabulary %v", name, d.Vocabulary)
			}
			if strings.Contains(name, ".svm") {
				if _, err := Load(context.Background(), name, LoadOptions{Transpose: true}); err == nil {
					t.Fatalf("%s: transposed an SVMlight file", name)
				}
				continue
			}
			tr, err := Load(context.Background(), name, LoadOptions{Transpose: true})
			if err != nil {
				t.Fatalf("%s transposed: %v", name, err)
			}
			if n, m := tr.Dims(); n != 2 || m != 3 || at(tr, 1, 2) != want.At(2, 1) {
				t.Fatalf("%s transposed: %d x %d", name, n, m)
			}
		}
	}
	parquet := filepath.Join(dir, "x.parquet")
	if err := os.WriteFile(parquet, []byte("PAR1"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(context.Background(), parquet, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "unknown data format") {
		t.Errorf("unknown extension: %v", err)
	}
	if _, err := Load(context.Background(), files[1], LoadOptions{Transpose: true, CSV: CSVOptions{LabelColumn: "a"}}); err == nil {
		t.Error("transposed a CSV with a label column")
	}
	notGzip := write("notgz.csv.gz", []byte("not gzip")) // raw text under a .gz name
	if _, err := Load(context.Background(), notGzip, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "bad gzip stream") {
		t.Errorf("a file that is not gzip under a .gz name: %v", err)
	}
}

func at(d *Dataset, i, j int) float64 {
	if d.Sparse != nil {
		return d.Sparse.At(i, j)
	}
	return d.Dense.At(i, j)
}

// TestLoadProgress: a file's reading is reported in rising byte counts
// that end at its size, and the data set is the one read without.
func TestLoadProgress(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.mtx")
	var b strings.Builder
	b.WriteString("%%MatrixMarket matrix coordinate real general\n300 40 3000\n")
	for k := 0; k < 3000; k++ {
		fmt.Fprintf(&b, "%d %d %d\n", k%300+1, (k*7)%40+1, k%5+1)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	want, err := Load(context.Background(), path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var calls int
	var last int64
	got, err := Load(context.Background(), path, LoadOptions{Progress: func(read, size int64) {
		if read < last || size != int64(b.Len()) || read > size {
			t.Errorf("progress %d of %d after %d", read, size, last)
		}
		calls, last = calls+1, read
	}})
	if err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != int64(b.Len()) {
		t.Errorf("%d calls, last %d of %d", calls, last, b.Len())
	}
	if !slices.Equal(got.Sparse.Val, want.Sparse.Val) || !slices.Equal(got.Sparse.Ind, want.Sparse.Ind) {
		t.Error("progress changed the data")
	}
}

// TestLoadContextAndOptions: a cancelled context stops Load with the
// context's error, for files and text corpora; LoadOptions.Reuters.Text,
// which Load does not use, is refused rather than ignored.
func TestLoadContextAndOptions(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dir := t.TempDir()
	path := filepath.Join(dir, "x.csv")
	if err := os.WriteFile(path, []byte("1,2\n3,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{path, "../testdata/demo/reuters-demo.sgm.gz"} {
		if _, err := Load(ctx, p, LoadOptions{}); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), p) {
			t.Errorf("%s, cancelled: %v", p, err)
		}
	}
	_, err := Load(context.Background(), "../testdata/demo/reuters-demo.sgm.gz", LoadOptions{Reuters: ReutersOptions{Text: TextOptions{NoStem: true}}})
	if err == nil || !strings.Contains(err.Error(), "Reuters.Text") {
		t.Errorf("Reuters.Text set: %v", err)
	}
}
