package graph

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/blockknn"
)

// TestCandidatesMatchSparse: through blockknn's hooks, the samples cut into blocks, each block's
// pairs met once (OfferPairs within it), each pair of blocks met once in
// a shuffled order, split in pieces as the last step of an even ring
// splits it, the base block's lists carried away and merged back
// (Encode, Decode, Merge), and the choices routed to the samples they
// point at, give Sparse's graph row for row, bit for bit: every weight,
// both rules, ties among copied samples, all-zero samples and stored
// zeros, one block or many, 1 to 3 threads.
func TestCandidatesMatchSparse(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	a := toCSR(randomRows(rng, 61, 14, 0.3, false))
	a.Val[3] = 0 // a stored zero
	sq := blockknn.SquaredNorms(a)
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
		for _, nb := range []int{1, 2, 5, 61} {
			bounds := func(b int) (int, int) { return b * 61 / nb, (b + 1) * 61 / nb }
			cands := make([]blockknn.Candidates, nb)
			for b := range cands {
				lo, hi := bounds(b)
				if cands[b], err = blockknn.New(lo, hi-lo, 61, opt); err != nil {
					t.Fatal(err)
				}
				own := a.RowSlice(lo, hi)
				if err := cands[b].OfferPairs(context.Background(), own, sq[lo:hi], 0, hi-lo, cands[b], own, sq[lo:hi], 0, hi-lo, 1+b%3); err != nil {
					t.Fatal(err)
				}
			}
			type pair struct{ b, v int }
			var pairs []pair
			for b := 0; b < nb; b++ {
				for v := b + 1; v < nb; v++ {
					pairs = append(pairs, pair{b, v})
				}
			}
			rng.Shuffle(len(pairs), func(i, j int) { pairs[i], pairs[j] = pairs[j], pairs[i] })
			for _, pr := range pairs {
				lo, hi := bounds(pr.b)
				vlo, vhi := bounds(pr.v)
				// v's lists travel: filled on lists of their own in three
				// pieces (the first rows of b against all of v, the rest
				// against v's second half, then its first), encoded,
				// decoded and merged into v's.
				trav, _ := blockknn.New(vlo, vhi-vlo, 61, opt)
				qb, vb := a.RowSlice(lo, hi), a.RowSlice(vlo, vhi)
				h, hv := (hi-lo)/2, (vhi-vlo)/2
				for _, r := range [][4]int{{0, h, 0, vhi - vlo}, {h, hi - lo, hv, vhi - vlo}, {h, hi - lo, 0, hv}} {
					if err := cands[pr.b].OfferPairs(context.Background(), qb, sq[lo:hi], r[0], r[1], trav, vb, sq[vlo:vhi], r[2], r[3], 1+pr.v%3); err != nil {
						t.Fatal(err)
					}
				}
				enc := trav.Encode()
				if len(enc) != trav.EncodedLen(vhi-vlo) {
					t.Fatalf("encoded %d values, EncodedLen says %d", len(enc), trav.EncodedLen(vhi-vlo))
				}
				cands[pr.v].Merge(cands[pr.v].Decode(enc, vlo, vhi-vlo))
			}
			var edges []blockknn.Edge
			for _, c := range cands {
				c.Chosen(func(e blockknn.Edge) { edges = append(edges, e) })
			}
			rng.Shuffle(len(edges), func(i, j int) { edges[i], edges[j] = edges[j], edges[i] })
			for b, c := range cands {
				lo, hi := bounds(b)
				rows, err := c.Rows(edges, sq)
				if err != nil {
					t.Fatal(err)
				}
				if !rows.Equal(want.W.RowSlice(lo, hi)) {
					t.Fatalf("%+v, %d blocks: rows %d-%d differ from Sparse's", opt, nb, lo, hi)
				}
				for i, d := range rows.RowSums() {
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
		if _, err := newBlocks(0, 10, 61, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.opt, err, c.want)
		}
	}
}
