package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/kernels"
	"github.com/manifactor/manifactor/sparse"
)

// Search is how Sparse and Dense find each sample's nearest neighbours.
// The zero value is AutoSearch.
type Search int

const (
	// AutoSearch is the search that is faster for the data's size. Today
	// that is ExactSearch at every size measured: on generated corpora of
	// 20,000 and 50,000 documents NN-descent took 4.3 times as long as
	// the exact search (BenchmarkSearch, bench/RESULTS.md), so auto does
	// not switch yet.
	AutoSearch Search = iota
	// ExactSearch compares every pair of samples (for sparse data, every
	// pair that shares a feature): quadratic in n.
	ExactSearch
	// ApproxSearch is NN-descent (Dong, Moses and Li, WWW 2011): each
	// sample's list is improved from its neighbours' neighbours until few
	// lists change, about n K^2 comparisons a round for lists of K.
	ApproxSearch
)

var searchNames = [...]string{AutoSearch: "auto", ExactSearch: "exact", ApproxSearch: "approx"}

// String returns the name ParseSearch accepts.
func (s Search) String() string {
	if s < 0 || int(s) >= len(searchNames) {
		return fmt.Sprintf("Search(%d)", int(s))
	}
	return searchNames[s]
}

// ParseSearch returns the search named s: "auto", "exact" or "approx".
func ParseSearch(s string) (Search, error) {
	for v, name := range searchNames {
		if s == name {
			return Search(v), nil
		}
	}
	return 0, fmt.Errorf("graph: unknown search %q (want auto, exact or approx)", s)
}

// MarshalText returns the search's name.
func (s Search) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a search's name.
func (s *Search) UnmarshalText(b []byte) error {
	v, err := ParseSearch(string(b))
	if err == nil {
		*s = v
	}
	return err
}

// Approx reports whether the search is NN-descent; AutoSearch is not
// (see AutoSearch).
func (s Search) Approx() bool {
	return s == ApproxSearch
}

// NN-descent's settings: lists of descentK(p) = 3p candidates while
// searching (longer lists than the p kept find the true neighbours far
// more often, as Dong et al. report: on TDT2's 5-NN graph, recall 0.966
// with 10, 0.987 with 15, 0.994 with 20, at 1.5x and 2x the time of 15),
// at most descentRounds rounds, a stop once a round changes fewer than
// descentDelta n K list entries, and at most descentSample K of a list's
// fresh entries joined per round.
const (
	descentRounds = 12
	descentDelta  = 0.001
	descentSample = 0.5
)

func descentK(p, n int) int {
	return min(3*p, n-1)
}

// metric is what NN-descent compares samples with: a worker loads a query
// sample, then scores candidates against it.
type metric interface {
	// scorer returns one worker's scorer.
	scorer() scorer
}

type scorer interface {
	// load makes sample i the query.
	load(i int)
	// score returns the key of candidate j for the loaded query (larger
	// is nearer) and the inner product, or ok false when j may not be a
	// neighbour (the sparse search's samples at no positive similarity).
	score(j int) (key, dot float64, ok bool)
	// unload undoes load.
	unload()
}

// sparseCosine ranks by cosine similarity, as Sparse does: a query's row
// is scattered into a dense accumulator, so a candidate costs one pass over
// its own stored entries.
type sparseCosine struct {
	a   *sparse.CSR
	inv []float64 // 1 / |a_i|, 0 for an all-zero sample
}

func (s *sparseCosine) scorer() scorer {
	return &sparseScorer{m: s, acc: make([]float64, s.a.Cols)}
}

type sparseScorer struct {
	m   *sparseCosine
	acc []float64
	q   int
}

func (s *sparseScorer) load(i int) {
	a := s.m.a
	s.q = i
	for r := a.Indptr[i]; r < a.Indptr[i+1]; r++ {
		s.acc[a.Ind[r]] = a.Val[r]
	}
}

func (s *sparseScorer) unload() {
	a := s.m.a
	for r := a.Indptr[s.q]; r < a.Indptr[s.q+1]; r++ {
		s.acc[a.Ind[r]] = 0
	}
}

func (s *sparseScorer) score(j int) (float64, float64, bool) {
	a := s.m.a
	var dot float64
	for r := a.Indptr[j]; r < a.Indptr[j+1]; r++ {
		dot += s.acc[a.Ind[r]] * a.Val[r]
	}
	key := dot * s.m.inv[s.q] * s.m.inv[j]
	return key, dot, key > 0
}

// denseEuclid ranks by Euclidean distance, as Dense does (key: the negated
// squared distance).
type denseEuclid struct {
	a  blas64.General
	sq []float64
}

func (d *denseEuclid) scorer() scorer { return &denseScorer{m: d} }

type denseScorer struct {
	m   *denseEuclid
	row []float64
	q   int
}

func (d *denseScorer) load(i int) {
	a := d.m.a
	d.q, d.row = i, a.Data[i*a.Stride:i*a.Stride+a.Cols]
}

func (d *denseScorer) unload() {}

func (d *denseScorer) score(j int) (float64, float64, bool) {
	a := d.m.a
	dot := kernels.Dot(d.row, a.Data[j*a.Stride:j*a.Stride+a.Cols])
	return -max(0, d.m.sq[d.q]+d.m.sq[j]-2*dot), dot, true
}

// klists holds NN-descent's lists: sample i's are the first cnt[i] of
// idx[i*k : (i+1)*k], best first (key descending, then index ascending),
// fresh marking the entries that entered in the last round.
type klists struct {
	k     int
	cnt   []int
	idx   []int
	key   []float64
	dot   []float64
	fresh []bool
}

func newKLists(n, k int) *klists {
	return &klists{k: k, cnt: make([]int, n), idx: make([]int, n*k), key: make([]float64, n*k),
		dot: make([]float64, n*k), fresh: make([]bool, n*k)}
}

// offer inserts candidate j into i's list if it ranks among the k best,
// and reports whether it did. The caller ensures j is not in the list.
func (l *klists) offer(i, j int, key, dot float64) bool {
	base, c := i*l.k, l.cnt[i]
	if c == l.k {
		last := base + c - 1
		if key < l.key[last] || key == l.key[last] && j > l.idx[last] {
			return false
		}
		c--
	} else {
		l.cnt[i]++
	}
	r := base + c
	for ; r > base && (l.key[r-1] < key || l.key[r-1] == key && l.idx[r-1] > j); r-- {
		l.idx[r], l.key[r], l.dot[r], l.fresh[r] = l.idx[r-1], l.key[r-1], l.dot[r-1], l.fresh[r-1]
	}
	l.idx[r], l.key[r], l.dot[r], l.fresh[r] = j, key, dot, true
	return true
}

// descentWork is one worker's space: a scorer and the stamps that mark
// the samples already considered for the current query.
type descentWork struct {
	sc    scorer
	stamp []int32
}

// nnDescent returns the p best neighbours of each of n samples under m,
// found by NN-descent. Each round every sample's new list is computed
// from the previous round's lists only (its own, and the neighbours' and
// reverse neighbours' of its neighbours and reverse neighbours), so rounds
// are Jacobi-like and the lists do not depend on how samples are split
// among threads; the start draws each sample's random candidates from its
// own stream of seed. init, when not nil, offers a sample's first
// candidates (before the random ones).
func nnDescent(ctx context.Context, n, p int, m metric, seed uint64, threads int, init func(i int, offer func(j int))) (*lists, error) {
	k := descentK(p, n)
	if int64(descentRounds+2)*int64(n) >= math.MaxInt32 {
		return nil, fmt.Errorf("graph: %d samples: the approximate search supports fewer than %d", n, math.MaxInt32/(descentRounds+2))
	}
	cur, next := newKLists(n, k), newKLists(n, k)
	workers := parallel.Workers(n, threads, 64)
	work := make([]*descentWork, workers)
	for w := range work {
		work[w] = &descentWork{sc: m.scorer(), stamp: make([]int32, n)}
	}
	// The start: init's candidates, then random ones, k tries' worth.
	parallel.ForWorker(n, threads, 64, func(worker, lo, hi int) {
		w := work[worker]
		for i := lo; i < hi; i++ {
			mark := int32(i + 1)
			w.stamp[i] = mark
			w.sc.load(i)
			try := func(j int) {
				if w.stamp[j] == mark {
					return
				}
				w.stamp[j] = mark
				if key, dot, ok := w.sc.score(j); ok {
					cur.offer(i, j, key, dot)
				}
			}
			if init != nil {
				init(i, try)
			}
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			if 2*k >= n-1 {
				// Small n: every other sample, in a random order.
				for _, j := range rng.Perm(n) {
					try(j)
				}
			} else {
				for t := 0; t < 2*k; t++ {
					try(rng.IntN(n))
				}
			}
			w.sc.unload()
		}
	})
	sampled := max(1, int(descentSample*float64(k)))
	revStart := make([]int, n+1)
	var rev []int
	var revFresh []bool
	var revKey []float64
	for round := 0; round < descentRounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Reverse lists: who lists v, at most k of them (the nearest,
		// by the lister's key), in a fixed order.
		clear(revStart)
		for i := 0; i < n; i++ {
			for r := i * k; r < i*k+cur.cnt[i]; r++ {
				revStart[cur.idx[r]+1]++
			}
		}
		for v := 0; v < n; v++ {
			revStart[v+1] += revStart[v]
		}
		total := revStart[n]
		if cap(rev) < total {
			rev, revFresh, revKey = make([]int, total), make([]bool, total), make([]float64, total)
		}
		rev, revFresh, revKey = rev[:total], revFresh[:total], revKey[:total]
		fill := slices.Clone(revStart[:n])
		for i := 0; i < n; i++ {
			for r := i * k; r < i*k+cur.cnt[i]; r++ {
				v := cur.idx[r]
				q := fill[v]
				rev[q], revFresh[q], revKey[q] = i, cur.fresh[r], cur.key[r]
				fill[v]++
			}
		}
		revCnt := make([]int, n)
		parallel.For(n, threads, 256, func(lo, hi int) {
			for v := lo; v < hi; v++ {
				s, e := revStart[v], revStart[v+1]
				if e-s > k {
					ord := bestFirst(s, e, revKey, rev)
					ids, fr := make([]int, k), make([]bool, k)
					for t := 0; t < k; t++ {
						ids[t], fr[t] = rev[ord[t]], revFresh[ord[t]]
					}
					copy(rev[s:], ids)
					copy(revFresh[s:], fr)
					e = s + k
				}
				revCnt[v] = e - s
			}
		})
		// each calls fn(u, fresh) for the members of B(v): v's list and
		// its reverse list, fresh saying whether the link entered in the
		// last round and is among the first sampled fresh ones of its
		// list (Dong et al.'s sampling: the rest wait for a later round).
		each := func(v int, fn func(u int, fresh bool)) {
			seen := 0
			for r := v * k; r < v*k+cur.cnt[v]; r++ {
				f := cur.fresh[r] && seen < sampled
				if cur.fresh[r] {
					seen++
				}
				fn(cur.idx[r], f)
			}
			seen = 0
			for q := revStart[v]; q < revStart[v]+revCnt[v]; q++ {
				f := revFresh[q] && seen < sampled
				if revFresh[q] {
					seen++
				}
				fn(rev[q], f)
			}
		}
		changes := make([]int, n)
		parallel.ForWorker(n, threads, 64, func(worker, lo, hi int) {
			w := work[worker]
			for i := lo; i < hi; i++ {
				// next starts as i's current list, all of it old.
				base, c := i*k, cur.cnt[i]
				next.cnt[i] = c
				copy(next.idx[base:base+c], cur.idx[base:base+c])
				copy(next.key[base:base+c], cur.key[base:base+c])
				copy(next.dot[base:base+c], cur.dot[base:base+c])
				// Its entries sampled this round become old; fresh ones
				// past the sample stay fresh.
				seen := 0
				for r := base; r < base+c; r++ {
					next.fresh[r] = cur.fresh[r] && seen >= sampled
					if cur.fresh[r] {
						seen++
					}
				}
				// A new stamp per round and sample: round r of sample i
				// marks with (r + 1) n + i + 1, after the start's i + 1.
				mark := int32((round+1)*n + i + 1)
				w.stamp[i] = mark
				for r := base; r < base+c; r++ {
					w.stamp[cur.idx[r]] = mark
				}
				w.sc.load(i)
				each(i, func(v int, freshIV bool) {
					each(v, func(u int, freshVU bool) {
						if !freshIV && !freshVU || w.stamp[u] == mark {
							return
						}
						w.stamp[u] = mark
						if key, dot, ok := w.sc.score(u); ok && next.offer(i, u, key, dot) {
							changes[i]++
						}
					})
				})
				w.sc.unload()
			}
		})
		cur, next = next, cur
		var changed int
		for _, c := range changes {
			changed += c
		}
		if float64(changed) <= descentDelta*float64(n*k) {
			break
		}
	}
	out := newLists(n, p)
	for i := 0; i < n; i++ {
		for r := i * k; r < i*k+min(p, cur.cnt[i]); r++ {
			out.insert(i, cur.key[r], cur.idx[r], cur.dot[r])
		}
	}
	return out, nil
}

// bestFirst returns the positions s..e-1 ordered by key descending, ties
// by id ascending.
func bestFirst(s, e int, key []float64, id []int) []int {
	ord := make([]int, e-s)
	for t := range ord {
		ord[t] = s + t
	}
	slices.SortFunc(ord, func(x, y int) int {
		switch {
		case key[x] > key[y]:
			return -1
		case key[x] < key[y]:
			return 1
		}
		return id[x] - id[y]
	})
	return ord
}

// sparseInit offers sample i the samples that weigh most on its rarest
// features: a pruned inverted index keeps, for each feature held by at
// least two samples, the perCol samples of largest value (ties to the
// lower index), and sample i takes them from its features in increasing
// order of document frequency until it has offered 2 k candidates.
func sparseInit(a *sparse.CSR, k int) func(i int, offer func(j int)) {
	n, m := a.Dims()
	perCol := max(k, 8)
	df := make([]int, m)
	for _, f := range a.Ind {
		df[f]++
	}
	// Columns of a as lists of (sample, value), then pruned.
	start := make([]int, m+1)
	for f, d := range df {
		start[f+1] = start[f] + d
	}
	who := make([]int, len(a.Ind))
	val := make([]float64, len(a.Ind))
	fill := slices.Clone(start[:m])
	for i := 0; i < n; i++ {
		for r := a.Indptr[i]; r < a.Indptr[i+1]; r++ {
			f := a.Ind[r]
			who[fill[f]], val[fill[f]] = i, a.Val[r]
			fill[f]++
		}
	}
	keep := make([]int, m+1) // pruned postings: who[start[f] : start[f]+keep[f]]
	for f := 0; f < m; f++ {
		s, e := start[f], start[f+1]
		if e-s < 2 {
			continue
		}
		if e-s > perCol {
			ord := bestFirst(s, e, val, who)
			ids := make([]int, perCol)
			for t := range ids {
				ids[t] = who[ord[t]]
			}
			copy(who[s:], ids)
			e = s + perCol
		}
		keep[f] = e - s
	}
	return func(i int, offer func(j int)) {
		feats := slices.Clone(a.Ind[a.Indptr[i]:a.Indptr[i+1]])
		slices.SortFunc(feats, func(x, y int) int {
			if df[x] != df[y] {
				return df[x] - df[y]
			}
			return x - y
		})
		offered := 0
		for _, f := range feats {
			for _, j := range who[start[f] : start[f]+keep[f]] {
				if j != i {
					offer(j)
					offered++
				}
			}
			if offered >= 2*k {
				return
			}
		}
	}
}
