package asm

import "math"

// axpyGeneric computes y[i] += a*x[i] for i < len(x).
func axpyGeneric(a float64, x, y []float64) {
	y = y[:len(x)]
	for i, v := range x {
		y[i] += a * v
	}
}

// dotGeneric returns sum x[i]*y[i] for i < len(x).
func dotGeneric(x, y []float64) float64 {
	y = y[:len(x)]
	var s float64
	for i, v := range x {
		s += v * y[i]
	}
	return s
}

// mulUpdateGeneric computes x[i] *= num[i] / max(den[i], eps).
func mulUpdateGeneric(x, num, den []float64, eps float64) {
	num = num[:len(x)]
	den = den[:len(x)]
	for i := range x {
		d := den[i]
		if d < eps {
			d = eps
		}
		x[i] *= num[i] / d
	}
}

// axpyGatherGeneric computes, for t < len(dst),
// dst[t] += sum_p val[p] * b[ind[p]*ldb+t]: one row of a CSR matrix times
// a dense row-major matrix b with row stride ldb.
func axpyGatherGeneric(dst, val []float64, ind []int, b []float64, ldb int) {
	k := len(dst)
	ind = ind[:len(val)]
	// Cap b at its length so a row index past the end panics here as it
	// does in the assembly, instead of reading the backing array's spare
	// capacity.
	b = b[:len(b):len(b)]
	for p, a := range val {
		row := b[ind[p]*ldb : ind[p]*ldb+k]
		for t, v := range row {
			dst[t] += a * v
		}
	}
}

// axpyScatterGeneric computes, for p < len(val) and t < len(x),
// dst[ind[p]*ldd+t] += val[p] * x[t]: a sparse row's scaled copies of x
// added to the rows ind of a dense row-major matrix dst.
func axpyScatterGeneric(dst []float64, ldd int, val []float64, ind []int, x []float64) {
	k := len(x)
	ind = ind[:len(val)]
	// Capped at its length, as in axpyGatherGeneric, so that a row index
	// past the end panics instead of writing into spare capacity.
	dst = dst[:len(dst):len(dst)]
	for p, a := range val {
		row := dst[ind[p]*ldd : ind[p]*ldd+k]
		for t, v := range x {
			row[t] += a * v
		}
	}
}

// dotGatherGeneric computes, for p < len(ind),
// dst[p] = sum_t x[t] * b[ind[p]*ldb+t]: the dot products of x with the
// rows ind of a dense row-major matrix b with row stride ldb.
func dotGatherGeneric(dst, x []float64, ind []int, b []float64, ldb int) {
	k := len(x)
	dst = dst[:len(ind)]
	// Capped at its length, as in axpyGatherGeneric, so that a row index
	// past the end panics here as it does in the assembly.
	b = b[:len(b):len(b)]
	for p, j := range ind {
		row := b[j*ldb : j*ldb+k]
		var s float64
		for t, v := range x {
			s += v * row[t]
		}
		dst[p] = s
	}
}

func dotGatherTGeneric(dst, ht, x []float64, ind []int, b []float64, ldb int) {
	dotGatherTRows(dst, ht, x, ind, b, ldb, 0)
}

// dotGatherTRows is DotGatherT's reference for the entries from p0 on.
func dotGatherTRows(dst, ht, x []float64, ind []int, b []float64, ldb, p0 int) {
	n, k := len(ind), len(x)
	k4 := k &^ 3
	b = b[:len(b):len(b)]
	ht = ht[:n*k]
	for p := p0; p < n; p++ {
		row := b[ind[p]*ldb : ind[p]*ldb+k]
		var s0, s1, s2, s3 float64
		c := 0
		for ; c < k4; c += 4 {
			r := row[c : c+4]
			s0 = math.FMA(x[c], r[0], s0)
			s1 = math.FMA(x[c+1], r[1], s1)
			s2 = math.FMA(x[c+2], r[2], s2)
			s3 = math.FMA(x[c+3], r[3], s3)
			ht[c*n+p], ht[(c+1)*n+p], ht[(c+2)*n+p], ht[(c+3)*n+p] = r[0], r[1], r[2], r[3]
		}
		for ; c < k; c++ {
			s0 = math.FMA(x[c], row[c], s0)
			ht[c*n+p] = row[c]
		}
		dst[p] = (s0 + s1) + (s2 + s3)
	}
}

func cdGatherGeneric(u []float64, ld, c int, s, p, d, ih, den []float64) (sq, sqd float64) {
	d, ih, den = d[:len(p)], ih[:len(p)], den[:len(p)]
	for i, pi := range p {
		var a float64
		for l, sl := range s {
			a += sl * u[l*ld+i]
		}
		x := u[c*ld+i]
		a += d[i] * x
		den[i] = a
		if ih[i] == 0 {
			continue
		}
		y := x - (a-pi)*ih[i]
		if !(y > 0) {
			y = 0
		}
		u[c*ld+i] = y
		dl := y - x
		sq += dl * dl
		sqd += dl * dl * d[i]
	}
	return sq, sqd
}

func cdGather2Generic(u []float64, ld, c, k int, s, p, ih, d []float64, s1c float64, den []float64) (sq0, sq1, sqd float64) {
	step := func(col, i int, a float64) float64 {
		x := u[col*ld+i]
		a += d[i] * x
		den[col*ld+i] = a
		if ih[col*ld+i] == 0 {
			return 0
		}
		y := x - (a-p[col*ld+i])*ih[col*ld+i]
		if !(y > 0) {
			y = 0
		}
		u[col*ld+i] = y
		return y - x
	}
	for i, di := range d {
		var a0, a1 float64
		for l := 0; l < k; l++ {
			a0 += s[l] * u[l*ld+i]
			a1 += s[k+l] * u[l*ld+i]
		}
		d0 := step(c, i, a0)
		d1 := step(c+1, i, a1+s1c*d0)
		sq0 += d0 * d0
		sq1 += d1 * d1
		sqd += (d0*d0 + d1*d1) * di
	}
	return sq0, sq1, sqd
}

func klStepGeneric(y, x, hOld, hNew, xrs, rs []float64, t, eps float64) (gOld, gNew, hess float64) {
	y, hOld, hNew, xrs, rs = y[:len(x)], hOld[:len(x)], hNew[:len(x)], xrs[:len(x)], rs[:len(x)]
	for q, xq := range x {
		yq := y[q] + t*hOld[q]
		y[q] = yq
		r := 1 / max(yq, eps)
		xr := xq * r
		xrs[q], rs[q] = xr, r
		gOld += hOld[q] * xr
		gNew += hNew[q] * xr
		hess += hNew[q] * hNew[q] * xr * r
	}
	return gOld, gNew, hess
}

// klDerivGeneric is KLDeriv's reference: klStepGeneric's gNew and hess,
// the same expressions on the ratios it stored.
func klDerivGeneric(xrs, rs, h []float64) (gNew, hess float64) {
	rs, h = rs[:len(xrs)], h[:len(xrs)]
	for q, xr := range xrs {
		r := rs[q]
		gNew += h[q] * xr
		hess += h[q] * h[q] * xr * r
	}
	return gNew, hess
}

// extrapolateGeneric is Extrapolate's reference. The conversion keeps the
// product unfused (the Go spec allows FMA otherwise).
func extrapolateGeneric(cur, base []float64, beta float64) {
	base = base[:len(cur)]
	for i, c := range cur {
		x := c + float64(beta*(c-base[i]))
		base[i] = c
		cur[i] = max(x, 0)
	}
}

// projGradGeneric is ProjGrad's reference.
func projGradGeneric(pg, ref, f, den, num []float64) {
	n := len(f)
	pg, ref, den, num = pg[:n], ref[:n], den[:n], num[:n]
	for i := range f {
		g := den[i] - num[i]
		if f[i] <= 0 && g >= 0 {
			g = 0
		}
		pg[i] += g * g
		ref[i] += num[i] * num[i]
	}
}

// cgApplyGeneric is CGApply's reference. The conversions keep every
// product unfused (the Go spec allows FMA otherwise), as the assembly is.
func cgApplyGeneric(out, in []float64, m int, shift []float64, scale float64, base, g, part []float64) {
	rows := len(out) / m
	shift = shift[:m]
	for i := range rows {
		o, x := out[i*m:(i+1)*m], in[i*m:][:m]
		b, w := base[i], g[i]
		for j, v := range o {
			v = float64(scale*v) + float64((b+float64(w*shift[j]))*x[j])
			o[j] = v
			if part != nil {
				part[j] += float64(x[j] * v)
			}
		}
	}
}

// cgResidualGeneric is CGResidual's reference.
func cgResidualGeneric(r, q, d []float64, m int, alpha, rr, rz []float64) {
	rows := len(r) / m
	alpha, rr, rz = alpha[:m], rr[:m], rz[:m]
	for i := range rows {
		ri, qi, di := r[i*m:(i+1)*m], q[i*m:][:m], d[i*m:][:m]
		for j := range ri {
			v := ri[j] - float64(alpha[j]*qi[j])
			ri[j] = v
			rr[j] += float64(v * v)
			rz[j] += float64(v * float64(v*di[j]))
		}
	}
}

// cgDirectionGeneric is CGDirection's reference.
func cgDirectionGeneric(x []float64, ldx int, p, r, d []float64, m int, alpha, beta []float64) {
	rows := len(p) / m
	alpha, beta = alpha[:m], beta[:m]
	for i := range rows {
		xi, pi := x[i*ldx:][:m], p[i*m:(i+1)*m]
		ri, di := r[i*m:][:m], d[i*m:][:m]
		for j, v := range pi {
			xi[j] += float64(alpha[j] * v)
			pi[j] = float64(ri[j]*di[j]) + float64(beta[j]*v)
		}
	}
}
