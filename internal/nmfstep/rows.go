package nmfstep

import (
	"github.com/manifactor/manifactor/internal/asm"
)

// Rule is the inner loop of the coordinate-descent half-steps (the
// acceleration of Gillis and Glineur, 2012: the data product of a half
// step costs far more than a sweep over the k coordinates, so several
// sweeps run per product). A row's sweeps stop after Sweeps, or when a
// sweep decreases the objective by at most Tol2 times what the first
// sweep did.
type Rule struct {
	Sweeps int
	Tol2   float64
}

// Alpha and eps are the inner loop's settings: at most 1 + Alpha rho
// sweeps per row, rho the ratio of the half step's product cost to one
// sweep's, and a stop once a sweep gains less than eps^2 of the first
// (Gillis and Glineur's alpha = 0.5 and epsilon = 0.01 on ||delta||; here
// on the objective's decrease, which is h delta^2 per coordinate).
const (
	Alpha = 0.5
	eps   = 0.01
)

// NewRule sizes the inner loop for a half step over rows rows whose data
// product touches nnz stored entries: rho = (nnz k + rows k^2) / (rows
// k^2), the product and the Gram matrix against one sweep.
func NewRule(nnz, rows, k int) *Rule {
	rho := float64(nnz)/float64(rows*k) + 1
	return &Rule{Sweeps: 1 + int(Alpha*rho), Tol2: eps * eps}
}

// Inverse sets invH[c] = 1 / (S_cc + d), or 0 where that is not
// positive (the coordinate Rows leaves alone), for the k x k s.
func Inverse(invH, s []float64, d float64) {
	k := len(invH)
	for c := range invH {
		invH[c] = 0
		if h := s[c*k+c] + d; h > 0 {
			invH[c] = 1 / h
		}
	}
}

// Block is the number of rows whose sweeps run together, column by
// column: 256 rows of the factor, its gradient and the data product, k
// columns each, stay in a core's L2 cache (180 KiB at k = 30).
//
// Blocks start at multiples of Block of the factor's rows, and the inner
// loop's stopping rule is taken over a block: a process holding some
// rows of a factor takes the same steps as one process when its rows
// start at a multiple of Block (package dist aligns its blocks so).
const Block = 256

// Stride is the distance between the columns of a block in Work: not
// Block, whose 2 KiB columns put the same row of every column in the
// same few sets of the L1 cache (a sweep reads a row's k columns
// together; at 2 KiB the kernel ran markedly slower than at this stride:
// docs/PERFORMANCE.md), and a multiple of 4 so that the columns stay
// 32-byte aligned.
const Stride = Block + 4

// Work is one worker's space for Rows: u, g and p hold a block of
// rows column-major (entry (i, c) at c*Stride + i), u0 the block's
// starting values while the measure is taken; sq and sr one column
// each, ones a column of ones and zeros one of zeros; d the rows' diagonal
// terms where the rows have one (GNMF's V half), and ih the rows'
// reciprocal curvatures, column-major.
type Work struct {
	u, u0, g, p, sq, sr, ones, zeros, D, ih []float64
}

func NewWork(k int) *Work {
	w := &Work{u: make([]float64, k*Stride), u0: make([]float64, k*Stride), g: make([]float64, k*Stride), p: make([]float64, k*Stride),
		sq: make([]float64, Block), sr: make([]float64, Block), ones: make([]float64, Block), zeros: make([]float64, Block),
		D: make([]float64, Block), ih: make([]float64, k*Stride)}
	for i := range w.ones {
		w.ones[i] = 1
	}
	return w
}

// put sets row i of the block to the factor row f and its data product b.
func (w *Work) Put(i int, f, b []float64) {
	b = b[:len(f)]
	for c, x := range f {
		w.u[c*Stride+i], w.p[c*Stride+i] = x, b[c]
	}
}

// get copies row i of the block's factor values to f.
func (w *Work) Get(i int, f []float64) {
	for c := range f {
		f[c] = w.u[c*Stride+i]
	}
}

// put4 is put for rows i..i+3 (i a multiple of 4) from the factor rows
// f[0..3] and their products b[0..3]: each column receives four adjacent
// values at a time, in less time than four puts.
func (w *Work) put4(i int, f, b *[4][]float64) {
	k := len(f[0])
	f0, f1, f2, f3 := f[0], f[1][:k], f[2][:k], f[3][:k]
	b0, b1, b2, b3 := b[0][:k], b[1][:k], b[2][:k], b[3][:k]
	for c := 0; c < k; c++ {
		o := c*Stride + i
		u := w.u[o : o+4 : o+4]
		p := w.p[o : o+4 : o+4]
		u[0], u[1], u[2], u[3] = f0[c], f1[c], f2[c], f3[c]
		p[0], p[1], p[2], p[3] = b0[c], b1[c], b2[c], b3[c]
	}
}

// get4 is get for rows i..i+3 (i a multiple of 4) into f[0..3].
func (w *Work) get4(i int, f *[4][]float64) {
	k := len(f[0])
	f0, f1, f2, f3 := f[0], f[1][:k], f[2][:k], f[3][:k]
	for c := 0; c < k; c++ {
		o := c*Stride + i
		u := w.u[o : o+4 : o+4]
		f0[c], f1[c], f2[c], f3[c] = u[0], u[1], u[2], u[3]
	}
}

// putRows puts the r rows row(0..r-1) of the factor with their products,
// four at a time: prod(i, buf) returns row i's product, written into
// buf (a length-k row of scratch, which holds four) or, where scratch is
// nil, held elsewhere.
func (w *Work) PutRows(r, k int, row func(i int) []float64, prod func(i int, buf []float64) []float64, scratch []float64) {
	var f, b, buf [4][]float64
	if scratch != nil {
		for q := range buf {
			buf[q] = scratch[q*k : (q+1)*k]
		}
	}
	i := 0
	for ; i+4 <= r; i += 4 {
		for q := range 4 {
			b[q] = prod(i+q, buf[q])
			f[q] = row(i + q)
		}
		w.put4(i, &f, &b)
	}
	for ; i < r; i++ {
		w.Put(i, row(i), prod(i, buf[0]))
	}
}

// getRows gets the block's r rows into row(0..r-1), four at a time.
func (w *Work) GetRows(r int, row func(i int) []float64) {
	var f [4][]float64
	i := 0
	for ; i+4 <= r; i += 4 {
		for q := range 4 {
			f[q] = row(i + q)
		}
		w.get4(i, &f)
	}
	for ; i < r; i++ {
		w.Get(i, row(i))
	}
}

// dot returns sum_i u_i . p_i over the block's first r rows, column by
// column.
func (w *Work) Dot(k, r int) (dot float64) {
	for c := 0; c < k; c++ {
		dot += asm.Dot(w.u[c*Stride:c*Stride+r], w.p[c*Stride:c*Stride+r])
	}
	return dot
}

// Rows minimizes, for each of the r <= Block rows f held in w.u (its
// b in w.p), the quadratic q(f) = f^T S f - 2 b^T f + d |f|^2 over f >= 0
// by cyclic coordinate descent from the given f, for the symmetric
// positive semi-definite k x k S (row-major) and d >= 0. Each step sets
// one coordinate to the minimizer of q along it with the others fixed,
//
//	f_c <- max(0, f_c - grad_c / h_c),  h_c = S_cc + d,  grad = S f + d f - b,
//
// which lowers q by h_c delta^2 (delta the change), so q never increases; a
// coordinate with h_c = 0 (an all-zero factor column) is left as it is.
//
// The rows go all at once, column by column: the step of column c is one
// asm.CDGather over the block, which forms grad_c from the rows'
// current values (k multiply-adds a row, as many as keeping a gradient up
// to date costs, but with one store instead of k), or, for columns c and
// c+1, one asm.CDGather2, which forms both sums in one pass over the
// block and corrects column c+1's by column c's change. Each row sees the same
// sequence of coordinate steps as a sweep of its own would (the test's
// row-by-row reference); only the inner loop's stopping rule (rule) is
// taken over the block (the block's gain against its first sweep's), which
// keeps the result the same for any thread count since blocks are fixed.
// pg and ref, when not nil, receive the measure of the rows
// (addProjGrad) from the first sweep's gradients: each coordinate's
// gradient where the sweep meets it, the columns before it already
// stepped, as scikit-learn's coordinate descent measures its violation.
// It comes with the sweep; the gradient at the rows' starting values
// would take one more pass over the block, a noticeable part of an NMF
// iteration.
// It is zero exactly where the first sweep moves nothing, that is, at a
// point that satisfies the KKT conditions.
//
// d, when nil, means d = 0 for every row, with invH the reciprocals
// 1 / S_cc from Inverse; otherwise d holds each row's diagonal term
// (GNMF's weighted degree; the rows must not be coupled otherwise), and
// each row has its own curvature S_cc + d_i.
func Rows(w *Work, s, invH []float64, k, r int, rule *Rule, pg, ref, d []float64) (total float64) {
	dr := w.zeros[:r]
	if d != nil {
		dr = d[:r]
	}
	for c := 0; c < k; c++ {
		ih := w.ih[c*Stride : c*Stride+r]
		if d == nil {
			for i := range ih {
				ih[i] = invH[c]
			}
			continue
		}
		scc := s[c*k+c]
		for i, di := range dr {
			ih[i] = 0
			if h := scc + di; h > 0 {
				ih[i] = 1 / h
			}
		}
	}
	if pg != nil {
		// The measure is taken from the first sweep's gradients, each at
		// the values its step starts from (the sweep's own sums, which
		// the kernels leave in g), against the starting value of its
		// coordinate: copied here, since the sweep moves them.
		copy(w.u0[:(k-1)*Stride+r], w.u[:(k-1)*Stride+r])
	}
	var first float64
	for sweep := 1; ; sweep++ {
		var gain float64
		// The decrease of q: (S_cc + d_i) delta^2 summed over the rows
		// and columns. Columns go two at a time (a column with a zero
		// curvature has ih 0 throughout and stays as it is).
		c := 0
		for ; c+1 < k; c += 2 {
			sq0, sq1, sqd := asm.CDGather2(w.u, Stride, c, s[c*k:(c+2)*k], w.p, w.ih, dr, w.g)
			gain += sq0*s[c*k+c] + sq1*s[(c+1)*k+c+1] + sqd
		}
		if c < k {
			sq, sqd := asm.CDGather(w.u, Stride, c, s[c*k:(c+1)*k], w.p[c*Stride:c*Stride+r], dr,
				w.ih[c*Stride:c*Stride+r], w.g[c*Stride:c*Stride+r])
			gain += sq*s[c*k+c] + sqd
		}
		if sweep == 1 {
			first = gain
			if pg != nil {
				sq, sr := w.sq[:r], w.sr[:r]
				for l := 0; l < k; l++ {
					at := l * Stride
					clear(sq)
					clear(sr)
					asm.ProjGrad(sq, sr, w.u0[at:at+r], w.g[at:at+r], w.p[at:at+r])
					pg[l] += asm.Dot(sq, w.ones)
					ref[l] += asm.Dot(sr, w.ones)
				}
			}
		}
		total += gain
		if sweep >= rule.Sweeps || gain <= rule.Tol2*first {
			return total
		}
	}
}

// OneSweep is the rule of one sweep a row, with the usual stopping
// threshold (GNMF's passes over the graph between data products).
func OneSweep() *Rule { return &Rule{Sweeps: 1, Tol2: eps * eps} }
