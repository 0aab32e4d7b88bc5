package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/parallel"
)

// This file holds what KMeans and KMeansSparse share: the option checks,
// the replicates, Lloyd's iterations and the pieces of the steps that do
// not depend on how the rows are stored.

// lloydData is what the replicates and Lloyd's iterations need from the
// rows: *points (dense) and *sparsePoints implement it. The methods of
// each compute every row's and every center's result alone, so the
// results do not depend on the thread count.
type lloydData interface {
	// dims returns the number of rows n and columns d.
	dims() (n, d int)
	// work returns the scratch space of one run with k centers.
	work(k int) *lloydWork
	// seed returns k centers (k*d, row-major) chosen by k-means++.
	seed(ctx context.Context, k int, rng *rand.Rand) ([]float64, error)
	// assign sets labels and dist to each row's nearest center and its
	// squared distance.
	assign(c []float64, labels []int, dist []float64, w *lloydWork)
	// repair refills empty clusters and leaves counts holding the sizes.
	repair(c []float64, labels []int, dist []float64, counts []int)
	// means moves each center to the mean of its rows.
	means(c []float64, labels []int, w *lloydWork)
}

// lockstepSeeder is lloydData that seeds several replicates at once
// (points.seeds): seeds returns seed's centers for each generator.
type lockstepSeeder interface {
	seeds(ctx context.Context, k int, rngs []*rand.Rand) ([][]float64, error)
}

var (
	_ lloydData      = (*points)(nil)
	_ lloydData      = (*sparsePoints)(nil)
	_ lockstepSeeder = (*points)(nil)
)

// checkKMeansOptions returns the error for options that KMeans rejects,
// with fn naming the caller; n is the number of rows.
func checkKMeansOptions(fn string, opt KMeansOptions, n int) error {
	switch {
	case opt.K < 1 || opt.K > n:
		return fmt.Errorf("cluster: %s: K = %d, want 1 <= K <= %d (the number of rows)", fn, opt.K, n)
	case opt.Replicates < 0:
		return fmt.Errorf("cluster: %s: Replicates = %d is negative", fn, opt.Replicates)
	case opt.MaxIter < 0:
		return fmt.Errorf("cluster: %s: MaxIter = %d is negative", fn, opt.MaxIter)
	case math.IsNaN(opt.Tol):
		return fmt.Errorf("cluster: %s: Tol is NaN", fn)
	}
	return nil
}

// runKMeans checks opt, with fn naming the caller in the error, runs the
// replicates on data and returns the winner: the lowest inertia, the
// earliest on a tie.
func runKMeans(ctx context.Context, fn string, data lloydData, opt KMeansOptions) (*KMeansResult, error) {
	n, d := data.dims()
	if err := checkKMeansOptions(fn, opt, n); err != nil {
		return nil, err
	}
	reps := opt.Replicates
	if reps == 0 {
		reps = DefaultReplicates
	}
	cfg := newLloydConfig(opt)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rngs := make([]*rand.Rand, reps)
	for r := range rngs {
		rngs[r] = rand.New(rand.NewPCG(opt.Seed, uint64(r)))
	}
	// Dense rows are seeded for every replicate first (seeds steps them
	// together; their starts are k x d, small), then each replicate runs
	// Lloyd's iterations in turn. Sparse rows' starts are dense k x d over
	// a vocabulary, so each replicate is seeded just before it runs.
	// Replicate r draws from PCG(seed, r) either way.
	var starts [][]float64
	if ls, ok := data.(lockstepSeeder); ok {
		var err error
		if starts, err = ls.seeds(ctx, opt.K, rngs); err != nil {
			return nil, err
		}
	}
	var best *lloydRun
	bestRep := 0
	for r := range reps {
		if err := ctx.Err(); err != nil {
			return best.result(d, bestRep), err
		}
		var c []float64
		if starts != nil {
			c, starts[r] = starts[r], nil
		} else {
			var err error
			if c, err = data.seed(ctx, opt.K, rngs[r]); err != nil {
				return best.result(d, bestRep), err
			}
		}
		run, err := lloyd(ctx, data, c, cfg)
		if run != nil && (best == nil || run.inertia < best.inertia) {
			best, bestRep = run, r
		}
		if err != nil {
			return best.result(d, bestRep), err
		}
	}
	return best.result(d, bestRep), nil
}

// lloydConfig holds the resolved per-replicate settings.
type lloydConfig struct {
	maxIter int
	tol     float64 // negative: test off
	// trace, if not nil, receives the inertia after the first assignment
	// and after every iteration.
	trace func(inertia float64)
}

// newLloydConfig resolves the zero MaxIter and Tol of opt to the defaults.
func newLloydConfig(opt KMeansOptions) lloydConfig {
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

// lloyd runs Lloyd's iterations on data from the centers c (k*d,
// row-major, which it takes over) and returns the clustering; on a done
// ctx it returns the clustering of the last completed step with ctx.Err().
func lloyd(ctx context.Context, data lloydData, c []float64, cfg lloydConfig) (*lloydRun, error) {
	n, d := data.dims()
	w := data.work(len(c) / d)
	labels, next := make([]int, n), make([]int, n)
	dist := make([]float64, n)
	data.assign(c, labels, dist, w)
	data.repair(c, labels, dist, w.counts)
	inertia := sum(dist)
	if cfg.trace != nil {
		cfg.trace(inertia)
	}
	run := &lloydRun{labels: labels, centers: c, inertia: inertia}
	for it := 1; it <= cfg.maxIter; it++ {
		if err := ctx.Err(); err != nil {
			return run, err
		}
		data.means(c, labels, w)
		data.assign(c, next, dist, w)
		data.repair(c, next, dist, w.counts)
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
	means   [][]float64 // per worker of setMeans, d, made on first use
	counts  []int       // rows per cluster
	start   []int       // k+1 offsets into order
	fill    []int       // k insertion points into order
	order   []int       // rows grouped by cluster, ascending within each
	// colSums holds per worker the column sums of columnMeans, made on
	// first use.
	colSums [][]float64
	// hamerly holds the bounds of the dense assignment, made at the run's
	// first assignment.
	hamerly *hamerly
}

// newLloydWork returns the scratch space for n rows of d columns, k
// centers and assign's workers on the given number of threads.
func newLloydWork(n, d, k, threads int) *lloydWork {
	w := &lloydWork{
		norms: make([]float64, k),
		ct:    make([]float64, d*k),
		// Each worker writes its scratch on every row: on lines of its
		// own (at k = 10 two threads took longer than one when they
		// shared them).
		// 4k: the sparse assignment takes four rows at a time.
		scratch: parallel.OwnRows(parallel.Workers(n, threads, assignGrain(n, threads)), 4*k),
		means:   make([][]float64, parallel.Workers(k, threads, 1)),
		counts:  make([]int, k),
		start:   make([]int, k+1),
		fill:    make([]int, k),
		order:   make([]int, n),
	}
	return w
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

// leastTwo returns the least fast distance a_j = norms[j] - 2 dots[j], its
// center (the first on a tie), and the second least; after the first few
// centers the outer test is mostly false.
func leastTwo(dots, norms []float64) (least, second float64, m int) {
	least, second = math.Inf(1), math.Inf(1)
	norms = norms[:len(dots)]
	for j, dot := range dots {
		if a := norms[j] - 2*dot; a < second {
			if a < least {
				least, second, m = a, least, j
			} else {
				second = a
			}
		}
	}
	return least, second, m
}

// refill fills each empty cluster j, in order, with the row farthest from
// its center (largest dist, lowest index on a tie) among the clusters with
// two or more rows and calls center(j, row) to center j on it. Since
// n >= k, such a cluster exists while one is empty. It leaves counts
// holding the cluster sizes.
func refill(labels []int, dist []float64, counts []int, center func(j, row int)) {
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
		center(j, far)
	}
}

// setMeans sets each center c_j (c is k*d, row-major) to the mean of its
// rows: it clears c_j, calls add(c_j, i) for each row i of cluster j in
// index order, whatever the thread count, and divides by their number.
// Every cluster must be non-empty, with w.counts holding the sizes (as
// repair leaves them).
func setMeans(c []float64, d int, labels []int, threads int, w *lloydWork, add func(cj []float64, i int)) {
	groupRows(labels, w)
	// The sums go into a buffer of the goroutine's own: the centers of a
	// factor's k columns are a few cache lines, and neighbouring centers
	// summed in place by different goroutines would bounce their shared
	// lines between the cores on every row.
	parallel.ForWorker(len(w.counts), threads, 1, func(worker, lo, hi int) {
		if w.means[worker] == nil {
			w.means[worker] = make([]float64, d)
		}
		buf := w.means[worker]
		for j := lo; j < hi; j++ {
			clear(buf)
			for _, i := range w.order[w.start[j]:w.start[j+1]] {
				add(buf, i)
			}
			m := float64(w.start[j+1] - w.start[j])
			cj := c[j*d : (j+1)*d]
			for t, x := range buf {
				cj[t] = x / m
			}
		}
	})
}

// groupRows lists the rows of each cluster, ascending, in
// w.order[w.start[j]:w.start[j+1]], from labels and the sizes in w.counts.
func groupRows(labels []int, w *lloydWork) {
	w.start[0] = 0
	for j, cnt := range w.counts {
		w.start[j+1] = w.start[j] + cnt
	}
	copy(w.fill, w.start)
	for i, l := range labels {
		w.order[w.fill[l]] = i
		w.fill[l]++
	}
}

// sum adds v in index order.
func sum(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s
}
