package solver

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Fit factorizes d with the method and settings of opts. On cancellation it
// returns the best result reached so far (nil if none) together with the
// context's error.
func Fit(ctx context.Context, d *Data, opts Options) (*Result, error) {
	opts = opts.withDefaults()
	if err := opts.check(d); err != nil {
		return nil, err
	}
	opts.Algorithm = opts.Algorithm.Resolve(opts.Method)
	begin := time.Now()
	p, err := prepare(ctx, d, opts, opts.Method)
	if err != nil {
		return nil, err
	}
	best, err := drive(ctx, p)
	var nf *nonFiniteError
	if best == nil || errors.As(err, &nf) {
		// Never factors with NaN or Inf in them.
		return nil, err
	}
	res := p.result(best.f)
	switch it := best.it.(type) {
	case *klIter:
		res.CG = it.cg
	case *nmfIter:
		res.GraphPasses = it.passes
	}
	res.model = p.model()
	res.Objective = best.trace
	res.Iterations = best.iters
	if p.opts.Evaluate > 1 {
		res.ObjectiveIters = best.evals
	}
	res.ProjGrad = best.pgRel
	res.Status = best.status
	res.Start = best.start
	res.IterTime = best.iterTime
	res.Runtime = time.Since(begin)
	return res, err
}

// nonFiniteError reports an objective that became NaN or infinite: the
// data or a factor overflowed, or an update divided by zero. Fit returns
// no result with it.
type nonFiniteError struct {
	Start, Iter int // Iter 0 is the starting point
	Objective   float64
}

func (e *nonFiniteError) Error() string {
	if e.Iter == 0 {
		return fmt.Sprintf("solver: the objective of start %d is %v at its starting point (the data or the start overflow)", e.Start+1, e.Objective)
	}
	return fmt.Sprintf("solver: the objective of start %d became %v at iteration %d (a factor overflowed or an update divided by zero)", e.Start+1, e.Objective, e.Iter)
}

// checkFinite returns a *nonFiniteError when obj is NaN or infinite.
func checkFinite(start, iter int, obj float64) error {
	if math.IsNaN(obj) || math.IsInf(obj, 0) {
		return &nonFiniteError{Start: start, Iter: iter, Objective: obj}
	}
	return nil
}

// iterator is one start of one method: begin returns the objective of the
// starting factors (and prepares what the first step needs), step runs one
// iteration and, when eval is set, returns the objective after it (methods
// whose objective is nearly free compute it anyway), or an error that makes
// the result untrustworthy (a linear solve that did not converge).
type iterator interface {
	begin() float64
	step(eval bool) (float64, error)
}

// finisher is an iterator whose factors between iterations are not the
// ones its last objective belongs to (the extrapolated NMF cd); finish puts
// those back, and the run may go on from there.
type finisher interface {
	finish()
}

// finish leaves r's factors at the point of its last objective.
func (r *run) finish() {
	if f, ok := r.it.(finisher); ok {
		f.finish()
	}
}

// projGrader is an iterator that measures its projected gradient (see
// Result.ProjGrad) in the two halves of the last iteration, the first
// factor's and V's; ok is false where a method's update does not measure
// it.
type projGrader interface {
	projGrad() (s kktState, ok bool)
}

// run is one start in progress.
type run struct {
	start    int
	f        *factors
	it       iterator
	trace    []float64 // objectives at evaluated iterations, the start first
	evals    []int     // the iteration of each trace entry
	iters    int
	status   Status
	iterTime time.Duration
	meanFit  float64
	// pgRel is Result.ProjGrad.
	pgRel []float64
}

func (r *run) final() float64 { return r.trace[len(r.trace)-1] }

// advance iterates until limit iterations in all, or, with stop set, until
// the stopping rule holds.
func (r *run) advance(ctx context.Context, o Options, limit int, stop bool) error {
	t0 := time.Now()
	defer func() { r.iterTime += time.Since(t0) }()
	if stop && o.StopRule == MeanFit {
		r.meanFit = 10 * r.final()
	}
	for r.iters < limit {
		if err := ctx.Err(); err != nil {
			r.status = Canceled
			return err
		}
		iter := r.iters + 1
		eval := o.Evaluate <= 1 || iter%o.Evaluate == 0 || iter == limit
		prev := r.final()
		obj, err := r.it.step(eval)
		if err != nil {
			if ctx.Err() != nil {
				// A step that checks the context (mini-batch passes,
				// LPNMF's linear solves) stopped for it.
				r.status = Canceled
				return ctx.Err()
			}
			return err
		}
		r.iters = iter
		if !eval {
			continue
		}
		pg, measured := r.projGrad()
		if err := checkFinite(r.start, iter, obj); err != nil {
			return err
		}
		r.trace = append(r.trace, obj)
		r.evals = append(r.evals, iter)
		if measured {
			r.pgRel = append(r.pgRel, pg)
		}
		if o.Progress != nil {
			o.Progress(r.start, iter, obj)
		}
		if !stop {
			continue
		}
		// converged runs at every evaluation: MeanFit's mean follows
		// the objective from the start.
		if converged(o, r, prev, obj) && iter >= o.MinIter {
			r.status = Converged
			return nil
		}
		if measured && o.PGTol > 0 && pg < o.PGTol && iter >= o.MinIter {
			r.status = Stationary
			return nil
		}
	}
	r.status = IterationLimit
	return nil
}

// projGrad returns the last iteration's relative projected gradient
// (Result.ProjGrad) and whether the iterator measures it.
func (r *run) projGrad() (float64, bool) {
	pgi, ok := r.it.(projGrader)
	if !ok {
		return 0, false
	}
	s, ok := pgi.projGrad()
	if !ok {
		return 0, false
	}
	return s.relative(), true
}

// converged tests the objective's rule (Tol, StopRule).
func converged(o Options, r *run, prev, obj float64) bool {
	if o.Tol <= 0 {
		return false
	}
	switch o.StopRule {
	case MeanFit:
		r.meanFit = 0.1*r.meanFit + 0.9*obj
		return r.meanFit > 0 && (r.meanFit-obj)/r.meanFit < o.Tol
	default:
		return prev > 0 && (prev-obj)/prev < o.Tol
	}
}

// drive runs the starts and returns the best one.
func drive(ctx context.Context, p *problem) (*run, error) {
	o := p.opts
	short := o.RestartIters > 0 && o.Restarts > 1
	var best *run
	for s := 0; s < o.Restarts; s++ {
		f := p.newFactors()
		switch {
		case s == 0 && o.Init != nil:
			p.setInit(f, o.Init)
		case s == 0 && (o.Start == NNDSVDStart || o.Start == LabelsStart):
			if err := p.initialize(ctx, f); err != nil {
				return nil, err
			}
		default:
			p.random(f, o.Seed, uint64(s))
		}
		r := &run{start: s, f: f, it: p.iterator(f)}
		r.trace, r.evals = []float64{r.it.begin()}, []int{0}
		if err := checkFinite(s, 0, r.trace[0]); err != nil {
			return nil, err
		}
		limit := o.MaxIter
		if short {
			limit = min(o.RestartIters, o.MaxIter)
		}
		err := r.advance(ctx, o, limit, !short)
		r.finish()
		if best == nil || r.final() < best.final() {
			best = r
		}
		if err != nil {
			return best, err
		}
	}
	if short && best.iters < o.MaxIter {
		// The reference code's scheme: continue the best short run.
		err := best.advance(ctx, o, o.MaxIter, true)
		best.finish()
		return best, err
	}
	return best, nil
}

// factors holds the first factor a (U, m x k, or for concept
// factorization W, n x k) and V (n x k), row-major with stride k.
type factors struct {
	k    int
	a, v blas64.General
}

func general(r, c int) blas64.General {
	return blas64.General{Rows: r, Cols: c, Stride: c, Data: make([]float64, r*c)}
}

// problem is everything a fit shares across its starts.
type problem struct {
	// ctx is Fit's context, for the steps inside an iteration that can
	// take long (LPNMF's linear solves); it lives only as long as Fit.
	ctx  context.Context
	spec Method
	opts Options
	orig *Data // as given
	d    *Data // what the updates see: NC-weighted when spec.NCW()
	// ncw[j] = sqrt(d_j), d = X^T X e (or K e): X' = X diag(1/ncw),
	// V = diag(ncw) V', W = diag(1/ncw) W'. nil without NC weighting.
	ncw []float64
	reg *regularizer // lambda-folded graph, nil when lambda = 0
	// lambda is the weight folded into reg: Lambda, divided by the
	// graph's mean degree under ScaleInvariant.
	lambda float64
	// ncwNorm scales the NC degrees so that their inverses average 1: for
	// the KL methods always, for the others under ScaleInvariant with a
	// graph term (1 otherwise): a common factor of the
	// weights would otherwise change what Lambda means.
	ncwNorm float64
	kern    *kernelMatrix
	// mbStarts counts the mini-batch iterators made, which seed their
	// orders apart.
	mbStarts int
	// colors partitions the graph's vertices for CD's V half; nil
	// without a regularizer or under MU.
	colors *coloring
	// KL methods: X and X^T in CSR (also for dense data: its non-zeros)
	// and, for -ncw, the per-sample weights of the divergence.
	klX, klXT *sparse.CSR
	gamma     []float64
}

// maxGraphWeight bounds lambda D_ii: above it the graph term's products
// with the factors overflow.
const maxGraphWeight = 1e300

// regularizer is the graph term with lambda folded in, as the reference
// code does: w = lambda W and deg = lambda D (both NC-transformed when
// weighting). Under NC weighting deg is not the row sums of w.
type regularizer struct {
	w   *sparse.CSR
	deg []float64
}

func prepare(ctx context.Context, d *Data, o Options, spec Method) (*problem, error) {
	p := &problem{ctx: ctx, spec: spec, opts: o, orig: d, d: d, ncwNorm: 1}
	var err error
	if spec.Concept() && (o.Kernel.Kind != Linear || d.neg != nil || o.explicitKernel) {
		if p.kern, err = newKernelMatrix(ctx, d, o); err != nil {
			return nil, err
		}
	}
	switch {
	case spec.KL():
		p.klX, p.klXT = d.sparseForms()
		if spec.NCW() {
			// The reference code weighs each sample's divergence by
			// 1/(x_j^T X e) rather than rescaling the data.
			// The weights are scaled to average 1 over the samples
			// that have any: a common factor leaves nmf-kl-ncw's
			// updates and minimizer unchanged, but without it lpnmf-ncw's
			// lambda would be measured in the data's units (raw 8-bit
			// pixels make 1/d about 1e-10, and the linear solves then
			// stall on a near-singular lambda L).
			deg := d.ncwDegrees()
			for j, dj := range deg {
				if dj < 0 || math.IsNaN(dj) {
					return nil, errNegativeDegree(j, dj)
				}
			}
			p.ncwNorm = meanInverse(deg)
			p.gamma = make([]float64, d.n)
			for j, dj := range deg {
				if dj > 0 {
					p.gamma[j] = 1 / (dj * p.ncwNorm)
				} else {
					// An all-zero sample's divergence is sum_i y_ij
					// whatever its weight; 1 keeps the solves positive
					// definite.
					p.gamma[j] = 1
				}
			}
		}
	case spec.NCW():
		if err := p.weight(); err != nil {
			return nil, err
		}
	}
	if lambda := o.lambda(d); lambda > 0 {
		g := o.Graph
		r := &regularizer{w: g.W.Clone(), deg: make([]float64, d.n)}
		if o.Formulation == ScaleInvariant {
			var total float64
			for _, x := range g.Degree {
				total += x
			}
			if total > 0 {
				lambda *= float64(d.n) / total
			}
		}
		for i := 0; i < d.n; i++ {
			si := 1.0
			if p.ncw != nil {
				si = p.ncw[i]
			}
			r.deg[i] = lambda * g.Degree[i] * si * si
			if !(r.deg[i] <= maxGraphWeight) {
				// The graph term's products (lambda D V, and its squares
				// in the objective) would overflow into a NaN objective.
				return nil, fmt.Errorf("solver: lambda %v is too large for this graph: the weighted degree of sample %d (1-based) becomes %v, above %g, where the graph term overflows float64",
					o.lambda(d), i+1, r.deg[i], maxGraphWeight)
			}
			for q := r.w.Indptr[i]; q < r.w.Indptr[i+1]; q++ {
				sj := 1.0
				if p.ncw != nil {
					sj = p.ncw[r.w.Ind[q]]
				}
				r.w.Val[q] *= lambda * si * sj
			}
		}
		p.reg, p.lambda = r, lambda
		if o.Algorithm == CD && spec.HasCD() {
			p.colors = colorGraph(r.w)
		}
	}
	return p, nil
}

// weight applies the normalized-cut weighting: each sample gets weight
// gamma_j = 1/d_j with d = X^T X e (K e for an explicit kernel); the
// weighted problem is the plain one on X Gamma^(1/2) (paper 004 appendix
// B), with the graph's Laplacian becoming Gamma^(-1/2) L Gamma^(-1/2)
// (paper 002 appendix B). A sample with d_j = 0 (all zero) keeps weight 0.
func (p *problem) weight() error {
	d := p.d
	var deg []float64
	if p.kern != nil {
		deg = p.kern.rowSums()
	} else {
		deg = d.ncwDegrees()
	}
	p.ncw = make([]float64, d.n)
	scale := make([]float64, d.n)
	for j, dj := range deg {
		if dj < 0 || math.IsNaN(dj) {
			return errNegativeDegree(j, dj)
		}
	}
	if p.opts.Formulation == ScaleInvariant && p.opts.lambda(d) > 0 {
		p.ncwNorm = meanInverse(deg)
	}
	for j, dj := range deg {
		if dj > 0 {
			p.ncw[j] = math.Sqrt(dj * p.ncwNorm)
			scale[j] = 1 / p.ncw[j]
		}
	}
	if p.kern != nil {
		p.kern.scale(scale)
	} else {
		p.d = d.scaledSamples(scale)
	}
	return nil
}

// meanInverse returns the mean of 1/x over the positive entries of x, 1
// when there are none.
func meanInverse(x []float64) float64 {
	var sum float64
	var count int
	for _, v := range x {
		if v > 0 {
			sum += 1 / v
			count++
		}
	}
	if count == 0 || !(sum > 0) || math.IsInf(sum, 0) {
		return 1
	}
	return sum / float64(count)
}

func (p *problem) newFactors() *factors {
	rows := p.d.m
	if p.spec.Concept() {
		rows = p.d.n
	}
	return &factors{k: p.opts.K, a: general(rows, p.opts.K), v: general(p.d.n, p.opts.K)}
}

// random fills the first factor then V with uniform values in [0, 1), as
// the reference code's rand(m, k) and rand(n, k), from a generator seeded
// by (seed, start). U's rows are drawn in the caller's feature order,
// whatever the internal order.
func (p *problem) random(f *factors, seed, start uint64) {
	a, v := nmfstep.Random(f.a.Rows, f.v.Rows, f.k, seed, start)
	k := f.k
	for r := 0; r < f.a.Rows; r++ {
		i := p.row(r)
		copy(f.a.Data[r*k:(r+1)*k], a[i*k:(i+1)*k])
	}
	copy(f.v.Data, v)
	if p.opts.Start == NormalizedStart {
		p.normalizeStart(f)
	}
}

// columnNorms returns the length of each of the k factor columns the
// result is normalized by: of X W (w^T K w) for concept factorization,
// Euclidean for the Frobenius methods (paper 004), and the sum for the KL
// methods, so that U's columns become distributions over the features.
func (p *problem) columnNorms(f *factors) []float64 {
	if p.spec.Concept() {
		return p.conceptNorms(f)
	}
	k := f.k
	norms := make([]float64, k)
	for i := 0; i < f.a.Rows; i++ {
		for j, x := range f.a.Data[i*k : (i+1)*k] {
			if p.spec.KL() {
				norms[j] += x
			} else {
				norms[j] += x * x
			}
		}
	}
	if !p.spec.KL() {
		for j := range norms {
			norms[j] = math.Sqrt(norms[j])
		}
	}
	return norms
}

// normalizeStart rescales a random start as the reference code does
// before its first update: U's columns (X W's for concept factorization)
// to unit length and V's columns by the same factors, so U V^T is kept.
// The objectives are scale-degenerate, so this choice is what sets the
// graph term's weight against the fit for a given lambda.
func (p *problem) normalizeStart(f *factors) {
	k := f.k
	norms := p.columnNorms(f)
	// Row by row in parallel, each entry divided or multiplied as a pass
	// column by column would do it: that pass, every column strided over
	// all the rows, takes one goroutine through k passes over each factor
	// (120 MB for V at 500,000 samples and k = 30).
	scale := func(g blas64.General, div bool) {
		parallel.For(g.Rows, p.opts.Threads, 256, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				row := g.Data[i*k : (i+1)*k]
				for j, nj := range norms {
					switch {
					case nj == 0:
					case div:
						row[j] /= nj
					default:
						row[j] *= nj
					}
				}
			}
		})
	}
	scale(f.a, true)
	scale(f.v, false)
}

// row maps an internal row of the first factor to the caller's row.
func (p *problem) row(r int) int {
	if p.spec.Concept() {
		return r
	}
	return p.d.feature(r)
}

func (p *problem) setInit(f *factors, init *Result) {
	k := f.k
	// Row by row in parallel: a start is copied at every fit, and Auto's
	// path starts each candidate from the previous one's factors. A
	// matrix without raw storage is read on one goroutine: its At need
	// not be safe for concurrent use.
	fill := func(dst blas64.General, src mat.Matrix, row func(r int) int) {
		if raw, ok := src.(mat.RawMatrixer); ok {
			m := raw.RawMatrix()
			p.eachRow(dst.Rows, func(r int) {
				i := row(r)
				copy(dst.Data[r*k:(r+1)*k], m.Data[i*m.Stride:i*m.Stride+k])
			})
			return
		}
		for r := 0; r < dst.Rows; r++ {
			for j := 0; j < k; j++ {
				dst.Data[r*k+j] = src.At(row(r), j)
			}
		}
	}
	first := init.U
	if p.spec.Concept() {
		first = init.W
	}
	fill(f.a, first, p.row)
	fill(f.v, init.V, func(i int) int { return i })
	// Under NC weighting the updates work on V' = Gamma^(1/2) V and
	// W' = Gamma^(-1/2) W.
	if p.ncw != nil {
		p.eachRow(f.v.Rows, func(i int) {
			if w := p.ncw[i]; w > 0 {
				for j := 0; j < k; j++ {
					f.v.Data[i*k+j] /= w
					if p.spec.Concept() {
						f.a.Data[i*k+j] *= w
					}
				}
			}
		})
	}
}

// eachRow calls fn(i) for every i in [0, n) on the fit's goroutines; fn
// may write only row i, so the result does not depend on the thread
// count.
func (p *problem) eachRow(n int, fn func(i int)) {
	parallel.For(n, p.opts.Threads, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			fn(i)
		}
	})
}

func (p *problem) iterator(f *factors) iterator {
	switch {
	case p.opts.Algorithm == MiniBatch:
		return newMBIter(p, f)
	case p.d.hidden != nil && p.spec.KL():
		return newMaskedKLIter(p, f)
	case p.d.hidden != nil:
		return newMaskedIter(p, f)
	case p.spec.Concept():
		return newCFIter(p, f)
	case p.spec.KL():
		return newKLIter(p, f)
	}
	return newNMFIter(p, f)
}

// result undoes the NC weighting, normalizes (U's columns to unit length
// for nmf and gnmf, paper 004 eqs. 10-11; w^T K w = 1 for concept
// factorization, paper 002 section 3.2), assigns samples by the arg max of
// V's rows, and returns the factors in the caller's order.
func (p *problem) result(f *factors) *Result {
	k, n := f.k, f.v.Rows
	res := &Result{Method: p.spec, General: p.kern != nil && p.kern.neg.Data != nil}
	// The norms are the same in the weighted and the caller's domain
	// (W^T K W = W'^T K' W'), so take them before undoing the weighting.
	norms := p.columnNorms(f)
	// The passes below run row by row in parallel, each entry computed
	// as a serial pass would (V has a row a sample).
	if p.ncw != nil {
		p.eachRow(n, func(i int) {
			for j := 0; j < k; j++ {
				f.v.Data[i*k+j] *= p.ncw[i]
				if p.spec.Concept() {
					if p.ncw[i] > 0 {
						f.a.Data[i*k+j] /= p.ncw[i]
					} else {
						f.a.Data[i*k+j] = 0
					}
				}
			}
		})
	}
	p.eachRow(f.a.Rows, func(i int) {
		row := f.a.Data[i*k : (i+1)*k]
		for j := range row {
			if norms[j] > 0 {
				row[j] /= norms[j]
			}
		}
	})
	res.Labels = make([]int, n)
	p.eachRow(n, func(i int) {
		row := f.v.Data[i*k : (i+1)*k]
		best, arg := 0.0, -1
		for j := range row {
			if norms[j] > 0 {
				row[j] *= norms[j]
			}
			if row[j] > best {
				best, arg = row[j], j
			}
		}
		res.Labels[i] = arg
	})
	res.V = mat.NewDense(n, k, f.v.Data)
	if p.spec.Concept() {
		res.W = mat.NewDense(n, k, f.a.Data)
		if p.kern == nil {
			res.U = p.orig.conceptBasis(f.a, p.opts.Threads)
		}
		return res
	}
	u := make([]float64, len(f.a.Data))
	p.eachRow(f.a.Rows, func(r int) {
		i := p.d.feature(r)
		copy(u[i*k:(i+1)*k], f.a.Data[r*k:(r+1)*k])
	})
	res.U = mat.NewDense(f.a.Rows, k, u)
	return res
}
