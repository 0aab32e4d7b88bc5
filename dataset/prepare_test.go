package dataset

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/manifactor/manifactor/sparse"
)

// TestPrepareAnyThreads weighs and normalizes a sparse corpus large enough
// for the parallel paths (1.2 million entries: up to 4 blocks of document counts,
// row ranges for weighting and norms) on 1, 2 and 5 threads: the values
// must be identical bit for bit, the document frequencies must equal a
// serial count (stored zeros not counted), and every non-empty row must
// come out at unit length.
func TestPrepareAnyThreads(t *testing.T) {
	const n, m, perRow = 12000, 3000, 100
	rng := rand.New(rand.NewPCG(3, 4))
	indptr := make([]int, n+1)
	var ind []int
	var val []float64
	for i := 0; i < n; i++ {
		if i%97 != 5 { // some empty documents
			cols := rng.Perm(m)[:perRow]
			slices.Sort(cols)
			for q, j := range cols {
				v := float64(1 + rng.IntN(5))
				if q == 0 && i%13 == 0 {
					v = 0 // a stored zero
				}
				ind, val = append(ind, j), append(val, v)
			}
		}
		indptr[i+1] = len(ind)
	}
	want := make([]int, m)
	for p, j := range ind {
		if val[p] != 0 {
			want[j]++
		}
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	var first []float64
	for _, procs := range []int{1, 2, 5} {
		runtime.GOMAXPROCS(procs)
		a, err := sparse.NewCSR(n, m, slices.Clone(indptr), slices.Clone(ind), slices.Clone(val))
		if err != nil {
			t.Fatal(err)
		}
		d := &Dataset{Source: "gen", Sparse: a}
		if df := d.DocumentFrequency(); !slices.Equal(df, want) {
			t.Fatalf("%d procs: document frequencies differ from a serial count", procs)
		}
		if err := d.LogTFIDF(); err != nil {
			t.Fatal(err)
		}
		if zero := d.NormalizeL2(); zero != (n+91)/97 {
			t.Fatalf("%d procs: %d empty rows, want %d", procs, zero, (n+91)/97)
		}
		for i := 0; i < n; i++ {
			var s float64
			for _, v := range a.Val[a.Indptr[i]:a.Indptr[i+1]] {
				s += v * v
			}
			if a.Indptr[i+1] > a.Indptr[i] && math.Abs(s-1) > 1e-12 {
				t.Fatalf("%d procs: row %d has squared length %v", procs, i, s)
			}
		}
		if first == nil {
			first = a.Val
		} else if !slices.Equal(first, a.Val) {
			t.Fatalf("%d procs: weighted values differ from 1 thread's", procs)
		}
	}
}
