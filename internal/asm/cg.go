package asm

// The three passes of a block conjugate-gradient step (package sparse's
// SolveBlockCG), over a chunk of rows of n x m row-major blocks with one
// system per column. Each is one pass that reads and writes every entry
// once; in plain Go they were a large part of an LPNMF iteration
// (measured: docs/PERFORMANCE.md). Every path performs the reference's
// IEEE operations, unfused and in its order, and adds the per-column sums
// row by row, so the paths agree bit for bit.

// CGApply finishes a chunk of A P after the off-diagonal products: for
// each row i of out and in (m entries a row, len(out)/m rows) and column
// j, out = scale*out + (base[i] + g[i]*shift[j]) * in, and, if part is
// not nil, part[j] += in * out (the new out). It panics if len(out) is
// not a multiple of m or any other slice is too short.
//
// Reference:
//
//	for i := 0; i < len(out)/m; i++ {
//		for j := 0; j < m; j++ {
//			o, x := &out[i*m+j], in[i*m+j]
//			*o = scale*(*o) + (base[i]+g[i]*shift[j])*x
//			if part != nil { part[j] += x * (*o) }
//		}
//	}
func CGApply(out, in []float64, m int, shift []float64, scale float64, base, g, part []float64) {
	if m <= 0 {
		if m < 0 || len(out) != 0 {
			panic("kernels: CGApply needs m > 0")
		}
		return
	}
	rows := len(out) / m
	if rows*m != len(out) || len(in) < len(out) || len(shift) < m || len(base) < rows || len(g) < rows || (part != nil && len(part) < m) {
		panic("kernels: CGApply length mismatch")
	}
	if rows == 0 {
		return
	}
	cgApplyImpl(out, in, m, shift, scale, base, g, part)
}

// CGResidual is the residual update of a chunk: for each row of r, q and
// d (m entries a row, len(r)/m rows) and column j, v = r - alpha[j]*q,
// r = v, rr[j] += v*v, rz[j] += v*(v*d). It panics if len(r) is not a
// multiple of m or any other slice is too short.
//
// Reference:
//
//	for i := 0; i < len(r)/m; i++ {
//		for j := 0; j < m; j++ {
//			v := r[i*m+j] - alpha[j]*q[i*m+j]
//			r[i*m+j] = v
//			rr[j] += v * v
//			rz[j] += v * (v * d[i*m+j])
//		}
//	}
func CGResidual(r, q, d []float64, m int, alpha, rr, rz []float64) {
	if m <= 0 {
		if m < 0 || len(r) != 0 {
			panic("kernels: CGResidual needs m > 0")
		}
		return
	}
	rows := len(r) / m
	if rows*m != len(r) || len(q) < len(r) || len(d) < len(r) || len(alpha) < m || len(rr) < m || len(rz) < m {
		panic("kernels: CGResidual length mismatch")
	}
	if rows == 0 {
		return
	}
	cgResidualImpl(r, q, d, m, alpha, rr, rz)
}

// CGDirection is the solution and direction update of a chunk: for each
// row i of p, r and d (m entries a row, len(p)/m rows) and column j, with
// v the old p, x[i*ldx+j] += alpha[j]*v and p = r*d + beta[j]*v. It
// panics if len(p) is not a multiple of m, ldx < m, or any other slice is
// too short.
//
// Reference:
//
//	for i := 0; i < len(p)/m; i++ {
//		for j := 0; j < m; j++ {
//			v := p[i*m+j]
//			x[i*ldx+j] += alpha[j] * v
//			p[i*m+j] = r[i*m+j]*d[i*m+j] + beta[j]*v
//		}
//	}
func CGDirection(x []float64, ldx int, p, r, d []float64, m int, alpha, beta []float64) {
	if m <= 0 {
		if m < 0 || len(p) != 0 {
			panic("kernels: CGDirection needs m > 0")
		}
		return
	}
	rows := len(p) / m
	if rows*m != len(p) || ldx < m || len(r) < len(p) || len(d) < len(p) || len(alpha) < m || len(beta) < m {
		panic("kernels: CGDirection length mismatch")
	}
	if rows == 0 {
		return
	}
	if len(x) < (rows-1)*ldx+m {
		panic("kernels: CGDirection length mismatch")
	}
	cgDirectionImpl(x, ldx, p, r, d, m, alpha, beta)
}
