package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
)

// heavyCSR returns an r x c matrix whose first column is full and whose
// other columns hold fewer entries the further right they are, with empty
// columns among and after them: the shape of a term-document matrix
// ordered by frequency, where one column can outweigh a panel's share.
func heavyCSR(rng *rand.Rand, r, c int) *CSR {
	var ri, ci []int
	var v []float64
	for i := 0; i < r; i++ {
		for j := 0; j < c-2; j++ {
			if j%5 == 3 {
				continue
			}
			if j == 0 || rng.Float64() < 3/float64(j+3) {
				ri, ci, v = append(ri, i), append(ci, j), append(v, rng.Float64()+0.5)
			}
		}
	}
	return mustTriplets(r, c, ri, ci, v)
}

// TestColPanelsMatchReference checks a^T b by panels against the dense
// product, against CSR.MulDenseTo on a.T() (bit for bit wherever the
// gather kernel keeps one accumulator a column: k > 16, or the generic
// path), for 1, 2 and 7 goroutines (bit for bit among them), for panel
// counts from one to more than the columns, on matrices with empty rows
// and columns, heavy columns, rows out of order, no entries at all, and a
// single entry; and that the panels cover the columns in order, none
// empty but a lone one.
func TestColPanelsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	empty, err := FromTriplets(6, 5, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	one, err := FromTriplets(1, 1, []int{0}, []int{0}, []float64{2.5})
	if err != nil {
		t.Fatal(err)
	}
	// Rows whose entries run backwards, as nmfstep.RenumberFeatures leaves
	// them out of order.
	reversed := heavyCSR(rng, 30, 25)
	for i := 0; i < reversed.Rows; i++ {
		ind, val := reversed.Ind[reversed.Indptr[i]:reversed.Indptr[i+1]], reversed.Val[reversed.Indptr[i]:reversed.Indptr[i+1]]
		slices.Reverse(ind)
		slices.Reverse(val)
	}
	mats := map[string]*CSR{
		"reversed": reversed,
		"random":   randomCSR(rng, 40, 33, 0.3),
		"skewed":   skewedCSR(rng, 30, 20),
		"heavy":    heavyCSR(rng, 50, 40),
		"edges":    edgeCSR(rng, 25, 97, 8),
		"empty":    empty,
		"one":      one,
	}
	for name, a := range mats {
		d := toDense(a.T())
		at := a.T()
		for _, parts := range []int{1, 2, 3, 5, 16, 200} {
			p := a.ColPanels(parts)
			what := fmt.Sprintf("%s parts %d", name, parts)
			if p.Panels() < 1 || p.Panels() > max(1, parts) {
				t.Fatalf("%s: %d panels", what, p.Panels())
			}
			if r, c := p.Dims(); r != a.Rows || c != a.Cols {
				t.Fatalf("%s: Dims %d x %d", what, r, c)
			}
			c0, total := 0, 0
			for q, pn := range p.panels {
				n := pn.indptr[a.Rows]
				if pn.c0 != c0 || pn.c1 <= pn.c0 || (n == 0 && p.Panels() > 1) {
					t.Fatalf("%s: panel %d covers %d..%d with %d entries after column %d", what, q, pn.c0, pn.c1, n, c0)
				}
				c0, total = pn.c1, total+n
			}
			if c0 != a.Cols || total != len(a.Ind) {
				t.Fatalf("%s: panels cover %d columns and %d entries, want %d and %d", what, c0, total, a.Cols, len(a.Ind))
			}
			for _, k := range []int{1, 4, 5, 17, 30} {
				b := randomGeneral(rng, a.Rows, k, k+2)
				var first []float64
				for _, threads := range []int{1, 2, 7} {
					const guard = -777.0
					dst := guarded(a.Cols, k, k+1, guard)
					p.MulTransDenseTo(dst, b, threads)
					checkProduct(t, fmt.Sprintf("%s k %d threads %d", what, k, threads), dst, d, b, guard)
					if first == nil {
						first = dst.Data
						continue
					}
					for i := range first {
						if math.Float64bits(first[i]) != math.Float64bits(dst.Data[i]) {
							t.Fatalf("%s k %d: %d threads differ from 1 at %d", what, k, threads, i)
						}
					}
				}
				if k > 16 || asm.Path() == "generic" {
					plain := blas64.General{Rows: a.Cols, Cols: k, Stride: k + 1, Data: append([]float64(nil), first...)}
					at.MulDenseTo(plain, b, 2)
					for i := range first {
						if math.Float64bits(first[i]) != math.Float64bits(plain.Data[i]) {
							t.Fatalf("%s k %d: panels differ from a.T().MulDenseTo at %d", what, k, i)
						}
					}
				}
			}
		}
	}
}

// TestColPanelsCuts checks where the panels fall on a matrix whose columns
// hold 1, 2, ..., 8 entries (36 in all) for 4 parts: cuts after the
// entries reach 9, 18 and 27, the last column (8 entries, nearly a
// share) alone.
func TestColPanelsCuts(t *testing.T) {
	var ri, ci []int
	var v []float64
	for j := range 8 {
		for i := 0; i <= j; i++ {
			ri, ci, v = append(ri, i), append(ci, j), append(v, 1)
		}
	}
	a, err := FromTriplets(8, 8, ri, ci, v)
	if err != nil {
		t.Fatal(err)
	}
	// Cumulative entries 1, 3, 6, 10, 15, 21, 28, 36: cuts after column 3
	// (10 >= 9), 5 (21 >= 18), 6 (28 >= 27) and the last.
	want := [][2]int{{0, 4}, {4, 6}, {6, 7}, {7, 8}}
	p := a.ColPanels(4)
	if p.Panels() != len(want) {
		t.Fatalf("%d panels, want %d", p.Panels(), len(want))
	}
	for q, w := range want {
		if pn := p.panels[q]; pn.c0 != w[0] || pn.c1 != w[1] {
			t.Errorf("panel %d covers %d..%d, want %d..%d", q, pn.c0, pn.c1, w[0], w[1])
		}
	}
}

func TestColPanelsRejectsBadInput(t *testing.T) {
	a := edgeCSR(rand.New(rand.NewPCG(1, 1)), 3, 4, 2)
	mustPanic(t, "parts 0", func() { a.ColPanels(0) })
	p := a.ColPanels(2)
	mustPanic(t, "dimensions", func() {
		p.MulTransDenseTo(blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: make([]float64, 6)}, blas64.General{Rows: 3, Cols: 2, Stride: 2, Data: make([]float64, 6)}, 1)
	})
}
