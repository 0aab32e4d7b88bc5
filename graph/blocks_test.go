package graph

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestCandidatesMatchSparse: the samples cut into query blocks, each
// offered every base block in a shuffled order, and their choices routed
// to the samples they point at, give Sparse's graph row for row, bit for
// bit: every weight, both rules, ties among copied samples, all-zero
// samples and stored zeros, one block or many.
func TestCandidatesMatchSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	a := toCSR(randomRows(rng, 61, 14, 0.3, false))
	a.Val[3] = 0 // a stored zero
	sq := SquaredNorms(a)
	for _, opt := range []Options{
		{},
		{Neighbors: 3, Weight: Cosine},
		{Neighbors: 4, Weight: Heat, HeatT: 0.7},
		{Neighbors: 5, Symmetry: Mutual},
		{Neighbors: 2, Weight: Cosine, Symmetry: Mutual, Search: ExactSearch},
	} {
		o := opt
		o.Search = ExactSearch
		want, err := Sparse(context.Background(), a, o)
		if err != nil {
			t.Fatal(err)
		}
		for _, blocks := range []int{1, 2, 5, 61} {
			bounds := func(b int) (int, int) { return b * 61 / blocks, (b + 1) * 61 / blocks }
			cands := make([]*Candidates, blocks)
			var edges []Edge
			for b := range cands {
				lo, hi := bounds(b)
				c, err := NewCandidates(lo, hi-lo, 61, opt)
				if err != nil {
					t.Fatal(err)
				}
				for _, v := range rng.Perm(blocks) {
					blo, bhi := bounds(v)
					if err := c.Offer(context.Background(), a.RowSlice(lo, hi), a.RowSlice(blo, bhi), blo, sq[blo:bhi], 1+b%3); err != nil {
						t.Fatal(err)
					}
				}
				c.Chosen(func(e Edge) { edges = append(edges, e) })
				cands[b] = c
			}
			rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
			for b, c := range cands {
				lo, hi := bounds(b)
				rows, err := c.Rows(edges, sq)
				if err != nil {
					t.Fatal(err)
				}
				if !rows.Equal(want.W.RowSlice(lo, hi)) {
					t.Fatalf("%+v, %d blocks: rows %d-%d differ from Sparse's", opt, blocks, lo, hi)
				}
				sums := rows.RowSums()
				for i, d := range sums {
					if d != want.Degree[lo+i] {
						t.Fatalf("%+v: degree of %d: %v, Sparse %v", opt, lo+i, d, want.Degree[lo+i])
					}
				}
			}
		}
	}
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Search: ApproxSearch}, "approximate"},
		{Options{MinShared: 1}, "shared"},
		{Options{Weight: Heat}, "width"},
		{Options{Neighbors: 61}, "needs at least 62 samples"},
	} {
		if _, err := NewCandidates(0, 10, 61, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}
