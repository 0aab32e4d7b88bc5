package rank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
	// Seed and Threads. Its K and the Auto fields are not used. A
	// Solver.PGTol of 0 turns the KKT rule off here, leaving the
	// objective's (Tol): on planted data of rank 25 (dense) fits stopped
	// at the KKT rule's default chose 27, as a rank above the data's
	// stopped early has not overfitted yet; 1e-5 never stopped before
	// Tol. A PGTol set explicitly applies.
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
	// Hidden is the mean number of entries hidden in a replicate, and
	// ZeroShare the share of the data's zeros that a replicate hides:
	// TestShare, or less on sparse data (their losses then weigh more;
	// see CrossValidate).
	Hidden    int     `json:"hidden"`
	ZeroShare float64 `json:"zero_share"`
}

// CrossValidate hides a seeded share of ds's entries, zeros included
// (TestShare; a different set per replicate), fits each rank of Ks on the
// rest and scores it by its loss at the hidden entries: the rank beyond
// which the model predicts the data no better is the data's. On sparse
// data of more than four zeros a stored entry, the zeros are hidden at a
// lower share (about four for each stored entry hidden) and their losses
// weigh more by as much, so that a corpus's fits stay near the cost of
// plain ones while the error still estimates the mean loss over all
// entries. Each rank starts from the previous rank's factors, its new
// columns small, so that a sweep costs little more than its largest fit.
// The graph methods' graph is built from each replicate's observed
// entries, so that the hidden values do not reach the fit through it. ds
// must be prepared (model.Prepare). Replicates run in parallel; the
// result does not depend on Threads.
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
	res.ZeroShare, _ = zeroShare(ds, o.TestShare)
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

// Validate reports what CrossValidate would refuse in opts for ds, so
// that a caller can refuse it before costly work of its own, such as a
// memory estimate at the largest rank.
func (opts Options) Validate(ds *dataset.Dataset) error {
	_, err := opts.check(ds)
	return err
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
	h := speckle(ds, o.TestShare, o.Fit.Seed, uint64(r))
	hidden := h.set
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
	if so.PGTol == 0 {
		so.PGTol = -1 // see Options.Fit
	}
	d, err := fitInputs(ctx, obs, &so, o.Fit, threads) // obs is this replicate's own
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
		errs[i], iters[i] = testError(h, res.U, res.V, so.Method.KL()), res.Iterations
		if o.Progress != nil {
			o.Progress(r, k, errs[i])
		}
		prev = res
	}
	return hidden.NNZ(), errs, iters, nil
}

// fitInputs makes the solver's data of ds, whose arrays it takes over
// (ds must be the caller's own copy), and, for a graph method with a
// non-zero weight, so's graph of ds's samples as fit says.
func fitInputs(ctx context.Context, ds *dataset.Dataset, so *solver.Options, fit model.Options, threads int) (*solver.Data, error) {
	if so.Method.TakesGraph() && !(so.Lambda == solver.Fixed(0)) {
		p := &model.Prepared{Data: ds}
		var err error
		if so.Graph, err = p.Graph(ctx, fit.Graph, fit.Seed, threads); err != nil {
			return nil, err
		}
	}
	if ds.Sparse != nil {
		return solver.NewSparseDataInPlace(ds.Sparse)
	}
	return solver.NewDenseData(ds.Dense)
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

// testError is the mean loss at h's hidden entries of the model U V^T,
// each weighed by h's weight (the Hajek estimator of the mean loss over
// the speckle h stands for): squared error, or the generalized KL
// divergence.
func testError(h heldOut, u, v *mat.Dense, kl bool) float64 {
	_, k := u.Dims()
	ur, vr := u.RawMatrix(), v.RawMatrix()
	var s, total float64
	set := h.set
	for j := 0; j < set.Rows; j++ {
		vj := vr.Data[j*vr.Stride : j*vr.Stride+k]
		for q := set.Indptr[j]; q < set.Indptr[j+1]; q++ {
			i := set.Ind[q]
			var y float64
			for c, x := range ur.Data[i*ur.Stride : i*ur.Stride+k] {
				y += x * vj[c]
			}
			x := h.values[q]
			var loss float64
			switch {
			case !kl:
				loss = (x - y) * (x - y)
			case x > 0:
				loss = x*math.Log(x/max(y, solver.Eps)) - x + y
			default:
				loss = y
			}
			w := 1.0
			if h.weights != nil {
				w = h.weights[q]
			}
			s += w * loss
			total += w
		}
	}
	return s / max(total, 1)
}

// zerosPerStored bounds the zeros a replicate of sparse data hides: at
// most this many for each stored entry it hides. A share of all entries
// is, on a corpus a fraction of a percent non-zero, hundreds of times
// more zeros than stored entries, and each hidden entry costs the masked
// solver O(k) an iteration, so a proportional speckle made every fit of
// a sweep many times a plain fit. The zeros beyond the bound are hidden
// at a lower rate and weighed up in the test error by the inverse of it
// (a stratified sample: the error stays an estimate of the mean loss
// over a proportional speckle), and the fits see the rest of the zeros.
const zerosPerStored = 4

// heldOut is a replicate's hidden set: entries as rows of samples, the
// data's values there, and the weight of each entry's loss in the test
// error (nil: all 1).
type heldOut struct {
	set     *sparse.CSR
	values  []float64
	weights []float64
	// zeroShare is the share of the entries not stored that are hidden.
	zeroShare float64
}

// speckle draws replicate r's hidden set. Each stored entry of sparse
// data, and each entry of dense data, is hidden independently with
// probability share; each zero of sparse data with probability
// share rho, rho = min(1, zerosPerStored stored / zeros), and weighed
// 1 / rho. The trials are taken by geometric skips, so that the cost is
// the set's size, not n x m. A sample or feature hidden whole gets one
// entry back.
func speckle(ds *dataset.Dataset, share float64, seed, r uint64) heldOut {
	n, m := ds.Dims()
	rng := rand.New(rand.NewPCG(seed, 0x7370656b6c65+r)) // "speckle"
	// skip returns the next trial after trial c that succeeds, each with
	// probability p (logq = log(1 - p)); math.MaxInt when none can.
	skip := func(c int, logq float64) int {
		if logq == 0 {
			return math.MaxInt
		}
		s := math.Floor(math.Log(1-rng.Float64()) / logq)
		if s >= float64(math.MaxInt/2) {
			return math.MaxInt
		}
		return c + 1 + int(s)
	}
	h := heldOut{set: &sparse.CSR{Rows: n, Cols: m, Indptr: make([]int, n+1)}}
	a := ds.Sparse
	var zeroWeight float64
	h.zeroShare, zeroWeight = zeroShare(ds, share)
	logAll, logZero := math.Log1p(-share), math.Log1p(-h.zeroShare)
	set := h.set
	for j := 0; j < n; j++ {
		row0 := len(set.Ind)
		if a == nil {
			for c := skip(-1, logAll); c < m; c = skip(c, logAll) {
				set.Ind = append(set.Ind, c)
				h.values = append(h.values, ds.Dense.At(j, c))
			}
		} else {
			// The stored entries' trials and the zeros' (a trial landing
			// on a stored column is not a zero's and is dropped), merged
			// in column order.
			lo, hi := a.Indptr[j], a.Indptr[j+1]
			s := skip(lo-1, logAll)
			z := skip(-1, logZero)
			for q := lo; ; {
				for q < hi && a.Ind[q] < z {
					if q == s {
						set.Ind = append(set.Ind, a.Ind[q])
						h.values = append(h.values, a.Val[q])
						h.weights = append(h.weights, 1)
						s = skip(s, logAll)
					}
					q++
				}
				if z >= m {
					break
				}
				if q == hi || a.Ind[q] != z {
					set.Ind = append(set.Ind, z)
					h.values = append(h.values, 0)
					h.weights = append(h.weights, zeroWeight)
				}
				z = skip(z, logZero)
			}
		}
		if len(set.Ind)-row0 == m {
			h.drop(len(set.Ind) - 1)
		}
		set.Indptr[j+1] = len(set.Ind)
	}
	// A feature hidden in every sample keeps its last sample.
	count := make([]int, m)
	for _, c := range set.Ind {
		count[c]++
	}
	for c, k := range count {
		if k < n {
			continue
		}
		j := n - 1
		h.drop(set.Indptr[j] + sort.SearchInts(set.Ind[set.Indptr[j]:set.Indptr[j+1]], c))
		for t := j + 1; t <= n; t++ {
			set.Indptr[t]--
		}
	}
	set.Val = make([]float64, len(set.Ind))
	if zeroWeight == 1 {
		h.weights = nil
	}
	return h
}

// zeroShare returns the share of ds's zeros that speckle hides (share,
// or less for sparse data of more than zerosPerStored zeros a stored
// entry) and the weight of their losses, the inverse of its ratio to
// share.
func zeroShare(ds *dataset.Dataset, share float64) (zs, weight float64) {
	a := ds.Sparse
	if a == nil {
		return share, 1
	}
	n, m := ds.Dims()
	stored := float64(a.NNZ())
	if zeros := float64(n)*float64(m) - stored; zeros > zerosPerStored*stored {
		rho := zerosPerStored * stored / zeros
		return share * rho, 1 / rho
	}
	return share, 1
}

// ExpectedHidden returns the number of entries of ds a replicate hides on
// average with TestShare share: share of the stored entries and the
// share of the zeros that CrossValidate's bound on them leaves. Each
// costs the masked solver O(k) an iteration and, with its value and both
// orientations, about 40 bytes.
func ExpectedHidden(ds *dataset.Dataset, share float64) float64 {
	n, m := ds.Dims()
	all := float64(n) * float64(m)
	if ds.Sparse == nil {
		return share * all
	}
	stored := float64(ds.Sparse.NNZ())
	zs, _ := zeroShare(ds, share)
	return share*stored + zs*(all-stored)
}

// drop removes hidden entry q (the caller mends Indptr past its row).
func (h *heldOut) drop(q int) {
	h.set.Ind = slices.Delete(h.set.Ind, q, q+1)
	h.values = slices.Delete(h.values, q, q+1)
	if h.weights != nil {
		h.weights = slices.Delete(h.weights, q, q+1)
	}
}
