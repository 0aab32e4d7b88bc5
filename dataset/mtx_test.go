package dataset

import (
	"bytes"
	"compress/gzip"
	"context"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

func readMTXString(s string) (*sparse.CSR, *mat.Dense, error) {
	return ReadMatrixMarket(strings.NewReader(s), "test.mtx")
}

// randomCSR returns a seeded random rows x cols CSR with awkward values.
func randomCSR(rng *rand.Rand, rows, cols int, density float64) *sparse.CSR {
	var ri, ci []int
	var v []float64
	special := []float64{math.MaxFloat64, -math.SmallestNonzeroFloat64, 1.0 / 3, -0.1, 1e-300, 123456789.123456789, 0}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if rng.Float64() < density {
				x := rng.NormFloat64() * math.Pow(10, float64(rng.IntN(40)-20))
				if rng.IntN(5) == 0 {
					x = special[rng.IntN(len(special))]
				}
				ri, ci, v = append(ri, i), append(ci, j), append(v, x)
			}
		}
	}
	a, err := sparse.FromTriplets(rows, cols, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return a
}

func TestMatrixMarketRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{0, 0}, {1, 1}, {3, 5}, {7, 2}, {40, 30}} {
		a := randomCSR(rng, sz[0], sz[1], 0.3)
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
		var got *Dataset
		if c.dense {
			if d == nil || a != nil {
				t.Errorf("%s: want a dense result", c.name)
				continue
			}
			got = &Dataset{Dense: d}
		} else {
			if a == nil || d != nil {
				t.Errorf("%s: want a sparse result", c.name)
				continue
			}
			if err := a.Validate(); err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			got = &Dataset{Sparse: a}
		}
		if r, cc := got.Dims(); r != c.rows || cc != c.cols {
			t.Errorf("%s: dims %d x %d, want %d x %d", c.name, r, cc, c.rows, c.cols)
			continue
		}
		if v := denseOf(got); !reflect.DeepEqual(v, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, v, c.want)
		}
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
		{"long line", hdr + "1 1 1\n1 1 " + strings.Repeat("1", maxMTXLine+10) + "\n", []string{"test.mtx:3:", "longer than"}},
	}
	for _, c := range cases {
		var err error
		n := allocated(func() { _, _, err = readMTXString(c.text) })
		wantErr(t, err, c.want...)
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
	n := allocated(func() {
		_, _, err = ReadMatrixMarket(io.MultiReader(strings.NewReader(text)), "test.mtx")
	})
	wantErr(t, err, "test.mtx:3:", "1 of the 100000000000 entries")
	if n > 4<<20 {
		t.Errorf("%d bytes allocated", n)
	}
}

// writeFile writes a fixture file in dir.
func writeFile(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func gzipBytes(b []byte) []byte {
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

func TestLoadFiles(t *testing.T) {
	dir := t.TempDir()
	x, _ := sparse.FromTriplets(3, 4, []int{0, 0, 1, 1, 2, 2}, []int{0, 2, 2, 3, 0, 3}, []float64{1, 2, 3, 4, 5, 6})
	var mtx, mtxT, arr bytes.Buffer
	if err := WriteMatrixMarket(&mtx, x); err != nil {
		t.Fatal(err)
	}
	if err := WriteMatrixMarket(&mtxT, x.T()); err != nil {
		t.Fatal(err)
	}
	if err := WriteMatrixMarketDense(&arr, mat.NewDense(3, 4, fixtureFea)); err != nil {
		t.Fatal(err)
	}
	labels := writeFile(t, dir, "labels.txt", []byte("2\n1\n\n2\n"))
	w := matWriter{bo: bigEndian(), compress: true}
	cases := []struct {
		file   string
		data   []byte
		opt    LoadOptions
		sparse bool
	}{
		{"a.mtx", mtx.Bytes(), LoadOptions{Labels: labels}, true},
		{"t.mtx", mtxT.Bytes(), LoadOptions{Labels: labels, Transpose: true}, true},
		{"a.mtx.gz", gzipBytes(mtx.Bytes()), LoadOptions{Labels: labels}, true},
		{"T.MTX.GZ", gzipBytes(mtxT.Bytes()), LoadOptions{Labels: labels, Transpose: true}, true},
		{"d.mtx", arr.Bytes(), LoadOptions{Labels: labels}, false},
		{"a.mat", fixtureMAT(w, true, false, true), LoadOptions{}, true},
		{"t.mat", fixtureMAT(w, false, true, false), LoadOptions{Transpose: true}, false},
		{"l.mat", fixtureMAT(w, false, false, false), LoadOptions{Labels: labels}, false},
	}
	for _, c := range cases {
		path := writeFile(t, dir, c.file, c.data)
		d, err := Load(context.Background(), path, c.opt)
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if err := d.Validate(); err != nil {
			t.Errorf("%s: %v", c.file, err)
		}
		if d.Source != path || (d.Sparse != nil) != c.sparse {
			t.Errorf("%s: source %q, sparse %v", c.file, d.Source, d.Sparse != nil)
		}
		if got := denseOf(d); !reflect.DeepEqual(got, fixtureFea) {
			t.Errorf("%s: data %v, want %v", c.file, got, fixtureFea)
		}
		if !reflect.DeepEqual(d.Labels, fixtureLabels) {
			t.Errorf("%s: labels %v, want %v", c.file, d.Labels, fixtureLabels)
		}
	}

	mtxPath := filepath.Join(dir, "a.mtx")
	bad := []struct {
		path string
		opt  LoadOptions
		want []string
	}{
		{writeFile(t, dir, "x.xlsx", []byte("PK")), LoadOptions{}, []string{"x.xlsx", "unknown data format"}},
		// A missing file whose name has no known extension is missing,
		// not of an unknown format.
		{filepath.Join(dir, "nodata"), LoadOptions{}, []string{"nodata", "no such file"}},
		{filepath.Join(dir, "missing.mat"), LoadOptions{}, []string{"missing.mat"}},
		{mtxPath, LoadOptions{Labels: writeFile(t, dir, "short.txt", []byte("1\n2\n"))}, []string{"short.txt", "2 labels for 3 samples"}},
		{mtxPath, LoadOptions{Labels: writeFile(t, dir, "long.txt", []byte("1\n2\n3\n4\n"))}, []string{"long.txt:4:", "more labels"}},
		{mtxPath, LoadOptions{Labels: writeFile(t, dir, "text.txt", []byte("1\nx\n3\n"))}, []string{"text.txt:2:", `"x"`}},
		{writeFile(t, dir, "bad.mtx.gz", []byte("not gzip")), LoadOptions{}, []string{"bad.mtx.gz", "gzip"}},
		{writeFile(t, dir, "trunc.mtx.gz", gzipBytes(mtx.Bytes())[:40]), LoadOptions{}, []string{"trunc.mtx.gz:"}},
		{writeFile(t, dir, "empty.mtx", []byte("%%MatrixMarket matrix coordinate real general\n0 3 0\n")), LoadOptions{}, []string{"empty.mtx", "empty data set"}},
	}
	for _, c := range bad {
		_, err := Load(context.Background(), c.path, c.opt)
		wantErr(t, err, c.want...)
	}
}

// TestMatrixMarketRepeatsNoted: a data file's repeated positions are
// added, as the format's readers do, and the data set says how many, so
// that they are not added silently; a symmetric file's mirrored entries
// are not repeats.
func TestMatrixMarketRepeatsNoted(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name, text string
		notes      int
	}{
		{"repeats.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 4\n1 1 1.5\n2 3 2\n1 1 0.5\n2 3 1\n", 1},
		{"symmetric.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n3 2 4\n", 0},
	} {
		d, err := Load(context.Background(), writeFile(t, dir, c.name, []byte(c.text)), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, n := range d.Notes {
			if strings.Contains(n, "repeat a position") {
				got = append(got, n)
			}
		}
		if len(got) != c.notes || (c.notes > 0 && !strings.Contains(got[0], "2 entries repeat")) {
			t.Errorf("%s: notes %q", c.name, d.Notes)
		}
	}
}
