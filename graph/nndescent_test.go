package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// TestApproxSmallIsExact: when NN-descent's start already holds every
// other sample (2 K >= n - 1), its graph is the exact one, sparse and
// dense, for each weighting and edge rule.
func TestApproxSmallIsExact(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 2))
	for _, c := range []struct{ n, p int }{{12, 3}, {20, 5}, {7, 1}} {
		if 2*descentK(c.p, c.n) < c.n-1 {
			t.Fatalf("n=%d p=%d: the start would not hold every sample", c.n, c.p)
		}
		x := randomRows(rng, c.n, 30, 0.3, false)
		a, d := toCSR(x), toDense(x)
		for _, w := range []Weight{Binary, Heat, Cosine} {
			for _, sym := range []Symmetry{Either, Mutual} {
				opt := Options{Neighbors: c.p, Weight: w, Symmetry: sym, Seed: 4}
				exact, approx := opt, opt
				exact.Search, approx.Search = ExactSearch, ApproxSearch
				what := fmt.Sprintf("n=%d p=%d %v %v", c.n, c.p, w, sym)
				ge, err := Sparse(context.Background(), a, exact)
				if err != nil {
					t.Fatal(err)
				}
				ga, err := Sparse(context.Background(), a, approx)
				if err != nil {
					t.Fatal(err)
				}
				t.Run("sparse "+what, func(t *testing.T) { sameEdges(t, edgesOf(t, ga, c.n), edgesOf(t, ge, c.n), 1e-12) })
				ge, err = Dense(context.Background(), d, exact)
				if err != nil {
					t.Fatal(err)
				}
				ga, err = Dense(context.Background(), d, approx)
				if err != nil {
					t.Fatal(err)
				}
				t.Run("dense "+what, func(t *testing.T) { sameEdges(t, edgesOf(t, ga, c.n), edgesOf(t, ge, c.n), 1e-9) })
			}
		}
	}
}

// plantedCorpus generates n documents over m terms in classes topics:
// each document draws length words, half from its class's own band of
// terms and half from the whole vocabulary, both Zipf-distributed, and is
// returned as unit-length tf-idf-like rows (counts scaled by log(n/df)).
func plantedCorpus(seed uint64, n, m, classes, length int) *sparse.CSR {
	rng := rand.New(rand.NewPCG(seed, 7))
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(m-1))
	band := m / classes
	counts := make([]map[int]float64, n)
	df := make([]int, m)
	for i := range counts {
		counts[i] = map[int]float64{}
		c := i % classes
		for range length {
			f := int(zipf.Uint64())
			if rng.IntN(2) == 0 {
				f = c*band + f%band
			}
			counts[i][f]++
		}
		for f := range counts[i] {
			df[f]++
		}
	}
	var ri, ci []int
	var v []float64
	for i, row := range counts {
		var s float64
		w := map[int]float64{}
		for f, x := range row {
			w[f] = x * math.Log(float64(n)/float64(df[f]))
			s += w[f] * w[f]
		}
		for f, x := range w {
			if x > 0 {
				ri, ci, v = append(ri, i), append(ci, f), append(v, x/math.Sqrt(s))
			}
		}
	}
	a, err := sparse.FromTriplets(n, m, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a
}

// recall is the share of want's edges that got has.
func recall(t *testing.T, got, want *Graph, n int) float64 {
	g, w := edgesOf(t, got, n), edgesOf(t, want, n)
	hit := 0
	for e := range w {
		if _, ok := g[e]; ok {
			hit++
		}
	}
	return float64(hit) / float64(len(w))
}

// TestApproxRecall: NN-descent finds at least 95 % of the exact graph's
// edges on a generated text corpus (sparse cosine) and on clustered
// Gaussian points (dense Euclidean), and its graph is the same at 1, 2
// and 7 threads.
func TestApproxRecall(t *testing.T) {
	const n = 3000
	a := planted(t)
	rng := rand.New(rand.NewPCG(41, 1))
	d := mat.NewDense(n, 16, nil)
	for i := range n {
		for j := range 16 {
			d.Set(i, j, float64(i%10)+rng.NormFloat64()*2)
		}
	}
	for _, c := range []struct {
		name  string
		build func(Options) (*Graph, error)
	}{
		{"sparse", func(o Options) (*Graph, error) { return Sparse(context.Background(), a, o) }},
		{"dense", func(o Options) (*Graph, error) { return Dense(context.Background(), d, o) }},
	} {
		exact, err := c.build(Options{Search: ExactSearch})
		if err != nil {
			t.Fatal(err)
		}
		var ref *Graph
		for _, threads := range []int{1, 2, 7} {
			g, err := c.build(Options{Search: ApproxSearch, Seed: 3, Threads: threads})
			if err != nil {
				t.Fatal(err)
			}
			if ref == nil {
				ref = g
				if r := recall(t, g, exact, n); r < 0.95 {
					t.Errorf("%s: recall %.4f, want at least 0.95", c.name, r)
				} else {
					t.Logf("%s: recall %.4f", c.name, r)
				}
				continue
			}
			sameGraph(t, g, ref, fmt.Sprintf("%s, %d threads", c.name, threads))
		}
	}
}

func planted(t *testing.T) *sparse.CSR {
	t.Helper()
	return plantedCorpus(40, 3000, 5000, 10, 80)
}

// TestSearchChoice: the names parse and print, auto is exact (see
// AutoSearch), and an unknown search is an error.
func TestSearchChoice(t *testing.T) {
	for _, s := range []Search{AutoSearch, ExactSearch, ApproxSearch} {
		got, err := ParseSearch(s.String())
		if err != nil || got != s {
			t.Errorf("ParseSearch(%q) = %v, %v", s.String(), got, err)
		}
	}
	if _, err := ParseSearch("lsh"); err == nil {
		t.Error(`ParseSearch("lsh") accepted`)
	}
	if AutoSearch.Approx() || ExactSearch.Approx() || !ApproxSearch.Approx() {
		t.Error("approx() does not follow the search's rule")
	}
	x := toCSR(randomRows(rand.New(rand.NewPCG(1, 1)), 10, 5, 0.5, false))
	if _, err := Sparse(context.Background(), x, Options{Search: Search(7)}); err == nil {
		t.Error("Search(7) accepted")
	}
}

// BenchmarkSearch times the exact and the approximate 5-NN search on
// generated corpora of 20,000 and 50,000 documents (plantedCorpus: 20
// classes, 30,000 terms, 80 words a document).
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{20000, 50000} {
		a := plantedCorpus(50, n, 30000, 20, 80)
		for _, s := range []Search{ExactSearch, ApproxSearch} {
			b.Run(fmt.Sprintf("n=%d/%v", n, s), func(b *testing.B) {
				for b.Loop() {
					if _, err := Sparse(context.Background(), a, Options{Search: s, Seed: 1}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
