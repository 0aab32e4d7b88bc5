package asm

import "fmt"

// The dispatched implementations. They are set at start-up and by Use,
// before any goroutine calls a kernel.
var (
	axpyImpl        = axpyGeneric
	dotImpl         = dotGeneric
	mulUpdateImpl   = mulUpdateGeneric
	axpyGatherImpl  = axpyGatherGeneric
	dotGatherImpl   = dotGatherGeneric
	dotGatherTImpl  = dotGatherTGeneric
	cdGatherImpl    = cdGatherGeneric
	cdGather2Impl   = cdGather2Generic
	klStepImpl      = klStepGeneric
	klDerivImpl     = klDerivGeneric
	projGradImpl    = projGradGeneric
	extrapolateImpl = extrapolateGeneric
	cgApplyImpl     = cgApplyGeneric
	cgResidualImpl  = cgResidualGeneric
	cgDirectionImpl = cgDirectionGeneric
	axpyScatterImpl = axpyScatterGeneric
	path            = "generic"
)

// The widest path the CPU supports is in use from the start, so that a
// program that never calls Use runs the fastest one; the package reads
// no environment (the command line applies MANIFACTOR_KERNELS and
// --simd through Use).
func init() { _ = Use("auto") }

// Path returns the name of the kernel path in use: "avx2" or "generic".
func Path() string { return path }

// Available returns the names of the paths this build can run on this CPU,
// the reference "generic" first.
func Available() []string {
	return append([]string{"generic"}, asmPaths()...)
}

// Use selects the kernel path: "auto" (the widest the CPU supports),
// "generic" (the plain Go reference) or a named assembly path such as
// "avx2". It must be called before any concurrent use of the kernels.
func Use(name string) error {
	switch name {
	case "auto", "":
		paths := asmPaths()
		if len(paths) == 0 {
			return Use("generic")
		}
		return Use(paths[len(paths)-1])
	case "generic":
		axpyImpl, dotImpl, mulUpdateImpl, axpyGatherImpl = axpyGeneric, dotGeneric, mulUpdateGeneric, axpyGatherGeneric
		dotGatherImpl, dotGatherTImpl, klStepImpl, klDerivImpl = dotGatherGeneric, dotGatherTGeneric, klStepGeneric, klDerivGeneric
		projGradImpl, cdGatherImpl, cdGather2Impl = projGradGeneric, cdGatherGeneric, cdGather2Generic
		extrapolateImpl, axpyScatterImpl = extrapolateGeneric, axpyScatterGeneric
		cgApplyImpl, cgResidualImpl, cgDirectionImpl = cgApplyGeneric, cgResidualGeneric, cgDirectionGeneric
		path = "generic"
		return nil
	}
	for _, p := range asmPaths() {
		if p == name {
			useAsm(name)
			path = name
			return nil
		}
	}
	return fmt.Errorf("kernels: path %q is not available in this build on this CPU (available: %v)", name, Available())
}

// Axpy computes y[i] += a*x[i] for i < len(x). It panics if len(y) < len(x).
//
// Reference:
//
//	for i, v := range x { y[i] += a * v }
func Axpy(a float64, x, y []float64) {
	if len(y) < len(x) {
		panic("kernels: Axpy length mismatch")
	}
	axpyImpl(a, x, y)
}

// Dot returns the sum of x[i]*y[i] for i < len(x). It panics if
// len(y) < len(x).
//
// Reference:
//
//	for i, v := range x { s += v * y[i] }
func Dot(x, y []float64) float64 {
	if len(y) < len(x) {
		panic("kernels: Dot length mismatch")
	}
	return dotImpl(x, y)
}

// MulUpdate is the fused multiplicative-update step
// x[i] *= num[i] / max(den[i], eps). It panics if num or den is shorter
// than x.
//
// Reference:
//
//	for i := range x { x[i] *= num[i] / max(den[i], eps) }
func MulUpdate(x, num, den []float64, eps float64) {
	if len(num) < len(x) || len(den) < len(x) {
		panic("kernels: MulUpdate length mismatch")
	}
	mulUpdateImpl(x, num, den, eps)
}

// Extrapolate moves cur past base by the momentum beta and makes base the
// old cur: cur[i] = max(cur[i] + beta (cur[i] - base[i]), 0) with Go's
// max (a NaN stays NaN, -0 becomes +0), base[i] = cur[i] before. Every
// path performs the same IEEE operations, unfused, so the results are
// identical. It panics if base is shorter than cur.
//
// Reference:
//
//	for i, c := range cur {
//		x := c + beta*(c-base[i])
//		base[i] = c
//		cur[i] = max(x, 0)
//	}
func Extrapolate(cur, base []float64, beta float64) {
	if len(base) < len(cur) {
		panic("kernels: Extrapolate length mismatch")
	}
	extrapolateImpl(cur, base, beta)
}

// ProjGrad accumulates one row's share of a projected-gradient norm,
// column by column: with the gradient g = den - num at the point f,
// component i counts unless f[i] <= 0 and g >= 0 (an entry at its bound
// that the gradient pushes outward), and then pg[i] += g^2; always
// ref[i] += num[i]^2. It panics if pg, ref, den or num is shorter than
// f.
//
// Reference:
//
//	for i := range f {
//		g := den[i] - num[i]
//		if f[i] <= 0 && g >= 0 { g = 0 }
//		pg[i] += g * g
//		ref[i] += num[i] * num[i]
//	}
func ProjGrad(pg, ref, f, den, num []float64) {
	if len(pg) < len(f) || len(ref) < len(f) || len(den) < len(f) || len(num) < len(f) {
		panic("kernels: ProjGrad length mismatch")
	}
	projGradImpl(pg, ref, f, den, num)
}

// AxpyGather adds one sparse row times a dense matrix into dst: for each
// stored entry p, dst += val[p] * b[ind[p]*ldb : ind[p]*ldb+len(dst)].
// It is the inner step of a CSR x dense product. It panics if ind is
// shorter than val or if a row ind[p] reaches past len(b), on every path.
//
// Reference:
//
//	for p, a := range val {
//		row := b[ind[p]*ldb:]
//		for t := range dst { dst[t] += a * row[t] }
//	}
func AxpyGather(dst, val []float64, ind []int, b []float64, ldb int) {
	if len(ind) < len(val) {
		panic("kernels: AxpyGather length mismatch")
	}
	if len(dst) == 0 || len(val) == 0 {
		return
	}
	axpyGatherImpl(dst, val, ind, b, ldb)
}

// AxpyScatter adds one sparse row's scaled copies of x to rows of a dense
// row-major matrix dst with row stride ldd: for each stored entry p, row
// ind[p] of dst gets val[p] x. It is the inner step of a^T b for a CSR
// matrix a and dense b, row i of b being x and row i of a (val, ind): the
// transpose of AxpyGather's product, with the roles of gathered and
// register-held rows exchanged. Each element of dst gets its terms by one
// multiply and one add in the order of the entries, as AxpyGather sums
// them for rows of more than 16 columns, so that a^T b formed by scatters
// over a's rows in order equals, bit for bit, the gathers over a^T's rows.
// It panics if ind is shorter than val or a row ind[p] reaches past
// len(dst), on every path (rows of earlier entries may then be updated).
//
// Reference:
//
//	for p, a := range val {
//		row := dst[ind[p]*ldd:]
//		for t, v := range x { row[t] += a * v }
//	}
func AxpyScatter(dst []float64, ldd int, val []float64, ind []int, x []float64) {
	if len(ind) < len(val) {
		panic("kernels: AxpyScatter length mismatch")
	}
	if len(x) == 0 || len(val) == 0 {
		return
	}
	axpyScatterImpl(dst, ldd, val, ind, x)
}

// DotGather computes one sparse row's sampled dot products: for each stored
// entry p, dst[p] = x . b[ind[p]*ldb : ind[p]*ldb+len(x)]. It is the inner
// step of a sampled dense-dense product (A B^T evaluated at a sparsity
// pattern). It writes dst[:len(ind)] and leaves the rest of dst alone. It
// panics if dst is shorter than ind or if a row ind[p] reaches past len(b),
// on every path.
//
// Reference:
//
//	for p, j := range ind {
//		row := b[j*ldb:]
//		var s float64
//		for t, v := range x { s += v * row[t] }
//		dst[p] = s
//	}
func DotGather(dst, x []float64, ind []int, b []float64, ldb int) {
	if len(dst) < len(ind) {
		panic("kernels: DotGather length mismatch")
	}
	if len(ind) == 0 {
		return
	}
	dotGatherImpl(dst, x, ind, b, ldb)
}

// DotGatherT is DotGather that also copies the rows it reads, transposed:
// with n = len(ind) and k = len(x), for each stored entry p
//
//	dst[p] = x . b[ind[p]*ldb : ind[p]*ldb+k],
//	ht[c*n+p] = b[ind[p]*ldb+c] for c < k,
//
// so that column c of the gathered rows is contiguous, as one-variable
// steps along c over a sparse row want them (the KL coordinate descent).
// One pass over the rows does both, where DotGather and a separate
// transposing copy read every row twice. The sums run in a fixed order on
// every path, so all give the same bits: coordinate c goes to partial sum
// c mod 4 for c below k rounded down to a multiple of 4 and to the first
// after that, each by a fused multiply-add, and dst[p] = (s0 + s1) + (s2 +
// s3). It leaves dst past n and ht past n k alone, and panics if dst or ht
// is too short or a row ind[p] reaches past len(b).
func DotGatherT(dst, ht, x []float64, ind []int, b []float64, ldb int) {
	n := len(ind)
	if len(dst) < n || len(ht) < n*len(x) {
		panic("kernels: DotGatherT length mismatch")
	}
	if n == 0 {
		return
	}
	dotGatherTImpl(dst, ht, x, ind, b, ldb)
}

// CDGather is the coordinate-descent step of one factor column c over a
// block of rows, with the gradient formed from the block's current values
// rather than kept up to date by the other columns' steps. u holds the
// block column-major with stride ld: row i's coordinate l is u[l*ld+i],
// for i < len(p) and l < len(s); s is row c of the k x k curvature matrix
// S (k = len(s)). For each row i, with x = u[c*ld+i],
//
//	a = sum_l s[l] u[l*ld+i] + d[i] x,  den[i] = a,
//	u[c*ld+i] = max(0, x - (a - p[i]) ih[i]),
//
// where a - p[i] is the gradient of x^T S x / 2 + d x^2 / 2 - p x along
// coordinate c; a row with ih[i] = 0 is left as it is. It returns the sums
// of the squared changes and of the squared changes times d[i]. Forming
// the gradient reads the k columns once and writes one, where updating a
// stored gradient after every step writes all k (the stores were what
// limited the sweeps). It panics if d, ih or den is shorter than p, if c
// is not below len(s), if ld < len(p), or if u is too short.
//
// Reference:
//
//	for i := range p {
//		var a float64
//		for l := range s { a += s[l] * u[l*ld+i] }
//		x := u[c*ld+i]
//		a += d[i] * x
//		den[i] = a
//		if ih[i] == 0 { continue }
//		y := x - (a-p[i])*ih[i]
//		if !(y > 0) { y = 0 }
//		u[c*ld+i] = y
//		sq += (y - x) * (y - x)
//		sqd += (y - x) * (y - x) * d[i]
//	}
func CDGather(u []float64, ld, c int, s, p, d, ih, den []float64) (sq, sqd float64) {
	r := len(p)
	if len(d) < r || len(ih) < r || len(den) < r || c < 0 || c >= len(s) || ld < r {
		panic(fmt.Sprintf("kernels: CDGather: %d rows, stride %d, column %d of %d, %d diagonal terms, %d curvatures, %d outputs", r, ld, c, len(s), len(d), len(ih), len(den)))
	}
	if r == 0 {
		return 0, 0
	}
	if len(u) < (len(s)-1)*ld+r {
		panic(fmt.Sprintf("kernels: CDGather: %d values for %d columns of stride %d and %d rows", len(u), len(s), ld, r))
	}
	return cdGatherImpl(u, ld, c, s, p, d, ih, den)
}

// CDGather2 is CDGather for the two columns c and c+1 in turn, with both
// gradients' sums over the columns formed in one pass (each value of the
// block read once for both): column c's step as CDGather's, then column
// c+1's with its sum corrected by S_{c+1,c} times column c's change, so
// that it sees the new value as a sweep does. s holds rows c and c+1 of S
// (2k values, k = len(s)/2); p, ih and den are column-major with stride
// ld like u (column c at p[c*ld:], ih[c*ld:], den[c*ld:]); d has one
// diagonal term per row, and its length is the number of rows. Columns c
// and c+1 of den receive each step's sum S u + d x, at the values the
// step starts from (the gradient the sweep meets, plus p), as CDGather's
// den does. It returns the sums of the squared changes of column c and
// of column c+1, and of the squared changes of both times d[i]. It
// panics if c+1 is not a column, if ld < len(d), or if u, p, ih or den
// is too short.
//
// Reference:
//
//	for i := range d {
//		var a0, a1 float64
//		for l := 0; l < k; l++ {
//			a0 += s[l] * u[l*ld+i]
//			a1 += s[k+l] * u[l*ld+i]
//		}
//		d0 := step(c, a0)    // CDGather's step of column c: its change
//		a1 += s[k+c] * d0
//		d1 := step(c+1, a1)
//		sq0 += d0 * d0; sq1 += d1 * d1; sqd += (d0*d0 + d1*d1) * d[i]
//	}
func CDGather2(u []float64, ld, c int, s, p, ih, d, den []float64) (sq0, sq1, sqd float64) {
	r, k := len(d), len(s)/2
	if len(s)%2 != 0 || c < 0 || c+1 >= k || ld < r {
		panic(fmt.Sprintf("kernels: CDGather2: %d rows, stride %d, columns %d and %d of %d values of S", r, ld, c, c+1, len(s)))
	}
	if r == 0 {
		return 0, 0, 0
	}
	if need := (k-1)*ld + r; len(u) < need || len(p) < need || len(ih) < need || len(den) < need {
		panic(fmt.Sprintf("kernels: CDGather2: %d values, %d products, %d curvatures, %d outputs for %d columns of stride %d and %d rows", len(u), len(p), len(ih), len(den), k, ld, r))
	}
	return cdGather2Impl(u, ld, c, k, s, p, ih, d, s[k+c], den)
}

// KLStep is the inner step of coordinate descent under the KL divergence,
// over one row's stored entries x with current model values y (y = sum_c
// f_c h_c): it moves y by t times hOld (the change of the coordinate just
// stepped), then, at the new y, returns the x-weighted sums that give the
// derivatives of -sum x log y along hOld and hNew,
//
//	gOld = sum x hOld / y,  gNew = sum x hNew / y,  hess = sum x hNew^2 / y^2,
//
// with y floored at eps in the ratios (never in the stored y). It stores
// the ratios xr[q] = x[q] / max(y[q], eps) and r[q] = 1 / max(y[q], eps)
// for KLDeriv. It panics if y, hOld, hNew, xr or r is shorter than x.
//
// Reference:
//
//	for q, xq := range x {
//		y[q] += t * hOld[q]
//		r[q] = 1 / max(y[q], eps)
//		xr[q] = xq * r[q]
//		gOld += hOld[q] * xr[q]
//		gNew += hNew[q] * xr[q]
//		hess += hNew[q] * hNew[q] * xr[q] * r[q]
//	}
func KLStep(y, x, hOld, hNew, xr, r []float64, t, eps float64) (gOld, gNew, hess float64) {
	if n := len(x); len(y) < n || len(hOld) < n || len(hNew) < n || len(xr) < n || len(r) < n {
		panic("kernels: KLStep length mismatch")
	}
	if len(x) == 0 {
		return 0, 0, 0
	}
	return klStepImpl(y, x, hOld, hNew, xr, r, t, eps)
}

// KLDeriv returns KLStep's gNew and hess for hNew = h at the model values
// the last KLStep over the row left, from the ratios xr and r it stored
// (of length the row's): on every path the same values, bit for bit, as a
// KLStep with t = 0 would return, without its division an entry. Where a
// coordinate step moves nothing, coordinate descent needs only the next
// coordinate's derivatives at an unchanged y; most steps on sparse
// factors are such (on TDT2, 75 % of the steps on rows of 8 entries or
// more and 88 % on shorter rows). It panics if r or h is shorter than
// xr.
//
// Reference:
//
//	for q, x := range xr {
//		g += h[q] * x
//		hess += h[q] * h[q] * x * r[q]
//	}
func KLDeriv(xr, r, h []float64) (g, hess float64) {
	if len(r) < len(xr) || len(h) < len(xr) {
		panic("kernels: KLDeriv length mismatch")
	}
	if len(xr) == 0 {
		return 0, 0
	}
	return klDerivImpl(xr, r, h)
}
