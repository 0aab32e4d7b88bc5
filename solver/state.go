package solver

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// State is what Result.Transform needs of a fit beyond its factors: the
// values the fit derived from its training data. A saved model keeps it
// beside U, V and W, and Restore rebuilds from them a Result whose
// Transform works, so that new samples are transformed in another process exactly
// as in the one that fitted.
type State struct {
	Method Method
	// GraphWeight is the weight of the graph term as the updates used it
	// (lambda, rescaled under the scale-invariant formulation); 0 for a
	// method without a graph.
	GraphWeight float64
	// NCWNorm scales the NC weights (1 for the plain forms).
	NCWNorm float64
	// Kernel is cf's and lccf's kernel, its Sigma resolved.
	Kernel Kernel
	// Samples and Features are the training data's dimensions.
	Samples, Features int
	// FeatureSums is X e of the training data (the -ncw forms), nil
	// otherwise.
	FeatureSums []float64
}

// State returns what Transform needs of r beyond its factors (see
// State.Restore). r must come from Fit.
func (r *Result) State() State {
	m := r.model
	s := State{Method: m.spec, GraphWeight: m.lambda, NCWNorm: m.ncwNorm,
		Samples: m.trainN, Features: m.trainM, FeatureSums: slices.Clone(m.colSum)}
	if m.spec.Concept() {
		s.Kernel = m.kernel
	}
	return s
}

// Restore rebuilds from s and a fit's factors a Result whose Transform
// works: U (features x k), V (samples x k) and, for cf and lccf, W
// (samples x k); W must be nil for the other methods. The matrices are
// used, not copied. Everything is checked: the method, the dimensions
// against each other and the State, finite non-negative factors (V and, but
// for cf and lccf, U), and the State's
// numbers.
func (s State) Restore(u, v, w *mat.Dense) (*Result, error) {
	if !s.Method.Valid() {
		return nil, fmt.Errorf("solver: Restore: unknown method %d", int(s.Method))
	}
	if s.Samples < 1 || s.Features < 1 {
		return nil, fmt.Errorf("solver: Restore: training data of %d features x %d samples", s.Features, s.Samples)
	}
	if !(s.GraphWeight >= 0) || math.IsInf(s.GraphWeight, 0) {
		return nil, fmt.Errorf("solver: Restore: graph weight %v: want a finite non-negative number", s.GraphWeight)
	}
	if s.GraphWeight > 0 && !s.Method.TakesGraph() {
		return nil, fmt.Errorf("solver: Restore: %s takes no graph, but the graph weight is %v", s.Method, s.GraphWeight)
	}
	if !(s.NCWNorm > 0) || math.IsInf(s.NCWNorm, 0) {
		return nil, fmt.Errorf("solver: Restore: NC weight norm %v: want a finite positive number", s.NCWNorm)
	}
	if s.Method.NCW() {
		if len(s.FeatureSums) != s.Features {
			return nil, fmt.Errorf("solver: Restore: %s needs the training data's %d feature sums, got %d", s.Method, s.Features, len(s.FeatureSums))
		}
		for j, x := range s.FeatureSums {
			if !(x >= 0) || math.IsInf(x, 0) {
				return nil, fmt.Errorf("solver: Restore: feature sum %v of feature %d (1-based)", x, j+1)
			}
		}
	} else if s.FeatureSums != nil {
		return nil, fmt.Errorf("solver: Restore: feature sums given for %s, which has no NC weights", s.Method)
	}
	if s.Method.Concept() {
		if s.Kernel.Kind < Linear || s.Kernel.Kind > Gaussian {
			return nil, fmt.Errorf("solver: Restore: unknown kernel %d", int(s.Kernel.Kind))
		}
		if s.Kernel.Kind == Gaussian && !(s.Kernel.Sigma > 0) {
			return nil, fmt.Errorf("solver: Restore: Gaussian kernel with sigma %v", s.Kernel.Sigma)
		}
	} else if s.Kernel != (Kernel{}) {
		return nil, fmt.Errorf("solver: Restore: a kernel given for %s, which has none", s.Method)
	}
	if u == nil || v == nil {
		return nil, fmt.Errorf("solver: Restore: U and V are required")
	}
	ur, k := u.Dims()
	if ur != s.Features {
		return nil, fmt.Errorf("solver: Restore: U has %d rows, the training data %d features", ur, s.Features)
	}
	if vr, vc := v.Dims(); vr != s.Samples || vc != k {
		return nil, fmt.Errorf("solver: Restore: V is %d x %d, want %d samples x %d factors", vr, vc, s.Samples, k)
	}
	if s.Method.Concept() != (w != nil) {
		if w == nil {
			return nil, fmt.Errorf("solver: Restore: %s needs W", s.Method)
		}
		return nil, fmt.Errorf("solver: Restore: W given for %s, which has none", s.Method)
	}
	if w != nil {
		if wr, wc := w.Dims(); wr != s.Samples || wc != k {
			return nil, fmt.Errorf("solver: Restore: W is %d x %d, want %d samples x %d factors", wr, wc, s.Samples, k)
		}
		// W may be of any sign after the general updates (a kernel or
		// data with negative entries, Result.General).
		if err := checkFactor("W", w, false); err != nil {
			return nil, err
		}
	}
	if err := checkFactor("U", u, !s.Method.Concept()); err != nil {
		return nil, err
	}
	if err := checkFactor("V", v, true); err != nil {
		return nil, err
	}
	r := &Result{U: u, V: v, W: w, model: model{spec: s.Method, lambda: s.GraphWeight, ncwNorm: s.NCWNorm,
		kernel: s.Kernel, trainN: s.Samples, trainM: s.Features, colSum: slices.Clone(s.FeatureSums)}}
	return r, nil
}

// checkFactor reports a factor entry that is not finite, or negative when
// nonNeg.
func checkFactor(name string, a *mat.Dense, nonNeg bool) error {
	r, c := a.Dims()
	for i := 0; i < r; i++ {
		for j, x := range a.RawRowView(i)[:c] {
			if math.IsNaN(x) || math.IsInf(x, 0) || (nonNeg && x < 0) {
				return fmt.Errorf("solver: Restore: %s has %v at row %d, column %d (1-based)", name, x, i+1, j+1)
			}
		}
	}
	return nil
}
