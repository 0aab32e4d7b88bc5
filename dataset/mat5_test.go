package dataset

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/testenv"
)

// writers lists every way the fixtures are written.
func writers() []matWriter {
	var ws []matWriter
	for _, bo := range []byteOrder{binary.LittleEndian, binary.BigEndian} {
		for _, compress := range []bool{false, true} {
			for _, small := range []bool{false, true} {
				ws = append(ws, matWriter{bo: bo, compress: compress, small: small})
			}
		}
	}
	return ws
}

func (w matWriter) String() string {
	return fmt.Sprintf("%v/compress=%v/small=%v", w.bo, w.compress, w.small)
}

func readMATBytes(b []byte, want ...string) (map[string]*matVar, error) {
	return readMAT(bytes.NewReader(b), "test.mat", want...)
}

func TestReadMATNumericClasses(t *testing.T) {
	signed := []float64{0, 1, -2, 100, -128, 127}
	unsigned := []float64{0, 1, 2, 100, 200, 255}
	cases := []struct {
		class uint32
		flags uint32
		typ   uint32
		name  string
		data  []float64
	}{
		{mxDOUBLE, 0, miDOUBLE, "double", []float64{0, 1.5, -2.25, 1e300, -1e-300, 3}},
		{7, 0, miSINGLE, "single", []float64{0, 1.5, -2.25, 1 << 100, -0.125, 3}},
		{8, 0, miINT8, "int8", signed},
		{9, 0, miUINT8, "uint8", unsigned},
		{10, 0, miINT16, "int16", []float64{0, 1, -2, 30000, -32768, 32767}},
		{11, 0, miUINT16, "uint16", []float64{0, 1, 2, 30000, 65535, 7}},
		{12, 0, miINT32, "int32", []float64{0, 1, -2, 1 << 30, -1 << 31, 1<<31 - 1}},
		{13, 0, miUINT32, "uint32", []float64{0, 1, 2, 1 << 31, 1<<32 - 1, 7}},
		{14, 0, miINT64, "int64", []float64{0, 1, -2, 1 << 52, -1 << 62, 7}},
		{15, 0, miUINT64, "uint64", []float64{0, 1, 2, 1 << 52, 1 << 63, 7}},
		{9, flagLogical, miUINT8, "logical", []float64{0, 1, 1, 0, 1, 0}},
		// MATLAB stores doubles in the smallest type that holds them.
		{mxDOUBLE, 0, miUINT8, "double", unsigned},
		{mxDOUBLE, 0, miINT8, "double", signed},
		{mxDOUBLE, 0, miINT16, "double", signed},
		{mxDOUBLE, 0, miUINT16, "double", unsigned},
		{mxDOUBLE, 0, miINT32, "double", signed},
		{mxDOUBLE, 0, miUINT32, "double", unsigned},
		{mxDOUBLE, 0, miINT64, "double", signed},
		{mxDOUBLE, 0, miUINT64, "double", unsigned},
		{mxDOUBLE, 0, miSINGLE, "double", []float64{0.5, 1, -2}},
	}
	for _, w := range writers() {
		for _, c := range cases {
			rows := 2
			if len(c.data)%2 != 0 {
				rows = 1
			}
			cols := len(c.data) / rows
			v := mvar{name: "x", class: c.class, flags: c.flags, dims: []int32{int32(rows), int32(cols)}, typ: c.typ, data: c.data}
			vars, err := readMATBytes(w.file(v))
			if err != nil {
				t.Fatalf("%v, %s as %s: %v", w, c.name, typeName(c.typ), err)
			}
			got := vars["x"]
			want := &matVar{Name: "x", Class: c.name, Rows: rows, Cols: cols, Data: c.data}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%v, %s as %s: got %+v, want %+v", w, c.name, typeName(c.typ), got, want)
			}
		}
	}
}

func TestReadMATSmallElements(t *testing.T) {
	// A 1 x 1 uint8 value and a short name both fit in small elements.
	w := matWriter{bo: binary.LittleEndian, small: true}
	b := w.file(mvar{name: "k", class: 9, dims: []int32{1, 1}, typ: miUINT8, data: []float64{7}})
	if len(b) != 128+8+16+16+8+8 {
		t.Fatalf("fixture has %d bytes; small elements not used", len(b))
	}
	vars, err := readMATBytes(b)
	if err != nil {
		t.Fatal(err)
	}
	if v := vars["k"]; v == nil || v.Data[0] != 7 {
		t.Fatalf("got %+v", v)
	}
}

func TestReadMATSparse(t *testing.T) {
	dense := []float64{ // 4 x 3, column-major
		1, 0, 0, 2,
		0, 0, 0, 0,
		0, 3.5, -4, 0,
	}
	for _, w := range writers() {
		v := sparseVar("s", 4, 3, dense)
		vars, err := readMATBytes(w.file(v))
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		want := &matVar{Name: "s", Class: "double", Rows: 4, Cols: 3, Sparse: true,
			Jc: []int{0, 2, 2, 4}, Ir: []int{0, 3, 1, 2}, Pr: []float64{1, 2, 3.5, -4}}
		if got := vars["s"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%v: got %+v, want %+v", w, got, want)
		}

		// nzmax larger than nnz: ir and pr carry unused tails.
		v2 := v
		v2.ir = append(append([]int32(nil), v.ir...), 0, 0)
		v2.data = append(append([]float64(nil), v.data...), 0, 0)
		v2.nzmax = 6
		vars, err = readMATBytes(w.file(v2))
		if err != nil {
			t.Fatalf("%v, nzmax > nnz: %v", w, err)
		}
		if got := vars["s"]; !reflect.DeepEqual(got, want) {
			t.Errorf("%v, nzmax > nnz: got %+v, want %+v", w, got, want)
		}

		// Logical sparse, with uint8 values and without any.
		lv := sparseVar("l", 4, 3, []float64{1, 0, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0})
		lv.flags, lv.typ = flagLogical, miUINT8
		nopr := lv
		nopr.name, nopr.nopr = "n", true
		vars, err = readMATBytes(w.file(lv, nopr))
		if err != nil {
			t.Fatalf("%v, logical: %v", w, err)
		}
		for _, name := range []string{"l", "n"} {
			got := vars[name]
			wantL := &matVar{Name: name, Class: "logical", Rows: 4, Cols: 3, Sparse: true,
				Jc: []int{0, 2, 2, 4}, Ir: []int{0, 3, 1, 2}, Pr: []float64{1, 1, 1, 1}}
			if !reflect.DeepEqual(got, wantL) {
				t.Errorf("%v, logical %s: got %+v, want %+v", w, name, got, wantL)
			}
		}
	}
}

func TestReadMATIndexTypes(t *testing.T) {
	want := &matVar{Name: "s", Class: "double", Rows: 4, Cols: 3, Sparse: true,
		Jc: []int{0, 2, 2, 4}, Ir: []int{0, 3, 1, 2}, Pr: []float64{1, 2, 3.5, -4}}
	for _, w := range writers() {
		for _, typ := range []uint32{miINT8, miUINT8, miINT16, miUINT16, miINT32, miUINT32, miINT64, miUINT64} {
			v := sparseVar("s", 4, 3, []float64{1, 0, 0, 2, 0, 0, 0, 0, 0, 3.5, -4, 0})
			v.idxTyp = typ
			vars, err := readMATBytes(w.file(v))
			if err != nil {
				t.Fatalf("%v, indices as %s: %v", w, typeName(typ), err)
			}
			if got := vars["s"]; !reflect.DeepEqual(got, want) {
				t.Errorf("%v, indices as %s: got %+v, want %+v", w, typeName(typ), got, want)
			}
			if typ == miUINT8 || typ == miUINT16 || typ == miUINT32 || typ == miUINT64 {
				continue
			}
			v.ir = []int32{0, -3, 1, 2}
			_, err = readMATBytes(w.file(v))
			testenv.WantErr(t, err, "test.mat", "row indices (ir)", "value -3 at position 2", "negative")
		}
		v := sparseVar("s", 4, 3, []float64{1, 0, 0, 2, 0, 0, 0, 0, 0, 3.5, -4, 0})
		v.idxTyp = miSINGLE
		_, err := readMATBytes(w.file(v))
		testenv.WantErr(t, err, "test.mat", "row indices (ir) stored as miSINGLE")
	}
	// An unsigned 64-bit index past the int range.
	b := binary.LittleEndian.AppendUint64(binary.LittleEndian.AppendUint64(nil, 7), math.MaxUint64)
	dst := make([]int, 2)
	if pos, bad := decodeInts(dst, b, miUINT64, binary.LittleEndian); pos != 1 || bad != "18446744073709551615" {
		t.Errorf("decodeInts: position %d, value %q", pos, bad)
	}
}

func TestReadMATSkipsOtherKinds(t *testing.T) {
	for _, w := range writers() {
		x := denseVar("x", 1, 2, miDOUBLE, []float64{1, 2})
		b := w.file(
			w.charVar("title", "hello"),
			w.cellVar("c", denseVar("", 1, 1, miDOUBLE, []float64{3}), w.charVar("", "ab")),
			x,
			w.structVar("st", "field", denseVar("", 1, 1, miDOUBLE, []float64{4})),
			denseVar("y", 1, 1, miDOUBLE, []float64{5}),
		)
		vars, err := readMATBytes(b)
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		if len(vars) != 2 || vars["x"] == nil || vars["y"] == nil || vars["y"].Data[0] != 5 {
			t.Errorf("%v: got %v, want x and y", w, vars)
		}
		// Only what is wanted is returned.
		vars, err = readMATBytes(b, "y", "absent")
		if err != nil {
			t.Fatalf("%v: %v", w, err)
		}
		if len(vars) != 1 || vars["y"] == nil {
			t.Errorf("%v: want y only, got %v", w, vars)
		}
		// A wanted variable of an unsupported kind is an error.
		_, err = readMATBytes(b, "c")
		testenv.WantErr(t, err, "test.mat", `"c" is a cell array`)
	}
}

// datasetFixture writes a 3 x 4 data set (fea) with labels (gnd) in every
// form a loader must accept, and the dense matrix it holds.
var fixtureFea = []float64{ // 3 samples x 4 features, row-major
	1, 0, 2, 0,
	0, 0, 3, 4,
	5, 0, 0, 6,
}

var fixtureLabels = []int{2, 1, 2}

// colMajor returns the column-major data of the r x c row-major a, or of
// its transpose (c x r) when transpose is set.
func colMajor(a []float64, r, c int, transpose bool) []float64 {
	out := make([]float64, 0, r*c)
	if transpose {
		// Column-major c x r is row-major r x c.
		return append(out, a...)
	}
	for j := 0; j < c; j++ {
		for i := 0; i < r; i++ {
			out = append(out, a[i*c+j])
		}
	}
	return out
}

func fixtureMAT(w matWriter, sparseFea, transpose, labelsAsRow bool) []byte {
	rows, cols := 3, 4
	if transpose {
		rows, cols = 4, 3
	}
	data := colMajor(fixtureFea, 3, 4, transpose)
	fea := denseVar("fea", rows, cols, miDOUBLE, data)
	if sparseFea {
		fea = sparseVar("fea", rows, cols, data)
	}
	lab := make([]float64, len(fixtureLabels))
	for k, l := range fixtureLabels {
		lab[k] = float64(l)
	}
	gnd := denseVar("gnd", 3, 1, miUINT8, lab)
	if labelsAsRow {
		gnd.dims = []int32{1, 3}
	}
	return w.file(gnd, w.charVar("note", "fixture"), fea)
}

func loadMATBytes(b []byte, opt LoadOptions) (*Dataset, error) {
	return readMATDataset(bytes.NewReader(b), "test.mat", int64(len(b)), opt)
}

// denseOf returns the row-major values of a data set.
func denseOf(d *Dataset) []float64 {
	n, m := d.Dims()
	out := make([]float64, n*m)
	if d.Sparse != nil {
		for i := 0; i < n; i++ {
			for p := d.Sparse.Indptr[i]; p < d.Sparse.Indptr[i+1]; p++ {
				out[i*m+d.Sparse.Ind[p]] = d.Sparse.Val[p]
			}
		}
		return out
	}
	for i := 0; i < n; i++ {
		copy(out[i*m:], d.Dense.RawRowView(i))
	}
	return out
}

func TestLoadMATFixtures(t *testing.T) {
	for _, w := range writers() {
		for _, sp := range []bool{false, true} {
			for _, tr := range []bool{false, true} {
				for _, row := range []bool{false, true} {
					name := fmt.Sprintf("%v/sparse=%v/transpose=%v/row=%v", w, sp, tr, row)
					d, err := loadMATBytes(fixtureMAT(w, sp, tr, row), LoadOptions{Transpose: tr})
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if err := d.Validate(); err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					if (d.Sparse != nil) != sp {
						t.Errorf("%s: sparse %v", name, d.Sparse != nil)
					}
					if n, m := d.Dims(); n != 3 || m != 4 {
						t.Errorf("%s: dims %d x %d, want 3 x 4", name, n, m)
					}
					if got := denseOf(d); !reflect.DeepEqual(got, fixtureFea) {
						t.Errorf("%s: data %v, want %v", name, got, fixtureFea)
					}
					if !reflect.DeepEqual(d.Labels, fixtureLabels) {
						t.Errorf("%s: labels %v, want %v", name, d.Labels, fixtureLabels)
					}
				}
			}
		}
	}
}

func TestLoadMATVariables(t *testing.T) {
	w := matWriter{bo: binary.LittleEndian, compress: true}
	b := w.file(denseVar("X", 2, 2, miDOUBLE, []float64{1, 2, 3, 4}), denseVar("y", 2, 1, miDOUBLE, []float64{1, 2}))
	d, err := loadMATBytes(b, LoadOptions{Var: "X", LabelVar: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Labels, []int{1, 2}) || !reflect.DeepEqual(denseOf(d), []float64{1, 3, 2, 4}) {
		t.Errorf("got %v, labels %v", denseOf(d), d.Labels)
	}
	// No gnd: no labels, no error.
	d, err = loadMATBytes(b, LoadOptions{Var: "X"})
	if err != nil || d.Labels != nil {
		t.Errorf("without gnd: %v, labels %v", err, d.Labels)
	}
	_, err = loadMATBytes(b, LoadOptions{})
	testenv.WantErr(t, err, "test.mat", `no numeric variable "fea"`, "X, y")
	// Sparse labels (with a zero label left out of the storage).
	sb := w.file(denseVar("fea", 3, 1, miDOUBLE, []float64{1, 2, 3}), sparseVar("gnd", 1, 3, []float64{4, 0, 5}))
	d, err = loadMATBytes(sb, LoadOptions{})
	if err != nil || !reflect.DeepEqual(d.Labels, []int{4, 0, 5}) {
		t.Errorf("sparse labels: %v, %v", err, d.Labels)
	}
	_, err = loadMATBytes(b, LoadOptions{Var: "X", LabelVar: "z"})
	testenv.WantErr(t, err, "test.mat", `"z"`)
}

func TestLoadMATLabelErrors(t *testing.T) {
	w := matWriter{bo: binary.LittleEndian}
	fea := denseVar("fea", 3, 1, miDOUBLE, []float64{1, 2, 3})
	cases := []struct {
		gnd  mvar
		want []string
	}{
		{denseVar("gnd", 2, 1, miDOUBLE, []float64{1, 2}), []string{"test.mat", `"gnd"`, "2 values", "3 samples"}},
		{denseVar("gnd", 1, 4, miDOUBLE, []float64{1, 2, 3, 4}), []string{"4 values", "3 samples"}},
		{denseVar("gnd", 3, 1, miDOUBLE, []float64{1, 2.5, 3}), []string{"test.mat", "element 2", "2.5", "not an integer"}},
		{denseVar("gnd", 3, 2, miDOUBLE, []float64{1, 2, 3, 1, 2, 3}), []string{"3 x 2 matrix"}},
	}
	for _, c := range cases {
		_, err := loadMATBytes(w.file(fea, c.gnd), LoadOptions{})
		testenv.WantErr(t, err, c.want...)
	}
}

// corrupt returns a copy of b with fn applied.
func corrupt(b []byte, fn func([]byte)) []byte {
	c := append([]byte(nil), b...)
	fn(c)
	return c
}

func TestReadMATBadInput(t *testing.T) {
	le := matWriter{bo: binary.LittleEndian}
	good := le.file(denseVar("x", 2, 2, miDOUBLE, []float64{1, 2, 3, 4}))
	// Offsets in good: header 128, matrix tag 128, flags 136 (data 144),
	// dims 152 (data 160), name 168 (data 176), pr tag 184, pr data 192.
	sp := sparseVar("s", 3, 2, []float64{1, 0, 2, 0, 3, 0})
	cases := []struct {
		name string
		b    []byte
		want []string
	}{
		{"empty", nil, []string{"test.mat", "not a MATLAB level-5 MAT-file"}},
		{"text", []byte(strings.Repeat("hello world\n", 20)), []string{"test.mat", "endian indicator"}},
		{"version", corrupt(good, func(b []byte) { b[125] = 0 }), []string{"test.mat", "version"}},
		// A little-endian header labelled big-endian.
		{"byte order", corrupt(good, func(b []byte) { b[126], b[127] = 'M', 'I' }), []string{"test.mat", "version 0x0001", "does not match the byte order"}},
		{"v7.3", corrupt(good, func(b []byte) { copy(b, "MATLAB 7.3 MAT-file"); b[124], b[125] = 0, 2 }), []string{"test.mat", "7.3", "HDF5"}},
		{"top-level type", corrupt(good, func(b []byte) { b[128] = 99 }), []string{"test.mat", "byte 128", "unknown (99)"}},
		{"element past end", corrupt(good, func(b []byte) { b[132] = 0xff }), []string{"test.mat", "byte 128", "claims"}},
		{"flags type", corrupt(good, func(b []byte) { b[136] = miDOUBLE }), []string{"test.mat", "byte 136", "array flags"}},
		{"complex", le.file(mvar{name: "x", class: mxDOUBLE, flags: flagComplex, dims: []int32{1, 1}, typ: miDOUBLE, data: []float64{1}, imag: []float64{2}}),
			[]string{"test.mat", `"x"`, "complex not supported"}},
		{"3-D", le.file(mvar{name: "x", class: mxDOUBLE, dims: []int32{1, 2, 2}, typ: miDOUBLE, data: []float64{1, 2, 3, 4}}),
			[]string{"test.mat", `"x"`, "3 dimensions", "only 2-D"}},
		{"negative dim", corrupt(good, func(b []byte) { b[163] = 0x80 }), []string{"test.mat", "dimensions", "negative"}},
		{"data size", corrupt(good, func(b []byte) { b[160] = 3 }), []string{"test.mat", "byte 184", "want 6 values"}},
		{"data type", corrupt(good, func(b []byte) { b[184] = miUTF8 }), []string{"test.mat", "byte 184", "unsupported data type miUTF8"}},
		{"NaN", le.file(denseVar("x", 2, 2, miDOUBLE, []float64{1, 2, math.NaN(), 4})), []string{"test.mat", `"x"`, "row 1, column 2", "NaN"}},
		{"Inf", le.file(denseVar("x", 2, 2, miSINGLE, []float64{1, math.Inf(-1), 3, 4})), []string{"test.mat", "row 2, column 1", "-Inf"}},
		{"duplicate", le.file(denseVar("x", 1, 1, miDOUBLE, []float64{1}), denseVar("x", 1, 1, miDOUBLE, []float64{1})), []string{"test.mat", `"x" appears twice`}},
		{"ir out of range", le.file(func() mvar { v := sp; v.ir = []int32{0, 3, 1}; return v }()), []string{"test.mat", "column 1", "row index 4 out of range [1,3]"}},
		{"ir unsorted", le.file(func() mvar { v := sp; v.ir = []int32{2, 0, 1}; return v }()), []string{"test.mat", "column 1", "not strictly increasing"}},
		{"ir duplicate", le.file(func() mvar { v := sp; v.ir = []int32{0, 0, 1}; return v }()), []string{"test.mat", "not strictly increasing"}},
		{"jc decreasing", le.file(func() mvar { v := sp; v.jc = []int32{0, 2, 1}; return v }()), []string{"test.mat", "decrease"}},
		{"jc first", le.file(func() mvar { v := sp; v.jc = []int32{1, 2, 3}; return v }()), []string{"test.mat", "first column pointer"}},
		{"jc past ir", le.file(func() mvar { v := sp; v.jc = []int32{0, 2, 9}; return v }()), []string{"test.mat", "only 3 row indices"}},
		{"jc count", le.file(func() mvar { v := sp; v.jc = []int32{0, 3}; return v }()), []string{"test.mat", "column pointers", "want 3 values"}},
		{"sparse NaN", le.file(func() mvar { v := sp; v.data = []float64{1, math.NaN(), 3}; return v }()), []string{"test.mat", "row 3, column 1", "NaN"}},
		{"pr missing", le.file(func() mvar { v := sp; v.nopr = true; return v }()), []string{"test.mat", "missing values"}},
		{"pr short", le.file(func() mvar { v := sp; v.data = v.data[:2]; return v }()), []string{"test.mat", "want 3 values"}},
	}
	for _, c := range cases {
		_, err := readMATBytes(c.b)
		testenv.WantErr(t, err, c.want...)
	}
}

func TestReadMATBadZlib(t *testing.T) {
	w := matWriter{bo: binary.LittleEndian, compress: true}
	good := w.file(denseVar("x", 2, 2, miDOUBLE, []float64{1, 2, 3, 4}))
	_, err := readMATBytes(corrupt(good, func(b []byte) { b[136] ^= 0xff }))
	testenv.WantErr(t, err, "test.mat", "byte 128", "zlib")
	// Damage inside the deflate data or its checksum.
	for k := 138; k < len(good); k++ {
		_, err := readMATBytes(corrupt(good, func(b []byte) { b[k] ^= 0x55 }))
		if err != nil && !strings.HasPrefix(err.Error(), "test.mat: ") {
			t.Errorf("byte %d damaged: error %q does not start with the file name", k, err)
		}
	}
	_, err = readMATBytes(corrupt(good, func(b []byte) { b[len(b)-1] ^= 0x55 }))
	testenv.WantErr(t, err, "test.mat", "compressed element at byte 128", "bad zlib stream")
}

// TestReadMATTruncated cuts fixtures at every byte: each cut must give an
// error naming the file (the variable fea comes last, so no cut leaves a
// complete data set).
func TestReadMATTruncated(t *testing.T) {
	for _, w := range writers() {
		for _, sp := range []bool{false, true} {
			b := fixtureMAT(w, sp, false, false)
			for cut := 0; cut < len(b); cut++ {
				_, err := loadMATBytes(b[:cut], LoadOptions{})
				if err == nil {
					t.Fatalf("%v sparse=%v: cut at %d of %d: no error", w, sp, cut, len(b))
				}
				if !strings.HasPrefix(err.Error(), "test.mat: ") {
					t.Fatalf("%v: cut at %d: error %q does not start with the file name", w, cut, err)
				}
				// The same through a reader of unknown size.
				_, err = readMATDataset(struct{ *bytes.Reader }{bytes.NewReader(b[:cut])}, "test.mat", -1, LoadOptions{})
				if err == nil || !strings.HasPrefix(err.Error(), "test.mat: ") {
					t.Fatalf("%v: cut at %d, unknown size: error %v", w, cut, err)
				}
			}
		}
	}
}

func TestReadMATHugeClaims(t *testing.T) {
	for _, w := range writers() {
		cases := []struct {
			name string
			v    mvar
			want string
		}{
			{"dense dims", denseVar("x", 100000, 100000, miDOUBLE, []float64{1}), "exceeds the limit"},
			{"dense data", denseVar("x", 30000, 30000, miDOUBLE, []float64{1}), "want 900000000 values"},
			{"sparse rows", func() mvar { v := sparseVar("x", 1, 1, []float64{1}); v.dims[0] = 2000000000; return v }(), "implausible"},
			{"dimension", func() mvar { v := denseVar("x", 1, 1, miDOUBLE, []float64{1}); v.dims = []int32{-1, 1}; return v }(), "negative"},
		}
		for _, c := range cases {
			b := w.file(c.v)
			var err error
			n := testenv.Allocated(func() { _, err = loadMATBytes(b, LoadOptions{Var: "x"}) })
			testenv.WantErr(t, err, "test.mat", c.want)
			if n > 1<<20 {
				t.Errorf("%v, %s: %d bytes allocated before rejecting", w, c.name, n)
			}
		}
	}

	// A claimed element size beyond the file, with and without a known size.
	w := matWriter{bo: binary.LittleEndian}
	b := corrupt(w.file(denseVar("x", 1, 1, miDOUBLE, []float64{1})), func(b []byte) {
		binary.LittleEndian.PutUint32(b[132:], 0xfffffff0)
	})
	var err error
	n := testenv.Allocated(func() {
		_, err = readMATDataset(struct{ *bytes.Reader }{bytes.NewReader(b)}, "test.mat", -1, LoadOptions{Var: "x"})
	})
	testenv.WantErr(t, err, "test.mat")
	if n > 1<<20 {
		t.Errorf("%d bytes allocated for a huge element claim", n)
	}
	_, err = readMATBytes(b)
	testenv.WantErr(t, err, "test.mat", "byte 128", "claims 4294967280 bytes")
}

// TestReadMATDecompressionLimit checks that a compressed element cannot
// expand past the global limit, nor past what its size allows.
func TestReadMATDecompressionLimit(t *testing.T) {
	defer func(old int64) { maxDecodedBytes = old }(maxDecodedBytes)
	maxDecodedBytes = 4096
	w := matWriter{bo: binary.LittleEndian, compress: true}
	big := make([]float64, 1000) // 8000 bytes of zeros, compressing well
	_, err := readMATBytes(w.file(denseVar("x", 10, 100, miDOUBLE, big)))
	testenv.WantErr(t, err, "test.mat", "compressed element at byte 128", "claims")
	maxDecodedBytes = 1 << 20
	if _, err := readMATBytes(w.file(denseVar("x", 10, 100, miDOUBLE, big))); err != nil {
		t.Fatal(err)
	}
	// An inner element claiming far more than its compressed size can
	// expand to.
	inner := w.matrix(denseVar("x", 1, 1, miDOUBLE, []float64{1}))
	binary.LittleEndian.PutUint32(inner[4:], 1<<19)
	_, err = readMATBytes(append(w.header(), w.compressed(inner)...))
	testenv.WantErr(t, err, "test.mat", "compressed element at byte 128", "claims 524288 bytes")
}
