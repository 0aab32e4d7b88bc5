package solver

import (
	"math"

	"github.com/manifactor/manifactor/internal/asm"
	"github.com/manifactor/manifactor/internal/klstep"
	"github.com/manifactor/manifactor/internal/parallel"
)

// The stationarity measure of Result.ProjGrad. Each half step measures,
// column by column, the squared norm of the projected gradient of its
// objective at the point the update starts from, and the squared norm of
// the gradient's data part (X V, X^T U, their KL and graph forms: what
// the multiplicative updates put in the numerator), while its rows are
// in cache: a few operations per entry of the factor. The rows are
// summed in fixed blocks, and the blocks in order, so the sums do not
// depend on threads.

// kktSums holds one half's sums: block b's per-column squared projected
// gradient at part[b*stride:b*stride+k] and squared data part after it.
// Blocks lie a cache line apart at least, so that the goroutines adding
// into neighbouring blocks never write the same line (sharing one was a
// noticeable part of an NMF iteration on TDT2: docs/PERFORMANCE.md).
type kktSums struct {
	k, blocks, stride int
	part              []float64
}

// reset makes room for blocks blocks of k columns, all zero.
func (s *kktSums) reset(blocks, k int) {
	stride := parallel.Apart(2 * k)
	if len(s.part) < blocks*stride {
		s.part = make([]float64, blocks*stride)
	}
	s.k, s.blocks, s.stride = k, blocks, stride
	clear(s.part[:blocks*stride])
}

// block returns block b's per-column sums.
func (s *kktSums) block(b int) (pg, ref []float64) {
	p := s.part[b*s.stride : b*s.stride+2*s.k]
	return p[:s.k], p[s.k:]
}

// total adds the blocks' sums, in block order, into pg and ref.
func (s *kktSums) total(pg, ref []float64) {
	for b := 0; b < s.blocks; b++ {
		p, r := s.block(b)
		for c := range pg {
			pg[c] += p[c]
			ref[c] += r[c]
		}
	}
}

// addProjGrad adds, for a row f >= 0 whose objective has the gradient g
// with data part num, (g_c projected)^2 to pg[c] and num_c^2 to ref[c]. The projected gradient is g_c where f_c > 0 and min(g_c, 0)
// where f_c = 0 (a coordinate at its bound that the gradient pushes
// outward is optimal): zero exactly where the KKT conditions hold (Lin,
// Neural Computation 2007).
func addProjGrad(pg, ref, f, g, num []float64) {
	for c, x := range g {
		x = projected(f[c], x)
		pg[c] += x * x
		ref[c] += num[c] * num[c]
	}
}

// projected returns the component g of a projected gradient at an entry
// f: 0 where f is at its bound and g pushes it outward.
func projected(f, g float64) float64 { return klstep.Projected(f, g) }

// addProjGradDiff is addProjGrad for the gradient den - num, both sums
// times w; with w = 1 (every method but the NC-weighted KL ones' V half)
// it is one asm.ProjGrad call.
func addProjGradDiff(pg, ref, f, den, num []float64, w float64) {
	if w == 1 {
		asm.ProjGrad(pg, ref, f, den, num)
		return
	}
	for c, d := range den {
		x := projected(f[c], d-num[c])
		pg[c] += w * x * x
		ref[c] += w * num[c] * num[c]
	}
}

// relativeKKT combines the two halves' sums into Result.ProjGrad's value,
// given the squared lengths na and nv of the columns of the factors (any
// lengths that scale with the columns) at the scaling the sums were
// taken at.
//
// With a' = a D and v' = v D^-1 for a positive diagonal D, the model and
// the objective do not change but the first half's gradient and data part
// scale by D^-1 and the second's by D, column by column. So the sums are
// taken at the balanced scaling, where each column of a has the length of
// its column of v (D_cc^2 = |v_c| / |a_c|), which is the same for every
// D: the measure depends neither on how the solver happens to split the
// scale between the factors nor, since each half is a ratio, on the
// data's units.
func relativeKKT(a, v *kktSums, na, nv []float64) float64 {
	k := len(na)
	pgA, refA := make([]float64, k), make([]float64, k)
	pgV, refV := make([]float64, k), make([]float64, k)
	a.total(pgA, refA)
	v.total(pgV, refV)
	var half [2][2]float64 // [half][pg, ref]
	for c := 0; c < k; c++ {
		d2 := 1.0
		if na[c] > 0 && nv[c] > 0 {
			d2 = math.Sqrt(nv[c] / na[c])
		}
		half[0][0] += pgA[c] / d2
		half[0][1] += refA[c] / d2
		half[1][0] += pgV[c] * d2
		half[1][1] += refV[c] * d2
	}
	var sq float64
	for _, h := range half {
		switch {
		case h[0] == 0:
		case h[1] == 0:
			// A gradient with no data part: far from stationary.
			sq += 0.5
		default:
			sq += 0.5 * h[0] / h[1]
		}
	}
	return math.Sqrt(sq)
}

// columnSquares sets out to the squared length of each column of the
// row-major f (k = len(out) columns), by columnSumsBy.
func columnSquares(out, f []float64, threads int) {
	k := len(out)
	columnSumsBy(out, len(f)/k, threads, func(i int, acc []float64) {
		for c, x := range f[i*k : (i+1)*k] {
			acc[c] += x * x
		}
	})
}

// gramDiagonal sets out to the diagonal of the k x k row-major g.
func gramDiagonal(out, g []float64) {
	k := len(out)
	for c := range out {
		out[c] = g[c*k+c]
	}
}

// kktState is what an iterator keeps for its projGrad: the two halves'
// sums and the factors' squared column lengths when they were taken.
type kktState struct {
	a, v   *kktSums
	na, nv []float64
	ok     bool // measured in the last iteration
}

func newKKTState(k int) kktState {
	return kktState{na: make([]float64, k), nv: make([]float64, k)}
}

func (s kktState) relative() float64 { return relativeKKT(s.a, s.v, s.na, s.nv) }
