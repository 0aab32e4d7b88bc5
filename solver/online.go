package solver

import (
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/solver/minibatch"
	"github.com/manifactor/manifactor/sparse"
)

// DefaultBatchSize is MiniBatch's samples a batch, scikit-learn's.
const DefaultBatchSize = 1024

// mbIter runs nmf (and nmf-ncw, on the weighted data) and nmf-kl by
// MiniBatch: an
// iteration is one pass of package minibatch over the samples in a seeded
// random order, after which V is solved afresh for the pass's U, so that
// the objective is that of the factors Fit returns. The objective need
// not fall from pass to pass (the statistics carry V's of older U's), so
// the relative-decrease rule stops a start once a pass gains less than
// Tol, or loses.
type mbIter struct {
	p  *problem
	f  *factors
	md *minibatch.Model
	xt *sparse.CSR
}

func newMBIter(p *problem, f *factors) *mbIter {
	xt := p.d.samplesCSR()
	loss := minibatch.Frobenius
	if p.spec.KL() {
		xt, loss = p.klXT, minibatch.KL
	}
	p.mbStarts++
	md, err := minibatch.New(p.d.m, minibatch.Options{K: f.k, Loss: loss, BatchSize: p.opts.BatchSize,
		Forget: p.opts.Forget, Threads: p.opts.Threads,
		Seed: p.opts.Seed ^ uint64(p.mbStarts)<<40})
	if err != nil {
		// Options.check refused every setting New refuses.
		panic(err)
	}
	return &mbIter{p: p, f: f, md: md, xt: xt}
}

func (it *mbIter) begin() float64 {
	k := it.f.k
	u := mat.NewDense(it.f.a.Rows, k, it.f.a.Data)
	if err := it.md.SetU(u); err != nil {
		// The starts are finite and non-negative.
		panic(err)
	}
	v := mat.NewDense(it.f.v.Rows, k, it.f.v.Data)
	if it.p.spec.KL() {
		return minibatch.KLObjective(it.xt, u, v)
	}
	return minibatch.Objective(it.xt, u, v)
}

// step makes a pass and, when eval is set, solves V for the new U and
// copies both into the factors: between evaluations the factors keep the
// last evaluated pair, so a canceled fit returns a matching one.
func (it *mbIter) step(eval bool) (float64, error) {
	if err := it.md.Fit(it.p.ctx, it.xt, 1); err != nil {
		return 0, err
	}
	if !eval {
		return 0, nil
	}
	v, loss, err := it.md.TransformLoss(it.p.ctx, it.xt)
	if err != nil {
		return 0, err
	}
	copy(it.f.a.Data, it.md.U().RawMatrix().Data)
	copy(it.f.v.Data, v.RawMatrix().Data)
	return loss, nil
}
