package graph

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/sparse"
)

// bruteLinks is the reference: for each query row, the p base rows of
// highest cosine (sparse: positive only) or lowest distance (dense), ties
// to the lower index, weighted as w says.
func bruteLinks(base, query [][]float64, p int, wt Weight, t float64, sparseRule bool) map[[2]int]float64 {
	out := map[[2]int]float64{}
	for i, q := range query {
		type cand struct {
			j        int
			key, dot float64
		}
		var cs []cand
		for j, b := range base {
			var dot, nq, nb float64
			for f := range q {
				dot += q[f] * b[f]
				nq += q[f] * q[f]
				nb += b[f] * b[f]
			}
			if sparseRule {
				if dot <= 0 || nb == 0 {
					continue
				}
				cs = append(cs, cand{j, dot / math.Sqrt(nb), dot})
			} else {
				cs = append(cs, cand{j, -max(0, nq+nb-2*dot), dot})
			}
		}
		for a := 0; a < p && a < len(cs); a++ {
			best := a
			for b := a + 1; b < len(cs); b++ {
				if cs[b].key > cs[best].key || cs[b].key == cs[best].key && cs[b].j < cs[best].j {
					best = b
				}
			}
			cs[a], cs[best] = cs[best], cs[a]
			c := cs[a]
			var nq, nb float64
			for f := range q {
				nq += q[f] * q[f]
				nb += base[c.j][f] * base[c.j][f]
			}
			var w float64
			switch wt {
			case Binary:
				w = 1
			case Cosine:
				if c.dot > 0 && nq*nb > 0 {
					w = c.dot / math.Sqrt(nq*nb)
				}
			case Heat:
				w = math.Exp(-max(0, nq+nb-2*c.dot) / (2 * t * t))
			}
			if w > 0 {
				out[[2]int{i, c.j}] = w
			}
		}
	}
	return out
}

func TestLinksMatchBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := 0; trial < 6; trial++ {
		base, query := randomRows(rng, 40, 12, 0.3, false), randomRows(rng, 9, 12, 0.3, false)
		query[0] = make([]float64, 12) // an all-zero new sample gets no links
		copy(query[1], base[3])        // an exact copy of a base sample
		for _, wt := range []Weight{Binary, Heat, Cosine} {
			opt := Options{Neighbors: 4, Weight: wt, HeatT: 0.7, Threads: 1 + trial%3}
			for _, sp := range []bool{true, false} {
				var got *sparse.CSR
				var err error
				if sp {
					got, err = SparseLinks(context.Background(), toCSR(base), toCSR(query), nil, opt)
				} else {
					got, err = DenseLinks(context.Background(), toDense(base), toDense(query), nil, opt)
				}
				if err != nil {
					t.Fatal(err)
				}
				want := bruteLinks(base, query, 4, wt, 0.7, sp)
				if got.NNZ() != len(want) {
					t.Fatalf("trial %d %v sparse=%v: %d links, want %d", trial, wt, sp, got.NNZ(), len(want))
				}
				for key, w := range want {
					if g := got.At(key[0], key[1]); math.Abs(g-w) > 1e-12*math.Max(1, w) {
						t.Fatalf("trial %d %v sparse=%v: link %v = %v, want %v", trial, wt, sp, key, g, w)
					}
				}
			}
		}
	}
}

func TestLinksBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	base, query := randomRows(rng, 5, 4, 0.8, false), randomRows(rng, 2, 3, 0.8, false)
	if _, err := SparseLinks(context.Background(), toCSR(base), toCSR(query), nil, Options{}); err == nil || !strings.Contains(err.Error(), "features") {
		t.Errorf("feature mismatch: %v", err)
	}
	query = randomRows(rng, 2, 4, 0.8, false)
	if _, err := SparseLinks(context.Background(), toCSR(base), toCSR(query), nil, Options{Neighbors: 6}); err == nil || !strings.Contains(err.Error(), "among 5 base") {
		t.Errorf("p > base: %v", err)
	}
	q := toDense(query)
	q.Set(1, 2, math.NaN())
	if _, err := DenseLinks(context.Background(), toDense(base), q, nil, Options{Neighbors: 2}); err == nil || !strings.Contains(err.Error(), "not finite") {
		t.Errorf("NaN: %v", err)
	}
}

// TestLinksWithReach: with the base graph's Reach, a new sample's links
// are its row of the graph built on the base samples and it together, for
// both symmetry rules, sparse and dense, exact and approximate search:
// the base samples that would have chosen it are joined as well as those
// it chooses.
func TestLinksWithReach(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 3))
	for _, sparseRule := range []bool{true, false} {
		for _, sym := range []Symmetry{Either, Mutual} {
			for trial := 0; trial < 6; trial++ {
				x := randomRows(rng, 61, 12, 0.4, false)
				base, query := x[:60], x[60:]
				opt := Options{Neighbors: 4, Weight: Binary, Symmetry: sym, Search: ExactSearch}
				if sparseRule {
					opt.Weight = Cosine
				} else {
					// Each dense metric in turn.
					opt.Metric = []Metric{EuclideanMetric, CosineMetric, CorrelationMetric}[trial%3]
				}
				var g, whole *Graph
				var links *sparse.CSR
				var err error
				if sparseRule {
					if g, err = Sparse(context.Background(), toCSR(base), opt); err == nil {
						if whole, err = Sparse(context.Background(), toCSR(x), opt); err == nil {
							links, err = SparseLinks(context.Background(), toCSR(base), toCSR(query), g.Reach, opt)
						}
					}
				} else {
					if g, err = Dense(context.Background(), toDense(base), opt); err == nil {
						if whole, err = Dense(context.Background(), toDense(x), opt); err == nil {
							links, err = DenseLinks(context.Background(), toDense(base), toDense(query), g.Reach, opt)
						}
					}
				}
				if err != nil {
					t.Fatal(err)
				}
				if len(g.Reach) != 60 {
					t.Fatalf("%d reaches for 60 samples", len(g.Reach))
				}
				want := map[int]float64{}
				for q := whole.W.Indptr[60]; q < whole.W.Indptr[61]; q++ {
					want[whole.W.Ind[q]] = whole.W.Val[q]
				}
				got := map[int]float64{}
				for q := links.Indptr[0]; q < links.Indptr[1]; q++ {
					got[links.Ind[q]] = links.Val[q]
				}
				if len(got) != len(want) {
					t.Fatalf("sparse %v, %v, trial %d: links %v, the whole graph's row %v", sparseRule, sym, trial, got, want)
				}
				for j, w := range want {
					if math.Abs(got[j]-w) > 1e-12 {
						t.Fatalf("sparse %v, %v, trial %d: link to %d weighs %v, the whole graph's edge %v", sparseRule, sym, trial, j, got[j], w)
					}
				}
			}
		}
	}
	// A base sample queried again stands for itself: its links are its
	// row of the graph.
	for _, sparseRule := range []bool{true, false} {
		for _, sym := range []Symmetry{Either, Mutual} {
			// No two samples the same (randomRows makes some rows zero;
			// a copy would stand for the first of them).
			base := make([][]float64, 50)
			for i := range base {
				base[i] = make([]float64, 10)
				for f := range base[i] {
					if rng.Float64() < 0.5 {
						base[i][f] = 0.01 + rng.Float64()
					}
				}
				base[i][i%10] = 1
			}
			opt := Options{Neighbors: 5, Weight: Binary, Symmetry: sym}
			var g *Graph
			var links *sparse.CSR
			var err error
			if sparseRule {
				if g, err = Sparse(context.Background(), toCSR(base), opt); err == nil {
					links, err = SparseLinks(context.Background(), toCSR(base), toCSR(base), g.Reach, opt)
				}
			} else if g, err = Dense(context.Background(), toDense(base), opt); err == nil {
				links, err = DenseLinks(context.Background(), toDense(base), toDense(base), g.Reach, opt)
			}
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(links.Indptr, g.W.Indptr) || !slices.Equal(links.Ind, g.W.Ind) || !slices.Equal(links.Val, g.W.Val) {
				t.Errorf("sparse %v, %v: the base samples' links are not the graph", sparseRule, sym)
			}
		}
	}
	if _, err := SparseLinks(context.Background(), toCSR([][]float64{{1, 0}, {0, 1}}), toCSR([][]float64{{1, 1}}), []float64{1}, Options{Neighbors: 1}); err == nil || !strings.Contains(err.Error(), "1 reaches for 2") {
		t.Errorf("a reach per base sample missing: %v", err)
	}
}
