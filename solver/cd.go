package solver

import (
	"fmt"
	"strings"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Algorithm selects how Fit minimizes a method's objective. The zero
// value, AutoAlgorithm, is the one that reaches a given objective soonest
// for the method where that choice also clusters as well: CD for NMF,
// GNMF and NMF-KL and their NC-weighted forms (3x to 13x sooner than MU
// to MU's 200-iteration objective on seven corpora, GNMF's 5x sooner to
// its 300-iteration objective on TDT2, and as good a clustering under
// the default protocol: bench/RESULTS.md), MU for the rest. LPNMF's CD
// is sooner too but clustered worse on TDT2 and Reuters, and CF and LCCF
// have none (see HasCD).
type Algorithm int

const (
	// AutoAlgorithm is CD for nmf, gnmf, nmf-kl and their -ncw forms
	// and MU for the other methods (see Algorithm).
	AutoAlgorithm Algorithm = iota
	// MU is the papers' multiplicative updates, the reference
	// implementation's arithmetic.
	MU
	// CD is (block) coordinate descent: each entry of a factor is set to
	// the exact minimizer of the objective with the others fixed, so the
	// objective never increases (see cdRows).
	CD
)

var algorithmNames = [...]string{AutoAlgorithm: "auto", MU: "mu", CD: "cd"}

// String returns the name ParseAlgorithm accepts.
func (a Algorithm) String() string {
	if a < 0 || int(a) >= len(algorithmNames) {
		return fmt.Sprintf("Algorithm(%d)", int(a))
	}
	return algorithmNames[a]
}

// ParseAlgorithm parses "auto", "mu" or "cd".
func ParseAlgorithm(s string) (Algorithm, error) {
	for a, name := range algorithmNames {
		if s == name {
			return Algorithm(a), nil
		}
	}
	return 0, fmt.Errorf("solver: unknown solver %q (want auto, mu or cd)", s)
}

// MarshalText returns the algorithm's name.
func (a Algorithm) MarshalText() ([]byte, error) { return []byte(a.String()), nil }

// UnmarshalText parses an algorithm's name.
func (a *Algorithm) UnmarshalText(b []byte) error {
	v, err := ParseAlgorithm(string(b))
	if err == nil {
		*a = v
	}
	return err
}

// HasCD reports whether Fit has a coordinate-descent solver for m: NMF,
// GNMF, NMF-KL and LPNMF and their NC-weighted forms. Concept
// factorization's W enters its objective through the n x n kernel, so a
// coordinate step on one entry of W changes K W in a whole column (O(n)
// per entry, O(n^2 k) per sweep against the O(nnz k) of a multiplicative
// step).
func HasCD(m Method) bool {
	return !m.Concept()
}

// Resolve returns the algorithm Fit runs for method m: a for MU and CD,
// and for AutoAlgorithm CD where m is NMF, GNMF or NMF-KL (or their
// NC-weighted forms), MU otherwise (see Algorithm).
func (a Algorithm) Resolve(m Method) Algorithm {
	if a != AutoAlgorithm {
		return a
	}
	if b := m.Base(); b == NMF || b == GNMF || b == NMFKL {
		return CD
	}
	return MU
}

// CDMethods names the methods that have CD, comma-separated, for error
// messages.
func CDMethods() string {
	var names []string
	for _, m := range Methods() {
		if HasCD(m) {
			names = append(names, m.String())
		}
	}
	return strings.Join(names, ", ")
}

// cdRule is the inner loop of the coordinate-descent half-steps (the
// acceleration of Gillis and Glineur, 2012: the data product of a half
// step costs far more than a sweep over the k coordinates, so several
// sweeps run per product). A row's sweeps stop after sweeps, or when a
// sweep decreases the objective by at most tol2 times what the first
// sweep did.
type cdRule struct {
	sweeps int
	tol2   float64
}

// cdAlpha and cdEps are the inner loop's settings: at most 1 + cdAlpha rho
// sweeps per row, rho the ratio of the half step's product cost to one
// sweep's, and a stop once a sweep gains less than cdEps^2 of the first
// (Gillis and Glineur's alpha = 0.5 and epsilon = 0.01 on ||delta||; here
// on the objective's decrease, which is h delta^2 per coordinate).
const (
	cdAlpha = 0.5
	cdEps   = 0.01
)

// newCDRule sizes the inner loop for a half step over rows rows whose data
// product touches nnz stored entries: rho = (nnz k + rows k^2) / (rows
// k^2), the product and the Gram matrix against one sweep.
func newCDRule(nnz, rows, k int) *cdRule {
	rho := float64(nnz)/float64(rows*k) + 1
	return &cdRule{sweeps: 1 + int(cdAlpha*rho), tol2: cdEps * cdEps}
}

// cdInverse sets invH[c] = 1 / (S_cc + d), or 0 where that is not
// positive (the coordinate cdRows leaves alone), for the k x k s.
func cdInverse(invH, s []float64, d float64) {
	k := len(invH)
	for c := range invH {
		invH[c] = 0
		if h := s[c*k+c] + d; h > 0 {
			invH[c] = 1 / h
		}
	}
}

// coloring is a partition of a graph's vertices into independent sets
// (no edge inside a set), in increasing vertex order within each, so that
// the rows of one set can be updated at once: the graph term couples a
// row only with its neighbours.
type coloring struct {
	order []int // vertices by color
	start []int // color c is order[start[c]:start[c+1]]
}

// colorGraph colors the symmetric w greedily in vertex order (each vertex
// takes the smallest color none of its earlier neighbours has): at most
// one more color than the largest degree, and the same for any thread
// count.
func colorGraph(w *sparse.CSR) *coloring {
	n := w.Rows
	color := make([]int, n)
	seen := []int{} // seen[c] = the last vertex that found color c taken
	colors := 0
	for j := 0; j < n; j++ {
		for q := w.Indptr[j]; q < w.Indptr[j+1]; q++ {
			if s := w.Ind[q]; s < j {
				seen[color[s]] = j
			}
		}
		c := 0
		for c < colors && seen[c] == j {
			c++
		}
		if c == colors {
			colors++
			seen = append(seen, -1)
		}
		color[j] = c
		// seen holds j only for the colors taken by j's neighbours; the
		// next vertex compares against its own index.
	}
	count := make([]int, colors+1)
	for _, c := range color {
		count[c+1]++
	}
	for c := 1; c <= colors; c++ {
		count[c] += count[c-1]
	}
	col := &coloring{order: make([]int, n), start: append([]int(nil), count...)}
	for j, c := range color {
		col.order[count[c]] = j
		count[c]++
	}
	return col
}

// cdGraphHalf is GNMF's V half under CD: for each row j of V, with the
// other rows fixed, the objective is
//
//	v_j^T S v_j - 2 (X^T U)_j . v_j + deg_j |v_j|^2 - 2 v_j . sum_s w_js v_s
//
// (S = U^T U, plus the graph weights folded in w and deg), a quadratic that
// cdRows minimizes. Rows of one color share no edge, so they are updated
// together, colour after colour (block Gauss-Seidel): in fixed blocks of
// cdBlock rows of the colour, swept column by column (cdRows with the
// degrees as the rows' diagonal terms), the blocks in parallel; each row
// reads its neighbours' latest values, and the result does not depend on
// threads. The data product is formed once; the pass over the colours then
// repeats while it pays, at most it.graphPasses times, stopping once a
// pass lowers the objective by less than tol2 of what the first did
// (each pass lowers it by its rows' gains, so the objective still never
// increases). The first pass sweeps each row as the U half does (cdV);
// the later ones only carry the neighbours' changes along the graph and
// sweep each row once (cdPass), the cost graphPasses counts: repeating
// cdV's sweeps in every pass made lambda auto's runs 2-19 % slower end to
// end on COIL20, TDT2 and ohscal for no fewer iterations
// (bench/RESULTS.md).
// The measure is taken in the first pass.
func (it *nmfIter) cdGraphHalf(num rowProduct, s []float64, threads int, measure bool) {
	k, v, reg := it.f.k, it.f.v, it.p.reg
	col := it.p.colors
	if num.a != nil {
		// The colours visit the rows out of order; the data product's
		// gathers run faster in row order, into a whole n x k product
		// (each row by the same AxpyGather, so the same values).
		if it.xtu.Data == nil {
			it.xtu = general(v.Rows, k)
		}
		full := it.xtu
		parallel.For(v.Rows, threads, 64, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				num.row(j, full.Data[j*k:(j+1)*k])
			}
		})
		num = rowProduct{full: full}
	}
	blocks := 0
	for c := 0; c+1 < len(col.start); c++ {
		blocks += (col.start[c+1] - col.start[c] + cdBlock - 1) / cdBlock
	}
	it.graphKKT.reset(blocks, k)
	if len(it.passGain) < blocks {
		it.passGain = make([]float64, blocks)
	}
	// The passes over the graph: each lowers the objective by the sum of
	// its rows' gains; more run while they pay (see graphPasses).
	var firstGain float64
	for pass := 0; pass < it.graphPasses; pass++ {
		rule := it.cdV
		if pass > 0 {
			rule = it.cdPass
		}
		first := 0 // the first block of the colour
		for c := 0; c+1 < len(col.start); c++ {
			rows := col.order[col.start[c]:col.start[c+1]]
			workers := parallel.Workers(len(rows), threads, cdBlock)
			it.vw.buffers(workers)
			for len(it.vw.cd) < workers {
				it.vw.cd = append(it.vw.cd, newCDWork(k))
			}
			// Blocks of cdBlock rows of one colour, none coupled to another
			// by the graph, sweep together as cdRows does for U.
			parallel.ForWorker(len(rows), threads, cdBlock, func(worker, lo, hi int) {
				var pg, ref []float64
				if measure && pass == 0 {
					pg, ref = it.graphKKT.block(first + lo/cdBlock)
				}
				cw := it.vw.cd[worker]
				blk := rows[lo:hi]
				vrow := func(i int) []float64 { return v.Data[blk[i]*k : (blk[i]+1)*k] }
				cw.putRows(len(blk), k, vrow, func(i int, b []float64) []float64 {
					j := blk[i]
					num.row(j, b)
					p0, p1 := reg.w.Indptr[j], reg.w.Indptr[j+1]
					asm.AxpyGather(b, reg.w.Val[p0:p1], reg.w.Ind[p0:p1], v.Data, k)
					cw.d[i] = reg.deg[j]
					return b
				}, it.vw.scratch[worker][:4*k])
				it.passGain[first+lo/cdBlock] = cdRows(cw, s, nil, k, len(blk), rule, pg, ref, cw.d)
				cw.getRows(len(blk), vrow)
			})
			first += (len(rows) + cdBlock - 1) / cdBlock
		}
		// Summed in block order, so the decision is the same for any
		// thread count.
		var gain float64
		for _, g := range it.passGain[:blocks] {
			gain += g
		}
		it.passes++
		if pass == 0 {
			firstGain = gain
		} else if gain <= it.cdV.tol2*firstGain {
			break
		}
	}
}

// graphPasses is the most passes over the graph that GNMF's V half makes
// per data product: 1 + cdAlpha rho, rho the cost of the half's data
// product and Gram matrix (nnz k + n k^2 multiply-adds) against one pass
// (n k^2 for a sweep of every row, gnnz k for the neighbours' sums), the
// rule of Gillis and Glineur that newCDRule applies to a row's sweeps,
// applied to the passes (a later pass sweeps each row once). A pass
// reaches only each row's neighbours, so at large weights, where V must
// agree along the graph, one pass per data product left the objective far
// from the half's minimum and lambda auto's largest weights ran to the
// iteration cap (PIE, k 10, lambda 1000: 500 iterations, 71 with the
// passes; bench/RESULTS.md). Passes stop early once one gains less than
// tol2 of the first, as a row's sweeps do.
func graphPasses(nnz, gnnz, n, k int) int {
	nk2 := float64(n) * float64(k) * float64(k)
	rho := (float64(nnz)*float64(k) + nk2) / (nk2 + float64(gnnz)*float64(k))
	return 1 + int(cdAlpha*rho)
}

// cdBlock is the number of rows whose sweeps run together, column by
// column: 256 rows of the factor, its gradient and the data product, k
// columns each, stay in a core's L2 cache (180 KiB at k = 30).
const cdBlock = 256

// cdStride is the distance between the columns of a block in cdWork: not
// cdBlock, whose 2 KiB columns put the same row of every column in the
// same few sets of the L1 cache (a sweep reads a row's k columns
// together; at 2 KiB the kernel ran at 0.47 ns a vector multiply-add
// against 0.28 at this stride, on the machine of bench/RESULTS.md), and a
// multiple of 4 so that the columns stay 32-byte aligned.
const cdStride = cdBlock + 4

// cdWork is one worker's space for cdRows: u, g and p hold a block of
// rows column-major (entry (i, c) at c*cdStride + i), u0 the block's
// starting values while the measure is taken; sq and sr one column
// each, ones a column of ones and zeros one of zeros; d the rows' diagonal
// terms where the rows have one (GNMF's V half), and ih the rows'
// reciprocal curvatures, column-major.
type cdWork struct {
	u, u0, g, p, sq, sr, ones, zeros, d, ih []float64
}

func newCDWork(k int) *cdWork {
	w := &cdWork{u: make([]float64, k*cdStride), u0: make([]float64, k*cdStride), g: make([]float64, k*cdStride), p: make([]float64, k*cdStride),
		sq: make([]float64, cdBlock), sr: make([]float64, cdBlock), ones: make([]float64, cdBlock), zeros: make([]float64, cdBlock),
		d: make([]float64, cdBlock), ih: make([]float64, k*cdStride)}
	for i := range w.ones {
		w.ones[i] = 1
	}
	return w
}

// put sets row i of the block to the factor row f and its data product b.
func (w *cdWork) put(i int, f, b []float64) {
	b = b[:len(f)]
	for c, x := range f {
		w.u[c*cdStride+i], w.p[c*cdStride+i] = x, b[c]
	}
}

// get copies row i of the block's factor values to f.
func (w *cdWork) get(i int, f []float64) {
	for c := range f {
		f[c] = w.u[c*cdStride+i]
	}
}

// put4 is put for rows i..i+3 (i a multiple of 4) from the factor rows
// f[0..3] and their products b[0..3]: each column receives four adjacent
// values at a time, a third less time than four puts (k = 30).
func (w *cdWork) put4(i int, f, b *[4][]float64) {
	k := len(f[0])
	f0, f1, f2, f3 := f[0], f[1][:k], f[2][:k], f[3][:k]
	b0, b1, b2, b3 := b[0][:k], b[1][:k], b[2][:k], b[3][:k]
	for c := 0; c < k; c++ {
		o := c*cdStride + i
		u := w.u[o : o+4 : o+4]
		p := w.p[o : o+4 : o+4]
		u[0], u[1], u[2], u[3] = f0[c], f1[c], f2[c], f3[c]
		p[0], p[1], p[2], p[3] = b0[c], b1[c], b2[c], b3[c]
	}
}

// get4 is get for rows i..i+3 (i a multiple of 4) into f[0..3].
func (w *cdWork) get4(i int, f *[4][]float64) {
	k := len(f[0])
	f0, f1, f2, f3 := f[0], f[1][:k], f[2][:k], f[3][:k]
	for c := 0; c < k; c++ {
		o := c*cdStride + i
		u := w.u[o : o+4 : o+4]
		f0[c], f1[c], f2[c], f3[c] = u[0], u[1], u[2], u[3]
	}
}

// putRows puts the r rows row(0..r-1) of the factor with their products,
// four at a time: prod(i, buf) returns row i's product, written into
// buf (a length-k row of scratch, which holds four) or, where scratch is
// nil, held elsewhere.
func (w *cdWork) putRows(r, k int, row func(i int) []float64, prod func(i int, buf []float64) []float64, scratch []float64) {
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
		w.put(i, row(i), prod(i, buf[0]))
	}
}

// getRows gets the block's r rows into row(0..r-1), four at a time.
func (w *cdWork) getRows(r int, row func(i int) []float64) {
	var f [4][]float64
	i := 0
	for ; i+4 <= r; i += 4 {
		for q := range 4 {
			f[q] = row(i + q)
		}
		w.get4(i, &f)
	}
	for ; i < r; i++ {
		w.get(i, row(i))
	}
}

// dot returns sum_i u_i . p_i over the block's first r rows, column by
// column.
func (w *cdWork) dot(k, r int) (dot float64) {
	for c := 0; c < k; c++ {
		dot += asm.Dot(w.u[c*cdStride:c*cdStride+r], w.p[c*cdStride:c*cdStride+r])
	}
	return dot
}

// cdRows minimizes, for each of the r <= cdBlock rows f held in w.u (its
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
// took one more pass over the block, 14 % of an NMF iteration on TDT2.
// It is zero exactly where the first sweep moves nothing, that is, at a
// point that satisfies the KKT conditions.
//
// d, when nil, means d = 0 for every row, with invH the reciprocals
// 1 / S_cc from cdInverse; otherwise d holds each row's diagonal term
// (GNMF's weighted degree; the rows must not be coupled otherwise), and
// each row has its own curvature S_cc + d_i.
func cdRows(w *cdWork, s, invH []float64, k, r int, rule *cdRule, pg, ref, d []float64) (total float64) {
	dr := w.zeros[:r]
	if d != nil {
		dr = d[:r]
	}
	for c := 0; c < k; c++ {
		ih := w.ih[c*cdStride : c*cdStride+r]
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
		copy(w.u0[:(k-1)*cdStride+r], w.u[:(k-1)*cdStride+r])
	}
	var first float64
	for sweep := 1; ; sweep++ {
		var gain float64
		// The decrease of q: (S_cc + d_i) delta^2 summed over the rows
		// and columns. Columns go two at a time (a column with a zero
		// curvature has ih 0 throughout and stays as it is).
		c := 0
		for ; c+1 < k; c += 2 {
			sq0, sq1, sqd := asm.CDGather2(w.u, cdStride, c, s[c*k:(c+2)*k], w.p, w.ih, dr, w.g)
			gain += sq0*s[c*k+c] + sq1*s[(c+1)*k+c+1] + sqd
		}
		if c < k {
			sq, sqd := asm.CDGather(w.u, cdStride, c, s[c*k:(c+1)*k], w.p[c*cdStride:c*cdStride+r], dr,
				w.ih[c*cdStride:c*cdStride+r], w.g[c*cdStride:c*cdStride+r])
			gain += sq*s[c*k+c] + sqd
		}
		if sweep == 1 {
			first = gain
			if pg != nil {
				sq, sr := w.sq[:r], w.sr[:r]
				for l := 0; l < k; l++ {
					at := l * cdStride
					clear(sq)
					clear(sr)
					asm.ProjGrad(sq, sr, w.u0[at:at+r], w.g[at:at+r], w.p[at:at+r])
					pg[l] += asm.Dot(sq, w.ones)
					ref[l] += asm.Dot(sr, w.ones)
				}
			}
		}
		total += gain
		if sweep >= rule.sweeps || gain <= rule.tol2*first {
			return total
		}
	}
}
