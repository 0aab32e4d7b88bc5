package model

import (
	"context"
	"math"
	"slices"
	"sort"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/corpus"
)

// TestAutoSampleNeighborhoods: Auto's sample of sparse data is s sorted
// distinct samples, the same at any thread count; each seed's neighbours
// are the nearest by cosine among the samples sharing one of its heaviest
// rare features (a brute-force reference); dense data is sampled
// uniformly.
func TestAutoSampleNeighborhoods(t *testing.T) {
	a, _, err := corpus.Generate(corpus.Options{Docs: 2500, Terms: 30000, Classes: 5, Words: 80, Topic: 0.05, Authors: 10, AuthorShare: 0.2, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Prepare(&dataset.Dataset{Source: "generated", Sparse: a}, PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ds := p.Data
	x := ds.Sparse
	ctx := context.Background()
	var ref []int
	for _, th := range []int{1, 3} {
		idx, err := autoSample(ctx, ds, 700, 5, 9, th)
		if err != nil {
			t.Fatal(err)
		}
		if len(idx) != 700 || !slices.IsSorted(idx) || len(slices.Compact(slices.Clone(idx))) != 700 {
			t.Fatalf("%d threads: %d samples, sorted %v", th, len(idx), slices.IsSorted(idx))
		}
		if ref == nil {
			ref = idx
		} else if !slices.Equal(idx, ref) {
			t.Errorf("the sample depends on the thread count")
		}
	}
	// The search against brute force, for a few seeds.
	norms := rowNorms(x, 1)
	rare, post := rarePostings(x)
	df := x.ColNNZ()
	for j, c := range df {
		if r := rare[j]; (r >= 0) != (c > 0 && c <= rareDF) || (r >= 0 && post.Indptr[r+1]-post.Indptr[r] != c) {
			t.Fatalf("feature %d in %d samples: postings row %d", j, c, r)
		}
	}
	w := newNeighborSearch(x.Rows)
	for _, i := range []int{0, 17, 333, 2499} {
		got := w.nearest(x, post, rare, norms, i, 5)
		type feat struct {
			j int
			v float64
		}
		var fs []feat
		for q := x.Indptr[i]; q < x.Indptr[i+1]; q++ {
			if rare[x.Ind[q]] >= 0 {
				fs = append(fs, feat{x.Ind[q], x.Val[q]})
			}
		}
		sort.SliceStable(fs, func(a, b int) bool { return fs[a].v > fs[b].v })
		fs = fs[:min(len(fs), seedFeatures)]
		type cand struct {
			j int
			v float64
		}
		var cs []cand
		for j := 0; j < x.Rows; j++ {
			if j == i {
				continue
			}
			shares := false
			for _, f := range fs {
				shares = shares || x.At(j, f.j) != 0
			}
			if shares {
				var dot float64
				for q := x.Indptr[i]; q < x.Indptr[i+1]; q++ {
					dot += x.Val[q] * x.At(j, x.Ind[q])
				}
				cs = append(cs, cand{j, dot / norms[j]})
			}
		}
		sort.SliceStable(cs, func(a, b int) bool { return cs[a].v > cs[b].v })
		if len(cs) < 5 {
			t.Fatalf("seed %d: %d candidates; the test needs 5", i, len(cs))
		}
		for q, j := range got {
			if math.Abs(cs[q].v-rowDot(x, i, j)/norms[j]) > 1e-12 {
				t.Errorf("seed %d: neighbour %d is %d (score %v), brute force %d (%v)", i, q, j, rowDot(x, i, j)/norms[j], cs[q].j, cs[q].v)
			}
		}
		if len(got) != 5 {
			t.Errorf("seed %d: %d neighbours", i, len(got))
		}
	}
	// Dense data: a uniform sample of the size asked for.
	dense := &dataset.Dataset{Source: "dense", Dense: mat.NewDense(50, 3, nil)}
	idx, err := autoSample(ctx, dense, 20, 5, 9, 2)
	if err != nil || len(idx) != 20 || !slices.IsSorted(idx) {
		t.Errorf("dense: %v, %v", idx, err)
	}
}
