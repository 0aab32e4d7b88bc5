package solver

import (
	"fmt"
	"math"
	"strings"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/graph"
)

// Defaults used when an Options field is zero.
const (
	DefaultMaxIter = 500
	DefaultTol     = 1e-5
	// DefaultPassTol is Tol's default for the MiniBatch solver, whose
	// iteration is a pass over the corpus (from disk, for a streamed
	// fit): on 100,000 generated documents (k = 50) the second pass
	// lowered the loss by 0.4 %, the third by 0.04 % and the later ones
	// by less, and on TDT2 (k = 30) the passes from the tenth by under
	// 0.08 % each (docs/PERFORMANCE.md).
	DefaultPassTol = 1e-3
	// DefaultPGTol is the projected-gradient rule's threshold. At 1e-4
	// the cd solvers' objective is within 4e-5 (COIL20) to 2e-8 of where
	// 400 iterations take it on TDT2, la1, k1b and COIL20 (k = 20,
	// docs/PERFORMANCE.md), so the rule stops only runs that have
	// converged. The residual of mu stays above 0.01 and GNMF cd's
	// above 2e-4 on those corpora, so DefaultTol stops them, and usually
	// stops cd first too.
	DefaultPGTol = 1e-4
	// Eps floors every multiplicative-update denominator, as the reference
	// code does, so that a zero denominator cannot produce NaN or Inf.
	Eps = 1e-10
	// DefaultKernelMemory caps the memory of an explicit n x n kernel.
	DefaultKernelMemory = 8 << 30
	// DefaultCGTol is the relative residual LPNMF's linear solves for V
	// stop at. Each solve is one step of an iteration whose own rule
	// (DefaultTol) stops at a relative decrease of 1e-5; solving it to
	// 1e-10 took many more conjugate-gradient steps a solve on TDT2 in
	// the default formulation and left the protocol's accuracy and NMI
	// the same on every corpus, the papers' tables too
	// (docs/PERFORMANCE.md).
	DefaultCGTol = 1e-6
)

// StopRule selects how a start decides it has converged.
type StopRule int

const (
	// RelativeDecrease stops when (f_prev - f) / f_prev < Tol.
	RelativeDecrease StopRule = iota
	// MeanFit is the reference code's rule: a running mean
	// m <- 0.1 m + 0.9 f (started at ten times the first objective) and a
	// stop when (m - f) / m < Tol.
	MeanFit
)

// String returns the name UnmarshalText accepts.
func (s StopRule) String() string {
	switch s {
	case RelativeDecrease:
		return "relative"
	case MeanFit:
		return "meanfit"
	}
	return fmt.Sprintf("StopRule(%d)", int(s))
}

// parseStopRule parses "relative" or "meanfit".
func parseStopRule(s string) (StopRule, error) {
	switch s {
	case "relative":
		return RelativeDecrease, nil
	case "meanfit":
		return MeanFit, nil
	}
	return 0, fmt.Errorf("solver: unknown stopping rule %q (want relative or meanfit)", s)
}

// MarshalText returns the rule's name.
func (s StopRule) MarshalText() ([]byte, error) { return []byte(s.String()), nil }

// UnmarshalText parses a rule's name.
func (s *StopRule) UnmarshalText(b []byte) error {
	v, err := parseStopRule(string(b))
	if err == nil {
		*s = v
	}
	return err
}

// KernelKind selects the kernel of concept factorization.
type KernelKind int

const (
	// Linear is K = X^T X, never formed for non-negative data: products
	// with K are computed as X^T (X B).
	Linear KernelKind = iota
	// Polynomial is K_ij = (x_i . x_j + Coef0)^Degree.
	Polynomial
	// Gaussian is K_ij = exp(-||x_i - x_j||^2 / (2 Sigma^2)).
	Gaussian
)

// Kernel configures the kernel of cf and lccf. The zero value is linear.
type Kernel struct {
	Kind KernelKind
	// Degree of the polynomial kernel; 0 means 2.
	Degree int
	// Coef0 is added to the inner product of the polynomial kernel.
	Coef0 float64
	// Sigma of the Gaussian kernel; 0 means the mean distance between
	// samples, estimated from a seeded sample of at most 3000.
	Sigma float64
}

// params names the kernel's parameters, for messages.
func (k Kernel) params() string {
	switch k.Kind {
	case Polynomial:
		return fmt.Sprintf("degree %d, coef0 %v", k.Degree, k.Coef0)
	case Gaussian:
		return fmt.Sprintf("sigma %v", k.Sigma)
	}
	return "no parameters"
}

// parseKernel parses "linear", "poly" (or "polynomial") and "gaussian".
func parseKernel(s string) (KernelKind, error) {
	switch strings.ToLower(s) {
	case "", "linear":
		return Linear, nil
	case "poly", "polynomial":
		return Polynomial, nil
	case "gaussian", "rbf":
		return Gaussian, nil
	}
	return 0, fmt.Errorf("solver: unknown kernel %q (want linear, poly or gaussian)", s)
}

// MarshalText returns the kernel's name.
func (k KernelKind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText parses a kernel's name.
func (k *KernelKind) UnmarshalText(b []byte) error {
	v, err := parseKernel(string(b))
	if err == nil {
		*k = v
	}
	return err
}

func (k KernelKind) String() string {
	switch k {
	case Linear:
		return "linear"
	case Polynomial:
		return "poly"
	case Gaussian:
		return "gaussian"
	}
	return fmt.Sprintf("KernelKind(%d)", int(k))
}

// Options configures Fit: what to fit, and Control, how to run it. The
// zero value, with K set, is a sensible run of Frobenius NMF.
type Options struct {
	// Method is the factorization; the zero value is NMF.
	Method Method

	// K is the number of factors, 1 <= K <= min(m, n). Required.
	K int

	// Lambda weighs the graph term of the graph methods; the zero value
	// is DefaultLambda for the method and formulation, Fixed(0) gives the
	// plain method exactly, and Auto is refused (package model chooses
	// it). Under NC weighting each sample's error is divided by its degree
	// x_j . X e while the graph term is not, so under Papers a comparable
	// Lambda is smaller by about the mean degree.
	Lambda Lambda
	// Formulation is how the graph term is weighed; the zero value is
	// ScaleInvariant.
	Formulation Formulation
	// Graph is the sample graph of the graph methods (see package graph);
	// it is required when their Lambda is not zero and must have one
	// vertex per sample.
	Graph *graph.Graph

	// Seed seeds the random starts. The same Seed gives the same result
	// whatever Threads is.
	Seed uint64
	// Threads bounds the goroutines of the products and updates; 0 means
	// GOMAXPROCS. The BLAS backend's own threading is separate.
	Threads int

	// Start selects the first start; further starts are random
	// (normalized when Start is NormalizedStart). Init, when set, takes
	// precedence.
	Start Start
	// InitLabels is a clustering of the samples (0..K-1) for LabelsStart.
	InitLabels []int

	// Init, when set, is the starting point of the first start instead of
	// random factors: a previous fit's Result (a warm start), or one the
	// caller fills. Its U (m x k) and V, for cf and lccf its W (n x k) and
	// V, are copied, not modified.
	Init *Result

	// explicitKernel forms K even when the implicit linear path applies,
	// so tests can compare the two.
	explicitKernel bool

	// Progress, when set, is called after every iteration with the start
	// (0-based), the iteration (1-based) and the objective. It runs on the
	// fitting goroutine and must be quick.
	Progress func(start, iter int, objective float64)

	// Control is how the fit runs: its algorithm, iterations, stopping
	// rules, restarts and linear solves.
	Control
}

// Control is how a fit runs, apart from what it fits (Options): the
// algorithm, the iterations and their stopping rules, the restarts, the
// kernel's memory and the linear solves. package model passes it through
// (model.Options.Solver), and dist's fits take it too. The zero value is
// the default of every field.
type Control struct {
	// Algorithm is how the objective is minimized; the zero value,
	// AutoAlgorithm, is CD for nmf, gnmf, nmf-kl and their NC-weighted
	// forms and MU for the rest (see Algorithm). Explicit CD for a method
	// without it is an error (see HasCD).
	Algorithm Algorithm

	// Kernel is the kernel of cf and lccf; the zero value is linear.
	Kernel Kernel
	// KernelMemory caps the bytes an explicit n x n kernel may take
	// (non-linear kernels, or a linear one on data with negative entries);
	// 0 means DefaultKernelMemory.
	KernelMemory int64

	// MaxIter caps the iterations of one start; 0 means DefaultMaxIter.
	MaxIter int
	// MinIter is the least number of iterations before the stopping rule
	// may stop a start; 0 means none.
	MinIter int
	// Tol is the threshold of the stopping rule, below 1; 0 means
	// DefaultTol (DefaultPassTol for MiniBatch); a negative value
	// disables it (and with PGTol negative too, exactly MaxIter
	// iterations run).
	Tol float64
	// StopRule selects the stopping rule; the zero value is
	// RelativeDecrease.
	StopRule StopRule
	// PGTol is the threshold of the projected-gradient rule, which holds
	// beside StopRule's: a start also stops (Status Stationary) once its
	// relative KKT residual, Result.ProjGrad, falls below PGTol. The
	// residual does not depend on the data's scale or the solver, so the
	// same PGTol asks the same of every corpus, method and solver. 0
	// means DefaultPGTol; a negative value disables the rule (with Tol
	// negative too, exactly MaxIter iterations run). Methods whose
	// updates do not measure the gradient (LPNMF with a graph, cf and
	// lccf with a kernel that has negative entries) stop by StopRule
	// alone.
	PGTol float64
	// Evaluate computes the objective every Evaluate iterations (and at
	// the last) instead of every one; the stopping rule is tested at
	// evaluations only, comparing with the previous evaluation. 0 or 1
	// means every iteration. It saves time for the KL methods, whose
	// objective costs a logarithm per non-zero of X (scikit-learn checks
	// its stopping rule every 10 iterations); for the other methods the
	// objective comes almost free from the updates' products.
	Evaluate int

	// Restarts is the number of random starts; 0 means 1.
	Restarts int
	// RestartIters, when positive, runs every start for this many
	// iterations only, then continues the one with the lowest objective to
	// convergence: the reference code's scheme (30 iterations there).
	// When 0, every start runs to convergence and the lowest final
	// objective wins.
	RestartIters int
	// PlainCD turns off the extrapolation of the Frobenius methods' CD
	// (nmf, gnmf and their -ncw forms): by default their iterations move
	// both factors past each iteration's result by a momentum that grows
	// while the objective falls and shrinks when it would rise (Ang and
	// Gillis 2019). The objective still never
	// increases: a step that would raise it is undone and replaced by a
	// plain one. It has no effect elsewhere (MU, the KL and concept
	// methods).
	PlainCD bool

	// CGTol is the relative residual each of LPNMF's linear solves must
	// reach; 0 means DefaultCGTol. CGMaxIter caps their iterations; 0
	// means 1000.
	// A solve that does not converge is an error, not a silent result.
	CGTol     float64
	CGMaxIter int

	// BatchSize is MiniBatch's samples a batch; 0 means
	// DefaultBatchSize. Forget, in (0, 1], discounts its statistics
	// before each pass after the first; 0 means 0.5.
	BatchSize int
	Forget    float64
}

// Status says why a fit stopped.
type Status int

const (
	// Converged: the objective's stopping rule (Tol, StopRule) was met.
	Converged Status = iota + 1
	// IterationLimit: MaxIter iterations ran.
	IterationLimit
	// Canceled: the context was canceled or its deadline passed.
	Canceled
	// Stationary: the projected-gradient rule (PGTol) was met.
	Stationary
)

func (s Status) String() string {
	switch s {
	case Converged:
		return "converged"
	case IterationLimit:
		return "iteration limit"
	case Canceled:
		return "canceled"
	case Stationary:
		return "stationary"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// Result is the outcome of Fit.
type Result struct {
	Method Method
	// U (m x k) has unit-length columns; V (n x k) is scaled so that
	// U V^T is the product the updates reached. For concept factorization
	// U = X W, whose columns have unit length by the normalization
	// w^T K w = 1; it is nil for non-linear kernels.
	U, V *mat.Dense
	// W (n x k) is the concept-factorization coefficient matrix (cf,
	// lccf), nil for nmf and gnmf.
	W *mat.Dense
	// Objective holds the objective at the start (index 0) and after each
	// iteration of the returned start (each evaluated one, see
	// ObjectiveIters), for the factors as the updates left them. The
	// final normalization keeps U V^T (X W V^T) but rescales V: under
	// ScaleInvariant the objective does not change, under Papers with
	// lambda > 0 the graph term of the returned factors differs. For the
	// -ncw methods it is the weighted objective.
	Objective []float64
	// ObjectiveIters gives the iteration of each Objective entry when
	// Options.Evaluate > 1; nil when every iteration was evaluated.
	ObjectiveIters []int
	// ProjGrad holds, for each evaluated iteration (Objective[1:]), the
	// relative KKT residual sqrt((r_U + r_V) / 2): for each half of the
	// iteration, r is the squared norm of the projected gradient of the
	// half's objective at the point its update started from (under cd,
	// each coordinate's gradient as the half's first sweep reached it,
	// the coordinates before it already stepped, as scikit-learn's cd
	// measures its violation: free with the sweep, where the gradient at
	// the starting point would cost one more pass, a noticeable part of
	// an NMF iteration), the components that would push a zero entry below
	// zero left out, over the squared norm of the gradient's data part
	// (X V, X^T U, or their KL and graph forms), both taken with the
	// factors' columns balanced to equal lengths (U D, V D^-1, which
	// changes neither the model nor the objective). It is 0 exactly at a
	// KKT point and does not change when the data are scaled or the
	// factors' columns rescaled, so one threshold serves every corpus
	// and solver. Multiplicative updates keep every entry positive, so
	// where the optimum has zeros their residual stays high (0.016 to
	// 0.32 after 400 iterations on TDT2, la1, k1b and COIL20 at k = 20,
	// against 2e-4 to 3e-10 for cd) and StopRule stops them. GNMF's cd
	// V half measures each row when its colour's turn comes, after its
	// neighbours of earlier colours moved. nil for methods that do not
	// measure it (see PGTol).
	ProjGrad []float64
	// Iterations run by the returned start.
	Iterations int
	// Start is the index of the returned start among Restarts.
	Start int
	// Status says why the returned start stopped.
	Status Status
	// Runtime is the wall time of the whole fit, all starts included.
	Runtime time.Duration
	// IterTime is the wall time of the returned start's iterations alone,
	// without set-up: the figure a per-iteration benchmark divides by
	// Iterations.
	IterTime time.Duration
	// Labels assigns each sample to the factor of the largest entry of its
	// row of V (0-based); -1 for a sample whose row of V is all zero.
	Labels []int
	// General reports that the kernel had negative entries, so the
	// general updates (paper 002 eqs. 25 and 28) ran.
	General bool

	// CG reports LPNMF's linear solves over the returned start: their
	// number, the conjugate-gradient iterations summed over all of them,
	// the largest final relative residual, and how many round-off
	// negatives of V were set to zero.
	CG struct {
		Solves      int
		Iterations  int
		MaxResidual float64
		Clamped     int
	}

	// GraphPasses counts the passes over the graph that GNMF's cd V half
	// made over the returned start: one or more an iteration, more while
	// they pay (0 for the other methods and solvers).
	GraphPasses int

	// model keeps what Transform needs beyond the factors.
	model model
}

// model is the part of a fit that Transform reuses.
type model struct {
	spec    Method
	lambda  float64 // the weight folded into the graph (problem.lambda)
	ncwNorm float64
	kernel  Kernel // with Sigma resolved
	trainN  int
	trainM  int
	colSum  []float64 // X e of the training data, caller's feature order (NC weighting)
}

// Final returns the last objective value.
func (r *Result) Final() float64 { return r.Objective[len(r.Objective)-1] }

// cgStats is Result.CG as the solves count it.
type cgStats struct {
	Solves      int
	Iterations  int
	MaxResidual float64
	Clamped     int
}

func (o Options) withDefaults() Options {
	if o.MaxIter == 0 {
		o.MaxIter = DefaultMaxIter
	}
	if o.Tol == 0 {
		o.Tol = DefaultTol
		if o.Algorithm == MiniBatch {
			o.Tol = DefaultPassTol
		}
	}
	if o.PGTol == 0 {
		o.PGTol = DefaultPGTol
	}
	if o.Restarts == 0 {
		o.Restarts = 1
	}
	if o.KernelMemory == 0 {
		o.KernelMemory = DefaultKernelMemory
	}
	if o.CGTol == 0 {
		o.CGTol = DefaultCGTol
	}
	if o.Kernel.Kind == Polynomial && o.Kernel.Degree == 0 {
		o.Kernel.Degree = 2
	}
	return o
}

// lambda returns the graph term's weight as given or by default; 0 for a
// method without a graph.
func (o Options) lambda(d *Data) float64 {
	if !o.Method.TakesGraph() {
		return 0
	}
	if o.Lambda.IsDefault() {
		return o.Method.DefaultLambda(o.Formulation, d.IsSparse())
	}
	return o.Lambda.Value()
}

func (o Options) check(d *Data) error {
	spec := o.Method
	if !spec.Valid() {
		return fmt.Errorf("solver: unknown method %d", int(spec))
	}
	if d == nil {
		return fmt.Errorf("solver: nil data")
	}
	if err := checkHidden(d, spec, true); err != nil {
		return err
	}
	if o.K < 1 || o.K > min(d.m, d.n) {
		return fmt.Errorf("solver: k = %d out of range: need 1 <= k <= min(features, samples) = min(%d, %d)", o.K, d.m, d.n)
	}
	if o.MaxIter < 0 || o.MinIter < 0 || o.Restarts < 0 || o.RestartIters < 0 || o.Evaluate < 0 {
		return fmt.Errorf("solver: negative iteration or restart count (MaxIter %d, MinIter %d, Restarts %d, RestartIters %d)", o.MaxIter, o.MinIter, o.Restarts, o.RestartIters)
	}
	if o.Threads < 0 {
		return fmt.Errorf("solver: negative thread count %d", o.Threads)
	}
	if math.IsNaN(o.Tol) || math.IsNaN(o.PGTol) || o.Tol >= 1 || o.PGTol >= 1 {
		return fmt.Errorf("solver: tolerance out of range (Tol %v, PGTol %v): want numbers below 1 (a relative decrease and a relative residual), or negative to disable", o.Tol, o.PGTol)
	}
	if o.StopRule != RelativeDecrease && o.StopRule != MeanFit {
		return fmt.Errorf("solver: unknown stopping rule %d", o.StopRule)
	}
	if !spec.Concept() {
		if o.Kernel.Kind != Linear {
			return fmt.Errorf("solver: %s takes no kernel (kernels are for cf and lccf)", spec)
		}
		if d.neg != nil {
			return fmt.Errorf("solver: negative entry %v at sample %d, feature %d (1-based); %s needs non-negative data", d.neg.v, d.neg.i+1, d.neg.j+1, spec)
		}
	}
	switch {
	case o.Algorithm < AutoAlgorithm || o.Algorithm > MiniBatch:
		return fmt.Errorf("solver: unknown solver %d", int(o.Algorithm))
	case o.Algorithm == CD && !spec.HasCD():
		return fmt.Errorf("solver: %s has no coordinate-descent solver (cd is for %s); use mu", spec, cdMethods())
	case o.Algorithm == MiniBatch && !spec.HasMiniBatch():
		return fmt.Errorf("solver: the minibatch solver is for %s, not %s", miniBatchMethods(), spec)
	case o.Algorithm == MiniBatch && d.hidden != nil:
		return fmt.Errorf("solver: the minibatch solver takes no missing entries; use cd")
	case o.BatchSize < 0:
		return fmt.Errorf("solver: batch size %d: want at least 1 (0 for the default, %d)", o.BatchSize, DefaultBatchSize)
	case o.BatchSize > 0 && o.Algorithm != MiniBatch:
		return fmt.Errorf("solver: a batch size is for the minibatch solver, not %s", o.Algorithm.Resolve(spec))
	case math.IsNaN(o.Forget) || o.Forget < 0 || o.Forget > 1:
		return fmt.Errorf("solver: forget factor %v: want a number in (0, 1] (0 for the default, 0.5)", o.Forget)
	case o.Forget > 0 && o.Algorithm != MiniBatch:
		return fmt.Errorf("solver: a forget factor is for the minibatch solver, not %s", o.Algorithm.Resolve(spec))
	}
	if o.Formulation != ScaleInvariant && o.Formulation != Papers {
		return fmt.Errorf("solver: unknown formulation %d", int(o.Formulation))
	}
	if o.Start == NormalizedStart && spec.KL() && o.Formulation == Papers {
		return fmt.Errorf("solver: the normalized start is for the Frobenius methods, not %s", spec)
	}
	if o.Lambda.IsAuto() {
		return fmt.Errorf("solver: lambda auto is chosen from the data by package model, not by Fit")
	}
	if v := o.Lambda.Value(); !(v >= 0) || math.IsInf(v, 0) {
		return fmt.Errorf("solver: lambda = %v: must be finite and not negative", v)
	}
	if spec.TakesGraph() {
		if lambda := o.lambda(d); lambda > 0 {
			if o.Graph == nil {
				return fmt.Errorf("solver: %s with lambda = %v needs a sample graph", spec, lambda)
			}
			if err := o.Graph.Check(d.n); err != nil {
				return fmt.Errorf("solver: %w", err)
			}
		}
	}
	switch o.Start {
	case RandomStart, NormalizedStart, NNDSVDStart:
	case LabelsStart:
		if len(o.InitLabels) != d.n {
			return fmt.Errorf("solver: InitLabels has %d labels for %d samples", len(o.InitLabels), d.n)
		}
	case KMeansStart:
		return fmt.Errorf("solver: the k-means start is package model's (model.Fit runs the k-means; here LabelsStart takes its labels)")
	default:
		return fmt.Errorf("solver: unknown start %d (want random, normalized, nndsvd or labels)", int(o.Start))
	}
	if o.CGTol < 0 || o.CGMaxIter < 0 || math.IsNaN(o.CGTol) {
		return fmt.Errorf("solver: negative CG tolerance or iteration cap")
	}
	switch o.Kernel.Kind {
	case Linear, Gaussian:
	case Polynomial:
		if o.Kernel.Degree < 1 {
			return fmt.Errorf("solver: polynomial kernel degree %d: must be at least 1", o.Kernel.Degree)
		}
		if o.Kernel.Coef0 < 0 {
			// (x.y + c)^d with c < 0 is not a kernel (not positive
			// semi-definite): the objective can go negative.
			return fmt.Errorf("solver: polynomial kernel coef0 %v: must not be negative (the kernel would not be positive semi-definite)", o.Kernel.Coef0)
		}
	default:
		return fmt.Errorf("solver: unknown kernel kind %d", o.Kernel.Kind)
	}
	if !(o.Kernel.Sigma >= 0) || math.IsInf(o.Kernel.Sigma, 0) || math.IsNaN(o.Kernel.Coef0) || math.IsInf(o.Kernel.Coef0, 0) {
		return fmt.Errorf("solver: kernel parameters out of range (sigma %v, coef0 %v)", o.Kernel.Sigma, o.Kernel.Coef0)
	}
	if o.Init != nil {
		rows, first, name := d.m, o.Init.U, "U"
		if spec.Concept() {
			rows, first, name = d.n, o.Init.W, "W"
		}
		if first == nil || o.Init.V == nil {
			return fmt.Errorf("solver: Init needs both factors (%s and V)", name)
		}
		if r, c := first.Dims(); r != rows || c != o.K {
			return fmt.Errorf("solver: Init.%s is %d x %d, want %d x %d", name, r, c, rows, o.K)
		}
		if r, c := o.Init.V.Dims(); r != d.n || c != o.K {
			return fmt.Errorf("solver: Init.V is %d x %d, want %d x %d", r, c, d.n, o.K)
		}
		for _, f := range []*mat.Dense{first, o.Init.V} {
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
