package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
)

// DefaultReplicates is the k-means++ starts KMeans makes for
// KMeansOptions.Replicates 0.
const DefaultReplicates = 10

// Defaults applied to the other zero fields of KMeansOptions.
const (
	defaultMaxIter = 100
	defaultTol     = 1e-8
)

// Rows per chunk of the parallel loops. Each row's result is computed alone,
// so these only set the granularity of the work, never the result.
const seedGrain = 1024

// assignGrain is the rows per chunk of the assignment step: 256, or fewer
// where that would leave under 8 chunks a goroutine. With 256 TDT2's
// 9,394 rows make 37 chunks, two or three for each of 16 goroutines, and
// k-means gained little from 8 to 16 threads (measured:
// docs/PERFORMANCE.md).
func assignGrain(n, threads int) int {
	return max(16, min(256, n/(8*parallel.Threads(threads))))
}

// KMeansOptions configures KMeans; the zero value (with K set) is sensible.
type KMeansOptions struct {
	// K is the number of clusters, 1 <= K <= n.
	K int
	// Replicates is the number of independent k-means++ starts; the one
	// with the lowest inertia wins. 0 means DefaultReplicates (10), as
	// the reference MATLAB code calls kmeans with 'Replicates', 10.
	Replicates int
	// MaxIter caps the Lloyd iterations per replicate. 0 means 100.
	MaxIter int
	// Tol stops a replicate when the relative decrease of the inertia in
	// one iteration, (prev - cur) / prev, falls below it. A replicate also
	// stops, whatever Tol is, when no assignment changes. 0 means 1e-8; a
	// negative Tol turns the test off, so that only an unchanged assignment
	// (or MaxIter) ends a replicate.
	Tol float64
	// Seed seeds the k-means++ starts; replicate r draws from a PCG
	// generator seeded with (Seed, r).
	Seed uint64
	// Threads is the number of goroutines; 0 means GOMAXPROCS. The result
	// does not depend on it.
	Threads int
}

// KMeansResult is the winning replicate of KMeans.
type KMeansResult struct {
	// Labels holds the cluster, in 0..K-1, of each row of x. Every cluster
	// is non-empty.
	Labels []int
	// Centers is K x d; row j is the center of cluster j, the one Labels
	// were assigned against: the mean of cluster j when no assignment
	// changed in the last iteration, else the mean of its rows one
	// iteration earlier (or the row that refilled it, were it empty).
	Centers *mat.Dense
	// Inertia is the sum over rows of the squared Euclidean distance to
	// the center of their cluster.
	Inertia float64
	// Iterations counts the Lloyd iterations of the winning replicate.
	Iterations int
	// Replicate is the index, from 0, of the winning replicate.
	Replicate int
	// Converged reports whether the winning replicate stopped because no
	// assignment changed or the decrease fell below Tol, rather than at
	// MaxIter.
	Converged bool
}

// KMeans clusters the rows of x (n x d) by Lloyd's algorithm with k-means++
// seeding. It minimizes the inertia sum_i ||x_i - c_{l(i)}||^2 over the
// labels l and the centers c by alternating two steps that never increase
// it: each row moves to its nearest center (ties to the lowest index), and
// each center moves to the mean of its rows. This is the batch phase of
// MATLAB's kmeans; the online phase that follows it there is not run.
//
// Each replicate starts from k-means++ centers: the first is a row drawn
// uniformly, each next one a row drawn with probability proportional to
// its squared distance D^2 to the nearest center chosen so far (uniformly
// among the rows not yet chosen when every D^2 is zero, as happens when x
// has fewer than K distinct rows). Replicate r draws from
// rand.NewPCG(opt.Seed, r); the replicate with the lowest inertia wins,
// the earliest on a tie.
//
// A cluster left empty by an assignment step receives the row farthest from
// its own center among the clusters that have two or more rows (ties to
// the lowest row), which becomes its center, as MATLAB's
// 'EmptyAction','singleton' does. Centers are therefore always means of at
// least one row, never NaN. Labels[i] is the nearest center of row i
// except for rows moved this way in the last iteration.
//
// Squared distances are sums of (x_t - c_t)^2 in index order. The fast form
// ||x||^2 + ||c||^2 - 2 x.c (with the kernels package) only screens out
// centers that a rounding-error bound proves farther than the nearest, so
// the labels, centers and inertia are those of the plain computation,
// identical for any Threads and any kernel path; center sums add rows in
// index order. From a replicate's second assignment on, bounds in the
// manner of Hamerly skip the search for a row whose center they prove
// still the strictly nearest, with margins for every rounding, so they
// too leave the results as they are (see hamerly).
//
// x must have at least one row and column and only finite entries, small
// enough (below about sqrt(MaxFloat64/(8 n d))) that squared distances
// cannot overflow; K must be in 1..n. Every replicate is seeded before
// the first runs its iterations (the seeding holds n distances a
// replicate). KMeans checks ctx between seeding steps and iterations;
// when it is done it returns the best clustering found so far (nil if
// none, as when it ends during the seeding) with ctx.Err().
func KMeans(ctx context.Context, x mat.Matrix, opt KMeansOptions) (*KMeansResult, error) {
	p, err := newPoints(x, opt.Threads)
	if err != nil {
		return nil, err
	}
	return runKMeans(ctx, "KMeans", p, opt)
}

// points holds the rows of x, row-major and validated, with what the
// distance computations need.
type points struct {
	x       []float64 // n*d, row i at x[i*d : (i+1)*d]
	n, d    int
	norms   []float64 // ||x_i||^2 as asm.Dot computes it
	ident   []int     // 0..d-1, the column indices of a dense row for asm.AxpyGather
	rel     float64   // screening error bound, relative part (see screenBound)
	abs     float64   // and absolute part, for underflow
	threads int
	// plain turns off assign's bounds (tests compare against it).
	plain bool
}

// newPoints copies and validates x.
func newPoints(x mat.Matrix, threads int) (*points, error) {
	if x == nil {
		return nil, fmt.Errorf("cluster: KMeans: x is nil")
	}
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("cluster: KMeans: x is %d x %d, want at least one row and one column", n, d)
	}
	p := &points{x: make([]float64, n*d), n: n, d: d, threads: parallel.Threads(threads)}
	limit := math.Sqrt(math.MaxFloat64 / (8 * float64(n) * float64(d)))
	// Rows in parallel (k-means runs on V at every fit, 500,000 rows at
	// scale); each chunk notes its first bad value, and the error is the
	// first in row order, as a serial pass would report. A matrix without
	// raw storage is read on one goroutine: its At need not be safe for
	// concurrent use.
	raw, isRaw := x.(mat.RawMatrixer)
	var m blas64.General
	if isRaw {
		m = raw.RawMatrix()
	} else {
		for i := range n {
			r := p.row(i)
			for j := range r {
				r[j] = x.At(i, j)
			}
		}
	}
	const grain = 1024
	chunks := (n + grain - 1) / grain
	bad := make([]int, chunks)
	p.norms = make([]float64, n)
	parallel.For(chunks, p.threads, 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			bad[c] = -1
			for i := c * grain; i < min(n, (c+1)*grain); i++ {
				r := p.row(i)
				if isRaw {
					copy(r, m.Data[i*m.Stride:i*m.Stride+d])
				}
				for j, v := range r {
					if math.IsNaN(v) || math.IsInf(v, 0) || math.Abs(v) > limit {
						bad[c] = i*d + j
						break
					}
				}
				if bad[c] >= 0 {
					break
				}
				p.norms[i] = asm.Dot(r, r)
			}
		}
	})
	for _, k := range bad {
		if k < 0 {
			continue
		}
		v := p.x[k]
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("cluster: KMeans: row %d, column %d (1-based) = %v is not finite", k/d+1, k%d+1, v)
		}
		return nil, fmt.Errorf("cluster: KMeans: row %d, column %d (1-based) = %g is larger in magnitude than %.3g, past which squared distances may overflow; scale the data", k/d+1, k%d+1, v, limit)
	}
	p.ident = make([]int, d)
	for t := range p.ident {
		p.ident[t] = t
	}
	p.rel, p.abs = screenBound(d)
	return p, nil
}

func (p *points) row(i int) []float64 { return p.x[i*p.d : (i+1)*p.d : (i+1)*p.d] }

func (p *points) dims() (n, d int)      { return p.n, p.d }
func (p *points) work(k int) *lloydWork { return newLloydWork(p.n, p.d, k, p.threads) }

// screenBound returns rel and abs such that, for vectors x and c of length
// d and s = ||x||^2 + ||c||^2, sqDist(x, c) lies within rel*s + abs of
// ||x||^2 + a, where a = ||c||^2 - 2 x.c is computed in floating point with
// any summation order, with or without FMA; the same holds for
// a = ||x||^2 + ||c||^2 - 2 x.c computed whole. Each sum errs by at most
// d*u times the sum of the magnitudes of its terms (u = 2^-53), at most s
// for the norms and for x.c; sqDist's terms sum to at most 2s; the final
// additions add a few u. That totals about (4d+8)u; the bound is twice it,
// and abs covers products that underflow.
func screenBound(d int) (rel, abs float64) {
	f := float64(8*d + 32)
	return f * 0x1p-53, f * math.SmallestNonzeroFloat64
}

// sqDist returns the sum of (x[t]-c[t])^2 in index order: the distance
// that defines the results. The conversion forbids fusing the product into
// the sum (the Go spec allows FMA otherwise), so the value is the same on
// every architecture level.
func sqDist(x, c []float64) float64 {
	c = c[:len(x)]
	var s float64
	for t, v := range x {
		e := v - c[t]
		s += float64(e * e)
	}
	return s
}

// sqDist4 returns sqDist(x0, c0), ..., sqDist(x3, c3), each summed in
// index order exactly as sqDist sums it; all slices have len(x0) values.
func sqDist4(x0, c0, x1, c1, x2, c2, x3, c3 []float64) (s0, s1, s2, s3 float64) {
	d := len(x0)
	c0, x1, c1, x2, c2, x3, c3 = c0[:d], x1[:d], c1[:d], x2[:d], c2[:d], x3[:d], c3[:d]
	for t, v := range x0 {
		e0, e1, e2, e3 := v-c0[t], x1[t]-c1[t], x2[t]-c2[t], x3[t]-c3[t]
		s0 += float64(e0 * e0)
		s1 += float64(e1 * e1)
		s2 += float64(e2 * e2)
		s3 += float64(e3 * e3)
	}
	return s0, s1, s2, s3
}

// seeds returns, for each generator, the k centers seed would choose
// with it. The replicates step in lockstep: at step j each draws its
// row (one goroutine a replicate, each from its own generator and
// distances), then one pass over the rows updates every replicate's
// distances, the cross products of a row with the replicates' new
// centers coming from one asm.AxpyGather. One replicate at a time
// read every row once a step per replicate through a call of
// asm.Dot of d terms, and drew serially, which made large seedings
// slower (measured: docs/PERFORMANCE.md). The screen (screenBound holds
// for any order of summation) skips only rows whose exact distance
// cannot lower their d2, and every d2 that changes is the same sqDist as
// in seed, so the draws and centers are seed's bit for bit.
func (p *points) seeds(ctx context.Context, k int, rngs []*rand.Rand) ([][]float64, error) {
	n, d, reps := p.n, p.d, len(rngs)
	cs := make([][]float64, reps)
	chosen := make([][]bool, reps)
	d2 := make([][]float64, reps) // squared distances to the nearest chosen centers
	for r := range reps {
		cs[r] = make([]float64, k*d)
		chosen[r] = make([]bool, n)
		d2[r] = make([]float64, n)
		for i := range d2[r] {
			d2[r][i] = math.Inf(1)
		}
	}
	ct := make([]float64, d*reps) // the step's new centers, transposed
	cn := make([]float64, reps)   // and their squared lengths
	dots := parallel.OwnRows(parallel.Workers(n, p.threads, seedGrain), reps)
	for j := range k {
		parallel.For(reps, p.threads, 1, func(lo, hi int) {
			for r := lo; r < hi; r++ {
				var i int
				if j == 0 {
					i = rngs[r].IntN(n)
				} else {
					i = pickSeed(rngs[r], d2[r], chosen[r], n-j)
				}
				chosen[r][i] = true
				copy(cs[r][j*d:(j+1)*d], p.row(i))
			}
		})
		if j == k-1 {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		for r := range reps {
			cj := cs[r][j*d : (j+1)*d]
			cn[r] = asm.Dot(cj, cj)
			for t, v := range cj {
				ct[t*reps+r] = v
			}
		}
		parallel.ForWorker(n, p.threads, seedGrain, func(w, lo, hi int) {
			dot := dots[w]
			for i := lo; i < hi; i++ {
				xi := p.row(i)
				clear(dot)
				asm.AxpyGather(dot, xi, p.ident, ct, reps)
				for r, dr := range d2 {
					if dr[i] == 0 {
						continue
					}
					// The exact distance is at least a - bound; skip it
					// when that cannot beat d2.
					s := p.norms[i] + cn[r]
					if a := s - 2*dot[r]; a-(p.rel*s+p.abs) >= dr[i] {
						continue
					}
					dr[i] = min(dr[i], sqDist(xi, cs[r][j*d:(j+1)*d]))
				}
			}
		})
	}
	return cs, nil
}

// seed returns k centers (k*d, row-major) chosen among the rows by
// k-means++.
func (p *points) seed(ctx context.Context, k int, rng *rand.Rand) ([]float64, error) {
	d := p.d
	c := make([]float64, k*d)
	err := plusPlus(ctx, p.n, k, rng, func(j, i int) { copy(c[j*d:(j+1)*d], p.row(i)) }, func(j int, d2 []float64) {
		cj := c[j*d : (j+1)*d]
		cn := asm.Dot(cj, cj)
		parallel.For(p.n, p.threads, seedGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if d2[i] == 0 {
					continue
				}
				xi := p.row(i)
				s := p.norms[i] + cn
				// The exact distance is at least a - bound; skip it when
				// that cannot beat d2[i].
				if a := s - 2*asm.Dot(xi, cj); a-(p.rel*s+p.abs) >= d2[i] {
					continue
				}
				d2[i] = min(d2[i], sqDist(xi, cj))
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// plusPlus is k-means++'s choice of k of n rows, the same for dense and
// sparse rows: the first uniform, each next drawn with probability
// proportional to its squared distance to the nearest row chosen (d2,
// pickSeed). place(j, i) makes row i center j; lower(j, d2) lowers each
// d2[i] to row i's squared distance to center j where that is nearer,
// after every center but the last.
func plusPlus(ctx context.Context, n, k int, rng *rand.Rand, place func(j, i int), lower func(j int, d2 []float64)) error {
	chosen := make([]bool, n)
	d2 := make([]float64, n) // squared distance to the nearest chosen center
	for i := range d2 {
		d2[i] = math.Inf(1)
	}
	for j := range k {
		var i int
		if j == 0 {
			i = rng.IntN(n)
		} else {
			i = pickSeed(rng, d2, chosen, n-j)
		}
		chosen[i] = true
		place(j, i)
		if j == k-1 {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		lower(j, d2)
	}
	return nil
}

// assign sets labels[i] to the nearest center of row i (the lowest index on
// a tie) and dist[i] to sqDist to it. The cross products of a row with all
// centers come from one asm.AxpyGather over the transposed centers and
// give the fast distances a_j = ||c_j||^2 - 2 x.c_j (||x||^2 is common to
// all j); by screenBound, a center whose a_j exceeds the least, a_m, by
// more than twice the row's error bound is farther than center m, so
// sqDist decides only among the others (usually m alone).
//
// From the second call of a run on, a row whose bounds (w.hamerly) prove
// its last center still the strictly nearest skips that search: it costs
// one sqDist instead of k cross products.
func (p *points) assign(c []float64, labels []int, dist []float64, w *lloydWork) {
	d, k := p.d, len(w.norms)
	var maxNorm float64
	for j := range k {
		cj := c[j*d : (j+1)*d]
		w.norms[j] = asm.Dot(cj, cj)
		maxNorm = max(maxNorm, w.norms[j])
		for t, v := range cj {
			w.ct[t*k+j] = v
		}
	}
	h := w.hamerly
	if h == nil && !p.plain {
		h = newHamerly(p.n, k, d, len(w.scratch), p.rel)
		w.hamerly = h
	}
	bounded := h != nil && h.moved(c, d)
	parallel.ForWorker(p.n, p.threads, assignGrain(p.n, p.threads), func(worker, lo, hi int) {
		fast := w.scratch[worker][:k]
		// search finds row i's nearest center among all k; a >= 0 is a
		// center whose sqDist da is known already (the row's last).
		search := func(i, a int, da float64) {
			xi := p.row(i)
			clear(fast)
			asm.AxpyGather(fast, xi, p.ident, w.ct, k)
			least, second, m := leastTwo(fast, w.norms)
			bound := p.rel*(p.norms[i]+maxNorm) + p.abs
			reach := least + 2*bound
			best, bestDist := m, da
			if m != a {
				bestDist = sqDist(xi, c[m*d:(m+1)*d])
			}
			if second <= reach {
				for j, dot := range fast {
					if j == m || w.norms[j]-2*dot > reach {
						continue
					}
					if e := sqDist(xi, c[j*d:(j+1)*d]); e < bestDist || (e == bestDist && j < best) {
						best, bestDist = j, e
					}
				}
			}
			labels[i], dist[i] = best, bestDist
			if h != nil {
				// Every center but best has a_j >= least, and every one
				// but m a_j >= second.
				other := second
				if best != m {
					other = least
				}
				h.found(i, best, p.norms[i]+other-2*bound)
			}
		}
		i, kept := lo, 0
		// settle keeps row i's last center at sqDist da where the bounds
		// prove it, and searches otherwise.
		settle := func(i int, da float64) {
			if a, ok := h.keep(i, da); ok {
				labels[i], dist[i] = a, da
				kept++
			} else {
				search(i, a, da)
			}
		}
		if bounded {
			// Four rows at a time: their distances to their last centers
			// are four independent chains of additions (sqDist4), where
			// one row's chain alone waits on each addition's latency.
			for ; i+4 <= hi; i += 4 {
				l := h.last[i : i+4]
				d0, d1, d2, d3 := sqDist4(p.row(i), c[l[0]*d:(l[0]+1)*d], p.row(i+1), c[l[1]*d:(l[1]+1)*d],
					p.row(i+2), c[l[2]*d:(l[2]+1)*d], p.row(i+3), c[l[3]*d:(l[3]+1)*d])
				settle(i, d0)
				settle(i+1, d1)
				settle(i+2, d2)
				settle(i+3, d3)
			}
			for ; i < hi; i++ {
				a := h.last[i]
				settle(i, sqDist(p.row(i), c[a*d:(a+1)*d]))
			}
		}
		for ; i < hi; i++ {
			search(i, -1, 0)
		}
		if h != nil {
			// Counted here, not per row: the workers' counters share a
			// cache line.
			h.skipped[worker] += kept
		}
	})
	if h != nil {
		h.used(c)
	}
}

// hamerly holds the bounds of Hamerly's accelerated k-means ("Making
// k-means even faster", SDM 2010) for one run of Lloyd's iterations on
// dense rows: for each row the center the last assignment gave it and a
// lower bound on its distance to every other center, and the centers that
// assignment used. When the centers have moved by at most delta_j, the
// triangle inequality keeps lower[i] - max_{j != last[i]} delta_j a lower
// bound; if that bound, or half the distance from the row's center to its
// nearest other center, exceeds the row's distance to its center, no other
// center can be as near, and the row keeps it.
//
// The labels must be exactly those of the full search (sqDist's nearest,
// the lowest index on a tie), so every quantity carries its rounding: the
// bounds are on the distances in exact arithmetic between the stored
// vectors, lowered (upper bounds raised) by the relative slack eta, many
// times screenBound's relative error, and the absolute slack tiny, far
// above what underflow can hide. A row keeps its center only when every
// other center is farther by the factor 1+eta in exact arithmetic, which
// sqDist's rounding (relative d u plus underflow) cannot reverse: no
// ties, no near ties, are ever decided by the bounds. The skip still
// computes sqDist to the kept center, so dist is what the full search
// gives, and the row's upper bound is exact at every step.
type hamerly struct {
	last    []int     // the center of each row at the last assignment
	lower   []float64 // a lower bound on each row's distance to any other center
	prev    []float64 // the centers of the last assignment, k*d
	valid   bool      // last, lower and prev are set
	delta   []float64 // how far each center moved since then, rounded up
	half    []float64 // half the distance to the nearest other center, rounded down
	top     int       // the center that moved farthest
	first   float64   // its delta
	second  float64   // the largest delta of the others
	eta     float64
	skipped []int // rows that kept their center, per worker
}

// tiny is hamerly's absolute slack on distances: above sqrt(d 2^-1074) for
// any d below 10^20, the most that underflow in a sum of d squares can
// hide, and too small to matter for data that is not itself near it.
const tiny = 1e-150

// newHamerly returns the bounds for n rows, k centers of d columns and
// assign's workers; rel is screenBound's relative error for d.
func newHamerly(n, k, d, workers int, rel float64) *hamerly {
	return &hamerly{last: make([]int, n), lower: make([]float64, n), prev: make([]float64, k*d),
		delta: make([]float64, k), half: make([]float64, k), eta: 16 * rel, skipped: make([]int, workers)}
}

// moved prepares the bounds for the centers c (k*d) and reports whether
// they can be used: not at a run's first assignment.
func (h *hamerly) moved(c []float64, d int) bool {
	if !h.valid {
		return false
	}
	k := len(h.delta)
	up, down := 1+h.eta, 1-h.eta
	h.top, h.first, h.second = -1, 0, 0
	near := h.half // the least squared distance to another center, then its bound
	for j := range near {
		near[j] = math.Inf(1)
	}
	for j := range k {
		cj := c[j*d : (j+1)*d]
		h.delta[j] = math.Sqrt(sqDist(cj, h.prev[j*d:(j+1)*d]))*up + tiny
		switch {
		case h.delta[j] > h.first:
			h.second, h.first, h.top = h.first, h.delta[j], j
		case h.delta[j] > h.second:
			h.second = h.delta[j]
		}
		// Each pair once: sqDist(a, b) and sqDist(b, a) are the same
		// (a difference and its negation round alike).
		for o := j + 1; o < k; o++ {
			s := sqDist(cj, c[o*d:(o+1)*d])
			near[j], near[o] = min(near[j], s), min(near[o], s)
		}
		h.half[j] = max(0, math.Sqrt(near[j])*down-tiny) / 2
	}
	return true
}

// keep reports, for row i at squared distance da (sqDist) from its last
// center a, whether the bounds prove a the strictly nearest center, after
// lowering the row's bound by the other centers' movement.
func (h *hamerly) keep(i int, da float64) (a int, ok bool) {
	a = h.last[i]
	move := h.first
	if a == h.top {
		move = h.second
	}
	l := h.lower[i] - move
	if l > 0 {
		l *= 1 - h.eta
	} else {
		l = 0
	}
	h.lower[i] = l
	up := math.Sqrt(da)*(1+h.eta) + tiny
	return a, up*(1+h.eta) < max(l, h.half[a])
}

// found records the full search's center for row i and its bound on the
// others: every other center j has sqDist >= other2 (a fast distance, less
// twice its error bound).
func (h *hamerly) found(i, best int, other2 float64) {
	h.last[i] = best
	l := 0.0
	if other2 > 0 {
		l = max(0, math.Sqrt(other2)*(1-h.eta)-tiny)
	}
	h.lower[i] = l
}

// used keeps the centers of this assignment for the next one's movement.
func (h *hamerly) used(c []float64) {
	copy(h.prev, c)
	h.valid = true
}

// repair fills each empty cluster, by refill, with the row farthest from
// its center among the clusters of two or more rows, which becomes its
// center.
func (p *points) repair(c []float64, labels []int, dist []float64, counts []int) {
	refill(labels, dist, counts, func(j, i int) {
		copy(c[j*p.d:(j+1)*p.d], p.row(i))
	})
}

// means sets each center to the mean of its rows by setMeans, adding the
// rows in index order whatever the thread count.
func (p *points) means(c []float64, labels []int, w *lloydWork) {
	setMeans(c, p.d, labels, p.threads, w, func(cj []float64, i int) {
		// The product 1*v is exact, so with or without FMA this is
		// cj[t] += v, rounded once.
		asm.Axpy(1, p.row(i), cj)
	})
}
