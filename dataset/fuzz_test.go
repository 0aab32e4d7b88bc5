package dataset

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/sparse"
)

// lowerLimits makes the size limits small for fuzzing, so that inputs that
// pass every check still cannot make the fuzzer allocate gigabytes.
func lowerLimits(f *testing.F) {
	old := [...]int64{maxDecodedBytes, matrixio.MaxDenseElements, matrixio.MaxEmptyDim}
	maxDecodedBytes, matrixio.MaxDenseElements, matrixio.MaxEmptyDim = 1<<22, 1<<16, 1<<12
	f.Cleanup(func() { maxDecodedBytes, matrixio.MaxDenseElements, matrixio.MaxEmptyDim = old[0], old[1], old[2] })
}

// checkMATVar reports how v breaks the guarantees of ReadMAT.
func checkMATVar(t *testing.T, v *matVar) {
	t.Helper()
	if v.Rows < 0 || v.Cols < 0 || v.Class == "" {
		t.Fatalf("%q: bad header %+v", v.Name, v)
	}
	if !v.Sparse {
		if len(v.Data) != v.Rows*v.Cols {
			t.Fatalf("%q: %d values for %d x %d", v.Name, len(v.Data), v.Rows, v.Cols)
		}
		for _, x := range v.Data {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				t.Fatalf("%q: value %v", v.Name, x)
			}
		}
		return
	}
	if len(v.Ir) != len(v.Pr) {
		t.Fatalf("%q: %d row indices, %d values", v.Name, len(v.Ir), len(v.Pr))
	}
	a := &sparse.CSR{Rows: v.Cols, Cols: v.Rows, Indptr: v.Jc, Ind: v.Ir, Val: v.Pr}
	if err := a.Validate(); err != nil {
		t.Fatalf("%q: %v", v.Name, err)
	}
}

// checkLoaded reports how the result of a loader breaks its guarantees.
func checkLoaded(t *testing.T, d *Dataset, err error, name string) {
	t.Helper()
	if err != nil {
		if !strings.HasPrefix(err.Error(), name+":") {
			t.Fatalf("error %q does not start with the file name", err)
		}
		return
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if n, m := d.Dims(); n == 0 || m == 0 {
		t.Fatalf("empty data set %d x %d", n, m)
	}
}

func matSeeds() [][]byte {
	le := matWriter{bo: binary.LittleEndian}
	lec := matWriter{bo: binary.LittleEndian, compress: true, small: true}
	be := matWriter{bo: binary.BigEndian, small: true}
	bec := matWriter{bo: binary.BigEndian, compress: true}
	sp := sparseVar("s", 3, 2, []float64{1, 0, 2, 0, 3, 0})
	logical := sp
	logical.name, logical.flags, logical.typ, logical.data = "l", flagLogical, miUINT8, []float64{1, 1, 1}
	return [][]byte{
		fixtureMAT(le, true, false, false),
		fixtureMAT(lec, true, false, true),
		fixtureMAT(be, false, false, false),
		fixtureMAT(bec, false, true, true),
		le.file(le.cellVar("c", denseVar("", 1, 1, miDOUBLE, []float64{3})), le.structVar("st", "f", denseVar("", 1, 1, miINT8, []float64{4})), le.charVar("t", "hi")),
		lec.file(sp, logical, denseVar("d", 2, 2, miSINGLE, []float64{1, 2, 3, 4})),
		be.file(mvar{name: "u", class: 13, dims: []int32{1, 2}, typ: miUINT32, data: []float64{1, 2}}),
	}
}

func FuzzReadMAT(f *testing.F) {
	lowerLimits(f)
	for _, b := range matSeeds() {
		f.Add(b)
	}
	f.Fuzz(fuzzMATBody)
}

// fuzzMATBody checks the guarantees of the MAT reader on input b: no
// panic, errors that start with the file name, and valid results.
func fuzzMATBody(t *testing.T, b []byte) {
	checkReadMAT(t, b)
	for _, opt := range []LoadOptions{{}, {Transpose: true}} {
		d, err := readMATDataset(bytes.NewReader(b), "fuzz.mat", int64(len(b)), opt)
		checkLoaded(t, d, err, "fuzz.mat")
		// A stream of unknown size takes other paths.
		d, err = readMATDataset(io.MultiReader(bytes.NewReader(b)), "fuzz.mat", -1, opt)
		checkLoaded(t, d, err, "fuzz.mat")
	}
	// The input past the header, compressed, reaches the parser of
	// decompressed elements intact.
	if len(b) > 128 {
		w := matWriter{bo: binary.LittleEndian}
		c := append(w.header(), w.compressed(b[128:])...)
		checkReadMAT(t, c)
		d, err := readMATDataset(bytes.NewReader(c), "fuzz.mat", int64(len(c)), LoadOptions{})
		checkLoaded(t, d, err, "fuzz.mat")
	}
}

func checkReadMAT(t *testing.T, b []byte) {
	t.Helper()
	vars, err := readMAT(bytes.NewReader(b), "fuzz.mat")
	if err != nil && !strings.HasPrefix(err.Error(), "fuzz.mat: ") {
		t.Fatalf("error %q does not start with the file name", err)
	}
	for name, v := range vars {
		if v.Name != name {
			t.Fatalf("variable %q filed as %q", v.Name, name)
		}
		checkMATVar(t, v)
	}
}

func FuzzReadMatrixMarket(f *testing.F) {
	lowerLimits(f)
	for _, s := range []string{
		"%%MatrixMarket matrix coordinate real general\n% c\n2 3 4\n1 1 1.5\n2 3 -2e0\n1 1 0.5\n1 2 7\n",
		"%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 1\n3 1 2\n3 2 4\n",
		"%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n",
		"%%MatrixMarket matrix coordinate pattern general\n2 2 2\n1 1\n2 1\n",
		"%%MatrixMarket matrix array real general\n2 3\n1\n2\n3\n4\n5\n6\n",
		"%%MatrixMarket matrix array integer general\r\n2 2\r\n1 2\r\n3 4\r\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range []io.Reader{bytes.NewReader(b), io.MultiReader(bytes.NewReader(b))} {
			a, dense, err := matrixio.ReadMatrixMarket(r, "fuzz.mtx")
			if err != nil {
				if !strings.HasPrefix(err.Error(), "fuzz.mtx:") {
					t.Fatalf("error %q does not start with the file name", err)
				}
				continue
			}
			if (a == nil) == (dense == nil) {
				t.Fatal("want exactly one of the sparse and dense results")
			}
			if a != nil {
				if err := a.Validate(); err != nil {
					t.Fatal(err)
				}
				continue
			}
			checkLoaded(t, &Dataset{Source: "fuzz.mtx", Dense: dense}, nil, "fuzz.mtx")
		}
		for _, opt := range []LoadOptions{{}, {Transpose: true}} {
			d, err := readMTXDataset(bytes.NewReader(b), "fuzz.mtx", int64(len(b)), opt)
			checkLoaded(t, d, err, "fuzz.mtx")
		}
	})
}
