package matrixio

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/sparsetest"
	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/sparse"
)

func readMTXString(s string) (*sparse.CSR, *mat.Dense, error) {
	return ReadMatrixMarket(strings.NewReader(s), "test.mtx")
}

func TestMatrixMarketRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {3, 5}, {7, 2}, {40, 30}} {
		a := sparsetest.RandomCSR(rng, sz[0], sz[1], 0.3)
		var buf bytes.Buffer
		if err := WriteMatrixMarket(&buf, a); err != nil {
			t.Fatal(err)
		}
		b, dense, err := ReadMatrixMarket(bytes.NewReader(buf.Bytes()), "rt.mtx")
		if err != nil {
			t.Fatalf("%v: %v\n%s", sz, err, buf.String())
		}
		if dense != nil || !reflect.DeepEqual(a, b) {
			t.Errorf("%v: round trip changed the matrix:\n%+v\n%+v", sz, a, b)
		}

		if sz[0] == 0 {
			continue
		}
		d := mat.NewDense(sz[0], sz[1], nil)
		for k := range d.RawMatrix().Data {
			d.RawMatrix().Data[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(600)-300))
		}
		buf.Reset()
		if err := WriteMatrixMarketDense(&buf, d); err != nil {
			t.Fatal(err)
		}
		sp, d2, err := ReadMatrixMarket(bytes.NewReader(buf.Bytes()), "rt.mtx")
		if err != nil || sp != nil {
			t.Fatalf("%v: dense: %v", sz, err)
		}
		if !mat.Equal(d, d2) {
			t.Errorf("%v: dense round trip changed the matrix", sz)
		}
	}
}

func TestWriteMatrixMarketFormat(t *testing.T) {
	a, _ := sparse.FromTriplets(2, 3, []int{0, 1}, []int{2, 0}, []float64{0.1, -2})
	var buf bytes.Buffer
	if err := WriteMatrixMarket(&buf, a); err != nil {
		t.Fatal(err)
	}
	want := "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 3 0.1\n2 1 -2\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	buf.Reset()
	if err := WriteMatrixMarketDense(&buf, mat.NewDense(2, 2, []float64{1, 2, 3, 4})); err != nil {
		t.Fatal(err)
	}
	want = "%%MatrixMarket matrix array real general\n2 2\n1\n3\n2\n4\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
	a.Val[0] = math.NaN()
	if err := WriteMatrixMarket(&buf, a); err == nil {
		t.Error("NaN written without error")
	}
	if err := WriteMatrixMarketDense(&buf, mat.NewDense(1, 1, []float64{math.Inf(1)})); err == nil {
		t.Error("Inf written without error")
	}
}

func TestReadMatrixMarketErrors(t *testing.T) {
	const hdr = "%%MatrixMarket matrix coordinate real general\n"
	cases := []struct {
		name, text string
		want       []string
	}{
		{"empty", "", []string{"test.mtx:1:", "empty file"}},
		{"not mtx", "hello\n", []string{"test.mtx:1:", "not a Matrix Market file", `"hello"`}},
		{"short header", "%%MatrixMarket matrix coordinate\n", []string{"test.mtx:1:", "header"}},
		{"vector", "%%MatrixMarket vector coordinate real general\n", []string{"test.mtx:1:", `"vector"`}},
		{"complex", "%%MatrixMarket matrix coordinate complex general\n", []string{"test.mtx:1:", "complex not supported"}},
		{"hermitian", "%%MatrixMarket matrix coordinate real hermitian\n", []string{"test.mtx:1:", `"hermitian"`}},
		{"format", "%%MatrixMarket matrix sparse real general\n1 1 1\n", []string{"test.mtx:1:", `"sparse"`}},
		{"array pattern", "%%MatrixMarket matrix array pattern general\n1 1\n", []string{"test.mtx:1:", "pattern"}},
		{"array symmetric", "%%MatrixMarket matrix array real symmetric\n1 1\n1\n", []string{"test.mtx:1:", "symmetric"}},
		{"no size", hdr + "% only comments\n", []string{"test.mtx:2:", "before the size line"}},
		{"size fields", hdr + "2 2\n", []string{"test.mtx:2:", "size line", `"2 2"`}},
		{"size value", hdr + "2 x 1\n", []string{"test.mtx:2:", `"x"`}},
		{"size negative", hdr + "-2 2 1\n", []string{"test.mtx:2:", `"-2"`}},
		{"huge rows", hdr + "1000000000000 2 1\n1 1 1\n", []string{"test.mtx:2:", "1000000000000 rows", "implausible"}},
		{"huge nnz", hdr + "10 10 1000000000000\n1 1 1\n", []string{"test.mtx:2:", "1000000000000 entries", "only"}},
		{"symmetric not square", "%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n", []string{"test.mtx:2:", "square"}},
		{"row range", hdr + "2 2 1\n3 1 1\n", []string{"test.mtx:3:", `"3 1 1"`, "row index", "[1,2]"}},
		{"row zero", hdr + "2 2 1\n0 1 1\n", []string{"test.mtx:3:", "row index"}},
		{"column range", hdr + "2 2 2\n1 1 1\n% c\n1 5 1\n", []string{"test.mtx:5:", `"1 5 1"`, "column index", "[1,2]"}},
		{"fractional index", hdr + "2 2 1\n1.5 1 1\n", []string{"test.mtx:3:", `row index "1.5" is not a whole number from 1 to 2`}},
		{"negative index", hdr + "2 2 1\n1 -1 1\n", []string{"test.mtx:3:", `column index "-1" is not a whole number from 1 to 2`}},
		{"fields", hdr + "2 2 1\n1 1\n", []string{"test.mtx:3:", "want 3 fields"}},
		{"value", hdr + "2 2 1\n1 1 abc\n", []string{"test.mtx:3:", `"abc"`, "not a number"}},
		{"NaN", hdr + "2 2 1\n1 1 NaN\n", []string{"test.mtx:3:", `"NaN"`, "not finite"}},
		{"Inf", hdr + "2 2 1\n1 1 -inf\n", []string{"test.mtx:3:", `"-inf"`, "not finite"}},
		{"overflow", hdr + "2 2 1\n1 1 1e999\n", []string{"test.mtx:3:", `"1e999"`, "out of range"}},
		{"integer", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 1.5\n", []string{"test.mtx:3:", `"1.5"`, "not an integer"}},
		{"too many", hdr + "2 2 1\n1 1 1\n2 2 2\n", []string{"test.mtx:4:", "more entries than the 1"}},
		{"too few", hdr + "2 2 3\n1 1 1\n2 2 2\n", []string{"test.mtx:4:", "2 of the 3 entries"}},
		{"upper triangle", "%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", []string{"test.mtx:3:", "above the diagonal"}},
		{"skew diagonal", "%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", []string{"test.mtx:3:", "skew"}},
		{"array short", "%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n", []string{"test.mtx:5:", "3 of the 2 x 2 values"}},
		{"array long", "%%MatrixMarket matrix array real general\n1 2\n1\n2\n3\n", []string{"test.mtx:5:", `"3"`, "more values"}},
		{"array empty", "%%MatrixMarket matrix array real general\n0 2\n", []string{"test.mtx:2:", "empty"}},
		{"array huge", "%%MatrixMarket matrix array real general\n100000 100000\n1\n", []string{"test.mtx:2:", "exceeds the limit"}},
		{"array claims", "%%MatrixMarket matrix array real general\n100 100\n1\n", []string{"test.mtx:2:", "only"}},
		{"long line", hdr + "1 1 1\n1 1 " + strings.Repeat("1", MaxMTXLine+10) + "\n", []string{"test.mtx:3:", "longer than"}},
	}
	for _, c := range cases {
		var err error
		n := testenv.Allocated(func() { _, _, err = readMTXString(c.text) })
		testenv.WantErr(t, err, c.want...)
		if n > 1<<20 {
			t.Errorf("%s: %d bytes allocated", c.name, n)
		}
	}
}

// TestReadMatrixMarketUnknownSize checks that the claims of a stream of
// unknown size are bounded by the entries actually present.
func TestReadMatrixMarketUnknownSize(t *testing.T) {
	text := "%%MatrixMarket matrix coordinate real general\n1000000000000 1000000000000 100000000000\n1 1 1\n"
	var err error
	n := testenv.Allocated(func() {
		_, _, err = ReadMatrixMarket(io.MultiReader(strings.NewReader(text)), "test.mtx")
	})
	testenv.WantErr(t, err, "test.mtx:3:", "1 of the 100000000000 entries")
	if n > 4<<20 {
		t.Errorf("%d bytes allocated", n)
	}
}

func TestReadMatrixMarketVariants(t *testing.T) {
	cases := []struct {
		name, text string
		want       []float64 // row-major
		rows, cols int
		dense      bool
	}{
		{"general with comments and duplicates", `%%MatrixMarket matrix coordinate real general
% a comment
%

2 3 4
1 1 1.5
2 3 -2e0
1 1 0.5
  1   2	7
`, []float64{2, 7, 0, 0, 0, -2}, 2, 3, false},
		{"symmetric", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n3 2 4\n",
			[]float64{1, 0, 2, 0, 0, 4, 2, 4, 0}, 3, 3, false},
		{"skew", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n",
			[]float64{0, -3, 3, 0}, 2, 2, false},
		{"pattern symmetric", "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n",
			[]float64{1, 1, 1, 0}, 2, 2, false},
		{"integer, CRLF, upper-case header", "%%MatrixMarket MATRIX Coordinate INTEGER General\r\n2 2 1\r\n2 2 -7\r\n",
			[]float64{0, 0, 0, -7}, 2, 2, false},
		{"array", "%%MatrixMarket matrix array real general\n% column-major\n2 3\n1\n2\n3\n4\n5\n6\n",
			[]float64{1, 3, 5, 2, 4, 6}, 2, 3, true},
		{"array integer, several per line", "%%MatrixMarket matrix array integer general\n2 2\n1 2\n3 4\n",
			[]float64{1, 3, 2, 4}, 2, 2, true},
		{"no final newline", "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 5", []float64{5}, 1, 1, false},
	}
	for _, c := range cases {
		a, d, err := readMTXString(c.text)
		if err != nil {
			t.Errorf("%s: %v", c.name, err)
			continue
		}
		var got *mat.Dense
		if c.dense {
			if d == nil || a != nil {
				t.Errorf("%s: want a dense result", c.name)
				continue
			}
			got = d
		} else {
			if a == nil || d != nil {
				t.Errorf("%s: want a sparse result", c.name)
				continue
			}
			if err := a.Validate(); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			got = a.ToDense()
		}
		if r, cc := got.Dims(); r != c.rows || cc != c.cols {
			t.Errorf("%s: dims %d x %d, want %d x %d", c.name, r, cc, c.rows, c.cols)
			continue
		}
		if v := got.RawMatrix().Data; !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, v, c.want)
		}
	}
}
