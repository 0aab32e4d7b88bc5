package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Fit factorizes d with the method and settings of opts. On cancellation it
// returns the best result reached so far (nil if no iteration finished)
// together with the context's error.
func Fit(ctx context.Context, d *Data, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if err := opts.check(d); err != nil {
		return nil, err
	}
	var run func(context.Context, *Data, Options, *factors) (*startResult, error)
	switch opts.Method {
	case "nmf":
		run = runNMF
	default:
		return nil, fmt.Errorf("solver: unknown method %q (known: nmf)", opts.Method)
	}
	begin := time.Now()
	var best *startResult
	var bestStart int
	var err error
	for s := 0; s < opts.Restarts; s++ {
		f := newFactors(d.m, d.n, opts.K)
		if s == 0 && opts.Init != nil {
			f.set(d, opts.Init)
		} else {
			f.random(d, opts.Seed, uint64(s))
		}
		so := opts
		if opts.Progress != nil {
			start := s
			so.Progress = func(_, iter int, obj float64) { opts.Progress(start, iter, obj) }
		}
		var r *startResult
		r, err = run(ctx, d, so, f)
		if r != nil && (best == nil || r.final() < best.final()) {
			best, bestStart = r, s
		}
		if err != nil {
			break
		}
	}
	if best == nil {
		return nil, err
	}
	res := best.f.result(d, opts.Method)
	res.Objective = best.trace
	res.Iterations = len(best.trace) - 1
	res.Status = best.status
	res.Start = bestStart
	res.IterTime = best.iterTime
	res.Runtime = time.Since(begin)
	return res, err
}

// startResult is one start's outcome.
type startResult struct {
	f        *factors
	trace    []float64
	status   Status
	iterTime time.Duration
}

func (r *startResult) final() float64 { return r.trace[len(r.trace)-1] }

// factors holds U (m x k) and V (n x k) row-major with stride k, the form
// the kernels and BLAS work on.
type factors struct {
	m, n, k int
	u, v    blas64.General
}

func newFactors(m, n, k int) *factors {
	return &factors{m: m, n: n, k: k, u: general(m, k), v: general(n, k)}
}

func general(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
}

// random fills U then V with uniform values in [0, 1), as the reference
// code's rand(m, k) and rand(n, k), from a generator seeded by (seed, start)
// so every start of a run differs and every run is reproducible. U's rows
// are drawn in the caller's feature order, whatever d's internal order.
func (f *factors) random(d *Data, seed, start uint64) {
	rng := rand.New(rand.NewPCG(seed, start))
	u := make([]float64, len(f.u.Data))
	for i := range u {
		u[i] = rng.Float64()
	}
	for r := 0; r < f.m; r++ {
		i := d.feature(r)
		copy(f.u.Data[r*f.k:(r+1)*f.k], u[i*f.k:(i+1)*f.k])
	}
	for i := range f.v.Data {
		f.v.Data[i] = rng.Float64()
	}
}

func (f *factors) set(d *Data, init *Factors) {
	for r := 0; r < f.m; r++ {
		for j := 0; j < f.k; j++ {
			f.u.Data[r*f.k+j] = init.U.At(d.feature(r), j)
		}
	}
	for i := 0; i < f.n; i++ {
		for j := 0; j < f.k; j++ {
			f.v.Data[i*f.k+j] = init.V.At(i, j)
		}
	}
}

// result normalizes U's columns to unit length, scales V's columns by the
// same norms (paper 004 eqs. 10-11), assigns samples by the arg max of V's
// rows, and returns U with its rows in the caller's feature order.
func (f *factors) result(d *Data, method string) *Result {
	norms := make([]float64, f.k)
	for i := 0; i < f.m; i++ {
		row := f.u.Data[i*f.k : (i+1)*f.k]
		for j, x := range row {
			norms[j] += x * x
		}
	}
	for j := range norms {
		norms[j] = math.Sqrt(norms[j])
	}
	for i := 0; i < f.m; i++ {
		row := f.u.Data[i*f.k : (i+1)*f.k]
		for j := range row {
			if norms[j] > 0 {
				row[j] /= norms[j]
			}
		}
	}
	labels := make([]int, f.n)
	for i := 0; i < f.n; i++ {
		row := f.v.Data[i*f.k : (i+1)*f.k]
		best, arg := 0.0, -1
		for j := range row {
			if norms[j] > 0 {
				row[j] *= norms[j]
			}
			if row[j] > best {
				best, arg = row[j], j
			}
		}
		labels[i] = arg
	}
	u := make([]float64, len(f.u.Data))
	for r := 0; r < f.m; r++ {
		i := d.feature(r)
		copy(u[i*f.k:(i+1)*f.k], f.u.Data[r*f.k:(r+1)*f.k])
	}
	return &Result{
		Method: method,
		U:      mat.NewDense(f.m, f.k, u),
		V:      mat.NewDense(f.n, f.k, f.v.Data),
		Labels: labels,
	}
}

// stopRule applies the iteration cap and the relative-decrease tolerance.
type stopRule struct {
	opts Options
}

// check returns the status to stop with after iteration iter (1-based),
// given the objective before and after it, or 0 to go on.
func (s stopRule) check(iter int, prev, cur float64) Status {
	if iter >= s.opts.MaxIter {
		return IterationLimit
	}
	if s.opts.Tol > 0 && iter >= s.opts.MinIter && prev > 0 && (prev-cur)/prev < s.opts.Tol {
		return Converged
	}
	return 0
}
