package solver

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCDStepMatchesPass: CDStep.Update on a factor's rows takes the
// steps of Fit's coordinate-descent pass (passWork.run with a cd rule),
// bit for bit, whether it gets all rows at once or aligned pieces of
// them (as the ranks of package dist do), at any thread count.
func TestCDStepMatchesPass(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	const rows, k = 3*cdBlock + 77, 6
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
	wantDot := w.run(half{f: ref, num: rowProduct{full: num}, s: s, update: true, wantDot: true, cd: newCDRule(nnz, rows, k)}, 1)
	for _, cut := range [][]int{{0, rows}, {0, cdBlock, rows}, {0, 2 * cdBlock, 3 * cdBlock, rows}} {
		for _, threads := range []int{1, 3} {
			got := general(rows, k)
			copy(got.Data, f.Data)
			step := NewCDStep(nnz, rows, k)
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
