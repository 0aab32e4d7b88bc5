package solver

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/manifactor/manifactor/internal/nmfstep"

	"gonum.org/v1/gonum/blas/blas64"
)

// TestCDStepMatchesPass: nmfstep.CD.Update on a factor's rows takes the
// steps of Fit's coordinate-descent pass (passWork.run with a cd rule),
// bit for bit, whether it gets all rows at once or aligned pieces of
// them (as the ranks of package dist do), at any thread count.
func TestCDStepMatchesPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, k = 3*nmfstep.Block + 77, 6
	f, num, other := general(rows, k), general(rows, k), general(40, k)
	for i := range f.Data {
		f.Data[i], num.Data[i] = rng.Float64(), 3*rng.Float64()
	}
	for i := range other.Data {
		other.Data[i] = rng.Float64()
	}
	s := general(k, k)
	for a := 0; a < k; a++ {
		for b := 0; b < k; b++ {
			for r := 0; r < other.Rows; r++ {
				s.Data[a*k+b] += other.Data[r*k+a] * other.Data[r*k+b]
			}
		}
	}
	const nnz = 200000 // several sweeps per row, so the inner rule decides
	ref := general(rows, k)
	copy(ref.Data, f.Data)
	w := newPassWork(rows, k)
	wantDot := w.run(half{f: ref, num: rowProduct{full: num}, s: s, update: true, wantDot: true, cd: nmfstep.NewRule(nnz, rows, k)}, 1)
	for _, cut := range [][]int{{0, rows}, {0, nmfstep.Block, rows}, {0, 2 * nmfstep.Block, 3 * nmfstep.Block, rows}} {
		for _, threads := range []int{1, 3} {
			got := general(rows, k)
			copy(got.Data, f.Data)
			step := nmfstep.NewCD(nnz, rows, k)
			var dot float64
			for p := 0; p+1 < len(cut); p++ {
				lo, hi := cut[p], cut[p+1]
				piece := got
				piece.Rows, piece.Data = hi-lo, got.Data[lo*k:hi*k]
				dot += step.Update(piece, num.Data[lo*k:hi*k], s.Data, threads)
			}
			if !slices.Equal(got.Data, ref.Data) {
				t.Fatalf("pieces %v, %d threads: the rows differ from the pass's", cut, threads)
			}
			if math.Abs(dot-wantDot) > 1e-12*math.Abs(wantDot) {
				t.Fatalf("pieces %v: dot %v, the pass's %v", cut, dot, wantDot)
			}
		}
	}
}

// TestMUUpdateMatchesPlain: muUpdate is the multiplicative step written
// out row by row (with the graph's added numerator and degree, and
// without), at 1 and 3 threads alike, and leaves f alone without s.
func TestMUUpdateMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, k = 2*rowChunk + 13, 4
	rnd := func(n int) []float64 {
		x := make([]float64, n)
		for i := range x {
			x[i] = rng.Float64()
		}
		return x
	}
	f0, num, s, add, deg := rnd(rows*k), rnd(rows*k), rnd(k*k), rnd(rows*k), rnd(rows)
	for _, graph := range []bool{false, true} {
		a, d := add, deg
		if !graph {
			a, d = nil, nil
		}
		want := slices.Clone(f0)
		var wantDot float64
		for i := 0; i < rows; i++ {
			fi := want[i*k : (i+1)*k]
			den, nu := make([]float64, k), make([]float64, k)
			for l := 0; l < k; l++ {
				for c := 0; c < k; c++ {
					den[l] += fi[c] * s[c*k+l]
				}
				nu[l] = num[i*k+l]
				if a != nil {
					nu[l] += a[i*k+l]
					den[l] += d[i] * fi[l]
				}
			}
			for l := range fi {
				fi[l] *= nu[l] / max(den[l], Eps)
				wantDot += fi[l] * nu[l]
			}
		}
		var first []float64
		for _, threads := range []int{1, 3} {
			got := slices.Clone(f0)
			dot := muUpdate(blas64.General{Rows: rows, Cols: k, Stride: k, Data: got}, num, s, a, d, threads)
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-13*math.Abs(want[i]) {
					t.Fatalf("graph %v: entry %d is %v, plain %v", graph, i, got[i], want[i])
				}
			}
			if math.Abs(dot-wantDot) > 1e-12*math.Abs(wantDot) {
				t.Fatalf("graph %v: dot %v, plain %v", graph, dot, wantDot)
			}
			if first != nil && !slices.Equal(first, got) {
				t.Fatal("3 threads differ from 1")
			}
			first = got
		}
	}
	f := slices.Clone(f0)
	muUpdate(blas64.General{Rows: rows, Cols: k, Stride: k, Data: f}, num, nil, nil, nil, 2)
	if !slices.Equal(f, f0) {
		t.Fatal("without s, f changed")
	}
}

// TestMoveWithGram: a Gram pass with nmfstep.Extrapolated's move as its pre step
// (the momentum applied chunk by chunk, each chunk just before its Gram
// sums) leaves the factor, the momentum's base and the Gram matrix bit for
// bit as the move over the whole factor followed by the same Gram pass, at
// any thread count, for chunks cut by count (V's passes) and by cost (U's).
func TestMoveWithGram(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	const rows, k = 3*rowChunk + 101, 7
	cur, base := general(rows, k), general(rows, k)
	for i := range cur.Data {
		cur.Data[i], base.Data[i] = rng.Float64(), rng.Float64()
	}
	indptr := make([]int, rows+1)
	for i := range rows {
		indptr[i+1] = indptr[i] + rng.IntN(50)
	}
	ex := nmfstep.NewExtrapolated(nil, nil, 0)
	wantF, wantB := general(rows, k), general(rows, k)
	copy(wantF.Data, cur.Data)
	copy(wantB.Data, base.Data)
	ex.Mover(wantF.Data, wantB.Data)(0, len(wantF.Data))
	for _, w := range []*passWork{newPassWork(rows, k), newPassWorkCost(rows, k, indptr)} {
		wantG := general(k, k)
		w.run(half{f: wantF, gram: wantG}, 1)
		for _, threads := range []int{1, 2, 5} {
			f, b, g := general(rows, k), general(rows, k), general(k, k)
			copy(f.Data, cur.Data)
			copy(b.Data, base.Data)
			w.run(half{f: f, gram: g, pre: ex.Mover(f.Data, b.Data)}, threads)
			if !slices.Equal(f.Data, wantF.Data) || !slices.Equal(b.Data, wantB.Data) {
				t.Fatalf("chunks %v, %d threads: the moved factor or its base differs", w.bounds, threads)
			}
			if !slices.Equal(g.Data, wantG.Data) {
				t.Fatalf("chunks %v, %d threads: the Gram matrix differs from the separate pass's", w.bounds, threads)
			}
		}
	}
}
