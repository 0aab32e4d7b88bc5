package kernels

import "github.com/manifactor/manifactor/internal/asm"

// Path returns the name of the path in use: "avx2" or "generic".
func Path() string { return asm.Path() }

// Available returns the names of the paths this build can run on this
// CPU, the reference "generic" first.
func Available() []string { return asm.Available() }

// Use selects the path: "auto" or "" (the widest the CPU supports),
// "generic" (the plain Go reference) or a named assembly path such as
// "avx2". It must be called before any concurrent use of the kernels, and
// it sets the path of every product of the module.
func Use(name string) error { return asm.Use(name) }

// Axpy computes y[i] += a*x[i] for i < len(x). It panics if len(y) < len(x).
//
// Reference:
//
//	for i, v := range x { y[i] += a * v }
func Axpy(a float64, x, y []float64) { asm.Axpy(a, x, y) }

// Dot returns the sum of x[i]*y[i] for i < len(x). It panics if
// len(y) < len(x).
//
// Reference:
//
//	for i, v := range x { s += v * y[i] }
func Dot(x, y []float64) float64 { return asm.Dot(x, y) }

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
	asm.AxpyGather(dst, val, ind, b, ldb)
}

// AxpyScatter adds one sparse row's scaled copies of x to rows of a
// dense row-major matrix dst with row stride ldd: for each stored entry p,
// row ind[p] of dst gets val[p] x. It is the inner step of a^T b for a
// CSR matrix a and dense b, row i of b being x and row i of a (val, ind),
// and for rows of more than 16 columns it sums as AxpyGather does, so the
// two products agree bit for bit. It panics if ind is shorter than val or
// a row ind[p] reaches past len(dst), on every path (rows of earlier
// entries may then be updated).
//
// Reference:
//
//	for p, a := range val {
//		row := dst[ind[p]*ldd:]
//		for t, v := range x { row[t] += a * v }
//	}
func AxpyScatter(dst []float64, ldd int, val []float64, ind []int, x []float64) {
	asm.AxpyScatter(dst, ldd, val, ind, x)
}

// DotGather computes one sparse row's sampled dot products: for each
// stored entry p, dst[p] = x . b[ind[p]*ldb : ind[p]*ldb+len(x)]. It is
// the inner step of a sampled dense-dense product (A B^T evaluated at a
// sparsity pattern). It writes dst[:len(ind)] and panics if dst is
// shorter than ind or if a row ind[p] reaches past len(b), on every path.
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
	asm.DotGather(dst, x, ind, b, ldb)
}

// DotGatherT is DotGather that also copies the rows it reads, transposed:
// with n = len(ind) and k = len(x), for each stored entry p
//
//	dst[p] = x . b[ind[p]*ldb : ind[p]*ldb+k],
//	ht[c*n+p] = b[ind[p]*ldb+c] for c < k,
//
// so that column c of the gathered rows is contiguous. Its sums run in
// one order on every path, which all give the same bits. It panics if
// dst or ht is too short or a row ind[p] reaches past len(b).
func DotGatherT(dst, ht, x []float64, ind []int, b []float64, ldb int) {
	asm.DotGatherT(dst, ht, x, ind, b, ldb)
}
