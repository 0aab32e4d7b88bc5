package solver

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

func (p *problem) model() model {
	m := model{spec: p.spec, lambda: p.lambda, ncwNorm: p.ncwNorm, kernel: p.opts.Kernel, trainN: p.orig.n, trainM: p.orig.m}
	if p.kern != nil && p.opts.Kernel.Kind == Gaussian {
		m.kernel.Sigma = p.kern.sigma
	}
	if p.spec.NCW() {
		m.colSum = p.orig.featureSums()
	}
	return m
}

// featureSums returns X e (the sum of all samples), in the caller's
// feature order.
func (d *Data) featureSums() []float64 {
	s := make([]float64, d.m)
	if d.xt != nil {
		for q, t := range d.xt.Ind {
			s[d.feature(t)] += d.xt.Val[q]
		}
		return s
	}
	for i := 0; i < d.n; i++ {
		for t, x := range d.dense.Data[i*d.m : (i+1)*d.m] {
			s[t] += x
		}
	}
	return s
}

// TransformOptions configures Transform; the zero value is sensible.
type TransformOptions struct {
	// MaxIter is the number of multiplicative updates; 0 means 200.
	MaxIter int
	// Links holds, for gnmf and lccf with lambda > 0, the weights from each
	// new sample (row) to its nearest training samples (columns), in the
	// training graph's weighting: s' of paper 002 eq. 30. Nil means no
	// links, which drops the graph term.
	Links *sparse.CSR
	// Seed seeds the starting rows.
	Seed uint64
	// Threads bounds the goroutines; 0 means GOMAXPROCS.
	Threads int
}

// Transform returns V rows (n' x k) for samples the fit did not see. For
// nmf and gnmf U stays fixed and each new row runs the V update
//
//	v' <- v' .* (x'^T U + lambda s' V) ./ max(v' U^T U + lambda d' v', eps)
//
// with d' = sum(s'); for cf and lccf the new point's w' and v' run paper
// 002 eqs. 29-30 with the training W and V fixed. The -ncw forms weight
// the new sample by 1/(x'^T X e) with the training X e, as the fit did.
// train must be the Data the result was fitted on, or nil where it is not
// needed (but for cf, lccf, and the -ncw forms of nmf and gnmf with links);
// x must have its features. Each new sample is independent (its random
// start is the draw of its position from Seed), so rows are computed in
// parallel and the result does not depend on Threads.
func (r *Result) Transform(ctx context.Context, train, x *Data, opts TransformOptions) (*mat.Dense, error) {
	if r == nil || r.V == nil || r.model.trainN == 0 {
		return nil, fmt.Errorf("solver: Transform needs a result returned by Fit")
	}
	md := r.model
	if x == nil {
		return nil, fmt.Errorf("solver: Transform needs the new data")
	}
	// The training samples enter cf's and lccf's basis, and the NC
	// weights of the -ncw forms' graph links.
	needTrain := md.spec.Concept() || (md.spec.NCW() && !md.spec.KL() && opts.Links != nil && md.lambda > 0)
	if train == nil && needTrain {
		return nil, fmt.Errorf("solver: Transform of %s needs the training data", md.spec)
	}
	if train != nil && (train.n != md.trainN || train.m != md.trainM) {
		return nil, fmt.Errorf("solver: training data is %d features x %d samples, the fit saw %d x %d", train.m, train.n, md.trainM, md.trainN)
	}
	if x.m != md.trainM {
		return nil, fmt.Errorf("solver: new data has %d features, the training data %d", x.m, md.trainM)
	}
	if err := checkHidden(x, md.spec, false); err != nil {
		return nil, err
	}
	if !md.spec.Concept() && x.neg != nil {
		return nil, fmt.Errorf("solver: negative entry %v at new sample %d, feature %d (1-based); %s needs non-negative data", x.neg.v, x.neg.i+1, x.neg.j+1, md.spec)
	}
	if opts.MaxIter == 0 {
		opts.MaxIter = 200
	}
	if opts.MaxIter < 0 || opts.Threads < 0 {
		return nil, fmt.Errorf("solver: negative MaxIter or Threads in TransformOptions")
	}
	lambda := md.lambda
	if !md.spec.TakesGraph() || opts.Links == nil {
		lambda = 0
	}
	if lambda > 0 {
		l := opts.Links
		if l.Rows != x.n || l.Cols != md.trainN {
			return nil, fmt.Errorf("solver: links are %d x %d, want %d new x %d training samples", l.Rows, l.Cols, x.n, md.trainN)
		}
		if err := l.Validate(); err != nil {
			return nil, fmt.Errorf("solver: links: %w", err)
		}
		for _, v := range l.Val {
			if v < 0 {
				return nil, fmt.Errorf("solver: links: negative weight %v", v)
			}
		}
	}
	n2, k := x.n, r.V.RawMatrix().Cols
	// The NC weights of the training samples (for V' = Gamma^(1/2) V) and
	// of the new ones.
	var trainScale, newScale, gNew []float64
	switch {
	case md.spec.NCW() && md.spec.KL():
		// The KL methods weigh each sample's divergence by g = 1/(x . X e)
		// instead of rescaling: the new samples get their own weights.
		gNew = ncwScales(x, md.colSum, md.ncwNorm)
		for i, s := range gNew {
			gNew[i] = s * s
		}
	case md.spec.NCW():
		if train != nil {
			trainScale = ncwScales(train, md.colSum, md.ncwNorm)
		}
		newScale = ncwScales(x, md.colSum, md.ncwNorm)
	}
	v := toGeneral(r.V)
	if trainScale != nil {
		scaleRows(v, trainScale)
	}
	out := general(n2, k)
	rng := rand.New(rand.NewPCG(opts.Seed, 0x7472616e))
	for i := range out.Data {
		out.Data[i] = rng.Float64()
	}
	// The links with lambda folded in, NC-transformed like the training
	// Laplacian (S'' = Gamma'^(-1/2) S Gamma^(-1/2), d'' = d' / gamma'),
	// and each new sample's degree.
	var links *sparse.CSR
	var deg []float64
	if lambda > 0 {
		links = opts.Links.Clone()
		deg = make([]float64, x.n)
		for i := 0; i < x.n; i++ {
			for q := links.Indptr[i]; q < links.Indptr[i+1]; q++ {
				deg[i] += lambda * links.Val[q]
				links.Val[q] *= lambda
				if newScale != nil {
					if si, sj := newScale[i], trainScale[links.Ind[q]]; si > 0 && sj > 0 {
						links.Val[q] /= si * sj
					} else {
						links.Val[q] = 0
					}
				}
			}
			if newScale != nil {
				if si := newScale[i]; si > 0 {
					deg[i] /= si * si
				} else {
					deg[i] = 0
				}
			}
		}
	}
	var err error
	switch {
	case md.spec.Concept():
		err = transformConcept(ctx, r, md, train, x, v, trainScale, newScale, links, deg, opts, out)
	case md.spec.KL():
		err = transformKL(ctx, r, x, v, gNew, links, deg, opts, out)
	default:
		err = transformNMF(ctx, r, x, v, newScale, links, deg, opts, out)
	}
	if err != nil {
		return nil, err
	}
	if newScale != nil {
		for i := 0; i < n2; i++ {
			if newScale[i] > 0 {
				for j := 0; j < k; j++ {
					out.Data[i*k+j] /= newScale[i]
				}
			}
		}
	}
	// Factors as large as 1e300 pass every check of a model's files and
	// overflow in the updates' products: never return their NaN.
	for p, x := range out.Data {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("solver: new sample %d's factor %d became %v: the model's factors or the new data overflow the updates' products", p/k+1, p%k+1, x)
		}
	}
	return mat.NewDense(n2, k, out.Data), nil
}

// ncwScales returns gamma_j^(1/2) = 1/sqrt(norm x_j . s) for each sample
// of d, 0 for a sample with x_j . s = 0.
func ncwScales(d *Data, s []float64, norm float64) []float64 {
	out := make([]float64, d.n)
	for j := 0; j < d.n; j++ {
		var dj float64
		if d.xt != nil {
			for q := d.xt.Indptr[j]; q < d.xt.Indptr[j+1]; q++ {
				dj += d.xt.Val[q] * s[d.feature(d.xt.Ind[q])]
			}
		} else {
			dj = asm.Dot(d.dense.Data[j*d.m:(j+1)*d.m], s)
		}
		if dj > 0 {
			out[j] = 1 / math.Sqrt(dj*norm)
		}
	}
	return out
}

func toGeneral(m *mat.Dense) blas64.General {
	r, c := m.Dims()
	g := general(r, c)
	for i := 0; i < r; i++ {
		for j := 0; j < c; j++ {
			g.Data[i*c+j] = m.At(i, j)
		}
	}
	return g
}

// scaleRows multiplies row i of g by f[i]: V' = Gamma^(1/2) V under NC
// weighting, with f = gamma^(1/2).
func scaleRows(g blas64.General, f []float64) {
	k := g.Cols
	for i, fi := range f {
		for j := 0; j < k; j++ {
			g.Data[i*k+j] *= fi
		}
	}
}

// transformNMF runs the V update with U fixed for every new row.
func transformNMF(ctx context.Context, res *Result, x *Data, v blas64.General, newScale []float64, links *sparse.CSR, deg []float64, opts TransformOptions, out blas64.General) error {
	k := out.Cols
	// U in x's internal feature order, so x's CSR can gather from it.
	u := general(x.m, k)
	for r := 0; r < x.m; r++ {
		i := x.feature(r)
		for j := 0; j < k; j++ {
			u.Data[r*k+j] = res.U.At(i, j)
		}
	}
	num := general(x.n, k)
	x.mulTU(num, u, opts.Threads)
	if newScale != nil {
		scaleRows(num, newScale)
	}
	utu := general(k, k)
	newPassWork(x.m, k).run(half{f: u, gram: utu}, opts.Threads)
	idx := identity(k)
	var err error
	parallel.For(x.n, opts.Threads, 64, func(lo, hi int) {
		nb := make([]float64, k)
		den := make([]float64, k)
		var gi []float64 // a sample's Gram matrix over its known features
		for i := lo; i < hi; i++ {
			if i%64 == 0 && ctx.Err() != nil {
				return
			}
			vi := out.Data[i*k : (i+1)*k]
			copy(nb, num.Data[i*k:(i+1)*k])
			di := addLinked(nb, links, deg, i, v.Data, k)
			g := utu.Data
			if h := x.hidden; h != nil && h.bySample.Indptr[i+1] > h.bySample.Indptr[i] {
				// The sample's loss counts its known entries alone: U^T U
				// less the rows of its unknown features (x holds zeros
				// there, so X U needs nothing taken away).
				gi = append(gi[:0], utu.Data...)
				for _, r := range h.bySample.Ind[h.bySample.Indptr[i]:h.bySample.Indptr[i+1]] {
					ur := u.Data[r*k : (r+1)*k]
					for c, uc := range ur {
						asm.Axpy(-uc, ur, gi[c*k:(c+1)*k])
					}
				}
				g = gi
			}
			for t := 0; t < opts.MaxIter; t++ {
				if stopped(ctx, t) {
					return
				}
				clear(den)
				asm.AxpyGather(den, vi, idx, g, k)
				asm.Axpy(di, vi, den)
				asm.MulUpdate(vi, nb, den, Eps)
			}
		}
	})
	if e := ctx.Err(); e != nil {
		err = e
	}
	return err
}

// stopped reports, every 256th iteration t of one sample's updates,
// whether ctx is done: a sample's updates run MaxIter times, which a
// caller may set to billions, so a check between samples alone left an
// interrupt waiting for the sample to finish.
func stopped(ctx context.Context, t int) bool {
	return t&255 == 255 && ctx.Err() != nil
}

// transformConcept runs paper 002 eqs. 29-30 for every new point, with
// the training W and V (V' under NC weighting) fixed:
//
//	w' <- w' .* (k' V^) ./ (k' W^ V^T V^)
//	v' <- v' .* (k' W^ + lambda s' V) ./ (v' W^T K^ W^ + lambda d' v')
//
// where W^, V^ are W, V with w', v' appended and k' = [k(x', X), k(x', x')].
func transformConcept(ctx context.Context, res *Result, md model, train, x *Data, v blas64.General, trainScale, newScale []float64, links *sparse.CSR, deg []float64, opts TransformOptions, out blas64.General) error {
	n, k := train.n, out.Cols
	w := toGeneral(res.W)
	if trainScale != nil {
		// W' = Gamma^(-1/2) W.
		for i := 0; i < n; i++ {
			for j := 0; j < k; j++ {
				if trainScale[i] > 0 {
					w.Data[i*k+j] /= trainScale[i]
				} else {
					w.Data[i*k+j] = 0
				}
			}
		}
	}
	// Training kernel products: K' W' and W'^T K' W', V'^T V'.
	p := &problem{spec: md.spec, opts: Options{Threads: opts.Threads, Control: Control{Kernel: md.kernel, KernelMemory: DefaultKernelMemory}}, orig: train, d: train}
	if md.kernel.Kind != Linear || train.neg != nil {
		km, err := newKernelMatrix(ctx, train, p.opts)
		if err != nil {
			return err
		}
		p.kern = km
	}
	if trainScale != nil {
		if p.kern != nil {
			p.kern.scale(trainScale)
		} else {
			p.d = train.scaledSamples(trainScale)
		}
	}
	kw := general(n, k)
	if p.kern != nil {
		mulPart(kw, p.kern.pos, w)
		if p.kern.neg.Data != nil {
			tmp := general(n, k)
			mulPart(tmp, p.kern.neg, w)
			sub(kw, tmp)
		}
	} else {
		xw := general(train.m, k)
		p.d.mulV(xw, w, opts.Threads)
		p.d.mulTU(kw, xw, opts.Threads)
	}
	wtkw, vtv := general(k, k), general(k, k)
	smallGram(wtkw, w, kw)
	smallGram(vtv, v, v)
	// Kernel rows of the new points against the training points, in
	// blocks so that memory stays O(block n).
	const block = 128
	idx := identity(k)
	for lo := 0; lo < x.n; lo += block {
		if err := ctx.Err(); err != nil {
			return err
		}
		hi := min(lo+block, x.n)
		rowsK, self := crossKernel(p, train, x, lo, hi, md.kernel, trainScale, newScale)
		parallel.For(hi-lo, opts.Threads, 8, func(a, b int) {
			kv, kwr := make([]float64, k), make([]float64, k)
			wv := make([]float64, k)
			num, den, sv := make([]float64, k), make([]float64, k), make([]float64, k)
			g := make([]float64, k*k)
			for r := a; r < b; r++ {
				i := lo + r
				kr := rowsK[r*n : (r+1)*n]
				c := self[r]
				wi, vi := make([]float64, k), out.Data[i*k:(i+1)*k]
				for j := range wi {
					wi[j] = vi[j]
				}
				// a^T V and a^T W, fixed through the iterations.
				clear(kv)
				clear(kwr)
				for j, aj := range kr {
					if aj != 0 {
						asm.Axpy(aj, v.Data[j*k:(j+1)*k], kv)
						asm.Axpy(aj, w.Data[j*k:(j+1)*k], kwr)
					}
				}
				clear(sv)
				di := addLinked(sv, links, deg, i, v.Data, k)
				for t := 0; t < opts.MaxIter; t++ {
					if stopped(ctx, t) {
						return
					}
					// w' update: (k' V^) = a^T V + c v'; V^T V^ = V^T V + v' v'^T.
					copy(num, kv)
					asm.Axpy(c, vi, num)
					copy(wv, kwr)
					asm.Axpy(c, wi, wv) // k' W^
					clear(den)
					asm.AxpyGather(den, wv, idx, vtv.Data, k)
					asm.Axpy(asm.Dot(wv, vi), vi, den)
					asm.MulUpdate(wi, num, den, Eps)
					// v' update: W^T K^ W^ = W^T K W + (W^T a) w'^T + w' (a^T W) + c w' w'^T.
					copy(wv, kwr)
					asm.Axpy(c, wi, wv)
					copy(num, wv)
					asm.Axpy(1, sv, num)
					copy(g, wtkw.Data)
					for s := 0; s < k; s++ {
						for q := 0; q < k; q++ {
							g[s*k+q] += kwr[s]*wi[q] + wi[s]*kwr[q] + c*wi[s]*wi[q]
						}
					}
					clear(den)
					asm.AxpyGather(den, vi, idx, g, k)
					asm.Axpy(di, vi, den)
					asm.MulUpdate(vi, num, den, Eps)
				}
			}
		})
	}
	return ctx.Err()
}

// crossKernel returns the kernel values between new samples lo..hi-1 and
// all training samples ((hi-lo) x n, row-major) and each new sample's
// k(x', x'), NC-weighted when the scales are given.
func crossKernel(p *problem, train, x *Data, lo, hi int, kern Kernel, trainScale, newScale []float64) ([]float64, []float64) {
	n := train.n
	out := make([]float64, (hi-lo)*n)
	self := make([]float64, hi-lo)
	trainSq := train.sampleSquares()
	for r := 0; r < hi-lo; r++ {
		i := lo + r
		row := out[r*n : (r+1)*n]
		xi := x.sampleDense(i)
		self[r] = asm.Dot(xi, xi)
		train.innerProducts(xi, row)
		switch kern.Kind {
		case Polynomial:
			for j := range row {
				row[j] = math.Pow(row[j]+kern.Coef0, float64(kern.Degree))
			}
			self[r] = math.Pow(self[r]+kern.Coef0, float64(kern.Degree))
		case Gaussian:
			c := 1 / (2 * kern.Sigma * kern.Sigma)
			for j := range row {
				row[j] = math.Exp(-max(0, self[r]+trainSq[j]-2*row[j]) * c)
			}
			self[r] = 1
		}
		if trainScale != nil {
			for j := range row {
				row[j] *= trainScale[j] * newScale[i]
			}
			self[r] *= newScale[i] * newScale[i]
		}
	}
	return out, self
}

// sampleDense returns sample i as a dense vector in the caller's feature
// order.
func (d *Data) sampleDense(i int) []float64 {
	out := make([]float64, d.m)
	if d.xt != nil {
		for q := d.xt.Indptr[i]; q < d.xt.Indptr[i+1]; q++ {
			out[d.feature(d.xt.Ind[q])] = d.xt.Val[q]
		}
		return out
	}
	copy(out, d.dense.Data[i*d.m:(i+1)*d.m])
	return out
}

// innerProducts sets dst[j] = x_j . y for every sample j of d, y given in
// the caller's feature order.
func (d *Data) innerProducts(y, dst []float64) {
	if d.xt != nil {
		for j := 0; j < d.n; j++ {
			var s float64
			for q := d.xt.Indptr[j]; q < d.xt.Indptr[j+1]; q++ {
				s += d.xt.Val[q] * y[d.feature(d.xt.Ind[q])]
			}
			dst[j] = s
		}
		return
	}
	for j := 0; j < d.n; j++ {
		dst[j] = asm.Dot(d.dense.Data[j*d.m:(j+1)*d.m], y)
	}
}

// sampleSquares returns |x_j|^2 for every sample.
func (d *Data) sampleSquares() []float64 {
	out := make([]float64, d.n)
	if d.xt != nil {
		for j := range out {
			v := d.xt.Val[d.xt.Indptr[j]:d.xt.Indptr[j+1]]
			out[j] = asm.Dot(v, v)
		}
		return out
	}
	for j := range out {
		r := d.dense.Data[j*d.m : (j+1)*d.m]
		out[j] = asm.Dot(r, r)
	}
	return out
}

// transformKL runs the KL methods' V update for each new sample with U
// fixed: for nmf-kl v' <- v' .* (sum_i x'_i u_i / y_i) / colsum(U); for
// lpnmf the new sample's equation of eq. 9, with the training V fixed, is
// scalar per column: v'_c = (g' b'_c + (S'V)_c) / (g' s_c + d') with
// b'_c = v'_c sum_i x'_i u_ic / y_i, S' the lambda-folded links and d'
// their row sum.
func transformKL(ctx context.Context, res *Result, x *Data, v blas64.General, g []float64, links *sparse.CSR, deg []float64, opts TransformOptions, out blas64.General) error {
	k := out.Cols
	xt := x.samplesCSR()
	u := general(x.m, k)
	colU := make([]float64, k)
	for r := 0; r < x.m; r++ {
		i := x.feature(r)
		for c := 0; c < k; c++ {
			u.Data[r*k+c] = res.U.At(i, c)
			colU[c] += u.Data[r*k+c]
		}
	}
	parallel.For(x.n, opts.Threads, 16, func(lo, hi int) {
		num, sv, ratio, colJ := make([]float64, k), make([]float64, k), []float64(nil), []float64(nil)
		for j := lo; j < hi; j++ {
			if ctx.Err() != nil {
				return
			}
			vj := out.Data[j*k : (j+1)*k]
			p0, p1 := xt.Indptr[j], xt.Indptr[j+1]
			ratio = append(ratio[:0], make([]float64, p1-p0)...)
			gj := 1.0
			if g != nil {
				gj = g[j]
			}
			clear(sv)
			dj := addLinked(sv, links, deg, j, v.Data, k)
			col := colU
			if h := x.hidden; h != nil && h.bySample.Indptr[j+1] > h.bySample.Indptr[j] {
				// The divergence counts the known entries alone: U's
				// column sums less the unknown features' rows.
				colJ = append(colJ[:0], colU...)
				for _, r := range h.bySample.Ind[h.bySample.Indptr[j]:h.bySample.Indptr[j+1]] {
					asm.Axpy(-1, u.Data[r*k:(r+1)*k], colJ)
				}
				col = colJ
			}
			for t := 0; t < opts.MaxIter; t++ {
				if stopped(ctx, t) {
					return
				}
				for q := p0; q < p1; q++ {
					i := xt.Ind[q]
					ratio[q-p0] = xt.Val[q] / max(asm.Dot(vj, u.Data[i*k:(i+1)*k]), Eps)
				}
				clear(num)
				if p1 > p0 {
					asm.AxpyGather(num, ratio, xt.Ind[p0:p1], u.Data, k)
				}
				for c := range vj {
					vj[c] = (gj*vj[c]*num[c] + sv[c]) / max(gj*col[c]+dj, Eps)
				}
			}
		}
	})
	return ctx.Err()
}

// addLinked adds to dst the training rows of v (k wide) that new sample i
// links to, each times its link's weight, and returns i's linked degree;
// without links it adds nothing and returns 0.
func addLinked(dst []float64, links *sparse.CSR, deg []float64, i int, v []float64, k int) float64 {
	if links == nil {
		return 0
	}
	p0, p1 := links.Indptr[i], links.Indptr[i+1]
	asm.AxpyGather(dst, links.Val[p0:p1], links.Ind[p0:p1], v, k)
	return deg[i]
}
