package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/kernels"
)

// Defaults applied to the zero fields of KMeansOptions.
const (
	defaultReplicates = 10
	defaultMaxIter    = 100
	defaultTol        = 1e-8
)

// Rows per chunk of the parallel loops. Each row's result is computed alone,
// so these only set the granularity of the work, never the result.
const (
	assignGrain = 256
	seedGrain   = 1024
)

// KMeansOptions configures KMeans; the zero value (with K set) is sensible.
type KMeansOptions struct {
	// K is the number of clusters, 1 <= K <= n.
	K int
	// Replicates is the number of independent k-means++ starts; the one
	// with the lowest inertia wins. 0 means 10, as the reference MATLAB
	// code calls kmeans with 'Replicates', 10.
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
// index order.
//
// x must have at least one row and column and only finite entries, small
// enough (below about sqrt(MaxFloat64/(8 n d))) that squared distances
// cannot overflow; K must be in 1..n. KMeans checks ctx between
// iterations; when it is done it returns the best clustering found so far
// (nil if none) with ctx.Err().
func KMeans(ctx context.Context, x mat.Matrix, opt KMeansOptions) (*KMeansResult, error) {
	p, err := newPoints(x, opt.Threads)
	if err != nil {
		return nil, err
	}
	if opt.K < 1 || opt.K > p.n {
		return nil, fmt.Errorf("cluster: KMeans: K = %d, want 1 <= K <= %d (the number of rows)", opt.K, p.n)
	}
	if opt.Replicates < 0 {
		return nil, fmt.Errorf("cluster: KMeans: Replicates = %d is negative", opt.Replicates)
	}
	if opt.MaxIter < 0 {
		return nil, fmt.Errorf("cluster: KMeans: MaxIter = %d is negative", opt.MaxIter)
	}
	if math.IsNaN(opt.Tol) {
		return nil, fmt.Errorf("cluster: KMeans: Tol is NaN")
	}
	reps := opt.Replicates
	if reps == 0 {
		reps = defaultReplicates
	}
	cfg := p.config(opt)
	var best *lloydRun
	bestRep := 0
	for r := range reps {
		run, err := p.replicate(ctx, opt.K, opt.Seed, r, cfg)
		if run != nil && (best == nil || run.inertia < best.inertia) {
			best, bestRep = run, r
		}
		if err != nil {
			return best.result(p.d, bestRep), err
		}
	}
	return best.result(p.d, bestRep), nil
}

// points holds the rows of x, row-major and validated, with what the
// distance computations need.
type points struct {
	x       []float64 // n*d, row i at x[i*d : (i+1)*d]
	n, d    int
	norms   []float64 // ||x_i||^2 as kernels.Dot computes it
	ident   []int     // 0..d-1, the column indices of a dense row for kernels.AxpyGather
	rel     float64   // screening error bound, relative part (see screenBound)
	abs     float64   // and absolute part, for underflow
	threads int
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
	if rm, ok := x.(mat.RawMatrixer); ok {
		raw := rm.RawMatrix()
		for i := range n {
			copy(p.x[i*d:(i+1)*d], raw.Data[i*raw.Stride:i*raw.Stride+d])
		}
	} else {
		for i := range n {
			for j := range d {
				p.x[i*d+j] = x.At(i, j)
			}
		}
	}
	limit := math.Sqrt(math.MaxFloat64 / (8 * float64(n) * float64(d)))
	for k, v := range p.x {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, fmt.Errorf("cluster: KMeans: x[%d, %d] = %v is not finite", k/d, k%d, v)
		}
		if math.Abs(v) > limit {
			return nil, fmt.Errorf("cluster: KMeans: x[%d, %d] = %g is larger in magnitude than %.3g, past which squared distances may overflow; scale the data", k/d, k%d, v, limit)
		}
	}
	p.norms = make([]float64, n)
	for i := range p.norms {
		r := p.row(i)
		p.norms[i] = kernels.Dot(r, r)
	}
	p.ident = make([]int, d)
	for t := range p.ident {
		p.ident[t] = t
	}
	p.rel, p.abs = screenBound(d)
	return p, nil
}

func (p *points) row(i int) []float64 { return p.x[i*p.d : (i+1)*p.d : (i+1)*p.d] }

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

// lloydConfig holds the resolved per-replicate settings.
type lloydConfig struct {
	maxIter int
	tol     float64 // negative: test off
	// trace, if not nil, receives the inertia after the first assignment
	// and after every iteration.
	trace func(inertia float64)
}

func (p *points) config(opt KMeansOptions) lloydConfig {
	cfg := lloydConfig{maxIter: opt.MaxIter, tol: opt.Tol}
	if cfg.maxIter == 0 {
		cfg.maxIter = defaultMaxIter
	}
	if cfg.tol == 0 {
		cfg.tol = defaultTol
	}
	return cfg
}

// lloydRun is one replicate's clustering.
type lloydRun struct {
	labels    []int
	centers   []float64 // k*d
	inertia   float64
	iters     int
	converged bool
}

func (r *lloydRun) result(d, rep int) *KMeansResult {
	if r == nil {
		return nil
	}
	return &KMeansResult{
		Labels:     r.labels,
		Centers:    mat.NewDense(len(r.centers)/d, d, r.centers),
		Inertia:    r.inertia,
		Iterations: r.iters,
		Replicate:  rep,
		Converged:  r.converged,
	}
}

// replicate runs replicate r: k-means++ seeding from PCG(seed, r), then
// Lloyd's iterations. The run is nil only if ctx ended before the first
// assignment.
func (p *points) replicate(ctx context.Context, k int, seed uint64, r int, cfg lloydConfig) (*lloydRun, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(seed, uint64(r)))
	c, err := p.seed(ctx, k, rng)
	if err != nil {
		return nil, err
	}
	return p.lloyd(ctx, c, cfg)
}

// seed returns k centers (k*d, row-major) chosen among the rows by
// k-means++.
func (p *points) seed(ctx context.Context, k int, rng *rand.Rand) ([]float64, error) {
	n, d := p.n, p.d
	c := make([]float64, k*d)
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
		cj := c[j*d : (j+1)*d]
		copy(cj, p.row(i))
		if j == k-1 {
			break
		}
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		cn := kernels.Dot(cj, cj)
		parallel.For(n, p.threads, seedGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if d2[i] == 0 {
					continue
				}
				xi := p.row(i)
				s := p.norms[i] + cn
				// The exact distance is at least a - bound; skip it when
				// that cannot beat d2[i].
				if a := s - 2*kernels.Dot(xi, cj); a-(p.rel*s+p.abs) >= d2[i] {
					continue
				}
				d2[i] = min(d2[i], sqDist(xi, cj))
			}
		})
	}
	return c, nil
}

// pickSeed draws a row with probability proportional to d2, or uniformly
// among the unchosen rows (left of them) when every d2 is zero.
func pickSeed(rng *rand.Rand, d2 []float64, chosen []bool, left int) int {
	var total float64
	for _, v := range d2 {
		total += v
	}
	if total > 0 {
		// The first row whose running sum passes r has d2 > 0, so a chosen
		// row (d2 = 0) is never drawn again.
		r := rng.Float64() * total
		var cum float64
		last := -1
		for i, v := range d2 {
			if v == 0 {
				continue
			}
			cum += v
			if cum > r {
				return i
			}
			last = i
		}
		// r rounded up to total.
		return last
	}
	r := rng.IntN(left)
	for i, c := range chosen {
		if c {
			continue
		}
		if r == 0 {
			return i
		}
		r--
	}
	panic("cluster: no unchosen row left for k-means++")
}

// lloyd runs Lloyd's iterations from the centers c (k*d, row-major, which
// it takes over) and returns the clustering; on a done ctx it returns the
// clustering of the last completed step with ctx.Err().
func (p *points) lloyd(ctx context.Context, c []float64, cfg lloydConfig) (*lloydRun, error) {
	n, d := p.n, p.d
	k := len(c) / d
	w := newLloydWork(p, k)
	labels, next := make([]int, n), make([]int, n)
	dist := make([]float64, n)
	p.assign(c, labels, dist, w)
	p.repair(c, labels, dist, w.counts)
	inertia := sum(dist)
	if cfg.trace != nil {
		cfg.trace(inertia)
	}
	run := &lloydRun{labels: labels, centers: c, inertia: inertia}
	for it := 1; it <= cfg.maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return run, err
		}
		p.means(c, labels, w)
		p.assign(c, next, dist, w)
		p.repair(c, next, dist, w.counts)
		prev := inertia
		inertia = sum(dist)
		if cfg.trace != nil {
			cfg.trace(inertia)
		}
		changed := false
		for i, l := range next {
			if l != labels[i] {
				changed = true
				break
			}
		}
		labels, next = next, labels
		run.labels, run.inertia, run.iters = labels, inertia, it
		if !changed || (cfg.tol >= 0 && prev-inertia < cfg.tol*prev) {
			run.converged = true
			break
		}
	}
	return run, nil
}

// lloydWork is the scratch space of one lloyd call.
type lloydWork struct {
	norms   []float64   // ||c_j||^2
	ct      []float64   // the centers transposed, d x k
	scratch [][]float64 // per worker, k
	counts  []int       // rows per cluster
	start   []int       // k+1 offsets into order
	fill    []int       // k insertion points into order
	order   []int       // rows grouped by cluster, ascending within each
}

func newLloydWork(p *points, k int) *lloydWork {
	w := &lloydWork{
		norms:   make([]float64, k),
		ct:      make([]float64, p.d*k),
		scratch: make([][]float64, parallel.Workers(p.n, p.threads, assignGrain)),
		counts:  make([]int, k),
		start:   make([]int, k+1),
		fill:    make([]int, k),
		order:   make([]int, p.n),
	}
	for i := range w.scratch {
		w.scratch[i] = make([]float64, k)
	}
	return w
}

// assign sets labels[i] to the nearest center of row i (the lowest index on
// a tie) and dist[i] to sqDist to it. The cross products of a row with all
// centers come from one kernels.AxpyGather over the transposed centers and
// give the fast distances a_j = ||c_j||^2 - 2 x.c_j (||x||^2 is common to
// all j); by screenBound, a center whose a_j exceeds the least, a_m, by
// more than twice the row's error bound is farther than center m, so
// sqDist decides only among the others (usually m alone).
func (p *points) assign(c []float64, labels []int, dist []float64, w *lloydWork) {
	d, k := p.d, len(w.norms)
	var maxNorm float64
	for j := range k {
		cj := c[j*d : (j+1)*d]
		w.norms[j] = kernels.Dot(cj, cj)
		maxNorm = max(maxNorm, w.norms[j])
		for t, v := range cj {
			w.ct[t*k+j] = v
		}
	}
	parallel.ForWorker(p.n, p.threads, assignGrain, func(worker, lo, hi int) {
		fast := w.scratch[worker]
		for i := lo; i < hi; i++ {
			xi := p.row(i)
			clear(fast)
			kernels.AxpyGather(fast, xi, p.ident, w.ct, k)
			// The least fast distance, its center, and the second least;
			// after the first few centers the outer test is mostly false.
			least, second, m := math.Inf(1), math.Inf(1), 0
			for j, dot := range fast {
				if a := w.norms[j] - 2*dot; a < second {
					if a < least {
						least, second, m = a, least, j
					} else {
						second = a
					}
				}
			}
			reach := least + 2*(p.rel*(p.norms[i]+maxNorm)+p.abs)
			best, bestDist := m, sqDist(xi, c[m*d:(m+1)*d])
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
		}
	})
}

// repair fills each empty cluster j, in order, with the row farthest from
// its center (largest dist, lowest index on a tie) among the clusters with
// two or more rows, and makes that row center j. Since n >= k, such a
// cluster exists while one is empty. It leaves counts holding the cluster
// sizes.
func (p *points) repair(c []float64, labels []int, dist []float64, counts []int) {
	clear(counts)
	for _, l := range labels {
		counts[l]++
	}
	for j, cnt := range counts {
		if cnt > 0 {
			continue
		}
		far := -1
		for i, l := range labels {
			if counts[l] > 1 && (far < 0 || dist[i] > dist[far]) {
				far = i
			}
		}
		counts[labels[far]]--
		labels[far], dist[far], counts[j] = j, 0, 1
		copy(c[j*p.d:(j+1)*p.d], p.row(far))
	}
}

// means sets each center to the mean of its rows, adding the rows in index
// order whatever the thread count. Every cluster must be non-empty, with
// w.counts holding the sizes (as repair leaves them).
func (p *points) means(c []float64, labels []int, w *lloydWork) {
	d, k := p.d, len(w.counts)
	w.start[0] = 0
	for j, cnt := range w.counts {
		w.start[j+1] = w.start[j] + cnt
	}
	copy(w.fill, w.start)
	for i, l := range labels {
		w.order[w.fill[l]] = i
		w.fill[l]++
	}
	parallel.For(k, p.threads, 1, func(lo, hi int) {
		for j := lo; j < hi; j++ {
			cj := c[j*d : (j+1)*d]
			clear(cj)
			for _, i := range w.order[w.start[j]:w.start[j+1]] {
				// The product 1*v is exact, so with or without FMA this
				// is cj[t] += v, rounded once.
				kernels.Axpy(1, p.row(i), cj)
			}
			m := float64(w.start[j+1] - w.start[j])
			for t := range cj {
				cj[t] /= m
			}
		}
	})
}

// sum adds v in index order.
func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}
