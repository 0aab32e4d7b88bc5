package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Search is how Sparse and Dense find each sample's nearest neighbours.
// The zero value is AutoSearch.
type Search int

const (
	// AutoSearch is the search expected to be faster for the data. For
	// sparse data the exact search's work is the number of pairs of
	// samples sharing a feature, sum_f df_f^2 / 2, and NN-descent's is
	// proportional to the stored entries, each far dearer than a pair;
	// auto runs NN-descent when the first exceeds autoPairsPerEntry times
	// the number of entries, a ratio between the one at which the two took
	// the same time on generated corpora and one at which NN-descent was
	// the faster (TDT2 has 207 pairs per entry; measured:
	// docs/PERFORMANCE.md). For dense data auto is the exact search, whose
	// products are BLAS matrix products; on the largest dense data
	// measured either search is quick.
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

// String returns the name UnmarshalText accepts.
func (s Search) String() string {
	if s < 0 || int(s) >= len(searchNames) {
		return fmt.Sprintf("Search(%d)", int(s))
	}
	return searchNames[s]
}

// parseSearch returns the search named s: "auto", "exact" or "approx".
func parseSearch(s string) (Search, error) {
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
	v, err := parseSearch(string(b))
	if err == nil {
		*s = v
	}
	return err
}

// autoPairsPerEntry is where AutoSearch switches sparse data to
// NN-descent (see AutoSearch).
const autoPairsPerEntry = 800

// ForSparse returns the search that Sparse runs on a for s: ExactSearch
// or ApproxSearch, AutoSearch resolved as its doc says.
func (s Search) ForSparse(a *sparse.CSR) Search {
	if s != AutoSearch {
		return s
	}
	var pairs float64
	for _, d := range a.ColNNZ() {
		pairs += float64(d) * float64(d-1) / 2
	}
	if pairs > autoPairsPerEntry*float64(len(a.Ind)) {
		return ApproxSearch
	}
	return ExactSearch
}

// ForDense returns the search that Dense runs for s: AutoSearch is
// ExactSearch.
func (s Search) ForDense() Search {
	if s == AutoSearch {
		return ExactSearch
	}
	return s
}

// NN-descent's settings: lists of descentK(p) = 3p candidates while
// searching (longer lists than the p kept find the true neighbours far
// more often, as Dong et al. report: on TDT2's 5-NN graph, recall 0.966
// with 10, 0.987 with 15, 0.994 with 20, but at markedly more time than
// 15), at most descentRounds rounds, a stop once a round changes fewer
// than descentDelta n K list entries, and at most descentSample K of a
// list's fresh entries joined per round.
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
	// scorer returns one worker's scorer for the search.
	scorer() scorer
	// exact returns one worker's scorer for the final lists: the search's
	// keys may be rounded (sparseCosine's are), these are the ones the
	// exact search computes.
	exact() scorer
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
	// prefetch starts loading what score(near) reads first and the row
	// start of far, a later candidate; -1 is none. It changes nothing.
	prefetch(near, far int)
}

// sparseCosine ranks by cosine similarity, as Sparse does. The search
// scores a compact copy of the data: values scaled to unit rows and held
// as float32, features renumbered by decreasing document frequency and
// held as int32. A query's row is scattered into a dense accumulator and a
// candidate costs one pass over its own stored entries; the accumulator's
// entries for the common features, which nearly every candidate touches,
// then share a few cache lines, and a candidate's row is half the bytes.
// This made the search markedly faster than float64 values in the
// original order (measured: docs/PERFORMANCE.md). The rounding only
// reorders near ties while searching: the final lists are rescored from
// the data as given.
type sparseCosine struct {
	a   *sparse.CSR
	inv []float64 // 1 / |a_i|, 0 for an all-zero sample

	indptr []int
	ind    []int32
	val    []float32
}

func newSparseCosine(a *sparse.CSR, inv []float64, threads int) *sparseCosine {
	n, m := a.Dims()
	df := a.ColNNZ()
	ord := make([]int32, m)
	for f := range ord {
		ord[f] = int32(f)
	}
	slices.SortFunc(ord, func(x, y int32) int {
		if df[x] != df[y] {
			return df[y] - df[x]
		}
		return int(x - y)
	})
	rank := make([]int32, m)
	s := &sparseCosine{a: a, inv: inv, indptr: a.Indptr, ind: make([]int32, len(a.Ind)), val: make([]float32, len(a.Val))}
	for r, f := range ord {
		rank[f] = int32(r)
	}
	parallel.For(n, threads, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for r := a.Indptr[i]; r < a.Indptr[i+1]; r++ {
				s.ind[r], s.val[r] = rank[a.Ind[r]], float32(a.Val[r]*inv[i])
			}
		}
	})
	return s
}

func (s *sparseCosine) scorer() scorer {
	return &compactScorer{m: s, acc: make([]float32, s.a.Cols)}
}

func (s *sparseCosine) exact() scorer {
	return &sparseScorer{m: s, acc: make([]float64, s.a.Cols)}
}

// compactScorer scores the compact copy.
type compactScorer struct {
	m   *sparseCosine
	acc []float32
	q   int
}

func (s *compactScorer) load(i int) {
	m := s.m
	s.q = i
	for r := m.indptr[i]; r < m.indptr[i+1]; r++ {
		s.acc[m.ind[r]] = m.val[r]
	}
}

func (s *compactScorer) unload() {
	m := s.m
	for r := m.indptr[s.q]; r < m.indptr[s.q+1]; r++ {
		s.acc[m.ind[r]] = 0
	}
}

// prefetch: a candidate's row is somewhere in the whole corpus, and
// scoring one waited on memory for much of the search's time on large
// corpora (a profile), so the search names its candidates ahead.
func (s *compactScorer) prefetch(near, far int) {
	m := s.m
	if far >= 0 {
		asm.PrefetchInt(m.indptr, far)
	}
	if near >= 0 {
		asm.PrefetchRow32(m.ind, m.val, m.indptr[near], m.indptr[near+1])
	}
}

func (s *compactScorer) score(j int) (float64, float64, bool) {
	m := s.m
	lo, hi := m.indptr[j], m.indptr[j+1]
	ind, val := m.ind[lo:hi], m.val[lo:hi]
	acc := s.acc
	// Four sums, so that the additions do not wait for each other.
	var d0, d1, d2, d3 float32
	r := 0
	for ; r+4 <= len(ind); r += 4 {
		d0 += acc[ind[r]] * val[r]
		d1 += acc[ind[r+1]] * val[r+1]
		d2 += acc[ind[r+2]] * val[r+2]
		d3 += acc[ind[r+3]] * val[r+3]
	}
	for ; r < len(ind); r++ {
		d0 += acc[ind[r]] * val[r]
	}
	dot := (d0 + d1) + (d2 + d3)
	return float64(dot), 0, dot > 0
}

// sparseScorer scores the data as given, in float64.
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

// prefetch does nothing: the exact scores are the final pass's, a few
// per sample.
func (s *sparseScorer) prefetch(near, far int) {}

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

// exact is the search's scorer: its keys are exact already.
func (d *denseEuclid) exact() scorer { return d.scorer() }

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

func (d *denseScorer) prefetch(near, far int) {}

func (d *denseScorer) score(j int) (float64, float64, bool) {
	a := d.m.a
	dot := asm.Dot(d.row, a.Data[j*a.Stride:j*a.Stride+a.Cols])
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
	fresh []bool
}

func newKLists(n, k int) *klists {
	return &klists{k: k, cnt: make([]int, n), idx: make([]int, n*k), key: make([]float64, n*k),
		fresh: make([]bool, n*k)}
}

// offer inserts candidate j into i's list if it ranks among the k best,
// and reports whether it did. The caller ensures j is not in the list.
func (l *klists) offer(i, j int, key float64) bool {
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
		l.idx[r], l.key[r], l.fresh[r] = l.idx[r-1], l.key[r-1], l.fresh[r-1]
	}
	l.idx[r], l.key[r], l.fresh[r] = j, key, true
	return true
}

// descentWork is one worker's space: a scorer and the stamps that mark
// the samples already considered for the current query.
type descentWork struct {
	sc    scorer
	stamp []int32
	cands []int // a sample's candidates in the start or a round, in the order scored
}

// joins is one round's view of the lists for the local join. B(v) is
// sample v's list followed by its reverse list (the samples that list v),
// and a link is fresh this round when it entered in the last round and is
// among the first sampled fresh ones of its list (Dong et al.'s sampling:
// the rest wait for a later round).
type joins struct {
	k, sampled int
	cur        *klists
	// The reverse lists: rev[revStart[v]:][:revCnt[v]], with revFresh.
	revStart, revCnt, rev []int
	revFresh              []bool
	// B(v)'s fresh members in B(v)'s order: fresh[v*2*sampled:][:freshCnt[v]].
	fresh, freshCnt []int32
}

// each calls fn(u, fresh) for the members u of B(v) in order.
func (j *joins) each(v int, fn func(u int, fresh bool)) {
	cur, k := j.cur, j.k
	seen := 0
	for r := v * k; r < v*k+cur.cnt[v]; r++ {
		f := cur.fresh[r] && seen < j.sampled
		if cur.fresh[r] {
			seen++
		}
		fn(cur.idx[r], f)
	}
	seen = 0
	for q := j.revStart[v]; q < j.revStart[v]+j.revCnt[v]; q++ {
		f := j.revFresh[q] && seen < j.sampled
		if j.revFresh[q] {
			seen++
		}
		fn(j.rev[q], f)
	}
}

// collectFresh fills fresh and freshCnt for the round's lists.
func (j *joins) collectFresh(threads int) {
	n, stride := len(j.cur.cnt), 2*j.sampled
	if len(j.freshCnt) != n {
		j.fresh, j.freshCnt = make([]int32, n*stride), make([]int32, n)
	}
	parallel.For(n, threads, 256, func(lo, hi int) {
		for v := lo; v < hi; v++ {
			f := j.fresh[v*stride : (v+1)*stride]
			c := 0
			j.each(v, func(u int, fr bool) {
				if fr {
					f[c] = int32(u)
					c++
				}
			})
			j.freshCnt[v] = int32(c)
		}
	})
}

// candidates appends to cands sample i's candidates of the round, the
// members u of B(v) for each v in B(i) where the link i-v or v-u is
// fresh, in that order, each once: a sample whose stamp is mark is
// skipped, and one appended gets the stamp mark. It gives what the plain
// double loop over each would (TestJoinCandidates), but where i-v is old
// it reads only B(v)'s fresh members: after the first rounds most links
// are old, and walking all of B(v) for each v took a large part of a
// round's time on large corpora.
func (j *joins) candidates(i int, stamp []int32, mark int32, cands []int) []int {
	add := func(u int) {
		if stamp[u] != mark {
			stamp[u] = mark
			cands = append(cands, u)
		}
	}
	cur, k, stride := j.cur, j.k, 2*j.sampled
	j.each(i, func(v int, freshIV bool) {
		if !freshIV {
			for _, u := range j.fresh[v*stride : v*stride+int(j.freshCnt[v])] {
				add(int(u))
			}
			return
		}
		for r := v * k; r < v*k+cur.cnt[v]; r++ {
			add(cur.idx[r])
		}
		for q := j.revStart[v]; q < j.revStart[v]+j.revCnt[v]; q++ {
			add(j.rev[q])
		}
	})
	return cands
}

// scoreAll scores the candidates cands of sample i in order, calling fn
// with each one's key that may be a neighbour, and prefetches the rows of
// the candidates ahead of the one being scored.
func (w *descentWork) scoreAll(i int, cands []int, fn func(j int, key float64)) {
	at := func(c int) int { // -1 past the end
		if c < len(cands) {
			return cands[c]
		}
		return -1
	}
	w.sc.load(i)
	// From prefetchAhead steps before the first candidate, so that the
	// first ones are on their way too.
	for c := -prefetchAhead; c < len(cands); c++ {
		w.sc.prefetch(at(c+prefetchAhead), at(c+2*prefetchAhead))
		if c < 0 {
			continue
		}
		if key, _, ok := w.sc.score(cands[c]); ok {
			fn(cands[c], key)
		}
	}
	w.sc.unload()
}

// prefetchAhead is how many candidates ahead scoreAll prefetches a row
// (and twice as many ahead, the row's start).
const prefetchAhead = 2

// nnDescent returns the p best neighbours of each of n samples under m,
// found by NN-descent. Each round every sample's new list is computed
// from the previous round's lists only (its own, and the neighbours' and
// reverse neighbours' of its neighbours and reverse neighbours), so rounds
// are Jacobi-like and the lists do not depend on how samples are split
// among threads; the start draws each sample's random candidates from its
// own stream of seed. newInit, when not nil, returns for each worker a
// function that offers a sample's first candidates (before the random
// ones, drawn only where these leave the list short, or where every
// sample is tried). progressFn is Options.Progress.
func nnDescent(ctx context.Context, n, p int, m metric, seed uint64, threads int, newInit func() func(i int, offer func(j int)), progressFn func(done, total int)) (*lists, error) {
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
	// The start: init's candidates, then, where they leave the list
	// short, random ones, 2k tries' worth.
	pr := newProgress(progressFn, n*(descentRounds+1))
	inits := make([]func(i int, offer func(j int)), workers)
	parallel.ForWorker(n, threads, 64, func(worker, lo, hi int) {
		w := work[worker]
		if newInit != nil && inits[worker] == nil {
			inits[worker] = newInit()
		}
		init := inits[worker]
		for i := lo; i < hi; i++ {
			mark := int32(i + 1)
			w.stamp[i] = mark
			cands := w.cands[:0]
			try := func(j int) {
				if w.stamp[j] == mark {
					return
				}
				w.stamp[j] = mark
				cands = append(cands, j)
			}
			if init != nil {
				init(i, try)
			}
			all := 2*k >= n-1
			if all {
				// Small n: every other sample, in a random order.
				rng := rand.New(rand.NewPCG(seed, uint64(i)))
				for _, j := range rng.Perm(n) {
					try(j)
				}
			}
			// The list does not depend on the order of the offers.
			offer := func(j int, key float64) { cur.offer(i, j, key) }
			w.scoreAll(i, cands, offer)
			if !all && cur.cnt[i] < k {
				// Random candidates fill in where init's candidates left
				// the list short: drawn for every sample, they rarely
				// entered a list on large corpora and cost a noticeable
				// part of the search (measured: docs/PERFORMANCE.md).
				cands = cands[:0]
				rng := rand.New(rand.NewPCG(seed, uint64(i)))
				for t := 0; t < 2*k; t++ {
					try(rng.IntN(n))
				}
				w.scoreAll(i, cands, offer)
			}
			w.cands = cands
		}
		pr.add(hi - lo)
	})
	sampled := max(1, int(descentSample*float64(k)))
	var revStart, rev []int
	var revFresh []bool
	var revKey []float64
	jn := &joins{k: k, sampled: sampled}
	for round := 0; round < descentRounds; round++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Reverse lists: who lists v, at most k of them (the nearest,
		// by the lister's key), in a fixed order.
		total := n * k // at most; rev's slots past revStart[n] stay unused
		if cap(rev) < total {
			rev, revFresh, revKey = make([]int, total), make([]bool, total), make([]float64, total)
		}
		rev, revFresh, revKey = rev[:total], revFresh[:total], revKey[:total]
		revStart = bucketFill(n, n, func(i int) (int, int) { return i * k, i*k + cur.cnt[i] },
			func(r int) int { return cur.idx[r] },
			func(q, i, r int) { rev[q], revFresh[q], revKey[q] = i, cur.fresh[r], cur.key[r] }, threads)
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
		jn.cur, jn.revStart, jn.revCnt, jn.rev, jn.revFresh = cur, revStart, revCnt, rev, revFresh
		jn.collectFresh(threads)
		changes := make([]int, n)
		parallel.ForWorker(n, threads, 64, func(worker, lo, hi int) {
			w := work[worker]
			for i := lo; i < hi; i++ {
				// next starts as i's current list, all of it old.
				base, c := i*k, cur.cnt[i]
				next.cnt[i] = c
				copy(next.idx[base:base+c], cur.idx[base:base+c])
				copy(next.key[base:base+c], cur.key[base:base+c])
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
				// The candidates first, then their scores in the same
				// order, so that the rows of the next ones can be
				// prefetched while one is scored.
				cands := jn.candidates(i, w.stamp, mark, w.cands[:0])
				w.scoreAll(i, cands, func(j int, key float64) {
					if next.offer(i, j, key) {
						changes[i]++
					}
				})
				w.cands = cands
			}
			pr.add(hi - lo)
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
	// The final lists: the p best of each sample's k by the exact keys.
	out := newLists(n, p)
	exact := make([]scorer, workers)
	for w := range exact {
		exact[w] = m.exact()
	}
	parallel.ForWorker(n, threads, 64, func(worker, lo, hi int) {
		sc := exact[worker]
		for i := lo; i < hi; i++ {
			sc.load(i)
			for r := i * k; r < i*k+cur.cnt[i]; r++ {
				j := cur.idx[r]
				key, dot, ok := sc.score(j)
				if !ok {
					continue
				}
				if out.beats(i, key, j) {
					out.insert(i, key, j, dot)
				}
			}
			sc.unload()
		}
	})
	pr.finish()
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

// perColumn is how many samples the pruned index keeps per feature (of
// those in at least 2 samples, with df(f) samples each): at least max(k,
// 8), and more where that would name each sample fewer than k / 2 times on
// average, at most 8 k. With a fixed length the index names a smaller
// share of a larger corpus: on 500,000 generated documents (100,000 terms)
// 15 a feature named each document about 3 times, and against 200,000
// the start's lists were poorer and the search scored more candidates,
// ran more rounds and reached a lower recall (0.975 against 0.998); 30 a
// feature gave recall 0.997 in less time (measured: docs/PERFORMANCE.md).
func perColumn(df func(f int) int, m, n, k int) int {
	lo, hi := max(k, 8), max(k, 8, 8*k)
	named := func(c int) int64 {
		var t int64
		for f := 0; f < m; f++ {
			if d := df(f); d >= 2 {
				t += int64(min(d, c))
			}
		}
		return t
	}
	// enough: each sample named k / 2 times on average.
	enough := func(c int) bool { return 2*named(c) >= int64(n)*int64(k) }
	if enough(lo) {
		return lo
	}
	if !enough(hi) {
		return hi
	}
	// The smallest c in (lo, hi] that is enough: named grows with c.
	for hi-lo > 1 {
		mid := (lo + hi) / 2
		if enough(mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// sparseInit returns, for each worker, the start of sample i's list: the
// 2 k samples with the largest inner products with i over a pruned
// inverted index, which keeps for each feature the perColumn samples of
// largest (unit-row) value, ties to the lower index. A sample's products
// with the index's entries cost a few thousand multiply-adds, far less
// than scoring every sample they name, and they rank the candidates by
// what they share with i: taking the rarest features' samples first
// instead fills the start on large corpora with samples that share one
// rare word by chance (recall 0.87 on 200,000 generated documents,
// against 0.96 on 50,000).
func sparseInit(s *sparseCosine, k, threads int) func() func(i int, offer func(j int)) {
	n, m := s.a.Dims()
	// Columns of the compact copy as lists of (sample, value), then pruned.
	who := make([]int32, len(s.ind))
	val := make([]float32, len(s.ind))
	start := bucketFill(n, m, func(i int) (int, int) { return s.indptr[i], s.indptr[i+1] },
		func(r int) int { return int(s.ind[r]) },
		func(q, i, r int) { who[q], val[q] = int32(i), s.val[r] }, threads)
	perCol := perColumn(func(f int) int { return start[f+1] - start[f] }, m, n, k)
	// pruned postings of f: pw, pv[pstart[f] : pstart[f+1]], the perCol
	// largest values (ties to the lower sample), kept by insertion as
	// the column's samples arrive in increasing order.
	pstart := make([]int, m+1)
	for f := 0; f < m; f++ {
		c := start[f+1] - start[f]
		if c < 2 {
			c = 0
		}
		pstart[f+1] = pstart[f] + min(c, perCol)
	}
	pw := make([]int32, pstart[m])
	pv := make([]float32, pstart[m])
	parallel.For(m, threads, 256, func(f0, f1 int) {
		for f := f0; f < f1; f++ {
			base, size := pstart[f], pstart[f+1]-pstart[f]
			c := 0
			for r := start[f]; r < start[f+1] && size > 0; r++ {
				x := val[r]
				if c == size {
					if x <= pv[base+c-1] {
						continue
					}
					c--
				}
				q := base + c
				c++
				for ; q > base && pv[q-1] < x; q-- {
					pw[q], pv[q] = pw[q-1], pv[q-1]
				}
				pw[q], pv[q] = who[r], x
			}
		}
	})
	return func() func(i int, offer func(j int)) {
		var acc sumTable
		best := make([]int, 0, 2*k+1)
		bestSum := make([]float32, 0, 2*k+1) // the sums of best, alongside
		return func(i int, offer func(j int)) {
			lo, hi := s.indptr[i], s.indptr[i+1]
			acc.start(min((hi-lo)*perCol, n))
			for r := lo; r < hi; r++ {
				if r+initAhead < hi {
					f := s.ind[r+initAhead]
					asm.PrefetchRow32(pw, pv, pstart[f], pstart[f+1])
					if r+2*initAhead < hi {
						asm.PrefetchInt(pstart, int(s.ind[r+2*initAhead]))
					}
				}
				f, x := s.ind[r], s.val[r]
				for t := pstart[f]; t < pstart[f+1]; t++ {
					acc.add(pw[t], x, pv[t])
				}
			}
			// The best 2 k + 1 by product, ties to the lower index, kept
			// sorted by insertion: most samples touched fail the first test.
			// The order in which the samples are met does not matter.
			best, bestSum = best[:0], bestSum[:0]
			for _, slot := range acc.used {
				j, x := int(acc.key[slot]), acc.sum[slot]
				if len(best) == cap(best) {
					last := len(best) - 1
					if x < bestSum[last] || x == bestSum[last] && j > best[last] {
						continue
					}
					best, bestSum = best[:last], bestSum[:last]
				}
				r := len(best)
				best, bestSum = append(best, j), append(bestSum, x)
				for ; r > 0 && (bestSum[r-1] < x || bestSum[r-1] == x && best[r-1] > j); r-- {
					best[r], bestSum[r] = best[r-1], bestSum[r-1]
				}
				best[r], bestSum[r] = j, x
			}
			for _, j := range best {
				if j != i {
					offer(j)
				}
			}
			acc.clear()
		}
	}
}

// initAhead is how many of a sample's features ahead sparseInit
// prefetches the feature's postings (and twice as many, where they start).
const initAhead = 4

// sumTable holds one sample's sums over the pruned index, keyed by the
// other sample, in an open-addressing table sized to the sample's entries
// times the index's length (at most n sums: a typical document of the
// 500,000-document corpus gets 16,384 slots, 128 KB, within the second
// level of cache). A dense accumulator of n sums misses the caches on
// nearly every addition on large corpora, where it took a large part of
// the search's time (measured: docs/PERFORMANCE.md).
type sumTable struct {
	key  []int32 // the sample of a slot, -1 when empty
	sum  []float32
	used []int32 // the slots filled, in the order filled
	bits uint    // the table in use is the first 1<<bits slots
}

// start readies an empty table for at most m sums, at most half full.
func (t *sumTable) start(m int) {
	t.bits = 10
	for 1<<t.bits < 2*m {
		t.bits++
	}
	if len(t.key) < 1<<t.bits {
		t.key, t.sum = make([]int32, 1<<t.bits), make([]float32, 1<<t.bits)
		for s := range t.key {
			t.key[s] = -1
		}
	}
}

// add adds x p to sample j's sum.
func (t *sumTable) add(j int32, x, p float32) {
	mask := uint32(1)<<t.bits - 1
	// Fibonacci hashing: the top bits of the product.
	slot := (uint32(j) * 0x9E3779B1) >> (32 - t.bits)
	for {
		switch t.key[slot] {
		case j:
			t.sum[slot] += x * p
			return
		case -1:
			t.key[slot] = j
			// 0 + x p, as the dense accumulator added it, so that the
			// sums are its bit for bit (TestSumTable).
			t.sum[slot] = 0
			t.sum[slot] += x * p
			t.used = append(t.used, int32(slot))
			return
		}
		slot = (slot + 1) & mask
	}
}

// clear empties the slots in use.
func (t *sumTable) clear() {
	for _, slot := range t.used {
		t.key[slot] = -1
	}
	t.used = t.used[:0]
}
