package solver

import (
	"fmt"
	"time"

	"gonum.org/v1/gonum/mat"
)

// Defaults used when an Options field is zero.
const (
	DefaultMaxIter = 500
	DefaultTol     = 1e-5
	// Eps floors every multiplicative-update denominator, as the reference
	// code does, so that a zero denominator cannot produce NaN or Inf.
	Eps = 1e-10
)

// Options configures Fit. The zero value, with K set, is a sensible run.
type Options struct {
	// Method names the factorization: "nmf" (the default) is Frobenius NMF
	// with Lee-Seung multiplicative updates.
	Method string

	// K is the number of factors, 1 <= K <= min(m, n). Required.
	K int

	// MaxIter caps the iterations of one start; 0 means DefaultMaxIter.
	MaxIter int
	// MinIter is the least number of iterations before the tolerance test
	// may stop a start; 0 means none.
	MinIter int
	// Tol stops a start when the relative decrease of the objective in one
	// iteration, (f_prev - f) / f_prev, falls below it. 0 means DefaultTol;
	// a negative value disables the test, so exactly MaxIter iterations run.
	Tol float64

	// Restarts is the number of random starts, each run to its end; the one
	// with the lowest final objective is returned. 0 means 1.
	Restarts int
	// Seed seeds the random starts. The same Seed gives the same result
	// whatever Threads is.
	Seed uint64
	// Threads bounds the goroutines of the sparse products and updates;
	// 0 means GOMAXPROCS. The BLAS backend's own threading is separate
	// (see package blas).
	Threads int

	// Init, when set, is the starting point of the first start instead of
	// random factors; it is copied, not modified.
	Init *Factors

	// Progress, when set, is called after every iteration with the start
	// (0-based), the iteration (1-based) and the objective. It runs on the
	// fitting goroutine and must be quick.
	Progress func(start, iter int, objective float64)
}

// Factors is a pair of factors U (m x k) and V (n x k).
type Factors struct {
	U, V *mat.Dense
}

// Status says why a fit stopped.
type Status int

const (
	// Converged: the relative objective decrease fell below Tol.
	Converged Status = iota + 1
	// IterationLimit: MaxIter iterations ran.
	IterationLimit
	// Canceled: the context was canceled or its deadline passed.
	Canceled
)

func (s Status) String() string {
	switch s {
	case Converged:
		return "converged"
	case IterationLimit:
		return "iteration limit"
	case Canceled:
		return "canceled"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is the outcome of Fit.
type Result struct {
	Method string
	// U (m x k) has unit-length columns; V (n x k) is scaled so that U V^T
	// is the product the updates reached.
	U, V *mat.Dense
	// Objective holds the objective at the start (index 0) and after each
	// iteration of the returned start.
	Objective []float64
	// Iterations run by the returned start.
	Iterations int
	// Start is the index of the returned start among Restarts.
	Start int
	// Status says why the returned start stopped.
	Status Status
	// Runtime is the wall time of the whole fit, all starts included.
	Runtime time.Duration
	// IterTime is the wall time of the returned start's iterations alone,
	// without allocation, initialization and the starting objective: the
	// figure a per-iteration benchmark divides by Iterations.
	IterTime time.Duration
	// Labels assigns each sample to the factor of the largest entry of its
	// row of V (0-based); -1 for a sample whose row of V is all zero.
	Labels []int
}

// Final returns the last objective value.
func (r *Result) Final() float64 { return r.Objective[len(r.Objective)-1] }

func (o Options) withDefaults() Options {
	if o.Method == "" {
		o.Method = "nmf"
	}
	if o.MaxIter == 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.Tol == 0 {
		o.Tol = DefaultTol
	}
	if o.Restarts == 0 {
		o.Restarts = 1
	}
	return o
}

func (o Options) check(d *Data) error {
	if d == nil {
		return fmt.Errorf("solver: nil data")
	}
	if o.K < 1 || o.K > min(d.m, d.n) {
		return fmt.Errorf("solver: k = %d out of range: need 1 <= k <= min(features, samples) = min(%d, %d)", o.K, d.m, d.n)
	}
	if o.MaxIter < 0 || o.MinIter < 0 || o.Restarts < 0 {
		return fmt.Errorf("solver: negative iteration or restart count (MaxIter %d, MinIter %d, Restarts %d)", o.MaxIter, o.MinIter, o.Restarts)
	}
	if o.Threads < 0 {
		return fmt.Errorf("solver: negative thread count %d", o.Threads)
	}
	if o.Init != nil {
		if o.Init.U == nil || o.Init.V == nil {
			return fmt.Errorf("solver: Init needs both U and V")
		}
		if r, c := o.Init.U.Dims(); r != d.m || c != o.K {
			return fmt.Errorf("solver: Init.U is %d x %d, want %d x %d", r, c, d.m, o.K)
		}
		if r, c := o.Init.V.Dims(); r != d.n || c != o.K {
			return fmt.Errorf("solver: Init.V is %d x %d, want %d x %d", r, c, d.n, o.K)
		}
		for _, f := range []*mat.Dense{o.Init.U, o.Init.V} {
			r, c := f.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if v := f.At(i, j); !(v >= 0) || v > 1e300 {
						return fmt.Errorf("solver: Init factor entry (%d,%d) = %v: must be finite and non-negative", i+1, j+1, v)
					}
				}
			}
		}
	}
	return nil
}
