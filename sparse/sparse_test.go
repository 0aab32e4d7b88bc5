package sparse

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"

	"gonum.org/v1/gonum/blas/blas64"

	"github.com/manifactor/manifactor/internal/asm"
)

// randomCSR returns an r x c matrix with about density*r*c entries, some
// rows and columns left empty, with values in (0, 1].
func randomCSR(rng *rand.Rand, r, c int, density float64) *CSR {
	var ri, ci []int
	var v []float64
	for i := 0; i < r; i++ {
		if i%7 == 3 {
			continue // empty row
		}
		for j := 0; j < c; j++ {
			if j%11 == 5 {
				continue // empty column
			}
			if rng.Float64() < density {
				ri, ci, v = append(ri, i), append(ci, j), append(v, 1-rng.Float64())
			}
		}
	}
	return mustTriplets(r, c, ri, ci, v)
}

// mustTriplets is FromTriplets for test matrices, which are valid.
func mustTriplets(r, c int, ri, ci []int, v []float64) *CSR {
	a, err := FromTriplets(r, c, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a
}

// mustPanic fails t, naming what, unless f panics.
func mustPanic(t *testing.T, what string, f func()) {
	t.Helper()
	defer func() {
		if recover() == nil {
			t.Fatalf("%s: no panic", what)
		}
	}()
	f()
}

func toDense(a *CSR) [][]float64 {
	d := make([][]float64, a.Rows)
	for i := range d {
		d[i] = make([]float64, a.Cols)
		for p := a.Indptr[i]; p < a.Indptr[i+1]; p++ {
			d[i][a.Ind[p]] = a.Val[p]
		}
	}
	return d
}

func randomGeneral(rng *rand.Rand, r, c, stride int) blas64.General {
	g := blas64.General{Rows: r, Cols: c, Stride: stride, Data: make([]float64, r*stride)}
	for i := range g.Data {
		g.Data[i] = rng.Float64()
	}
	return g
}

// guarded returns an r x k matrix with row stride stride, every element
// set to guard, so a test can see what a product wrote past its rows.
func guarded(r, k, stride int, guard float64) blas64.General {
	g := blas64.General{Rows: r, Cols: k, Stride: stride, Data: make([]float64, r*stride)}
	for i := range g.Data {
		g.Data[i] = guard
	}
	return g
}

// denseProduct returns element (i, t) of d * b, d dense row by row, and the
// sum of its terms' magnitudes, the scale for closeRel.
func denseProduct(d [][]float64, b blas64.General, i, t int) (want, scale float64) {
	for j, x := range d[i] {
		want += x * b.Data[j*b.Stride+t]
		scale += math.Abs(x * b.Data[j*b.Stride+t])
	}
	return want, scale
}

// checkProduct fails t, naming what, unless dst (made by guarded with
// guard) holds d * b within rounding and its guard columns are untouched.
func checkProduct(t *testing.T, what string, dst blas64.General, d [][]float64, b blas64.General, guard float64) {
	t.Helper()
	for i := 0; i < dst.Rows; i++ {
		for t2 := 0; t2 < dst.Cols; t2++ {
			want, scale := denseProduct(d, b, i, t2)
			if got := dst.Data[i*dst.Stride+t2]; !closeRel(got, want, scale) {
				t.Fatalf("%s: A*B (%d,%d) = %v, want %v", what, i, t2, got, want)
			}
		}
		for t2 := dst.Cols; t2 < dst.Stride; t2++ {
			if dst.Data[i*dst.Stride+t2] != guard {
				t.Fatalf("%s: wrote past row %d", what, i)
			}
		}
	}
}

func closeRel(a, b, scale float64) bool {
	return math.Abs(a-b) <= 1e-12*math.Max(1, scale)
}

func TestFromTripletsSumsDuplicatesAndSorts(t *testing.T) {
	a, err := FromTriplets(3, 4, []int{2, 0, 2, 0, 2}, []int{3, 1, 0, 1, 3}, []float64{1, 2, 3, 4, 5})
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	want := [][]float64{{0, 6, 0, 0}, {0, 0, 0, 0}, {3, 0, 0, 6}}
	got := toDense(a)
	for i := range want {
		for j := range want[i] {
			if got[i][j] != want[i][j] || a.At(i, j) != want[i][j] {
				t.Fatalf("(%d,%d) = %v, At %v, want %v", i, j, got[i][j], a.At(i, j), want[i][j])
			}
		}
	}
	if a.NNZ() != 3 {
		t.Fatalf("NNZ = %d, want 3", a.NNZ())
	}
}

func TestValidateErrors(t *testing.T) {
	cases := []struct {
		name string
		a    CSR
		want string
	}{
		{"pointer count", CSR{Rows: 2, Cols: 2, Indptr: []int{0, 0}}, "row pointers"},
		{"first pointer", CSR{Rows: 1, Cols: 2, Indptr: []int{1, 1}, Ind: []int{0}, Val: []float64{1}}, "first row pointer"},
		{"last pointer", CSR{Rows: 1, Cols: 2, Indptr: []int{0, 2}, Ind: []int{0}, Val: []float64{1}}, "last row pointer"},
		{"decreasing", CSR{Rows: 3, Cols: 2, Indptr: []int{0, 1, 0, 1}, Ind: []int{0}, Val: []float64{1}}, "decreases"},
		{"pointer past values", CSR{Rows: 2, Cols: 2, Indptr: []int{0, 2, 1}, Ind: []int{0}, Val: []float64{1}}, "exceeds"},
		{"range", CSR{Rows: 1, Cols: 2, Indptr: []int{0, 1}, Ind: []int{2}, Val: []float64{1}}, "out of range"},
		{"negative index", CSR{Rows: 1, Cols: 2, Indptr: []int{0, 1}, Ind: []int{-1}, Val: []float64{1}}, "out of range"},
		{"unsorted", CSR{Rows: 1, Cols: 3, Indptr: []int{0, 2}, Ind: []int{2, 1}, Val: []float64{1, 1}}, "strictly increasing"},
		{"duplicate", CSR{Rows: 1, Cols: 3, Indptr: []int{0, 2}, Ind: []int{1, 1}, Val: []float64{1, 1}}, "strictly increasing"},
		{"nan", CSR{Rows: 1, Cols: 3, Indptr: []int{0, 1}, Ind: []int{1}, Val: []float64{math.NaN()}}, "not finite"},
		{"inf", CSR{Rows: 1, Cols: 3, Indptr: []int{0, 1}, Ind: []int{1}, Val: []float64{math.Inf(-1)}}, "not finite"},
		{"lengths", CSR{Rows: 1, Cols: 3, Indptr: []int{0, 1}, Ind: []int{1}, Val: []float64{}}, "column indices but"},
	}
	for _, c := range cases {
		err := c.a.Validate()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want error containing %q", c.name, err, c.want)
		}
	}
	if _, err := FromTriplets(2, 2, []int{0}, []int{2}, []float64{1}); err == nil {
		t.Error("FromTriplets accepted an out-of-range column")
	}
	if _, err := FromTriplets(2, 2, []int{0}, []int{1}, []float64{math.NaN()}); err == nil {
		t.Error("FromTriplets accepted NaN")
	}
}

func TestTransposeAndReductions(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	a := randomCSR(rng, 37, 23, 0.2)
	at := a.T()
	if err := at.Validate(); err != nil {
		t.Fatal(err)
	}
	d, dt := toDense(a), toDense(at)
	rs, cs := a.RowSums(), a.ColSums()
	var sq float64
	for i := 0; i < a.Rows; i++ {
		var r float64
		for j := 0; j < a.Cols; j++ {
			if d[i][j] != dt[j][i] {
				t.Fatalf("transpose differs at (%d,%d)", i, j)
			}
			r += d[i][j]
			sq += d[i][j] * d[i][j]
		}
		if !closeRel(r, rs[i], r) {
			t.Fatalf("row sum %d = %v, want %v", i, rs[i], r)
		}
	}
	for j := 0; j < a.Cols; j++ {
		var c float64
		for i := 0; i < a.Rows; i++ {
			c += d[i][j]
		}
		if !closeRel(c, cs[j], c) {
			t.Fatalf("col sum %d = %v, want %v", j, cs[j], c)
		}
	}
	if !closeRel(sq, a.SquaredFrobenius(), sq) {
		t.Fatalf("SquaredFrobenius = %v, want %v", a.SquaredFrobenius(), sq)
	}
	b := a.Clone()
	f := make([]float64, a.Rows)
	for i := range f {
		f[i] = float64(i + 1)
	}
	b.ScaleRows(f)
	g := make([]float64, a.Cols)
	for j := range g {
		g[j] = 0.5 * float64(j)
	}
	b.ScaleCols(g)
	for i := 0; i < a.Rows; i++ {
		for j := 0; j < a.Cols; j++ {
			if want := d[i][j] * f[i] * g[j]; b.At(i, j) != want {
				t.Fatalf("scaled (%d,%d) = %v, want %v", i, j, b.At(i, j), want)
			}
		}
	}
	if a.At(3, 0) != d[3][0] {
		t.Fatal("Clone shares storage with the original")
	}
}

func TestSelect(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	a := randomCSR(rng, 10, 9, 0.4)
	d := toDense(a)
	keep := []int{0, 2, 5, 8}
	c := a.SelectCols(keep)
	r := a.SelectRows([]int{9, 1, 1})
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := r.Validate(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 10; i++ {
		for q, j := range keep {
			if c.At(i, q) != d[i][j] {
				t.Fatalf("SelectCols (%d,%d)", i, q)
			}
		}
	}
	for j := 0; j < 9; j++ {
		if r.At(0, j) != d[9][j] || r.At(1, j) != d[1][j] || r.At(2, j) != d[1][j] {
			t.Fatalf("SelectRows column %d", j)
		}
	}
	nnz := a.ColNNZ()
	for j := 0; j < 9; j++ {
		n := 0
		for i := 0; i < 10; i++ {
			if d[i][j] != 0 {
				n++
			}
		}
		if nnz[j] != n {
			t.Fatalf("ColNNZ[%d] = %d, want %d", j, nnz[j], n)
		}
	}
}

// TestTransposeBlocks: T and TPermuted equal a plain transpose for shapes that give
// one block and several, at 1, 3 and 7 goroutines, with a and its input
// slices unchanged.
func TestTransposeBlocks(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for n, c := range []struct{ r, c int }{{1, 1}, {12, 9}, {255, 3}, {256, 5}, {1000, 7}, {3001, 40}, {3001, 40}, {700, 30}} {
		a := randomCSR(rng, c.r, c.c, 0.4)
		if n >= 6 {
			// Rows by falling length, most entries in the first few (as
			// TByFrequency's result or a Zipf corpus's terms): the
			// blocks, cut by entries, fall among the first rows, and
			// some hold no row.
			a = skewedCSR(rng, c.r, c.c)
		}
		before := a.Clone()
		for _, procs := range []int{1, 3, 7} {
			runtime.GOMAXPROCS(procs)
			b := a.T()
			if err := b.Validate(); err != nil {
				t.Fatal(err)
			}
			if b.Rows != c.c || b.Cols != c.r || b.NNZ() != a.NNZ() {
				t.Fatalf("%dx%d: transpose is %dx%d with %d entries", c.r, c.c, b.Rows, b.Cols, b.NNZ())
			}
			perm := rng.Perm(c.c)
			bp := a.TPermuted(perm)
			if err := bp.Validate(); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < c.r; i++ {
				for j := 0; j < c.c; j++ {
					if b.At(j, i) != a.At(i, j) || bp.At(perm[j], i) != a.At(i, j) {
						t.Fatalf("%dx%d, %d procs: (%d,%d) moved wrongly", c.r, c.c, procs, i, j)
					}
				}
			}
		}
		if !slices.Equal(a.Ind, before.Ind) || !slices.Equal(a.Val, before.Val) || !slices.Equal(a.Indptr, before.Indptr) {
			t.Fatal("T changed its input")
		}
	}
}

// skewedCSR returns an r x c matrix (r >= 3) whose first row is full,
// whose rows then hold fewer and fewer entries, and whose last rows are
// empty.
func skewedCSR(rng *rand.Rand, r, c int) *CSR {
	var ri, ci []int
	var v []float64
	for i := 0; i < r-2; i++ {
		for j := 0; j < c; j++ {
			if i == 0 || rng.Float64() < 8/float64(i+8) {
				ri, ci, v = append(ri, i), append(ci, j), append(v, rng.Float64()+0.5)
			}
		}
	}
	return mustTriplets(r, c, ri, ci, v)
}

// TestValidateFirstError checks that Validate, which checks chunks of rows
// in parallel, names the first bad row whatever the thread count.
func TestValidateFirstError(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	r := 3*validateRows + 17
	for _, bad := range [][]int{{0}, {validateRows - 1, validateRows}, {2*validateRows + 5, validateRows + 1}, {r - 1}} {
		a := randomCSR(rng, r, 20, 0.2)
		first := r
		for _, i := range bad {
			for a.Indptr[i] == a.Indptr[i+1] {
				i++ // an empty row holds nothing to break
			}
			a.Val[a.Indptr[i]] = math.NaN()
			first = min(first, i)
		}
		want := fmt.Sprintf("row %d, column", first+1)
		for _, procs := range []int{1, 2, 7} {
			runtime.GOMAXPROCS(procs)
			if err := a.Validate(); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("NaN in rows %v, %d procs: got %v, want %q", bad, procs, err, want)
			}
		}
	}
}

// TestScan checks Scan's Stats against serial loops, with negative values
// on both sides of its chunks' edges: the first negative entry exactly,
// the sum of squares as the chunks' serial sums added in order, the same
// for any number of threads; and that -0 is not negative.
func TestScan(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(7, 8))
	r := 3*validateRows + 17
	a := randomCSR(rng, r, 30, 0.2)
	for _, rows := range [][]int{nil, {0}, {validateRows - 1, validateRows}, {2*validateRows + 5, validateRows + 1}, {r - 1}} {
		b := a.Clone()
		for _, i := range rows {
			for b.Indptr[i] == b.Indptr[i+1] {
				i++
			}
			b.Val[b.Indptr[i+1]-1] = -0.5
		}
		b.Val[0] = math.Copysign(0, -1)
		want := -1
		for p, v := range b.Val {
			if v < 0 {
				want = p
				break
			}
		}
		var sum float64
		for lo := 0; lo < r; lo += validateRows {
			var c float64
			for _, v := range b.Val[b.Indptr[lo]:b.Indptr[min(lo+validateRows, r)]] {
				c += v * v
			}
			sum += c
		}
		for _, procs := range []int{1, 2, 7} {
			runtime.GOMAXPROCS(procs)
			st, err := b.Scan()
			if err != nil || st.FirstNegative != want || st.SumSquares != sum {
				t.Errorf("negative in rows %v, %d procs: %+v, %v; want first negative %d, sum of squares %v", rows, procs, st, err, want, sum)
			}
			if !closeRel(st.SumSquares, b.SquaredFrobenius(), sum) {
				t.Errorf("sum of squares %v, SquaredFrobenius %v", st.SumSquares, b.SquaredFrobenius())
			}
		}
	}
	bad := a.Clone()
	bad.Val[len(bad.Val)/2] = math.Inf(1)
	if st, err := bad.Scan(); err == nil || st != (Stats{}) {
		t.Errorf("Inf: %+v, %v; want zero Stats and an error", st, err)
	}
}

// TestScanKinds checks Scan's Fraction and NonCount against serial loops
// over matrices of whole counts with one value that is not (a fraction,
// a value below 1, a negative whole number) at each side of the scan's
// chunk edges, for several thread counts.
func TestScanKinds(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(3, 4))
	r := 2*validateRows + 9
	a := randomCSR(rng, r, 20, 0.3)
	for p := range a.Val {
		a.Val[p] = float64(1 + rng.IntN(4))
	}
	edges := []int{0, a.Indptr[validateRows] - 1, a.Indptr[validateRows], a.NNZ() - 1}
	for _, x := range []float64{0, 2.5, 0.25, -3, 7} {
		for _, at := range edges {
			b := a.Clone()
			b.Val[at] = x
			var frac, nonCount bool
			for _, v := range b.Val {
				frac = frac || v != math.Trunc(v)
				nonCount = nonCount || (v != 0 && v < 1)
			}
			if x == 0.25 && !(frac && nonCount) || x == 7 && (frac || nonCount) {
				t.Fatalf("the serial loop misreads %v", x)
			}
			for _, procs := range []int{1, 2, 5} {
				runtime.GOMAXPROCS(procs)
				st, err := b.Scan()
				if err != nil || st.Fraction != frac || st.NonCount != nonCount {
					t.Errorf("%v at %d, %d procs: %+v, %v; want Fraction %v, NonCount %v", x, at, procs, st, err, frac, nonCount)
				}
			}
		}
	}
}

// TestFirst checks First and RowOf against a serial search, with bad
// entries on both sides of First's chunk edges.
func TestFirst(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	rng := rand.New(rand.NewPCG(5, 6))
	a := randomCSR(rng, 2000, 100, 0.9) // about 3 chunks of entries
	for _, at := range [][]int{nil, {0}, {firstEntries - 1, firstEntries}, {2*firstEntries + 1, firstEntries + 3}, {a.NNZ() - 1}} {
		b := a.Clone()
		for _, p := range at {
			b.Val[p] = -1
		}
		want, wantRow := -1, -1
		for i := 0; i < b.Rows && want < 0; i++ {
			for p := b.Indptr[i]; p < b.Indptr[i+1]; p++ {
				if b.Val[p] < 0 {
					want, wantRow = p, i
					break
				}
			}
		}
		for _, procs := range []int{1, 3} {
			runtime.GOMAXPROCS(procs)
			p, found := b.First(func(v float64) bool { return v < 0 })
			if found != (want >= 0) || (found && (p != want || b.RowOf(p) != wantRow)) {
				t.Errorf("bad at %v, %d procs: First gave %d %v, want %d (row %d)", at, procs, p, found, want, wantRow)
			}
		}
	}
}

// TestProductsMatchDenseReference checks both products against a plain
// triple loop over the dense form, for shapes around the chunk size, with
// strided operands, guard values past each row, and unchanged inputs.
func TestProductsMatchDenseReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, shape := range [][3]int{{0, 5, 3}, {1, 1, 1}, {5, 0, 2}, {13, 7, 1}, {63, 40, 4}, {64, 65, 9}, {65, 64, 30}, {200, 150, 17}} {
		r, c, k := shape[0], shape[1], shape[2]
		a := randomCSR(rng, r, c, 0.15)
		d := toDense(a)
		b := randomGeneral(rng, c, k, k+3)
		bt := randomGeneral(rng, r, k, k+1)
		bCopy := append([]float64(nil), b.Data...)
		const guard = -12345.0
		for _, threads := range []int{1, 2, 3, 8} {
			dst := guarded(r, k, k+2, guard)
			a.MulDenseTo(dst, b, threads)
			checkProduct(t, fmt.Sprintf("%v threads %d: MulDenseTo", shape, threads), dst, d, b, guard)
			dt := blas64.General{Rows: c, Cols: k, Stride: k + 1, Data: make([]float64, c*(k+1))}
			for i := range dt.Data {
				dt.Data[i] = guard
			}
			a.MulTransDenseTo(dt, bt, threads)
			for j := 0; j < c; j++ {
				for t2 := 0; t2 < k; t2++ {
					var want, scale float64
					for i := 0; i < r; i++ {
						want += d[i][j] * bt.Data[i*bt.Stride+t2]
						scale += math.Abs(d[i][j] * bt.Data[i*bt.Stride+t2])
					}
					if got := dt.Data[j*dt.Stride+t2]; !closeRel(got, want, scale) {
						t.Fatalf("%v threads %d: A^T*B (%d,%d) = %v, want %v", shape, threads, j, t2, got, want)
					}
				}
				if k < dt.Stride && dt.Data[j*dt.Stride+k] != guard {
					t.Fatalf("%v: MulTransDenseTo wrote past row %d", shape, j)
				}
			}
		}
		for i := range bCopy {
			if b.Data[i] != bCopy[i] {
				t.Fatal("MulDenseTo modified its dense operand")
			}
		}
	}
}

// TestProductsIdenticalForAnyThreadCount requires bit-for-bit equality.
func TestProductsIdenticalForAnyThreadCount(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	a := randomCSR(rng, 700, 500, 0.05)
	b := randomGeneral(rng, 500, 30, 30)
	bt := randomGeneral(rng, 700, 30, 30)
	var ref, reft []float64
	for _, threads := range []int{1, 2, 3, 5, 16} {
		dst := blas64.General{Rows: 700, Cols: 30, Stride: 30, Data: make([]float64, 700*30)}
		a.MulDenseTo(dst, b, threads)
		dt := blas64.General{Rows: 500, Cols: 30, Stride: 30, Data: make([]float64, 500*30)}
		a.MulTransDenseTo(dt, bt, threads)
		if ref == nil {
			ref, reft = dst.Data, dt.Data
			continue
		}
		for i := range ref {
			if dst.Data[i] != ref[i] {
				t.Fatalf("threads %d: A*B element %d differs from 1 thread", threads, i)
			}
		}
		for i := range reft {
			if dt.Data[i] != reft[i] {
				t.Fatalf("threads %d: A^T*B element %d differs from 1 thread", threads, i)
			}
		}
	}
}

// TestSampledToEveryKernelPath compares the sampled product with the dense
// reference at every kernel path this CPU runs, for k across the kernels'
// block widths, with strided operands.
func TestSampledToEveryKernelPath(t *testing.T) {
	defer asm.Use("auto")
	rng := rand.New(rand.NewPCG(21, 22))
	s := randomCSR(rng, 57, 43, 0.2)
	for _, path := range asm.Available() {
		if err := asm.Use(path); err != nil {
			t.Fatal(err)
		}
		for _, k := range []int{1, 3, 4, 7, 16, 17, 30, 33} {
			a := randomGeneral(rng, 57, k, k+2)
			b := randomGeneral(rng, 43, k, k+5)
			for _, threads := range []int{1, 3} {
				dst := make([]float64, s.NNZ())
				s.SampledTo(dst, a, b, threads)
				for i := 0; i < s.Rows; i++ {
					for p := s.Indptr[i]; p < s.Indptr[i+1]; p++ {
						j := s.Ind[p]
						var want, scale float64
						for c := 0; c < k; c++ {
							want += a.Data[i*a.Stride+c] * b.Data[j*b.Stride+c]
							scale += math.Abs(a.Data[i*a.Stride+c] * b.Data[j*b.Stride+c])
						}
						if !closeRel(dst[p], want, scale) {
							t.Fatalf("%s k=%d: entry (%d,%d) = %v, want %v", path, k, i, j, dst[p], want)
						}
					}
				}
			}
		}
	}
}

// TestTransposeBanded checks the banded fill of T and TPermuted (more than
// transposeBand columns) against transposes built from triplets, for
// matrices with entries on and beside the band edges, empty rows, rows
// with no entry in some bands, and one to several row blocks.
func TestTransposeBanded(t *testing.T) {
	if testenv.Race {
		t.Skip("large transposes; their concurrency is the other transpose tests'")
	}
	rng := rand.New(rand.NewPCG(15, 16))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		r, c    int
		density float64
	}{{1, transposeBand + 1, 0.5}, {2, 2*transposeBand + 3, 0.01}, {50, transposeBand + 1, 0.05}, {3000, 2*transposeBand + 7, 0.003}} {
		var ri, ci []int
		var v []float64
		for i := 0; i < c.r; i++ {
			if i%5 == 4 {
				continue // empty row
			}
			for j := 0; j < c.c; j++ {
				edge := j%transposeBand == 0 || j%transposeBand == transposeBand-1 || j%transposeBand == 1
				if (edge && i%3 == 0) || rng.Float64() < c.density {
					ri, ci, v = append(ri, i), append(ci, j), append(v, rng.NormFloat64())
				}
			}
		}
		a, err := FromTriplets(c.r, c.c, ri, ci, v)
		if err != nil {
			t.Fatal(err)
		}
		perm := rng.Perm(c.c)
		pi := make([]int, len(ci))
		for p, j := range ci {
			pi[p] = perm[j]
		}
		want, _ := FromTriplets(c.c, c.r, ci, ri, v)
		wantP, _ := FromTriplets(c.c, c.r, pi, ri, v)
		for _, procs := range []int{1, 2, 7} {
			runtime.GOMAXPROCS(procs)
			for name, pair := range map[string][2]*CSR{"T": {a.T(), want}, "TPermuted": {a.TPermuted(perm), wantP}} {
				got, w := pair[0], pair[1]
				if !slices.Equal(got.Indptr, w.Indptr) || !slices.Equal(got.Ind, w.Ind) || !slices.Equal(got.Val, w.Val) {
					t.Fatalf("%dx%d, %d procs: %s differs from the triplet transpose", c.r, c.c, procs, name)
				}
			}
		}
	}
}

// TestTByFrequency: the transpose's rows are a's columns by falling count
// of entries, ties in column order, each row the column it names.
func TestTByFrequency(t *testing.T) {
	// Columns 0..4 hold 1, 3, 0, 3 and 2 entries.
	a, err := FromTriplets(3, 5, []int{0, 0, 1, 1, 1, 2, 2, 2, 0}, []int{1, 3, 1, 3, 4, 1, 3, 4, 0}, []float64{1, 2, 3, 4, 5, 6, 7, 8, 9})
	if err != nil {
		t.Fatal(err)
	}
	at, order := a.TByFrequency()
	if want := []int{1, 3, 4, 0, 2}; !slices.Equal(order, want) {
		t.Fatalf("order %v, want %v", order, want)
	}
	for r, j := range order {
		for i := 0; i < a.Rows; i++ {
			if at.At(r, i) != a.At(i, j) {
				t.Fatalf("row %d (column %d) entry %d: %v, want %v", r, j, i, at.At(r, i), a.At(i, j))
			}
		}
	}
	if err := at.Validate(); err != nil {
		t.Fatal(err)
	}
}

// TestRowSliceAndEqual: a slice of rows holds those rows, shares their
// storage, and compares equal to a copy of them; Equal sees a changed
// value, index or shape, and takes nil and empty alike.
func TestRowSliceAndEqual(t *testing.T) {
	a, err := FromTriplets(4, 3, []int{0, 0, 2, 3}, []int{0, 2, 1, 2}, []float64{1, 2, 3, 4})
	if err != nil {
		t.Fatal(err)
	}
	for lo := 0; lo <= 4; lo++ {
		for hi := lo; hi <= 4; hi++ {
			keep := make([]int, hi-lo)
			for q := range keep {
				keep[q] = lo + q
			}
			s := a.RowSlice(lo, hi)
			if err := s.Validate(); err != nil {
				t.Fatalf("rows %d..%d: %v", lo, hi, err)
			}
			if !s.Equal(a.SelectRows(keep)) {
				t.Fatalf("rows %d..%d differ from SelectRows'", lo, hi)
			}
		}
	}
	s := a.RowSlice(2, 4)
	s.Val[0] = 9
	if a.Val[2] != 9 {
		t.Fatal("RowSlice copied the values")
	}
	b := a.Clone()
	if !a.Equal(b) {
		t.Fatal("a clone is not equal")
	}
	b.Ind[1] = 1
	if a.Equal(b) {
		t.Fatal("a changed index went unseen")
	}
	if !(&CSR{Rows: 1, Cols: 2, Indptr: []int{0, 0}}).Equal(&CSR{Rows: 1, Cols: 2, Indptr: []int{0, 0}, Ind: []int{}, Val: []float64{}}) {
		t.Fatal("nil and empty differ")
	}
}

// TestTTo checks TTo against T: into arrays with room (which it keeps),
// into arrays too short and into none (which it replaces), and its refusal
// of a's own storage.
func TestTTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, c := range []struct{ r, c int }{{1, 1}, {40, 9}, {700, 30}} {
		a := randomCSR(rng, c.r, c.c, 0.4)
		want := a.T()
		roomy := &CSR{Indptr: make([]int, c.c+5), Ind: make([]int, a.NNZ()+3), Val: make([]float64, a.NNZ()+3)}
		for i := range roomy.Ind {
			roomy.Ind[i], roomy.Val[i] = -7, math.NaN() // garbage to overwrite
		}
		for i := range roomy.Indptr {
			roomy.Indptr[i] = 99
		}
		ind, val := &roomy.Ind[0], &roomy.Val[0]
		for _, dst := range []*CSR{roomy, {Ind: make([]int, 1)}, {}} {
			a.TTo(dst)
			if !dst.Equal(want) || dst.Rows != want.Rows || dst.Cols != want.Cols {
				t.Fatalf("%dx%d: TTo differs from T", c.r, c.c)
			}
		}
		if &roomy.Ind[0] != ind || &roomy.Val[0] != val {
			t.Errorf("%dx%d: TTo replaced arrays that had room", c.r, c.c)
		}
	}
	a := randomCSR(rng, 30, 30, 0.5)
	defer func() {
		if recover() == nil {
			t.Error("TTo into a's own storage did not panic")
		}
	}()
	a.TTo(a)
}

// TestColNNZParts: with entries enough for several parts (1 << 20 each),
// ColNNZ's per-goroutine counts add up to a plain count.
func TestColNNZParts(t *testing.T) {
	const rows, cols = 1 << 14, 1000 // about 3 million entries
	rng := rand.New(rand.NewPCG(4, 4))
	a := &CSR{Rows: rows, Cols: cols, Indptr: make([]int, rows+1)}
	want := make([]int, cols)
	for i := 0; i < rows; i++ {
		for j := rng.IntN(5); j < cols; j += 1 + rng.IntN(9) {
			a.Ind = append(a.Ind, j)
			a.Val = append(a.Val, 1)
			want[j]++
		}
		a.Indptr[i+1] = len(a.Ind)
	}
	if len(a.Ind) < 2<<20 {
		t.Fatalf("only %d entries: one part", len(a.Ind))
	}
	if got := a.ColNNZ(); !slices.Equal(got, want) {
		t.Fatal("ColNNZ differs from a plain count")
	}
}
