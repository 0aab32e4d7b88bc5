package dataset

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// realData returns the path of a file of the shared real data sets, or
// skips the test when they are absent.
func realData(t *testing.T, rel string) string {
	t.Helper()
	path := filepath.Join("..", "..", "shared", "data", rel)
	if _, err := os.Stat(path); err != nil {
		t.Skipf("%s not found: real data sets live in ../shared/data", path)
	}
	return path
}

func TestLoadTDT2(t *testing.T) {
	path := realData(t, "tdt2/TDT2.mat")
	start := time.Now()
	d, err := Load(context.Background(), path, LoadOptions{})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("TDT2 loaded in %v", elapsed)
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
	if d.Sparse == nil {
		t.Fatal("TDT2 is not sparse")
	}
	if n, m := d.Dims(); n != 9394 || m != 36771 {
		t.Errorf("dims %d x %d, want 9394 x 36771", n, m)
	}
	if nnz := d.NNZ(); nnz != 1224135 {
		t.Errorf("nnz %d, want 1224135", nnz)
	}
	checkClasses(t, d, 30, 1844, 52)
	if err := d.CheckNonNegative(); err != nil {
		t.Error(err)
	}
	kept := d.DropZeroFeatures()
	if len(kept) != 36093 {
		t.Errorf("DropZeroFeatures kept %d features, want 36093 (678 all-zero columns)", len(kept))
	}
	if _, m := d.Dims(); m != 36093 {
		t.Errorf("after DropZeroFeatures: %d features", m)
	}
	if err := d.TFIDF(); err != nil {
		t.Fatal(err)
	}
	if zero := d.NormalizeL2(); zero != 0 {
		t.Errorf("%d all-zero documents after tf-idf", zero)
	}
	if err := d.Validate(); err != nil {
		t.Fatal(err)
	}
}

func TestLoadCOIL20(t *testing.T) {
	path := realData(t, "coil20/COIL20.mat")
	d, err := Load(context.Background(), path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Dense == nil {
		t.Fatal("COIL20 is not dense")
	}
	if n, m := d.Dims(); n != 1440 || m != 1024 {
		t.Errorf("dims %d x %d, want 1440 x 1024", n, m)
	}
	lo, hi := denseRange(d)
	if lo < 0 || hi > 1 {
		t.Errorf("values in [%v, %v], want within [0,1]", lo, hi)
	}
	checkClasses(t, d, 20, 72, 72)
}

func TestLoadPIE(t *testing.T) {
	path := realData(t, "pie/PIE_32x32_10class.mat")
	d, err := Load(context.Background(), path, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Dense == nil {
		t.Fatal("PIE is not dense")
	}
	if n, m := d.Dims(); n != 1700 || m != 1024 {
		t.Errorf("dims %d x %d, want 1700 x 1024", n, m)
	}
	lo, hi := denseRange(d)
	if lo < 0 || hi > 255 {
		t.Errorf("values in [%v, %v], want within [0,255]", lo, hi)
	}
	for _, x := range d.Dense.RawMatrix().Data {
		if x != math.Trunc(x) {
			t.Fatalf("value %v is not an integer (stored as uint8)", x)
		}
	}
	checkClasses(t, d, 10, 170, 170)

	// The same file read as a raw variable keeps its class.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	vars, err := readMAT(f, path, "fea")
	if err != nil {
		t.Fatal(err)
	}
	if v := vars["fea"]; v == nil || v.Class != "uint8" || v.Sparse {
		t.Errorf("fea read as %+v, want dense uint8", v)
	}
}

func denseRange(d *Dataset) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range d.Dense.RawMatrix().Data {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}

func checkClasses(t *testing.T, d *Dataset, k, largest, smallest int) {
	t.Helper()
	labels, sizes := d.Classes()
	if len(labels) != k {
		t.Errorf("%d classes, want %d", len(labels), k)
		return
	}
	lo, hi := sizes[0], sizes[0]
	for _, s := range sizes {
		lo, hi = min(lo, s), max(hi, s)
	}
	if hi != largest || lo != smallest {
		t.Errorf("class sizes %d ... %d, want %d ... %d", hi, lo, largest, smallest)
	}
}
