package graph

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// queryGrain is how many sparse queries a goroutine takes at a time: a
// query costs microseconds, so chunks of this size amortize the hand-out
// and still balance documents of very different lengths.
const queryGrain = 32

// Sparse returns the p-nearest-neighbour graph of the rows of a (n x m, one
// row per sample), with neighbours ranked by cosine similarity, which for
// unit-length rows is the order of Euclidean distance.
//
// Each sample's p neighbours are the other samples of highest cosine
// similarity, ties going to the lower index. Only samples at positive
// similarity are candidates: a sample sharing no feature with another is
// not its neighbour, so a sample with fewer than p such samples gets fewer
// edges, and an all-zero sample none. The directed choices are then made
// symmetric by the OR rule, W = max(W, W^T), and weighted as opt.Weight
// says; for Heat, d^2 = |a|^2 + |b|^2 - 2 a.b.
//
// The inner products come from an inverted index (one posting list per
// feature): for each sample q, the products over its features' postings
// of the samples after q are accumulated into a dense row, so the work is
// half the sum over features of (document frequency)^2 and nothing of size
// n x n is formed. Each pair's product is summed once, in feature order,
// and offered to the candidate lists of both of its samples; as a list
// keeps the best p under a total order, the graph is the same for any
// thread count. ctx is checked between chunks of samples; on cancellation
// the result is nil and the error ctx.Err().
//
// With opt.Search ApproxSearch the lists come from NN-descent instead
// (nnDescent, started from a pruned inverted index that keeps each
// feature's largest values, sparseInit), which finds most but not all of
// the exact neighbours; the graph is still the same for a given Seed
// whatever the thread count.
func Sparse(ctx context.Context, a *sparse.CSR, opt Options) (*Graph, error) {
	if a == nil {
		return nil, fmt.Errorf("graph: nil data matrix")
	}
	n, m := a.Dims()
	if n == 0 || m == 0 {
		return nil, fmt.Errorf("graph: empty data (%d samples x %d features)", n, m)
	}
	if n > math.MaxInt32 {
		return nil, fmt.Errorf("graph: %d samples: the neighbour search supports at most %d", n, math.MaxInt32)
	}
	if err := a.Validate(); err != nil {
		return nil, fmt.Errorf("graph: data: %w (rows are samples, columns features)", err)
	}
	p, err := opt.neighbors(n)
	if err != nil {
		return nil, err
	}
	if err := opt.checkSparseMetric(); err != nil {
		return nil, err
	}
	sq := sparseSquaredNorms(a, opt.Threads)
	w, err := newWeigher(opt, sq, func() (float64, error) { return sparseHeatT(ctx, a, opt.Seed, opt.Threads) })
	if err != nil {
		return nil, err
	}
	// Candidate j of sample i is ranked by key (a_i . a_j) / |a_j|, which
	// orders i's candidates as the cosine does (|a_i| is common to all).
	// An all-zero sample gets the factor 0 and is never a candidate, and
	// as only keys above 0 enter a list, nor is any sample at zero or
	// negative similarity.
	inv := make([]float64, n)
	for i, s := range sq {
		if s > 0 {
			inv[i] = 1 / math.Sqrt(s)
		}
	}
	if opt.Search.ForSparse(a) == ApproxSearch {
		sc := newSparseCosine(a, inv, opt.Threads)
		l, err := nnDescent(ctx, n, p, sc, opt.Seed, opt.Threads, sparseInit(sc, descentK(p, n), opt.Threads), opt.Progress)
		if err != nil {
			return nil, err
		}
		return l.graph(w, opt, ApproxSearch, true)
	}
	ix := newPostings(a, opt.Threads)
	// fwd holds each sample's best candidates after it, filled by the
	// sample's own row; back[worker] the best before it, offered by the
	// earlier rows that worker computed.
	fwd := newLists(n, p)
	back := make([]*lists, parallel.Workers(n, opt.Threads, queryGrain))
	err = ix.eachUpper(ctx, a, opt.Threads, newProgress(opt.Progress, n), func(worker, q int, acc []float64) {
		if back[worker] == nil {
			back[worker] = newLists(n, p)
		}
		bk := back[worker]
		iq := inv[q]
		thr := 0.0
		accs := acc[q+1:]
		invs := inv[q+1 : q+1+len(accs)]
		bthr := bk.thr[q+1 : q+1+len(accs)]
		// Rows arrive in increasing order on each worker and columns
		// within a row, so a strictly better key is the tie rule.
		for r, s := range accs {
			if k := s * invs[r]; k > thr {
				if fwd.insert(q, k, q+1+r, s) {
					thr = fwd.thr[q]
				}
			}
			if k := s * iq; k > bthr[r] {
				bk.insert(q+1+r, k, q, s)
			}
		}
	})
	if err != nil {
		return nil, err
	}
	out := newLists(n, p)
	parallel.For(n, opt.Threads, 256, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			out.merge(i, fwd)
			for _, bk := range back {
				if bk != nil {
					out.merge(i, bk)
				}
			}
		}
	})
	return out.graph(w, opt, ExactSearch, true)
}

// sparseSquaredNorms returns the squared length of each row of a.
func sparseSquaredNorms(a *sparse.CSR, threads int) []float64 {
	sq := make([]float64, a.Rows)
	parallel.For(a.Rows, threads, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			v := a.Val[a.Indptr[i]:a.Indptr[i+1]]
			sq[i] = asm.Dot(v, v)
		}
	})
	return sq
}

// Dense returns the p-nearest-neighbour graph of the rows of a (n x m, one
// row per sample; any mat.Matrix, a *mat.Dense read in place, others
// copied once by sparse.DenseOf) by opt.Metric: by Euclidean distance
// between the rows, or between the rows metricView made of them (scaled,
// or centred and scaled, to unit length; a copy), so that everything
// below, weights and Graph.Reach included, is in that space. Each
// sample's p neighbours are the other samples nearest to it, ties going
// to the lower index, every other sample being a candidate. The directed
// choices are made symmetric by the OR rule, W = max(W, W^T), and
// weighted as opt.Weight says; Cosine weights are a.b / (|a| |b|), zero
// when either sample is all zero.
//
// Squared distances are |a|^2 + |b|^2 - 2 a.b (floored at zero), the inner
// products coming from the BLAS (blas64.Gemm, with the backend's own
// threading) for blocks of rows against all rows, so memory stays at a
// block of rows times n. The block size depends only on n, so the graph is
// the same for any thread count. ctx is checked between blocks; on
// cancellation the result is nil and the error ctx.Err().
func Dense(ctx context.Context, m mat.Matrix, opt Options) (*Graph, error) {
	if isEmpty(m) {
		return nil, fmt.Errorf("graph: empty data matrix")
	}
	raw := sparse.DenseOf(m).RawMatrix()
	n := raw.Rows
	for i := 0; i < n; i++ {
		for j, x := range raw.Data[i*raw.Stride : i*raw.Stride+raw.Cols] {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("graph: data: sample %d, feature %d (1-based): value %v is not finite", i+1, j+1, x)
			}
		}
	}
	p, err := opt.neighbors(n)
	if err != nil {
		return nil, err
	}
	raw = metricView(raw, opt.Metric, opt.Threads)
	sq := denseSquaredNorms(raw)
	w, err := newWeigher(opt, sq, func() (float64, error) { return denseHeatT(ctx, raw, opt.Seed, opt.Threads) })
	if err != nil {
		return nil, err
	}
	if opt.Search.ForDense() == ApproxSearch {
		l, err := nnDescent(ctx, n, p, &denseEuclid{a: raw, sq: sq}, opt.Seed, opt.Threads, nil, opt.Progress)
		if err != nil {
			return nil, err
		}
		return l.graph(w, opt, ApproxSearch, false)
	}
	out := newLists(n, p)
	err = eachDenseRow(ctx, raw, opt.Threads, newProgress(opt.Progress, n), func(i int, dots []float64) {
		sqi := sq[i]
		sq := sq[:len(dots)]
		// Keys are negated squared distances, so that larger is nearer as
		// lists want; columns arrive in increasing order, so a strictly
		// better key is the tie rule.
		thr := math.Inf(-1)
		for j, g := range dots {
			if k := -max(0, sqi+sq[j]-2*g); k > thr && j != i {
				if out.insert(i, k, j, g) {
					thr = out.thr[i]
				}
			}
		}
	})
	if err != nil {
		return nil, err
	}
	return out.graph(w, opt, ExactSearch, false)
}

// denseSquaredNorms returns the squared length of each row of a.
func denseSquaredNorms(a blas64.General) []float64 {
	sq := make([]float64, a.Rows)
	for i := range sq {
		row := a.Data[i*a.Stride : i*a.Stride+a.Cols]
		sq[i] = asm.Dot(row, row)
	}
	return sq
}

// lists holds a candidate list for each of n samples: sample i's are
// idx[i*p : i*p+cnt[i]], best first by key (larger is better, equal keys
// by lower index), with the inner products dot that weigh them. thr[i] is
// the key a candidate must beat to enter: 0 until the list is full (so
// only positive keys enter, which the sparse search needs and the dense
// one, whose keys start at -Inf, overrides), then the p-th key.
type lists struct {
	p   int
	cnt []int
	thr []float64
	key []float64
	idx []int
	dot []float64
}

func newLists(n, p int) *lists {
	return &lists{p: p, cnt: make([]int, n), thr: make([]float64, n),
		key: make([]float64, n*p), idx: make([]int, n*p), dot: make([]float64, n*p)}
}

// insert adds candidate j with the given key and inner product to sample
// i's list, where the caller has checked that it beats the p-th candidate
// under the order (key descending, index ascending). It reports whether
// the list is full, thr[i] then being the new bar.
func (l *lists) insert(i int, key float64, j int, dot float64) bool {
	base := i * l.p
	r := l.cnt[i]
	if r == l.p {
		r--
	} else {
		l.cnt[i]++
	}
	for ; r > 0 && (l.key[base+r-1] < key || l.key[base+r-1] == key && l.idx[base+r-1] > j); r-- {
		l.key[base+r], l.idx[base+r], l.dot[base+r] = l.key[base+r-1], l.idx[base+r-1], l.dot[base+r-1]
	}
	l.key[base+r], l.idx[base+r], l.dot[base+r] = key, j, dot
	if l.cnt[i] < l.p {
		return false
	}
	l.thr[i] = l.key[base+l.p-1]
	return true
}

// beats reports whether candidate j with key would enter i's list: the
// list is not full, or j does not rank below its last entry (key
// descending, then index ascending).
func (l *lists) beats(i int, key float64, j int) bool {
	c := l.cnt[i]
	if c < l.p {
		return true
	}
	last := i*l.p + c - 1
	return !(key < l.key[last] || key == l.key[last] && j > l.idx[last])
}

// merge offers sample i's candidates in src to i's list in l.
func (l *lists) merge(i int, src *lists) {
	for r := i * src.p; r < i*src.p+src.cnt[i]; r++ {
		key, j := src.key[r], src.idx[r]
		if !l.beats(i, key, j) {
			// src is sorted, so the rest cannot enter either.
			return
		}
		l.insert(i, key, j, src.dot[r])
	}
}

// graph weighs the chosen neighbours with w, symmetrizes by opt.Symmetry
// (the OR rule: W_ij = max of the weights of i -> j and j -> i; the AND
// rule: pairs chosen from both ends only), prunes the pairs that share
// fewer than opt.MinShared chosen neighbours, drops zero weights and
// returns the graph. A pair chosen from both ends is emitted once, from
// its lower index, so no entries need merging. search is recorded in the
// graph, and each sample's reach (Graph.Reach) by cosine similarity or
// squared Euclidean distance as cosine says.
func (l *lists) graph(w *weigher, opt Options, search Search, cosine bool) (*Graph, error) {
	n, p := len(l.cnt), l.p
	reach := make([]float64, n)
	for i := range reach {
		if l.cnt[i] < p {
			// Any candidate would have entered: any positive similarity,
			// any distance.
			reach[i] = 0
			if !cosine {
				reach[i] = math.Inf(1)
			}
			continue
		}
		r := i*p + p - 1
		reach[i] = nearness(cosine, w.sq[i], w.sq[l.idx[r]], l.dot[r])
	}
	wt := make([]float64, n*p)
	for i := 0; i < n; i++ {
		for r := i * p; r < i*p+l.cnt[i]; r++ {
			wt[r] = w.weight(i, l.idx[r], l.dot[r])
		}
	}
	// chose returns the weight of i -> j and whether i chose j.
	chose := func(i, j int) (float64, bool) {
		for r := i * p; r < i*p+l.cnt[i]; r++ {
			if l.idx[r] == j {
				return wt[r], true
			}
		}
		return 0, false
	}
	// shared counts the samples both i and j chose.
	shared := func(i, j int) int {
		c := 0
		for r := i * p; r < i*p+l.cnt[i]; r++ {
			if _, ok := chose(j, l.idx[r]); ok {
				c++
			}
		}
		return c
	}
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		for r := i * p; r < i*p+l.cnt[i]; r++ {
			j, x := l.idx[r], wt[r]
			back, ok := chose(j, i)
			if ok {
				if j < i {
					continue
				}
				x = max(x, back)
			} else if opt.Symmetry == Mutual {
				continue
			}
			if opt.MinShared > 0 && shared(i, j) < opt.MinShared {
				continue
			}
			if x > 0 {
				ri, ci, v = append(ri, i, j), append(ci, j, i), append(v, x, x)
			}
		}
	}
	wm, err := sparse.FromTriplets(n, n, ri, ci, v)
	if err != nil {
		return nil, fmt.Errorf("graph: %w", err)
	}
	return &Graph{W: wm, Degree: wm.RowSums(), Search: search, Reach: reach}, nil
}

// nearness is how near two samples with squared norms sa and sb and inner
// product dot are: their cosine similarity when cosine (0 when either is
// zero), else their squared Euclidean distance.
func nearness(cosine bool, sa, sb, dot float64) float64 {
	if cosine {
		if sa > 0 && sb > 0 {
			return dot / math.Sqrt(sa*sb)
		}
		return 0
	}
	return max(0, sa+sb-2*dot)
}

// weigher turns a neighbour pair and its inner product into an edge
// weight. Every formula is symmetric in i and j, so a pair chosen from both
// ends with the same inner product gets the same weight.
type weigher struct {
	kind Weight
	sq   []float64 // squared norms of the samples
	c    float64   // 1 / (2 t^2) for Heat
}

// newWeigher returns the weigher for opt; heatT estimates the heat kernel
// width when opt leaves it to the data.
func newWeigher(opt Options, sq []float64, heatT func() (float64, error)) (*weigher, error) {
	w := &weigher{kind: opt.Weight, sq: sq}
	if w.kind != Heat {
		return w, nil
	}
	t := opt.HeatT
	if t == 0 {
		var err error
		if t, err = heatT(); err != nil {
			return nil, err
		}
	}
	w.c = 1 / (2 * t * t)
	return w, nil
}

func (w *weigher) weight(i, j int, dot float64) float64 {
	switch w.kind {
	case Heat:
		d2 := max(0, w.sq[i]+w.sq[j]-2*dot)
		if d2 == 0 {
			// Also when 1/(2t^2) overflowed: coinciding samples weigh 1.
			return 1
		}
		return math.Exp(-d2 * w.c)
	case Cosine:
		den := math.Sqrt(w.sq[i] * w.sq[j])
		if dot <= 0 || den == 0 {
			return 0
		}
		return dot / den
	}
	return 1
}

// postings is the inverted index of a sparse matrix a: for each feature t,
// the samples doc[ptr[t]:ptr[t+1]] (increasing) where it is non-zero and
// the values val there; at[p] is where a's stored entry p sits in it (-1
// for a stored zero), so a sample finds the later samples sharing one of
// its features right after its own posting, without a search. Sample
// numbers are int32 to cut the memory traffic of the scatter loop, which
// streams postings.
type postings struct {
	ptr []int
	doc []int32
	val []float64
	at  []int
}

// newPostings builds the inverted index of a, leaving out stored zeros
// (tf-idf stores zeros for terms present in every document).
func newPostings(a *sparse.CSR, threads int) *postings {
	ix := &postings{at: make([]int, len(a.Ind)), doc: make([]int32, len(a.Ind)), val: make([]float64, len(a.Ind))}
	ix.ptr = bucketFill(a.Rows, a.Cols, func(i int) (int, int) { return a.Indptr[i], a.Indptr[i+1] },
		func(p int) int {
			if a.Val[p] == 0 {
				ix.at[p] = -1 // stored zeros are left out
				return -1
			}
			return a.Ind[p]
		},
		func(q, i, p int) { ix.at[p], ix.doc[q], ix.val[q] = q, int32(i), a.Val[p] }, threads)
	ix.doc, ix.val = ix.doc[:ix.ptr[a.Cols]], ix.val[:ix.ptr[a.Cols]]
	return ix
}

// eachUpper calls fn(worker, q, acc) for every row q of a, the matrix ix
// indexes, where acc[j] for j > q holds the inner product of rows q and j
// (entries up to q are zero) and worker identifies the calling goroutine
// for per-worker scratch. Each acc[j] is summed over the shared features in
// increasing feature order, as a plain merged dot product would be, so it
// does not depend on the other rows. fn may change acc. Rows are handed
// out in chunks, in increasing order on each goroutine; ctx is checked
// before each chunk.
func (ix *postings) eachUpper(ctx context.Context, a *sparse.CSR, threads int, pr *progress, fn func(worker, q int, acc []float64)) error {
	n := a.Rows
	accs := make([][]float64, parallel.Workers(n, threads, queryGrain))
	parallel.ForWorker(n, threads, queryGrain, func(worker, lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		if accs[worker] == nil {
			accs[worker] = make([]float64, n)
		}
		acc := accs[worker]
		for q := lo; q < hi; q++ {
			ix.scatterAfter(acc, a, q)
			fn(worker, q, acc)
			clear(acc[q+1:])
		}
		pr.add(hi - lo)
	})
	return ctx.Err()
}

// scatterAfter adds the products of row q of a, the matrix ix indexes,
// with the rows after it into acc: acc[j] += x_qt x_jt over the postings
// of each feature t of row q after q's own, in the row's order.
func (ix *postings) scatterAfter(acc []float64, a *sparse.CSR, q int) {
	p0, p1 := a.Indptr[q], a.Indptr[q+1]
	val := a.Val[p0:p1]
	for k, t := range a.Ind[p0:p1] {
		at := ix.at[p0+k]
		if at < 0 {
			continue
		}
		x := val[k]
		docs := ix.doc[at+1 : ix.ptr[t+1]]
		vals := ix.val[at+1 : ix.ptr[t+1]]
		vals = vals[:len(docs)]
		// Four independent updates per step keep more loads in flight;
		// the samples of one posting list are distinct, so they never
		// touch the same element.
		r := 0
		for ; r+4 <= len(docs); r += 4 {
			d, v := docs[r:r+4:r+4], vals[r:r+4:r+4]
			j0, j1, j2, j3 := d[0], d[1], d[2], d[3]
			a0, a1, a2, a3 := acc[j0], acc[j1], acc[j2], acc[j3]
			acc[j0], acc[j1], acc[j2], acc[j3] = a0+x*v[0], a1+x*v[1], a2+x*v[2], a3+x*v[3]
		}
		for ; r < len(docs); r++ {
			acc[docs[r]] += x * vals[r]
		}
	}
}

// denseBlockElems bounds the block of inner products Dense holds at once
// (32 MiB): large enough for Gemm to run near its peak, small enough for
// any n that the n^2 m work allows.
const denseBlockElems = 1 << 22

// denseBlockRows is how many rows Dense takes per Gemm call. It depends
// only on n so that the products, and the graph, do not depend on threads.
func denseBlockRows(n int) int {
	return min(n, max(16, min(512, denseBlockElems/n)))
}

// eachDenseRow calls fn(i, dots) for every row i of a, where dots[j] =
// a_i . a_j for all j, computed with Gemm for blocks of rows. Rows of a
// block are handed to up to threads goroutines. ctx is checked before each
// block.
func eachDenseRow(ctx context.Context, a blas64.General, threads int, pr *progress, fn func(i int, dots []float64)) error {
	n := a.Rows
	b := denseBlockRows(n)
	g := blas64.General{Rows: b, Cols: n, Stride: n, Data: make([]float64, b*n)}
	for i0 := 0; i0 < n; i0 += b {
		if err := ctx.Err(); err != nil {
			return err
		}
		i1 := min(i0+b, n)
		rows := blas64.General{Rows: i1 - i0, Cols: a.Cols, Stride: a.Stride, Data: a.Data[i0*a.Stride:]}
		out := blas64.General{Rows: i1 - i0, Cols: n, Stride: n, Data: g.Data}
		blas64.Gemm(gblas.NoTrans, gblas.Trans, 1, rows, a, 0, out)
		parallel.For(i1-i0, threads, 8, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				fn(i0+r, g.Data[r*n:(r+1)*n])
			}
		})
		pr.add(i1 - i0)
	}
	return ctx.Err()
}

// heatSample returns the samples the default heat kernel width is
// estimated from, in increasing order: all n of them when n is at most
// heatSampleSize, else heatSampleSize drawn without replacement with seed.
func heatSample(n int, seed uint64) []int {
	return seededSample(n, heatSampleSize, seed, 0x6772617068) // stream "graph"
}

// seededSample returns min(size, n) of 0..n-1 in increasing order: all of
// them, or size drawn without replacement from stream of seed.
func seededSample(n, size int, seed, stream uint64) []int {
	if n <= size {
		idx := make([]int, n)
		for i := range idx {
			idx[i] = i
		}
		return idx
	}
	idx := rand.New(rand.NewPCG(seed, stream)).Perm(n)[:size]
	slices.Sort(idx)
	return idx
}

// meanDistance returns the mean of rowSums (each the sum of the distances
// from one sample to the later ones) over the s(s-1)/2 pairs, summed in
// row order so that it does not depend on threads.
func meanDistance(rowSums []float64) (float64, error) {
	s := len(rowSums)
	var total float64
	for _, x := range rowSums {
		total += x
	}
	t := total / (float64(s) * float64(s-1) / 2)
	if !(t > 0) || math.IsInf(t, 0) {
		return 0, fmt.Errorf("graph: cannot choose the heat kernel width: the mean distance between %d sampled samples is %v; set it explicitly", s, t)
	}
	return t, nil
}

// sparseHeatT returns the default heat kernel width for the rows of a.
func sparseHeatT(ctx context.Context, a *sparse.CSR, seed uint64, threads int) (float64, error) {
	s := a.SelectRows(heatSample(a.Rows, seed))
	sq := sparseSquaredNorms(s, threads)
	rowSums := make([]float64, s.Rows)
	err := newPostings(s, threads).eachUpper(ctx, s, threads, nil, func(_, i int, acc []float64) {
		rowSums[i] = distanceSum(sq, i, acc)
	})
	if err != nil {
		return 0, err
	}
	return meanDistance(rowSums)
}

// denseHeatT returns the default heat kernel width for the rows of a.
func denseHeatT(ctx context.Context, a blas64.General, seed uint64, threads int) (float64, error) {
	idx := heatSample(a.Rows, seed)
	s := blas64.General{Rows: len(idx), Cols: a.Cols, Stride: a.Cols, Data: make([]float64, len(idx)*a.Cols)}
	for q, i := range idx {
		copy(s.Data[q*a.Cols:(q+1)*a.Cols], a.Data[i*a.Stride:i*a.Stride+a.Cols])
	}
	sq := denseSquaredNorms(s)
	rowSums := make([]float64, s.Rows)
	err := eachDenseRow(ctx, s, threads, nil, func(i int, dots []float64) {
		rowSums[i] = distanceSum(sq, i, dots)
	})
	if err != nil {
		return 0, err
	}
	return meanDistance(rowSums)
}

// distanceSum returns the sum of the Euclidean distances from sample i to
// the samples after it, given their squared norms and inner products.
func distanceSum(sq []float64, i int, dots []float64) float64 {
	var sum float64
	for j := i + 1; j < len(dots); j++ {
		sum += math.Sqrt(max(0, sq[i]+sq[j]-2*dots[j]))
	}
	return sum
}
