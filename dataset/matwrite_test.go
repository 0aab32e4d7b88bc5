package dataset

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/sparsetest"
	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/sparse"
)

// csrEqual reports whether a and b store the same entries.
func csrEqual(a, b *sparse.CSR) bool {
	return a.Rows == b.Rows && a.Cols == b.Cols && slices.Equal(a.Indptr, b.Indptr) && slices.Equal(a.Ind, b.Ind) &&
		slices.EqualFunc(a.Val, b.Val, func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) })
}

// matVarCSR returns the sparse variable v as the rows x cols CSR it holds.
func matVarCSR(v *matVar) *sparse.CSR {
	return (&sparse.CSR{Rows: v.Cols, Cols: v.Rows, Indptr: v.Jc, Ind: v.Ir, Val: v.Pr}).T()
}

func TestWriteMATRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var dense []*mat.Dense
	for _, dims := range [][2]int{{1, 1}, {3, 4}, {4, 3}, {1, 7}, {7, 1}, {60, 33}, {300, 40}} {
		a := mat.NewDense(dims[0], dims[1], nil)
		for i := 0; i < dims[0]; i++ {
			for j := 0; j < dims[1]; j++ {
				a.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(40)-20)))
			}
		}
		dense = append(dense, a)
	}
	dense[0].Set(0, 0, math.Copysign(0, -1))
	dense[1].Set(2, 3, math.MaxFloat64)
	dense[1].Set(0, 1, math.SmallestNonzeroFloat64)
	sparses := []*sparse.CSR{
		sparsetest.RandomCSR(rng, 5, 8, 0.3),
		sparsetest.RandomCSR(rng, 40, 3, 0.5),
		sparsetest.RandomCSR(rng, 1, 1, 1),
		{Rows: 3, Cols: 4, Indptr: make([]int, 4)}, // all zero
		sparsetest.RandomCSR(rng, 200, 150, 0.02),
	}
	for _, uncompressed := range []bool{false, true} {
		var vars []MATWriteVar
		for k, a := range dense {
			vars = append(vars, MATWriteVar{Name: "d" + string(rune('a'+k)), Dense: a, Uncompressed: uncompressed})
		}
		for k, a := range sparses {
			vars = append(vars, MATWriteVar{Name: "s" + string(rune('a'+k)), Sparse: a, Uncompressed: uncompressed})
		}
		// Strings between the numbers are skipped by the reader.
		vars = slices.Insert(vars, 3, MATWriteVar{Name: "vocab", Strings: []string{"alpha", "", "größe", "\xff"}, Uncompressed: uncompressed})
		vars = append(vars, MATWriteVar{Name: "nothing", Strings: []string{}, Uncompressed: uncompressed})
		// A transposed view has no raw data: it goes through At.
		vars = append(vars, MATWriteVar{Name: "tview", Dense: dense[1].T(), Uncompressed: uncompressed})
		var buf bytes.Buffer
		if err := WriteMAT(&buf, vars...); err != nil {
			t.Fatal(err)
		}
		b := buf.Bytes()
		if len(b) < 128 || !strings.HasPrefix(string(b), "MATLAB 5.0 MAT-file") || string(b[124:128]) != "\x00\x01IM" {
			t.Fatalf("bad header %q", b[:min(len(b), 128)])
		}
		got, err := readMAT(bytes.NewReader(b), "rt.mat")
		if err != nil {
			t.Fatalf("uncompressed=%v: %v", uncompressed, err)
		}
		if len(got) != len(dense)+len(sparses)+1 {
			t.Errorf("uncompressed=%v: read %d variables, want %d", uncompressed, len(got), len(dense)+len(sparses)+1)
		}
		for k, a := range append(dense, mat.DenseCopyOf(dense[1].T())) {
			name := "d" + string(rune('a'+k))
			if k == len(dense) {
				name = "tview"
			}
			v := got[name]
			if v == nil || v.Sparse || v.Class != "double" {
				t.Errorf("%s: got %+v", name, v)
				continue
			}
			r, c := a.Dims()
			// Data is column-major: the row-major data of the transpose.
			if !mat.Equal(mat.NewDense(c, r, v.Data).T(), a) || math.Float64bits(v.Data[0]) != math.Float64bits(a.At(0, 0)) {
				t.Errorf("%s (uncompressed=%v): values differ", name, uncompressed)
			}
		}
		for k, a := range sparses {
			name := "s" + string(rune('a'+k))
			v := got[name]
			if v == nil || !v.Sparse {
				t.Errorf("%s: got %+v", name, v)
				continue
			}
			if !csrEqual(matVarCSR(v), a) {
				t.Errorf("%s (uncompressed=%v): got %+v, want %+v", name, uncompressed, matVarCSR(v), a)
			}
		}
		_, err = readMAT(bytes.NewReader(b), "rt.mat", "vocab")
		testenv.WantErr(t, err, `variable "vocab" is a cell array`)
	}
}

func TestWriteMATDataset(t *testing.T) {
	for _, d := range both(t, 3, 4, fixtureFea, fixtureLabels) {
		gnd := mat.NewDense(3, 1, nil)
		for i, l := range d.Labels {
			gnd.Set(i, 0, float64(l))
		}
		v := MATWriteVar{Name: "fea", Sparse: d.Sparse}
		if d.Dense != nil {
			v = MATWriteVar{Name: "fea", Dense: d.Dense}
		}
		var buf bytes.Buffer
		if err := WriteMAT(&buf, v, MATWriteVar{Name: "gnd", Dense: gnd}, MATWriteVar{Name: "vocabulary", Strings: []string{"a", "b", "c", "d"}}); err != nil {
			t.Fatal(err)
		}
		got, err := readMATDataset(bytes.NewReader(buf.Bytes()), "rt.mat", int64(buf.Len()), LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(got.Labels, d.Labels) {
			t.Errorf("labels %v, want %v", got.Labels, d.Labels)
		}
		if d.Sparse != nil {
			if got.Sparse == nil || !csrEqual(got.Sparse, d.Sparse) {
				t.Errorf("sparse: got %+v, want %+v", got.Sparse, d.Sparse)
			}
		} else if got.Dense == nil || !mat.Equal(got.Dense, d.Dense) {
			t.Errorf("dense: got %v, want %v", got.Dense, d.Dense)
		}
	}
}

// matCellStrings decodes an uncompressed little-endian file that holds
// one cell array of char row vectors stored as miUTF8, checking each
// element's layout as it goes.
func matCellStrings(t *testing.T, b []byte) (name string, rows, cols int, cells []string) {
	t.Helper()
	le := binary.LittleEndian
	pos := 128
	elem := func(want uint32) []byte {
		t.Helper()
		typ, n := le.Uint32(b[pos:]), int(le.Uint32(b[pos+4:]))
		if typ != want {
			t.Fatalf("byte %d: element type %d, want %d", pos, typ, want)
		}
		data := b[pos+8 : pos+8+n]
		pos += 8 + n
		if want != miMATRIX {
			pos += int(padding(int64(n)))
		}
		return data
	}
	head := func(wantClass byte) (string, int, int) {
		t.Helper()
		if fl := elem(miUINT32); fl[0] != wantClass {
			t.Fatalf("class %d, want %d", fl[0], wantClass)
		}
		dims := elem(miINT32)
		return string(elem(miINT8)), int(le.Uint32(dims)), int(le.Uint32(dims[4:]))
	}
	body := elem(miMATRIX)
	end := pos
	pos -= len(body)
	name, rows, cols = head(mxCELL)
	for pos < end {
		sub := elem(miMATRIX)
		subEnd := pos
		pos -= len(sub)
		cname, r, c := head(mxCHAR)
		text := elem(miUTF8)
		if cname != "" || r*c != len([]rune(string(text))) || r > 1 || pos != subEnd {
			t.Fatalf("cell %d: name %q, %d x %d for %q, ends at %d, want %d", len(cells), cname, r, c, text, pos, subEnd)
		}
		cells = append(cells, string(text))
	}
	if pos != len(b) {
		t.Fatalf("%d bytes after the variable", len(b)-pos)
	}
	return name, rows, cols, cells
}

func TestWriteMATStrings(t *testing.T) {
	in := []string{"alpha", "", "größe", "𝄞x", "bad\xffbyte", "eight ch"}
	var buf bytes.Buffer
	if err := WriteMAT(&buf, MATWriteVar{Name: "vocab", Strings: in, Uncompressed: true}); err != nil {
		t.Fatal(err)
	}
	name, rows, cols, cells := matCellStrings(t, buf.Bytes())
	want := slices.Clone(in)
	want[4] = "bad\ufffdbyte"
	if name != "vocab" || rows != len(in) || cols != 1 || !slices.Equal(cells, want) {
		t.Errorf("got %q %d x %d %q, want %q", name, rows, cols, cells, want)
	}
}

// failWriter fails after n bytes.
type failWriter struct{ n int }

func (w *failWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(b)
	return len(b), nil
}

// hugeMatrix is a matrix too large for a MAT-file, of zeros it never
// stores.
type hugeMatrix struct{ r, c int }

func (m hugeMatrix) Dims() (int, int)        { return m.r, m.c }
func (m hugeMatrix) At(i, j int) float64     { return 0 }
func (m hugeMatrix) T() mat.Matrix           { return hugeMatrix{m.c, m.r} }
func (m hugeMatrix) String() string          { return "huge" }
func (m hugeMatrix) Set(i, j int, x float64) {}

func TestWriteMATErrors(t *testing.T) {
	a := mat.NewDense(2, 2, []float64{1, 2, 3, 4})
	bad := &sparse.CSR{Rows: 1, Cols: 2, Indptr: []int{0, 2}, Ind: []int{1, 0}, Val: []float64{1, 2}}
	cases := []struct {
		vars []MATWriteVar
		want string
	}{
		{[]MATWriteVar{{Name: "", Dense: a}}, `variable 1: name "" is not a MATLAB name`},
		{[]MATWriteVar{{Name: "a", Dense: a}, {Name: "1a", Dense: a}}, `variable 2: name "1a" is not a MATLAB name`},
		{[]MATWriteVar{{Name: "_a", Dense: a}}, `name "_a"`},
		{[]MATWriteVar{{Name: "a-b", Dense: a}}, `name "a-b"`},
		{[]MATWriteVar{{Name: strings.Repeat("x", 64), Dense: a}}, "is not a MATLAB name"},
		{[]MATWriteVar{{Name: "a", Dense: a}, {Name: "a", Dense: a}}, `dataset: WriteMAT: variable "a" appears twice`},
		{[]MATWriteVar{{Name: "a"}}, `variable "a": set exactly one of Dense, Sparse and Strings (0 are set)`},
		{[]MATWriteVar{{Name: "a", Dense: a, Strings: []string{}}}, "(2 are set)"},
		{[]MATWriteVar{{Name: "a", Dense: mat.NewDense(1, 2, []float64{1, math.Inf(1)})}}, `variable "a": value +Inf at row 1, column 2 (1-based) is not finite`},
		{[]MATWriteVar{{Name: "s", Sparse: bad}}, `variable "s": sparse: row 1: columns not strictly increasing`},
		{[]MATWriteVar{{Name: "h", Dense: hugeMatrix{70000, 70000}}}, `variable "h" needs 39200000056 bytes, more than a level-5 MAT-file element holds`},
		{[]MATWriteVar{{Name: "h", Dense: hugeMatrix{1 << 31, 1}}}, `variable "h": 2147483648 x 1 exceeds the MAT-file limit`},
	}
	for _, tc := range cases {
		var buf bytes.Buffer
		err := WriteMAT(&buf, tc.vars...)
		testenv.WantErr(t, err, "dataset: WriteMAT: ", tc.want)
		if buf.Len() != 0 {
			t.Errorf("%q: wrote %d bytes before the error", tc.want, buf.Len())
		}
	}
	// Random values do not compress: the writes reach the failing writer.
	rng := rand.New(rand.NewPCG(3, 4))
	x := mat.NewDense(20, 20, nil)
	for i := 0; i < 20; i++ {
		for j := 0; j < 20; j++ {
			x.Set(i, j, rng.Float64())
		}
	}
	for _, n := range []int{0, 100, 130, 200} {
		for _, unc := range []bool{false, true} {
			err := WriteMAT(&failWriter{n}, MATWriteVar{Name: "x", Dense: x, Uncompressed: unc})
			testenv.WantErr(t, err, "disk full")
		}
	}
}
