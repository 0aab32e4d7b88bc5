package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/sparsetest"
	"gonum.org/v1/gonum/mat"
)

// writePartsDir writes d as parts into a new directory.
func writePartsDir(t testing.TB, d *Dataset, parts int) (string, *matrixio.Parts) {
	t.Helper()
	dir := t.TempDir()
	err := WritePartsDir(dir, d, PartsOptions{Parts: parts})
	if err != nil {
		t.Fatal(err)
	}
	man, err := matrixio.ReadParts(dir)
	if err != nil {
		t.Fatal(err)
	}
	return dir, man
}

// sampleRows returns samples lo..hi of d as a data set of their own.
func sampleRows(d *Dataset, lo, hi int) *Dataset {
	idx := make([]int, hi-lo)
	for q := range idx {
		idx[q] = lo + q
	}
	out := d.SelectSamples(idx)
	if d.Labels != nil {
		out.Labels = d.Labels[lo:hi]
	}
	return out
}

// TestPartsRoundTrip: a data set split into parts reads back whole by
// Load and in any range of samples by LoadRows, values exact, with its
// labels and feature names, reading only the parts it needs.
func TestPartsRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := sparsetest.RandomCSR(rng, 23, 9, 0.3)
	labels := make([]int, 23)
	for i := range labels {
		labels[i] = 1 + i%4
	}
	names := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i"}
	dense := mat.NewDense(11, 4, nil)
	for i := 0; i < 11; i++ {
		for j := 0; j < 4; j++ {
			dense.Set(i, j, rng.Float64()*1e3)
		}
	}
	cases := []struct {
		name  string
		d     *Dataset
		parts []int
	}{
		{"sparse", &Dataset{Source: "s", Sparse: a, Labels: labels, Vocabulary: names, Weighted: true}, []int{1, 2, 5, 23}},
		{"dense", &Dataset{Source: "d", Dense: dense}, []int{1, 3, 11}},
	}
	for _, c := range cases {
		n, _ := c.d.Dims()
		for _, parts := range c.parts {
			dir, man := writePartsDir(t, c.d, parts)
			if len(man.Parts) != parts || man.Samples != n || man.NNZ != c.d.NNZ() {
				t.Fatalf("%s/%d: manifest %+v", c.name, parts, man)
			}
			whole, err := Load(context.Background(), dir, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			check := func(got, want *Dataset, what string) {
				t.Helper()
				if (got.Sparse == nil) != (want.Sparse == nil) {
					t.Fatalf("%s/%d %s: sparse %v, want %v", c.name, parts, what, got.Sparse != nil, want.Sparse != nil)
				}
				if got.Sparse != nil && !reflect.DeepEqual(got.Sparse, want.Sparse) {
					t.Fatalf("%s/%d %s: sparse data differ", c.name, parts, what)
				}
				if got.Dense != nil && !mat.Equal(got.Dense, want.Dense) {
					t.Fatalf("%s/%d %s: dense data differ", c.name, parts, what)
				}
				if !reflect.DeepEqual(got.Labels, want.Labels) || !reflect.DeepEqual(got.Vocabulary, want.Vocabulary) || got.Weighted != want.Weighted {
					t.Fatalf("%s/%d %s: labels %v names %v weighted %v, want %v %v %v", c.name, parts, what, got.Labels, got.Vocabulary, got.Weighted, want.Labels, want.Vocabulary, want.Weighted)
				}
			}
			check(whole, c.d, "whole")
			for _, r := range [][2]int{{0, n}, {0, 1}, {n - 1, n}, {n / 3, 2 * n / 3}, {1, n - 1}} {
				got, err := LoadRows(context.Background(), dir, r[0], r[1], LoadOptions{})
				if err != nil {
					t.Fatal(err)
				}
				want := sampleRows(c.d, r[0], r[1])
				want.Vocabulary, want.Weighted = c.d.Vocabulary, c.d.Weighted
				check(got, want, "rows")
			}
		}
	}
	// Only the parts holding the samples are read: a missing other part
	// does not matter.
	dir, _ := writePartsDir(t, cases[0].d, 5)
	if err := os.Remove(filepath.Join(dir, "part-00004.mtx")); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadRows(context.Background(), dir, 0, 4, LoadOptions{}); err != nil {
		t.Fatalf("rows of part 0: %v", err)
	}
	if _, err := LoadRows(context.Background(), dir, 0, 23, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "part-00004.mtx") {
		t.Fatalf("missing part: %v", err)
	}
}

// TestPartsBad: a manifest or part that does not hold what it says is
// an error naming the file.
func TestPartsBad(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	d := &Dataset{Source: "s", Sparse: sparsetest.RandomCSR(rng, 10, 6, 0.4), Labels: []int{1, 2, 1, 2, 1, 2, 1, 2, 1, 2}}
	edit := func(t *testing.T, fn func(m map[string]any)) string {
		dir, _ := writePartsDir(t, d, 3)
		path := filepath.Join(dir, matrixio.PartsFile)
		b, _ := os.ReadFile(path)
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
		b, _ = json.Marshal(m)
		os.WriteFile(path, b, 0o644)
		return dir
	}
	part := func(m map[string]any, q int) map[string]any { return m["parts"].([]any)[q].(map[string]any) }
	cases := []struct {
		name, want string
		fn         func(m map[string]any)
	}{
		{"format", "format", func(m map[string]any) { m["format"] = "other 2" }},
		{"gap", "want the next block", func(m map[string]any) { part(m, 1)["first"] = 5.0 }},
		{"short", "the parts hold", func(m map[string]any) { m["samples"] = 11.0 }},
		{"nnz", "part-00001.mtx", func(m map[string]any) {
			n := part(m, 1)["nnz"].(float64)
			part(m, 1)["nnz"] = n + 1
			m["nnz"] = m["nnz"].(float64) + 1
		}},
		{"escape", "not a file name", func(m map[string]any) { part(m, 0)["file"] = "../x.mtx" }},
		{"unknown field", "unknown field", func(m map[string]any) { m["extra"] = 1.0 }},
		{"an earlier version's weighting", "split the corpus again", func(m map[string]any) { m["weighting"] = "tfidf" }},
		{"labels escape", "not a file name", func(m map[string]any) { m["labels"] = "/etc/passwd" }},
		{"features", "part-00000.mtx", func(m map[string]any) { m["features"] = 7.0 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir := edit(t, c.fn)
			_, err := Load(context.Background(), dir, LoadOptions{})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error with %q", err, c.want)
			}
		})
	}
	t.Run("truncated part", func(t *testing.T) {
		dir, _ := writePartsDir(t, d, 2)
		path := filepath.Join(dir, "part-00001.mtx")
		b, _ := os.ReadFile(path)
		os.WriteFile(path, b[:len(b)/2], 0o644)
		if _, err := Load(context.Background(), dir, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "part-00001.mtx") {
			t.Fatalf("truncated part: %v", err)
		}
	})
	t.Run("range", func(t *testing.T) {
		dir, _ := writePartsDir(t, d, 2)
		if _, err := LoadRows(context.Background(), dir, 4, 11, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "samples 5..11") {
			t.Fatalf("range: %v", err)
		}
	})
	if err := WriteParts(d, PartsOptions{Parts: 11}, nil); err == nil || !strings.Contains(err.Error(), "11 parts of 10 samples") {
		t.Fatalf("too many parts: %v", err)
	}
	if IsTextSource(writeParts(t, d)) {
		t.Fatal("a parts directory is not a text corpus")
	}
}

func writeParts(t *testing.T, d *Dataset) string { dir, _ := writePartsDir(t, d, 2); return dir }

// FuzzReadParts: any manifest is read or refused, never a panic, and one
// that is read loads or fails with an error.
func FuzzReadParts(f *testing.F) {
	rng := rand.New(rand.NewPCG(7, 8))
	d := &Dataset{Source: "s", Sparse: sparsetest.RandomCSR(rng, 6, 4, 0.5)}
	dir, _ := writePartsDir(f, d, 2)
	b, _ := os.ReadFile(filepath.Join(dir, matrixio.PartsFile))
	f.Add(b)
	f.Add([]byte(`{"format":"manifactor-parts 1","samples":1,"features":1,"nnz":0,"parts":[{"file":"part-00000.mtx","first":0,"rows":1,"nnz":0}]}`))
	f.Fuzz(func(t *testing.T, manifest []byte) {
		work := t.TempDir()
		for _, name := range []string{"part-00000.mtx", "part-00001.mtx"} {
			b, _ := os.ReadFile(filepath.Join(dir, name))
			os.WriteFile(filepath.Join(work, name), b, 0o644)
		}
		os.WriteFile(filepath.Join(work, matrixio.PartsFile), manifest, 0o644)
		man, err := matrixio.ReadParts(work)
		if err != nil {
			return
		}
		if got, err := Load(context.Background(), work, LoadOptions{}); err == nil {
			if n, m := got.Dims(); n != man.Samples || m != man.Features {
				t.Fatalf("loaded %d x %d, manifest %d x %d", n, m, man.Samples, man.Features)
			}
		}
	})
}

// TestPartsShuffle: a shuffled split holds the samples in a seeded order,
// each with its row, label and id (its number in the source when it had
// none); the same seed gives the same parts; and a corpus stored class
// by class gives parts that each hold every class.
func TestPartsShuffle(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const n = 200
	a := sparsetest.RandomCSR(rng, n, 12, 0.4)
	labels := make([]int, n)
	for i := range labels {
		labels[i] = 1 + i*4/n // class by class
	}
	dense := mat.NewDense(n, 3, nil)
	for i := 0; i < n; i++ {
		dense.SetRow(i, []float64{float64(i), rng.Float64(), 1})
	}
	write := func(d *Dataset, seed uint64) string {
		dir := t.TempDir()
		err := WritePartsDir(dir, d, PartsOptions{Parts: 4, Shuffle: true, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return dir
	}
	for _, d := range []*Dataset{{Source: "s", Sparse: a, Labels: labels}, {Source: "d", Dense: dense, Labels: labels}} {
		dir := write(d, 1)
		got, err := Load(context.Background(), dir, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(got.IDs) != n {
			t.Fatalf("%s: %d ids", d.Source, len(got.IDs))
		}
		moved := 0
		for r, id := range got.IDs {
			var i int
			if _, err := fmt.Sscan(id, &i); err != nil || i < 1 || i > n {
				t.Fatalf("%s: sample %d's id %q", d.Source, r+1, id)
			}
			i--
			if i != r {
				moved++
			}
			if got.Labels[r] != labels[i] {
				t.Fatalf("%s: sample %d (source %d) has label %d, want %d", d.Source, r+1, i+1, got.Labels[r], labels[i])
			}
			for j := 0; j < 12 && d.Sparse != nil; j++ {
				if got.Sparse.At(r, j) != a.At(i, j) {
					t.Fatalf("%s: sample %d (source %d) differs at %d", d.Source, r+1, i+1, j+1)
				}
			}
			if d.Dense != nil && !mat.Equal(got.Dense.RowView(r), dense.RowView(i)) {
				t.Fatalf("%s: sample %d (source %d) differs", d.Source, r+1, i+1)
			}
		}
		if moved < n/2 {
			t.Errorf("%s: only %d of %d samples moved", d.Source, moved, n)
		}
		for p := 0; p < 4; p++ {
			part, err := LoadRows(context.Background(), dir, p*n/4, (p+1)*n/4, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			classes := map[int]bool{}
			for _, l := range part.Labels {
				classes[l] = true
			}
			if len(classes) != 4 {
				t.Errorf("%s: part %d holds %d of 4 classes", d.Source, p+1, len(classes))
			}
		}
		again, _ := Load(context.Background(), write(d, 1), LoadOptions{})
		other, _ := Load(context.Background(), write(d, 2), LoadOptions{})
		if !reflect.DeepEqual(again.IDs, got.IDs) || reflect.DeepEqual(other.IDs, got.IDs) {
			t.Errorf("%s: seed 1 twice gives the same order %v, seed 2 another %v", d.Source, reflect.DeepEqual(again.IDs, got.IDs), !reflect.DeepEqual(other.IDs, got.IDs))
		}
	}
	// Ids the data set has are kept with their samples.
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("doc-%d", i)
	}
	got, err := Load(context.Background(), write(&Dataset{Source: "s", Sparse: a, Labels: labels, IDs: ids}, 3), LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for r, id := range got.IDs {
		var i int
		fmt.Sscanf(id, "doc-%d", &i)
		if got.Labels[r] != labels[i] {
			t.Fatalf("sample %d (%s): label %d, want %d", r+1, id, got.Labels[r], labels[i])
		}
	}
}
