package minibatch

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Loss is the divergence a Model fits.
type Loss int

const (
	// Frobenius is the squared error: coordinate descent in both steps.
	Frobenius Loss = iota
	// KL is the generalized Kullback-Leibler divergence D(X || V U^T):
	// each batch's rows of V by coordinate Newton steps (package
	// klstep), U by the online multiplicative update.
	KL
)

// String returns the loss's name.
func (l Loss) String() string {
	switch l {
	case Frobenius:
		return "frobenius"
	case KL:
		return "kl"
	}
	return fmt.Sprintf("Loss(%d)", int(l))
}

// Options configures a Model. The zero value but K is the default.
type Options struct {
	// K is the number of factors, at least 1.
	K int
	// Loss is the divergence; the zero value is Frobenius.
	Loss Loss
	// BatchSize is the samples of a batch; 0 means 1024 (scikit-learn's).
	BatchSize int
	// Sweeps is the coordinate-descent sweeps that solve a batch's rows
	// of V; 0 means 10 (Frobenius) or 5 (KL, whose sweeps are Newton
	// steps and cost a pass over the sample's entries each).
	Sweeps int
	// USweeps is the coordinate-descent sweeps U takes after each batch;
	// 0 means 1. KL takes one multiplicative step and refuses more.
	USweeps int
	// Forget, in (0, 1], discounts the statistics before each pass of Fit
	// after the first; 0 means 0.5. Under KL it is the discount over a
	// whole pass p, taken batch by batch, to the power 1/p; 0 means 1e-4
	// (see discountKL).
	Forget float64
	// Seed seeds U's start.
	Seed uint64
	// Threads bounds the goroutines; 0 means GOMAXPROCS.
	Threads int
}

func (o Options) withDefaults() Options {
	if o.BatchSize == 0 {
		o.BatchSize = 1024
	}
	if o.Sweeps == 0 {
		o.Sweeps = 10
		if o.Loss == KL {
			o.Sweeps = klSweeps
		}
	}
	if o.Forget == 0 {
		o.Forget = 0.5
		if o.Loss == KL {
			o.Forget = klForget
		}
	}
	if o.USweeps == 0 {
		o.USweeps = 1
	}
	return o
}

func (o Options) check() error {
	switch {
	case o.K < 1:
		return fmt.Errorf("minibatch: k = %d: want at least 1", o.K)
	case o.Loss != Frobenius && o.Loss != KL:
		return fmt.Errorf("minibatch: unknown loss %v", o.Loss)
	case o.Loss == KL && o.USweeps > 1:
		return fmt.Errorf("minibatch: %d sweeps of U: the KL loss takes one multiplicative step", o.USweeps)
	case o.BatchSize < 1:
		return fmt.Errorf("minibatch: batch size %d: want at least 1", o.BatchSize)
	case o.Sweeps < 1:
		return fmt.Errorf("minibatch: %d sweeps: want at least 1", o.Sweeps)
	case !(o.Forget > 0 && o.Forget <= 1):
		return fmt.Errorf("minibatch: forget %v: want a factor in (0, 1]", o.Forget)
	case o.Threads < 0:
		return fmt.Errorf("minibatch: %d threads", o.Threads)
	}
	return nil
}

// Model is an online NMF: the basis U and the statistics that further
// samples update.
type Model struct {
	opts     Options
	features int
	// U is features x k, nil until the first batch.
	u []float64
	// Frobenius: a is A (k x k) and b is B (features x k), both
	// row-major; g is U^T U, kept with U.
	//
	// KL: a is the numerator (features x k) and den the denominator (k)
	// of the online multiplicative update, U = a ./ den; b is the
	// batch's share of the numerator, X_b ./ Y_b times V_b; colU is U's
	// column sums, kept with U: the rows' linear term.
	a, b, g   []float64
	den, colU []float64
	// work is the KL row solves' room, one a worker.
	work []*klWork
	// Seen counts the samples given so far, over all passes.
	Seen int
	// passes counts the passes of Fit and FitSource since the start or
	// SetU: each pass draws its order from its own number, so that
	// passes made by several calls are the passes one call makes.
	passes int
	// loss is PassLoss's sum.
	loss float64
}

// PassLoss returns the squared error ||x - U v||^2 summed over the
// samples of the last pass (of Fit or FitSource; the last call of
// PartialFit), each sample's v solved for U as its batch found it,
// before the batch updated U: the online objective, which costs no pass
// of its own. It is above the objective of the U the pass ends with,
// by less as the passes converge.
func (md *Model) PassLoss() float64 { return md.loss }

// New returns a model for samples of the given number of features.
func New(features int, o Options) (*Model, error) {
	o = o.withDefaults()
	if err := o.check(); err != nil {
		return nil, err
	}
	if features < 1 {
		return nil, fmt.Errorf("minibatch: %d features", features)
	}
	return &Model{opts: o, features: features}, nil
}

// U returns a copy of the basis (features x k); nil before any sample.
func (md *Model) U() *mat.Dense {
	if md.u == nil {
		return nil
	}
	return mat.NewDense(md.features, md.opts.K, append([]float64(nil), md.u...))
}

// SetU sets the basis (features x k, non-negative and finite), e.g. one
// fitted elsewhere, for Transform or further fits; the statistics start
// again from zero.
func (md *Model) SetU(u mat.Matrix) error {
	m, k := u.Dims()
	if m != md.features || k != md.opts.K {
		return fmt.Errorf("minibatch: a %d x %d basis for a model of %d features and k = %d", m, k, md.features, md.opts.K)
	}
	md.u = make([]float64, m*k)
	for i := 0; i < m; i++ {
		for c := 0; c < k; c++ {
			x := u.At(i, c)
			if !(x >= 0) || math.IsInf(x, 0) {
				return fmt.Errorf("minibatch: basis entry (%d, %d) is %v (want finite and non-negative)", i+1, c+1, x)
			}
			md.u[i*k+c] = x
		}
	}
	md.resetStats()
	md.passes = 0
	md.sweepU(nil)
	return nil
}

// checkData refuses data the model cannot take.
func (md *Model) checkData(x *sparse.CSR) error {
	if x == nil || x.Rows == 0 {
		return errors.New("minibatch: no samples")
	}
	if x.Cols != md.features {
		return fmt.Errorf("minibatch: samples of %d features for a model of %d", x.Cols, md.features)
	}
	for i := 0; i < x.Rows; i++ {
		for q := x.Indptr[i]; q < x.Indptr[i+1]; q++ {
			if v := x.Val[q]; !(v >= 0) || math.IsInf(v, 0) {
				return fmt.Errorf("minibatch: sample %d, feature %d: value %v (want finite and non-negative)", i+1, x.Ind[q]+1, v)
			}
		}
	}
	return nil
}

// start draws U as scikit-learn's random start does: |N(0, 1)| times
// sqrt(mean(X_b) / k) for the first batch X_b (its rows).
func (md *Model) start(x *sparse.CSR, rows []int) {
	k := md.opts.K
	var sum float64
	for _, j := range rows {
		for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
			sum += x.Val[q]
		}
	}
	scale := math.Sqrt(sum / float64(len(rows)*md.features) / float64(k))
	if scale == 0 {
		// A first batch of empty samples says nothing of the scale; a
		// zero U would never move.
		scale = 1 / math.Sqrt(float64(k))
	}
	rng := rand.New(rand.NewPCG(md.opts.Seed, 0x6d62))
	md.u = make([]float64, md.features*k)
	for i := range md.u {
		md.u[i] = scale * math.Abs(rng.NormFloat64())
	}
	if md.opts.Loss == KL {
		md.seedColumns(x, rows, rng)
	}
	md.resetStats()
	md.sweepU(nil)
}

// resetStats starts the statistics afresh for the current U. KL's
// numerator and denominator start at U and 1, as scikit-learn's do: U
// is then their ratio, and a feature that the first batches miss keeps
// its start, at a weight that the samples seen soon outweigh.
func (md *Model) resetStats() {
	k := md.opts.K
	md.b = make([]float64, md.features*k)
	if md.opts.Loss == KL {
		md.a = append([]float64(nil), md.u...)
		md.den = make([]float64, k)
		for c := range md.den {
			md.den[c] = 1
		}
		return
	}
	md.a = make([]float64, k*k)
}

// PartialFit takes the samples of x (rows) once, in a random order
// seeded by Seed and the samples seen before, in batches of BatchSize:
// each batch's V is solved for the current U, the statistics take the
// batch, and U takes USweeps sweeps. The statistics are not discounted,
// so samples given now weigh as much as those given before.
func (md *Model) PartialFit(ctx context.Context, x *sparse.CSR) error {
	if err := md.checkData(x); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(md.opts.Seed, uint64(md.Seen)))
	md.loss = 0
	return md.pass(ctx, x, rng.Perm(x.Rows), 0)
}

// pass takes the samples of x in the order of rows (nil: in order), in
// batches of BatchSize, as part of a pass over total samples (KL's
// discount; 0: none).
func (md *Model) pass(ctx context.Context, x *sparse.CSR, rows []int, total int) error {
	if md.u == nil {
		first := rows
		if first == nil {
			first = seq(0, min(x.Rows, md.opts.BatchSize))
		}
		md.start(x, first[:min(len(first), md.opts.BatchSize)])
	}
	batch := make([]int, 0, md.opts.BatchSize)
	k := md.opts.K
	v := make([]float64, md.opts.BatchSize*k)
	loss := make([]float64, md.opts.BatchSize)
	ratio := []float64{} // KL: X_b ./ Y_b at the batch's entries
	for lo := 0; lo < x.Rows; lo += md.opts.BatchSize {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+md.opts.BatchSize, x.Rows)
		batch = batch[:0]
		for r := lo; r < hi; r++ {
			if rows != nil {
				batch = append(batch, rows[r])
			} else {
				batch = append(batch, r)
			}
		}
		nb := len(batch)
		if md.opts.Loss == KL {
			ratio = md.solveRowsKL(x, batch, v[:nb*k], loss[:nb], ratio)
		} else {
			md.solveRows(x, batch, v[:nb*k], loss[:nb])
		}
		for _, l := range loss[:nb] {
			md.loss += l
		}
		if md.opts.Loss == KL && total > 0 {
			md.discountKL(nb, total)
		}
		md.accumulate(x, batch, v[:nb*k], ratio)
		md.updateU()
		md.Seen += len(batch)
	}
	return nil
}

// seq returns lo, lo+1, ..., hi-1.
func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for i := range out {
		out[i] = lo + i
	}
	return out
}

// Fit makes passes over x, each in its own seeded random order of the
// samples, discounting the statistics by Forget before each pass but the
// model's first. The order matters: a corpus stored class by class, taken
// in that order, would leave U fitted to the last classes. Passes go on
// from those made before: Fit(x, 1) called twice is Fit(x, 2).
func (md *Model) Fit(ctx context.Context, x *sparse.CSR, passes int) error {
	if passes < 1 {
		return fmt.Errorf("minibatch: %d passes: want at least 1", passes)
	}
	if err := md.checkData(x); err != nil {
		return err
	}
	for range passes {
		rng := md.nextPass()
		if err := md.pass(ctx, x, rng.Perm(x.Rows), x.Rows); err != nil {
			return err
		}
	}
	return nil
}

// nextPass discounts the statistics if a pass came before (Frobenius;
// KL discounts batch by batch) and returns the random source of the pass
// that begins.
func (md *Model) nextPass() *rand.Rand {
	if md.passes > 0 && md.opts.Loss != KL {
		md.discount()
	}
	md.passes++
	md.loss = 0
	return rand.New(rand.NewPCG(md.opts.Seed, 0x7061<<32|uint64(md.passes)))
}

// Source gives a corpus block by block, so that a fit holds one block at
// a time: Blocks is their number, Samples the samples of all of them, and
// Block reads block i (0-based), the same samples each time it is asked.
type Source interface {
	Blocks() int
	Samples() int
	Block(ctx context.Context, i int) (*sparse.CSR, error)
}

// FitSource makes passes over the blocks of src, as Fit does over
// samples in memory: each pass visits the blocks in a seeded random
// order and each block's samples in a random order, and discounts the
// statistics by Forget before each pass but the model's first. It holds
// the block being fitted and the next, which Block reads (on another
// goroutine) meanwhile.
func (md *Model) FitSource(ctx context.Context, src Source, passes int) error {
	if passes < 1 {
		return fmt.Errorf("minibatch: %d passes: want at least 1", passes)
	}
	nb, total := src.Blocks(), src.Samples()
	if nb < 1 || total < 1 {
		return fmt.Errorf("minibatch: the source has %d blocks of %d samples", nb, total)
	}
	type read struct {
		x   *sparse.CSR
		err error
	}
	// The next block is read while the current one is fitted: the
	// channel holds it, so a goroutine left behind by an error ends.
	fetch := func(b int) <-chan read {
		ch := make(chan read, 1)
		go func() {
			x, err := src.Block(ctx, b)
			ch <- read{x, err}
		}()
		return ch
	}
	for range passes {
		rng := md.nextPass()
		order := rng.Perm(nb)
		next := fetch(order[0])
		for t, b := range order {
			r := <-next
			if t+1 < nb && r.err == nil {
				next = fetch(order[t+1])
			}
			x, err := r.x, r.err
			if err != nil {
				return fmt.Errorf("minibatch: block %d: %w", b+1, err)
			}
			if err := md.checkData(x); err != nil {
				return fmt.Errorf("minibatch: block %d: %w", b+1, err)
			}
			if err := md.pass(ctx, x, rng.Perm(x.Rows), total); err != nil {
				return err
			}
		}
	}
	return nil
}

// discount multiplies the statistics by Forget.
func (md *Model) discount() {
	for i := range md.a {
		md.a[i] *= md.opts.Forget
	}
	for i := range md.b {
		md.b[i] *= md.opts.Forget
	}
}

// Transform returns the rows of V (samples x k) for x with U fixed: the
// non-negative fit under the loss, by Sweeps sweeps (Frobenius: from
// zero; KL: from the constant row whose model sums to the sample's).
func (md *Model) Transform(ctx context.Context, x *sparse.CSR) (*mat.Dense, error) {
	v, _, err := md.TransformLoss(ctx, x)
	return v, err
}

// TransformLoss is Transform that also returns the loss for the V it
// returns (||X - V U^T||_F^2, or D(X || V U^T) under KL), summed in the
// samples' order from terms it has at hand.
func (md *Model) TransformLoss(ctx context.Context, x *sparse.CSR) (*mat.Dense, float64, error) {
	if md.u == nil {
		return nil, 0, errors.New("minibatch: Transform before any sample was fitted")
	}
	if err := md.checkData(x); err != nil {
		return nil, 0, err
	}
	k := md.opts.K
	out := make([]float64, x.Rows*k)
	loss := make([]float64, x.Rows)
	for lo := 0; lo < x.Rows; lo += md.opts.BatchSize {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		hi := min(lo+md.opts.BatchSize, x.Rows)
		if md.opts.Loss == KL {
			md.solveRowsKL(x, seq(lo, hi), out[lo*k:hi*k], loss[lo:hi], nil)
		} else {
			md.solveRows(x, seq(lo, hi), out[lo*k:hi*k], loss[lo:hi])
		}
	}
	var sum float64
	for _, l := range loss {
		sum += l
	}
	return mat.NewDense(x.Rows, k, out), sum, nil
}

// gramBlock is the rows of U whose share of U^T U is summed apart: the
// shares are added in block order, so the sum does not depend on the
// threads.
const gramBlock = 2048

// blockGram adds row u (k entries) times its transpose to g (k x k), to
// the upper triangle only (sweepU mirrors the sum).
func blockGram(g, u []float64, k int) {
	for c, x := range u {
		if x == 0 {
			continue
		}
		asm.Axpy(x, u[c:], g[c*k+c:(c+1)*k])
	}
}

// sweepU runs fn on U's rows in blocks of gramBlock, in parallel, each
// block adding its rows' share of U^T U (after fn) to its own sum, and
// sets md.g to their total: U^T U is refreshed in the same pass over U
// that changes it. Under KL the blocks sum U's columns instead, into
// md.colU.
func (md *Model) sweepU(fn func(i int)) {
	k := md.opts.K
	nb := (md.features + gramBlock - 1) / gramBlock
	if md.opts.Loss == KL {
		md.sweepColumns(fn, nb)
		return
	}
	parts := make([]float64, nb*k*k)
	parallel.For(nb, md.opts.Threads, 1, func(lo, hi int) {
		for b := lo; b < hi; b++ {
			g := parts[b*k*k : (b+1)*k*k]
			for i := b * gramBlock; i < min((b+1)*gramBlock, md.features); i++ {
				if fn != nil {
					fn(i)
				}
				blockGram(g, md.u[i*k:(i+1)*k], k)
			}
		}
	})
	md.g = make([]float64, k*k)
	for b := 0; b < nb; b++ {
		for q, x := range parts[b*k*k : (b+1)*k*k] {
			md.g[q] += x
		}
	}
	for c := 0; c < k; c++ {
		for d := c + 1; d < k; d++ {
			md.g[d*k+c] = md.g[c*k+d]
		}
	}
}

// solveRows sets v (len(rows) x k) to the rows of V of the samples rows
// for the current U and, when loss is not nil, loss[r] to the squared
// error of sample rows[r]: ||x||^2 - 2 v^T h + v^T G v, with h = U^T x
// and G = U^T U at hand from the solve.
func (md *Model) solveRows(x *sparse.CSR, rows []int, v, loss []float64) {
	k, g := md.opts.K, md.g
	parallel.For(len(rows), md.opts.Threads, 16, func(a, b int) {
		h := make([]float64, k)
		for r := a; r < b; r++ {
			j := rows[r]
			for c := range h {
				h[c] = 0
			}
			var xx float64
			for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
				xv := x.Val[q]
				xx += xv * xv
				asm.Axpy(xv, md.u[x.Ind[q]*k:(x.Ind[q]+1)*k], h)
			}
			w := v[r*k : (r+1)*k]
			for c := range w {
				w[c] = 0
			}
			cdRow(w, h, g, k, md.opts.Sweeps)
			if loss != nil {
				var quad float64
				for c, y := range w {
					if y == 0 {
						continue
					}
					var s float64
					for d, z := range w {
						s += g[c*k+d] * z
					}
					quad += y * (s - 2*h[c])
				}
				loss[r] = xx + quad
			}
		}
	})
}

// cdRow minimizes w^T G w - 2 w^T h over w >= 0 by sweeps of exact
// one-coordinate steps. G is symmetric, so its row c is its column.
func cdRow(w, h, g []float64, k, sweeps int) {
	for range sweeps {
		for c := 0; c < k; c++ {
			gcc := g[c*k+c]
			if gcc <= 0 {
				continue
			}
			s := h[c] - asm.Dot(w, g[c*k:(c+1)*k])
			w[c] = max(0, w[c]+s/gcc)
		}
	}
}

// accumulate adds the batch's V^T V to A and X^T V to B, in the batch's
// order; under KL, the batch's V to the denominator and (X ./ Y)^T V to
// b, ratio holding X ./ Y at the batch's entries.
func (md *Model) accumulate(x *sparse.CSR, rows []int, v, ratio []float64) {
	k := md.opts.K
	if md.opts.Loss == KL {
		md.accumulateKL(x, rows, v, ratio)
		return
	}
	for r, j := range rows {
		row := v[r*k : (r+1)*k]
		for c, y := range row {
			if y == 0 {
				continue
			}
			asm.Axpy(y, row, md.a[c*k:(c+1)*k])
		}
		for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
			asm.Axpy(x.Val[q], row, md.b[x.Ind[q]*k:(x.Ind[q]+1)*k])
		}
	}
}

// updateU takes one sweep on each row of U: U's rows are independent
// given A and B.
func (md *Model) updateU() {
	k := md.opts.K
	if md.opts.Loss == KL {
		md.sweepU(md.updateRowKL)
		return
	}
	md.sweepU(func(i int) {
		cdRow(md.u[i*k:(i+1)*k], md.b[i*k:(i+1)*k], md.a, k, md.opts.USweeps)
	})
}

// Objective returns the loss, ||X - V U^T||_F^2 or D(X || V U^T), for
// the model's U and the rows v (samples x k) of x.
func (md *Model) Objective(x *sparse.CSR, v *mat.Dense) float64 {
	if md.opts.Loss == KL {
		return KLObjective(x, md.U(), v)
	}
	return Objective(x, md.U(), v)
}

// Objective returns ||X - V U^T||_F^2 = ||X||^2 - 2 tr(V^T X U) +
// tr(U^T U V^T V) for X (samples x features), U (features x k) and V
// (samples x k).
func Objective(x *sparse.CSR, u, v *mat.Dense) float64 {
	_, k := u.Dims()
	var xx, cross float64
	for j := 0; j < x.Rows; j++ {
		vrow := v.RawRowView(j)
		for q := x.Indptr[j]; q < x.Indptr[j+1]; q++ {
			xv := x.Val[q]
			xx += xv * xv
			urow := u.RawRowView(x.Ind[q])
			var s float64
			for c := 0; c < k; c++ {
				s += vrow[c] * urow[c]
			}
			cross += xv * s
		}
	}
	var utu, vtv mat.Dense
	utu.Mul(u.T(), u)
	vtv.Mul(v.T(), v)
	var tr float64
	for c := 0; c < k; c++ {
		for d := 0; d < k; d++ {
			tr += utu.At(c, d) * vtv.At(c, d)
		}
	}
	return xx - 2*cross + tr
}
