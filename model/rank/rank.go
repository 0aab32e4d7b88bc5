package rank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/stat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
	"github.com/manifactor/manifactor/sparse"
)

// DefaultTestShare and DefaultReplicates are what Options' zero values
// stand for.
const (
	DefaultTestShare  = 0.05
	DefaultReplicates = 3
)

// Options configures CrossValidate. The zero value with Ks set is the
// command line's default.
type Options struct {
	// Fit is the factorization each rank runs: its Method (nmf, gnmf,
	// nmf-kl or their -ncw forms), Formulation, Lambda (fixed or the
	// method's default; Auto cannot be cross-validated), Graph, Solver,
	// Seed and Threads. Its K and the Auto fields are not used.
	Fit model.Options
	// Ks are the ranks to try, at least 1 and below the data's smaller
	// dimension; they are fitted in increasing order.
	Ks []int
	// TestShare is the share of all entries, zeros included, hidden in
	// each replicate, in (0, 0.5]; 0 means DefaultTestShare.
	TestShare float64
	// Replicates is the number of different hidden sets, each fitted at
	// every rank; 0 means DefaultReplicates.
	Replicates int
	// Cold starts every rank from random factors instead of the previous
	// rank's (the way a sweep of independent fits runs), for comparison.
	Cold bool
	// Progress, when set, is called after each fit with its replicate
	// (0-based), rank and test error, from the replicates' goroutines
	// one at a time.
	Progress func(replicate, k int, testError float64)
}

// Point is the test error of one rank.
type Point struct {
	K int `json:"k"`
	// TestError is the mean over the replicates of each one's mean loss
	// at its hidden entries (squared error, or the KL divergence for
	// the KL methods), Spread their standard deviation.
	TestError float64   `json:"test_error"`
	Spread    float64   `json:"spread"`
	Errors    []float64 `json:"errors"`
	// Iterations sums the replicates' iterations at this rank.
	Iterations int `json:"iterations"`
}

// Result is the outcome of CrossValidate.
type Result struct {
	Curve []Point `json:"curve"`
	// Best is the rank of the lowest test error; Chosen the smallest
	// rank whose test error is within one standard error of Best's
	// (Spread / sqrt(replicates)), the rule of Breiman et al. that keeps
	// the simplest model the data cannot tell from the best.
	Best   int `json:"best"`
	Chosen int `json:"k"`
	// Hidden is the mean number of entries hidden in a replicate.
	Hidden int `json:"hidden"`
}

// CrossValidate hides a seeded share of ds's entries, zeros included
// (TestShare; a different set per replicate), fits each rank of Ks on the
// rest and scores it by its loss at the hidden entries: the rank beyond
// which the model predicts the data no better is the data's. Each rank
// starts from the previous rank's factors, its new columns small, so that
// a sweep costs little more than its largest fit. The graph methods'
// graph is built from each replicate's observed entries, so that the
// hidden values do not reach the fit through it. ds must be prepared
// (model.Prepare). Replicates run in parallel; the result does not depend
// on Threads.
func CrossValidate(ctx context.Context, ds *dataset.Dataset, opts Options) (*Result, error) {
	o, err := opts.check(ds)
	if err != nil {
		return nil, err
	}
	errs := make([][]float64, len(o.Ks)) // [rank][replicate]
	iters := make([]int, len(o.Ks))
	for i := range errs {
		errs[i] = make([]float64, o.Replicates)
	}
	var hidden int
	var mu sync.Mutex
	if p := o.Progress; p != nil {
		// The replicates report from their goroutines, one at a time.
		var pm sync.Mutex
		o.Progress = func(r, k int, e float64) {
			pm.Lock()
			defer pm.Unlock()
			p(r, k, e)
		}
	}
	threads := max(1, parallel.Threads(o.Fit.Threads)/o.Replicates)
	var firstErr error
	var wg sync.WaitGroup
	for r := 0; r < o.Replicates; r++ {
		wg.Add(1)
		go func(r int) {
			defer wg.Done()
			h, e, it, err := o.replicate(ctx, ds, r, threads)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				if firstErr == nil {
					firstErr = err
				}
				return
			}
			hidden += h
			for i := range o.Ks {
				errs[i][r] = e[i]
				iters[i] += it[i]
			}
		}(r)
	}
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	res := &Result{Hidden: hidden / o.Replicates}
	for i, k := range o.Ks {
		mean, sd := meanSD(errs[i])
		res.Curve = append(res.Curve, Point{K: k, TestError: mean, Spread: sd, Errors: errs[i], Iterations: iters[i]})
	}
	res.Best, res.Chosen = choose(res.Curve, o.Replicates)
	return res, nil
}

// choose returns the rank of the lowest mean test error and the smallest
// rank within one standard error of it.
func choose(curve []Point, replicates int) (best, chosen int) {
	b := 0
	for i, p := range curve {
		if p.TestError < curve[b].TestError {
			b = i
		}
	}
	bound := curve[b].TestError + curve[b].Spread/math.Sqrt(float64(replicates))
	for _, p := range curve {
		if p.TestError <= bound {
			return curve[b].K, p.K
		}
	}
	return curve[b].K, curve[b].K
}

// meanSD returns the mean and the sample standard deviation of x (0 for
// one value).
func meanSD(x []float64) (mean, sd float64) {
	if len(x) < 2 {
		return x[0], 0
	}
	return stat.MeanStdDev(x, nil)
}

// check validates opts against ds and fills the defaults.
func (opts Options) check(ds *dataset.Dataset) (Options, error) {
	if ds == nil {
		return opts, errors.New("rank: nil data set")
	}
	if err := ds.Validate(); err != nil {
		return opts, err
	}
	if opts.TestShare == 0 {
		opts.TestShare = DefaultTestShare
	}
	if opts.Replicates == 0 {
		opts.Replicates = DefaultReplicates
	}
	n, m := ds.Dims()
	switch {
	case !(opts.TestShare > 0 && opts.TestShare <= 0.5):
		return opts, fmt.Errorf("rank: test share %v: want a share in (0, 0.5] of the entries", opts.TestShare)
	case opts.Replicates < 1 || opts.Replicates > 100:
		return opts, fmt.Errorf("rank: %d replicates: want 1 to 100", opts.Replicates)
	case len(opts.Ks) == 0:
		return opts, errors.New("rank: no ranks to try")
	case opts.Fit.Lambda.IsAuto():
		return opts, errors.New("rank: lambda auto chooses the graph's weight by fitting; cross-validate a fixed lambda (or the method's default)")
	}
	switch opts.Fit.Method.Base() {
	case solver.NMF, solver.GNMF, solver.NMFKL:
	default:
		return opts, fmt.Errorf("rank: %s cannot leave entries out; use nmf, gnmf or nmf-kl (or their -ncw forms)", opts.Fit.Method)
	}
	ks := append([]int(nil), opts.Ks...)
	sort.Ints(ks)
	if top := ks[len(ks)-1]; top >= min(n, m) {
		return opts, fmt.Errorf("rank: ranks up to %d, but the data (%d samples x %d features) allow 1 to %d", top, n, m, min(n, m)-1)
	}
	for i, k := range ks {
		if i > 0 && k == ks[i-1] {
			return opts, fmt.Errorf("rank: rank %d given twice", k)
		}
		if k < 1 || k >= min(n, m) {
			return opts, fmt.Errorf("rank: rank %d out of range: the data (%d samples x %d features) allow 1 to %d", k, n, m, min(n, m)-1)
		}
	}
	opts.Ks = ks
	return opts, nil
}

// replicate hides replicate r's entries and fits every rank, returning
// the number hidden, each rank's test error and iterations.
func (o Options) replicate(ctx context.Context, ds *dataset.Dataset, r, threads int) (int, []float64, []int, error) {
	hidden, values := speckle(ds, o.TestShare, o.Fit.Seed, uint64(r))
	fail := func(err error) (int, []float64, []int, error) {
		return 0, nil, nil, fmt.Errorf("%s: replicate %d: %w", ds.Source, r+1, err)
	}
	// The observed entries alone, for the graph (so that the hidden
	// values do not reach the fit through it) and the solver's data.
	obs, err := ds.WithMissing(hidden)
	if err != nil {
		return fail(err)
	}
	so := solver.Options{Method: o.Fit.Method, Formulation: o.Fit.Formulation, Lambda: o.Fit.Lambda, Seed: o.Fit.Seed + uint64(r), Threads: threads, Control: o.Fit.Solver}
	if so.Method.TakesGraph() && !(so.Lambda == solver.Fixed(0)) {
		p := &model.Prepared{Data: obs}
		if so.Graph, err = p.Graph(ctx, o.Fit.Graph, o.Fit.Seed, threads); err != nil {
			return fail(err)
		}
	}
	var d *solver.Data
	if obs.Sparse != nil {
		d, err = solver.NewSparseDataInPlace(obs.Sparse) // obs is this replicate's own
	} else {
		d, err = solver.NewDenseData(obs.Dense)
	}
	if err == nil {
		d, err = d.Hide(hidden) // nothing stored there: shares d's arrays
	}
	if err != nil {
		return fail(err)
	}
	errs, iters := make([]float64, len(o.Ks)), make([]int, len(o.Ks))
	var prev *solver.Result
	for i, k := range o.Ks {
		so.K, so.Init = k, nil
		if prev != nil && !o.Cold {
			so.Init = widen(prev, k, o.Fit.Seed+uint64(r))
		}
		res, err := solver.Fit(ctx, d, so)
		if err != nil {
			return 0, nil, nil, fmt.Errorf("%s: replicate %d, rank %d: %w", ds.Source, r+1, k, err)
		}
		errs[i], iters[i] = testError(hidden, values, res.U, res.V, so.Method.KL()), res.Iterations
		if o.Progress != nil {
			o.Progress(r, k, errs[i])
		}
		prev = res
	}
	return hidden.NNZ(), errs, iters, nil
}

// widen returns res's factors with columns added up to k, drawn small
// (uniform in [0, 0.01) of the mean entry) with seed, so that the new
// columns start where they hardly change the model.
func widen(res *solver.Result, k int, seed uint64) *solver.Result {
	rng := rand.New(rand.NewPCG(seed, uint64(k)))
	grow := func(a *mat.Dense) *mat.Dense {
		if a == nil {
			return nil
		}
		r, c := a.Dims()
		var mean float64
		for i := 0; i < r; i++ {
			for j := 0; j < c; j++ {
				mean += a.At(i, j)
			}
		}
		mean /= float64(r * c)
		out := mat.NewDense(r, k, nil)
		for i := 0; i < r; i++ {
			for j := 0; j < k; j++ {
				if j < c {
					out.Set(i, j, a.At(i, j))
				} else {
					out.Set(i, j, 0.01*mean*rng.Float64())
				}
			}
		}
		return out
	}
	return &solver.Result{U: grow(res.U), V: grow(res.V), W: grow(res.W)}
}

// testError is the mean loss at the hidden entries (values, in hidden's
// order) of the model U V^T: squared error, or the generalized KL
// divergence.
func testError(hidden *sparse.CSR, values []float64, u, v *mat.Dense, kl bool) float64 {
	_, k := u.Dims()
	ur, vr := u.RawMatrix(), v.RawMatrix()
	var s float64
	for j := 0; j < hidden.Rows; j++ {
		vj := vr.Data[j*vr.Stride : j*vr.Stride+k]
		for q := hidden.Indptr[j]; q < hidden.Indptr[j+1]; q++ {
			i := hidden.Ind[q]
			var y float64
			for c, x := range ur.Data[i*ur.Stride : i*ur.Stride+k] {
				y += x * vj[c]
			}
			x := values[q]
			switch {
			case !kl:
				s += (x - y) * (x - y)
			case x > 0:
				s += x*math.Log(x/max(y, solver.Eps)) - x + y
			default:
				s += y
			}
		}
	}
	return s / float64(max(hidden.NNZ(), 1))
}

// speckle draws replicate r's hidden set: every entry of ds, zero or not,
// independently with probability share (Bernoulli trials taken by
// geometric skips, so that the cost is the set's size, not n x m), then
// gives back one entry of any sample or feature hidden whole. It returns
// the set (samples as rows) and ds's values there.
func speckle(ds *dataset.Dataset, share float64, seed, r uint64) (*sparse.CSR, []float64) {
	n, m := ds.Dims()
	rng := rand.New(rand.NewPCG(seed, 0x7370656b6c65+r)) // "speckle"
	logq := math.Log1p(-share)
	h := &sparse.CSR{Rows: n, Cols: m, Indptr: make([]int, n+1)}
	var values []float64
	for j := 0; j < n; j++ {
		row0 := len(h.Ind)
		for c := -1; ; {
			c += 1 + int(math.Floor(math.Log(1-rng.Float64())/logq))
			if c >= m || c < 0 {
				break
			}
			h.Ind = append(h.Ind, c)
		}
		if len(h.Ind)-row0 == m {
			h.Ind = h.Ind[:len(h.Ind)-1]
		}
		for _, c := range h.Ind[row0:] {
			values = append(values, valueAt(ds, j, c))
		}
		h.Indptr[j+1] = len(h.Ind)
	}
	h.Val = make([]float64, len(h.Ind))
	// A feature hidden in every sample keeps its last sample.
	count := make([]int, m)
	for _, c := range h.Ind {
		count[c]++
	}
	for c, k := range count {
		if k < n {
			continue
		}
		j := n - 1
		q := h.Indptr[j] + sort.SearchInts(h.Ind[h.Indptr[j]:h.Indptr[j+1]], c)
		h.Ind = append(h.Ind[:q], h.Ind[q+1:]...)
		h.Val = h.Val[:len(h.Ind)]
		values = append(values[:q], values[q+1:]...)
		for t := j + 1; t <= n; t++ {
			h.Indptr[t]--
		}
	}
	return h, values
}

// valueAt returns ds's entry of sample j, feature c.
func valueAt(ds *dataset.Dataset, j, c int) float64 {
	if a := ds.Sparse; a != nil {
		row := a.Ind[a.Indptr[j]:a.Indptr[j+1]]
		if t := sort.SearchInts(row, c); t < len(row) && row[t] == c {
			return a.Val[a.Indptr[j]+t]
		}
		return 0
	}
	return ds.Dense.At(j, c)
}
