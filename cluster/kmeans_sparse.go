package cluster

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// KMeansSparse clusters the rows of x (n x d CSR, e.g. tf-idf documents) by
// Lloyd's algorithm with k-means++ seeding, with the same options, result
// and guarantees as KMeans; centers are dense. Seeding, replicates (PCG
// streams (Seed, r)), the stopping rules, singleton repair of empty
// clusters and the tie rules are those of KMeans, and center sums add the
// member rows in index order, so with the same labels the centers are
// bit-for-bit those KMeans computes on the densified matrix.
//
// Each Lloyd step costs O(nnz(x) K + K d): the cross products of a row
// with all K centers come from one asm.AxpyGather over the centers
// stored transposed (d x K), reading a contiguous K-vector per stored
// entry. Seeding costs O(n K) plus, per seed, the entries of the columns
// the seed row uses, found through a transposed copy of x.
//
// Distances. The squared distance that defines the results is
// ||x||^2 + ||c||^2 - 2 x.c with each of the three sums accumulated in
// double-double arithmetic (error-free sums and FMA products, in index
// order over x's stored entries, or over all of c) and the result rounded
// once. It is within about one ulp of the exact distance plus about
// (d + 2 nnz(x)) 2^-106 (||x||^2 + ||c||^2), which shows only when x and
// c nearly cancel, and exactly zero when the center equals the row (after
// seeding or a repair). The fast form, the same expression in plain
// float64 with the kernels, only screens out centers that the
// rounding-error bound of KMeans proves farther than the nearest; the
// others are compared by the double-double form. So labels, centers and
// inertia are identical for any Threads and any kernel path. They may
// differ from KMeans on the densified matrix only where two distances
// agree to about 15 digits (rows orthogonal to two centers of equal norm,
// say), since KMeans sums the plain (x_t - c_t)^2 over all d columns.
//
// x must pass sparse's Validate (finite values, sorted column indices),
// have at least one row and one column, and entries small enough (below
// about sqrt(MaxFloat64/(8 n d))) that squared distances cannot overflow;
// K must be in 1..n. x is read, never modified, and must not change during
// the call; with the transposed copy the call needs about twice x's
// memory. ctx is checked between iterations; when it is done the best
// clustering found so far (nil if none) comes back with ctx.Err().
func KMeansSparse(ctx context.Context, x *sparse.CSR, opt KMeansOptions) (*KMeansResult, error) {
	p, err := newSparsePoints(x, opt.Threads)
	if err != nil {
		return nil, err
	}
	return runKMeans(ctx, "KMeansSparse", p, opt)
}

// transposeGrain is the number of columns per chunk of the centers'
// transposition in sparsePoints.assign.
const transposeGrain = 256

// sparsePoints holds the validated rows of a CSR matrix with what the
// distance computations need.
type sparsePoints struct {
	x        *sparse.CSR
	xt       *sparse.CSR // x transposed, for the rows that share a column with a seed
	n, d     int
	norms    []float64      // ||x_i||^2 over the stored values, by asm.Dot
	exact    []doubleDouble // ||x_i||^2 by squares
	rel, abs float64        // screening error bound (see screenBound)
	threads  int
}

// newSparsePoints validates x.
func newSparsePoints(x *sparse.CSR, threads int) (*sparsePoints, error) {
	if x == nil {
		return nil, fmt.Errorf("cluster: KMeansSparse: x is nil")
	}
	if err := x.Validate(); err != nil {
		return nil, fmt.Errorf("cluster: KMeansSparse: %w", err)
	}
	n, d := x.Dims()
	if n == 0 || d == 0 {
		return nil, fmt.Errorf("cluster: KMeansSparse: x is %d x %d, want at least one row and one column", n, d)
	}
	limit := math.Sqrt(math.MaxFloat64 / (8 * float64(n) * float64(d)))
	for i := range n {
		for q := x.Indptr[i]; q < x.Indptr[i+1]; q++ {
			if v := x.Val[q]; math.Abs(v) > limit {
				return nil, fmt.Errorf("cluster: KMeansSparse: row %d, column %d (1-based) = %g is larger in magnitude than %.3g, past which squared distances may overflow; scale the data", i+1, x.Ind[q]+1, v, limit)
			}
		}
	}
	p := &sparsePoints{x: x, xt: x.T(), n: n, d: d, norms: make([]float64, n), exact: make([]doubleDouble, n), threads: parallel.Threads(threads)}
	for i := range n {
		val, _ := p.row(i)
		p.norms[i] = asm.Dot(val, val)
		p.exact[i] = squares(val)
	}
	p.rel, p.abs = screenBound(d)
	return p, nil
}

// row returns the stored values of row i and their column indices.
func (p *sparsePoints) row(i int) (val []float64, ind []int) {
	lo, hi := p.x.Indptr[i], p.x.Indptr[i+1]
	return p.x.Val[lo:hi:hi], p.x.Ind[lo:hi:hi]
}

// scatter adds row i into the dense vector c.
func (p *sparsePoints) scatter(c []float64, i int) {
	val, ind := p.row(i)
	for q, t := range ind {
		c[t] += val[q]
	}
}

func (p *sparsePoints) dims() (n, d int) { return p.n, p.d }

func (p *sparsePoints) work(k int) *lloydWork { return newLloydWork(p.n, p.d, k, p.threads) }

// seed is points.seed for sparse rows: the same draws from the same
// distances. A seed is a row r, so x_i.x_r is zero unless row i shares a
// column with r; the double-double products of the rows that do are
// accumulated through the transpose, column by column of r, which adds
// each row's products in the order sparseSqDist would. Every distance is
// then partsSqDist of three known sums, and a round costs O(n) plus the
// entries of r's columns, instead of O(nnz(x)).
func (p *sparsePoints) seed(ctx context.Context, k int, rng *rand.Rand) ([]float64, error) {
	n, d := p.n, p.d
	c := make([]float64, k*d)
	dots := make([]doubleDouble, n) // x_i . x_r, zero unless row i shares a column with r
	listed := make([]bool, n)       // whether row i does
	var sharing []int               // and which rows do
	var r int                       // the last row chosen
	err := plusPlus(ctx, n, k, rng, func(j, i int) { r = i; p.scatter(c[j*d:(j+1)*d], i) }, func(_ int, d2 []float64) {
		for _, i := range sharing {
			dots[i], listed[i] = doubleDouble{}, false
		}
		sharing = sharing[:0]
		rv, rc := p.row(r)
		for q, t := range rc {
			for e := p.xt.Indptr[t]; e < p.xt.Indptr[t+1]; e++ {
				i := p.xt.Ind[e]
				if !listed[i] {
					listed[i] = true
					sharing = append(sharing, i)
				}
				dots[i].add(twoProd(p.xt.Val[e], rv[q]))
			}
		}
		cn := p.exact[r]
		parallel.For(n, p.threads, seedGrain, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if d2[i] != 0 {
					d2[i] = min(d2[i], partsSqDist(p.exact[i], cn, dots[i]))
				}
			}
		})
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// assign is points.assign for sparse rows: the fast distances of a row to
// all centers come from one asm.AxpyGather of its stored entries over
// the transposed centers, and sparseSqDist decides among the centers the
// screening bound cannot rule out (its error is far inside that bound).
func (p *sparsePoints) assign(c []float64, labels []int, dist []float64, w *lloydWork) {
	d, k := p.d, len(w.norms)
	exact := make([]doubleDouble, k)
	// Centers in chunks of four, for squares4 (a center's squares alone
	// are one chain of additions that waits on each one's latency).
	parallel.For(k, p.threads, 4, func(lo, hi int) {
		j := lo
		for ; j+4 <= hi; j += 4 {
			exact[j], exact[j+1], exact[j+2], exact[j+3] = squares4(c[j*d:(j+1)*d], c[(j+1)*d:(j+2)*d], c[(j+2)*d:(j+3)*d], c[(j+3)*d:(j+4)*d])
		}
		for ; j < hi; j++ {
			exact[j] = squares(c[j*d : (j+1)*d])
		}
		for j := lo; j < hi; j++ {
			cj := c[j*d : (j+1)*d]
			w.norms[j] = asm.Dot(cj, cj)
		}
	})
	var maxNorm float64
	for _, v := range w.norms {
		maxNorm = max(maxNorm, v)
	}
	// Transpose in blocks of transposeGrain columns: each center's block is
	// read contiguously, and the block of ct written stays in cache.
	parallel.For(d, p.threads, transposeGrain, func(lo, hi int) {
		for j := range k {
			for t, v := range c[j*d+lo : j*d+hi] {
				w.ct[(lo+t)*k+j] = v
			}
		}
	})
	parallel.ForWorker(p.n, p.threads, assignGrain(p.n, p.threads), func(worker, lo, hi int) {
		fast := w.scratch[worker][:4*k]
		var m [4]int
		var least, second, e [4]float64
		// Rows go four at a time: the fast distances of each, then the
		// exact distances of the four to their nearest fast centers
		// together (sparseSqDist4: four independent chains, where one
		// row's double-double sum waits on each addition's latency), then
		// the rare rows whose screen admits other centers one by one.
		for i := lo; i < hi; i += 4 {
			rows := min(4, hi-i)
			for r := range rows {
				val, ind := p.row(i + r)
				f := fast[r*k : (r+1)*k]
				clear(f)
				asm.AxpyGather(f, val, ind, w.ct, k)
				least[r], second[r], m[r] = leastTwo(f, w.norms)
			}
			if rows == 4 {
				e[0], e[1], e[2], e[3] = p.sparseSqDist4(i, c, d, m, exact)
			} else {
				for r := range rows {
					val, ind := p.row(i + r)
					e[r] = sparseSqDist(val, ind, p.exact[i+r], c[m[r]*d:(m[r]+1)*d], exact[m[r]])
				}
			}
			for r := range rows {
				best, bestDist := m[r], e[r]
				if reach := least[r] + 2*(p.rel*(p.norms[i+r]+maxNorm)+p.abs); second[r] <= reach {
					val, ind := p.row(i + r)
					for j, dot := range fast[r*k : (r+1)*k] {
						if j == m[r] || w.norms[j]-2*dot > reach {
							continue
						}
						if e := sparseSqDist(val, ind, p.exact[i+r], c[j*d:(j+1)*d], exact[j]); e < bestDist || (e == bestDist && j < best) {
							best, bestDist = j, e
						}
					}
				}
				labels[i+r], dist[i+r] = best, bestDist
			}
		}
	})
}

// sparseSqDist4 returns sparseSqDist of rows i..i+3 to the centers
// m[0..3] of c (exact holding the centers' squares): the four rows'
// products summed side by side over their common length, then each row's
// rest alone, so each sum adds its row's terms in order, as sparseSqDist
// does, bit for bit.
func (p *sparsePoints) sparseSqDist4(i int, c []float64, d int, m [4]int, exact []doubleDouble) (e0, e1, e2, e3 float64) {
	v0, i0 := p.row(i)
	v1, i1 := p.row(i + 1)
	v2, i2 := p.row(i + 2)
	v3, i3 := p.row(i + 3)
	c0, c1, c2, c3 := c[m[0]*d:(m[0]+1)*d], c[m[1]*d:(m[1]+1)*d], c[m[2]*d:(m[2]+1)*d], c[m[3]*d:(m[3]+1)*d]
	var s0, s1, s2, s3 doubleDouble
	n := min(len(v0), len(v1), len(v2), len(v3))
	for q := range n {
		s0.add(twoProd(v0[q], c0[i0[q]]))
		s1.add(twoProd(v1[q], c1[i1[q]]))
		s2.add(twoProd(v2[q], c2[i2[q]]))
		s3.add(twoProd(v3[q], c3[i3[q]]))
	}
	rest := func(s *doubleDouble, val []float64, ind []int, c []float64) {
		for q := n; q < len(val); q++ {
			s.add(twoProd(val[q], c[ind[q]]))
		}
	}
	rest(&s0, v0, i0, c0)
	rest(&s1, v1, i1, c1)
	rest(&s2, v2, i2, c2)
	rest(&s3, v3, i3, c3)
	return partsSqDist(p.exact[i], exact[m[0]], s0), partsSqDist(p.exact[i+1], exact[m[1]], s1),
		partsSqDist(p.exact[i+2], exact[m[2]], s2), partsSqDist(p.exact[i+3], exact[m[3]], s3)
}

// repair is points.repair: each empty cluster takes the row farthest from
// its center among the clusters of two or more rows, which becomes its
// center.
func (p *sparsePoints) repair(c []float64, labels []int, dist []float64, counts []int) {
	refill(labels, dist, counts, func(j, i int) {
		cj := c[j*p.d : (j+1)*p.d]
		clear(cj)
		p.scatter(cj, i)
	})
}

// means is points.means for sparse rows: each center becomes the mean of
// its rows, scattered in index order whatever the thread count. Adding a
// row's stored entries only is adding its zeros too, exactly, so the sums
// are those of the dense rows. setMeans runs cluster by cluster, so its
// time is at least the largest cluster's; where that cluster has more
// than a goroutine's share of the rows, columnMeans, which gives the same
// bits column by column, runs instead (it was slower on 1 and 2 threads
// on TDT2's k-means start, so it is not the default: docs/PERFORMANCE.md).
func (p *sparsePoints) means(c []float64, labels []int, w *lloydWork) {
	if slices.Max(w.counts)*p.threads > p.n {
		p.columnMeans(c, labels, w)
		return
	}
	setMeans(c, p.d, labels, p.threads, w, p.scatter)
}

// columnMeans is means column by column of x (the rows of xt), each
// goroutine on chunks of columns of its own: column t's entries come in
// increasing row order, so every center's sum in column t adds its rows'
// values in index order, as setMeans does. A chunk's sums are kept a
// column's k side by side (a few cache lines a column instead of k) and
// then written to the centers row by row. Every cluster must be
// non-empty, with w.counts holding the sizes.
func (p *sparsePoints) columnMeans(c []float64, labels []int, w *lloydWork) {
	d, k, xt := p.d, len(w.counts), p.xt
	workers := parallel.Workers(d, p.threads, meansGrain)
	for len(w.colSums) < workers {
		w.colSums = append(w.colSums, make([]float64, meansGrain*k))
	}
	parallel.ForWorker(d, p.threads, meansGrain, func(worker, lo, hi int) {
		buf := w.colSums[worker][:(hi-lo)*k]
		clear(buf)
		for t := lo; t < hi; t++ {
			col := buf[(t-lo)*k : (t-lo+1)*k]
			for q := xt.Indptr[t]; q < xt.Indptr[t+1]; q++ {
				col[labels[xt.Ind[q]]] += xt.Val[q]
			}
		}
		for j := 0; j < k; j++ {
			m := float64(w.counts[j])
			cj := c[j*d+lo : j*d+hi]
			for t := range cj {
				cj[t] = buf[t*k+j] / m
			}
		}
	})
}

// meansGrain is how many columns a goroutine of columnMeans takes at a
// time.
const meansGrain = 256

// doubleDouble is the unevaluated sum hi + lo of two float64s, which
// carries about 106 bits.
type doubleDouble struct{ hi, lo float64 }

// add adds the exact value ph + pl, pl being small next to ph, accumulating
// the rounding error of hi in lo.
func (s *doubleDouble) add(ph, pl float64) {
	var e float64
	s.hi, e = twoSum(s.hi, ph)
	s.lo += e + pl
}

// twoSum returns a + b rounded, and its rounding error: s + e = a + b
// exactly (Knuth's branch-free form).
func twoSum(a, b float64) (s, e float64) {
	s = a + b
	bb := s - a
	e = (a - (s - bb)) + (b - bb)
	return s, e
}

// twoProd returns a*b rounded and its rounding error, exact by FMA unless
// the product underflows.
func twoProd(a, b float64) (p, e float64) {
	// The conversion forbids fusing the product into a later sum.
	p = float64(a * b)
	return p, math.FMA(a, b, -p)
}

// squares returns ||c||^2 in double-double, summed in index order. Zero
// entries add nothing, so a row's stored values and the row scattered
// into a dense vector give the same sum, bit for bit.
func squares(c []float64) doubleDouble {
	var s doubleDouble
	for _, v := range c {
		if v != 0 { // skipping a zero changes nothing, bit for bit
			s.add(twoProd(v, v))
		}
	}
	return s
}

// squares4 returns squares of four vectors of equal length, side by side:
// four independent chains, each adding its vector's squares in index
// order and skipping its zeros, as squares does, bit for bit.
func squares4(a, b, c, e []float64) (sa, sb, sc, se doubleDouble) {
	b, c, e = b[:len(a)], c[:len(a)], e[:len(a)]
	for t, v := range a {
		if v != 0 {
			sa.add(twoProd(v, v))
		}
		if v := b[t]; v != 0 {
			sb.add(twoProd(v, v))
		}
		if v := c[t]; v != 0 {
			sc.add(twoProd(v, v))
		}
		if v := e[t]; v != 0 {
			se.add(twoProd(v, v))
		}
	}
	return sa, sb, sc, se
}

// sparseSqDist returns the squared distance between the sparse row (val,
// ind), with xn = squares(val), and the dense center c, with
// cn = squares(c): partsSqDist of the two norms and of the row's dot
// product with c, summed in double-double over the row's entries in
// order.
func sparseSqDist(val []float64, ind []int, xn doubleDouble, c []float64, cn doubleDouble) float64 {
	var dot doubleDouble
	ind = ind[:len(val)]
	for q, t := range ind {
		dot.add(twoProd(val[q], c[t]))
	}
	return partsSqDist(xn, cn, dot)
}

// partsSqDist returns ||x||^2 + ||c||^2 - 2 x.c from the three sums in
// double-double, rounded once and, as rounding alone can make it negative,
// at least zero. When x = c the three sums are the same sequence of
// operations, so the result is exactly zero.
func partsSqDist(xn, cn, dot doubleDouble) float64 {
	h, e := twoSum(xn.hi, cn.hi)
	l := e + xn.lo + cn.lo
	h, e = twoSum(h, -2*dot.hi)
	l = e + (l - 2*dot.lo)
	return max(0, h+l)
}
