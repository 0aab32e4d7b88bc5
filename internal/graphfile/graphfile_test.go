package graphfile

import (
	"bytes"
	"compress/gzip"
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/sparse"
)

type edge [2]int

// edgesOf returns g's edges i < j with their weights, after checking that
// g is a valid graph on n samples.
func edgesOf(t *testing.T, g *graph.Graph, n int) map[edge]float64 {
	t.Helper()
	if err := g.Check(n); err != nil {
		t.Fatal(err)
	}
	out := map[edge]float64{}
	for i := 0; i < n; i++ {
		for p := g.W.Indptr[i]; p < g.W.Indptr[i+1]; p++ {
			if j := g.W.Ind[p]; i < j {
				out[edge{i, j}] = g.W.Val[p]
			}
		}
	}
	return out
}

// writeFile writes text to a file of the given name in a fresh directory
// and returns its path.
func writeText(t *testing.T, name, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadGraph(t *testing.T) {
	for _, c := range []struct {
		name, text string
		n          int
		want       map[edge]float64
		notes      graph.ReadNotes
	}{
		{
			name: "symmetric.mtx",
			text: "%%MatrixMarket matrix coordinate real symmetric\n% a path\n3 3 2\n2 1 0.5\n3 2 2\n",
			n:    3,
			want: map[edge]float64{{0, 1}: 0.5, {1, 2}: 2},
		},
		{
			// A directed graph: 1 -> 2 and 2 -> 1 with different weights,
			// 2 -> 3 one way only, a self-loop and a stored zero.
			name:  "directed.mtx",
			text:  "%%MatrixMarket matrix coordinate real general\n4 4 6\n1 2 1\n2 1 3\n2 3 1\n1 1 5\n4 1 0\n3 3 0\n",
			n:     4,
			want:  map[edge]float64{{0, 1}: 3, {1, 2}: 1},
			notes: graph.ReadNotes{Asymmetric: 2, SelfLoops: 1},
		},
		{
			name:  "links.mtx",
			text:  "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 3\n2 3\n",
			n:     3,
			want:  map[edge]float64{{0, 2}: 1, {1, 2}: 1},
			notes: graph.ReadNotes{Asymmetric: 2},
		},
		{
			name: "array.mtx",
			text: "%%MatrixMarket matrix array real general\n2 2\n0\n0.25\n0.25\n0\n",
			n:    2,
			want: map[edge]float64{{0, 1}: 0.25},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			g, notes, err := Read(writeText(t, c.name, c.text), c.n)
			if err != nil {
				t.Fatal(err)
			}
			if got := edgesOf(t, g, c.n); len(got) != len(c.want) {
				t.Errorf("edges %v, want %v", got, c.want)
			} else {
				for e, w := range c.want {
					if got[e] != w {
						t.Errorf("edges %v, want %v", got, c.want)
					}
				}
			}
			if notes != c.notes {
				t.Errorf("notes %+v, want %+v", notes, c.notes)
			}
			if (notes.String() == "") != (notes == graph.ReadNotes{}) {
				t.Errorf("notes.String() = %q for %+v", notes.String(), notes)
			}
		})
	}
}

func TestReadGraphErrors(t *testing.T) {
	for _, c := range []struct {
		name, text string
		n          int
		want       []string
	}{
		{"size.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 2 1\n", 4, []string{"3 x 3", "want 4 x 4"}},
		{"rect.mtx", "%%MatrixMarket matrix coordinate real general\n3 4 1\n1 2 1\n", 3, []string{"3 x 4"}},
		{"negative.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n3 1 -2\n", 3, []string{"weight -2 at row 3, column 1", "negative"}},
		{"nan.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 nan\n", 3, []string{"nan.mtx:4", `"2 3 nan"`, "not finite"}},
		{"malformed.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 1\n1 x 1\n", 3, []string{"malformed.mtx:3", `"1 x 1"`}},
		{"header.mtx", "1 2 3\n", 3, []string{"header.mtx:1", "not a Matrix Market file"}},
		// Weights of 1e200 made GNMF's objective -4e183.
		{"huge.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 3 1e200\n", 3, []string{"weight 1e+200 at row 2, column 3", "above 1e+150"}},
		// A graph without edges ran GNMF as NMF, reported as regularized.
		{"noedges.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 0\n", 3, []string{"no edges"}},
		{"zeros.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0\n2 3 0\n", 3, []string{"no edges"}},
		{"loops.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1\n2 2 3\n", 3, []string{"no edges"}},
	} {
		path := writeText(t, c.name, c.text)
		g, _, err := Read(path, c.n)
		if err == nil || g != nil {
			t.Errorf("%s: no error", c.name)
			continue
		}
		for _, w := range append([]string{c.name}, c.want...) {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not contain %q", c.name, err, w)
			}
		}
	}
	if _, _, err := Read(filepath.Join(t.TempDir(), "absent.mtx"), 3); err == nil || !strings.Contains(err.Error(), "absent.mtx") {
		t.Errorf("absent file: %v", err)
	}
}

func TestGraphWriteReadRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	var ri, ci []int
	var v []float64
	for i := 0; i < 60; i++ {
		for j := 0; j < 12; j++ {
			if rng.Float64() < 0.3 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, rng.Float64())
			}
		}
	}
	x, err := sparse.FromTriplets(60, 12, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	g, err := graph.Sparse(context.Background(), x, graph.Options{Neighbors: 4, Weight: graph.Heat, HeatT: 0.37})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := matrixio.WriteMatrixMarket(&buf, g.W); err != nil {
		t.Fatal(err)
	}
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	zw.Write(buf.Bytes())
	zw.Close()
	for name, data := range map[string][]byte{"g.mtx": buf.Bytes(), "g.mtx.gz": zbuf.Bytes()} {
		path := filepath.Join(t.TempDir(), name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		back, notes, err := Read(path, 60)
		if err != nil {
			t.Fatal(err)
		}
		if notes != (graph.ReadNotes{}) {
			t.Errorf("%s: notes %+v for a graph written by matrixio.WriteMatrixMarket", name, notes)
		}
		if !slices.Equal(back.W.Indptr, g.W.Indptr) || !slices.Equal(back.W.Ind, g.W.Ind) || !slices.Equal(back.W.Val, g.W.Val) || !slices.Equal(back.Degree, g.Degree) {
			t.Errorf("%s: read back differs", name)
		}
	}
}
