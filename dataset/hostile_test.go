package dataset

import (
	"bytes"
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/internal/testenv"
)

// TestHostileReaders: numbers are spelled the same way in every reader
// (no "1_000", no hexadecimal); labels the same way ("2" or "2.0", not
// "2.5"); a byte-order mark is skipped by every text reader; a truncated
// .csv.gz names its line; data after a gzip stream is not called a
// truncation, and concatenated gzip members read whole.
func TestHostileReaders(t *testing.T) {
	dir := t.TempDir()
	load := func(p string, opt LoadOptions) error {
		_, err := Load(context.Background(), p, opt)
		return err
	}
	mtxHead := "%%MatrixMarket matrix coordinate real general\n2 2 2\n"
	for _, c := range []struct {
		file, text, want string
	}{
		{"u.csv", "1_000,2\n3,4\n", `"1_000" is not a number`},
		{"h.csv", "0x1p3,2\n3,4\n", `"0x1p3" is not a number`},
		{"u.mtx", mtxHead + "1 1 1_0\n2 2 1\n", `"1_0" is not a number`},
		{"h.svm", "1 1:0x1p3\n2 2:1\n", "0x1p3"},
	} {
		err := load(testenv.WriteFile(t, dir, c.file, []byte(c.text)), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
	}
	bom := "\ufeff"
	for _, c := range []struct {
		file, text string
		opt        LoadOptions
	}{
		{"b.mtx", bom + mtxHead + "1 1 1\n2 2 1\n", LoadOptions{}},
		{"b.svm", bom + "1 1:1\n2 2:1\n", LoadOptions{}},
		{"b.csv", bom + "1,2\n3,4\n", LoadOptions{}},
		{"l.mtx", mtxHead + "1 1 1\n2 2 1\n", LoadOptions{Labels: testenv.WriteFile(t, dir, "labels.txt", []byte(bom+"1\n2.0\n"))}},
	} {
		if err := load(testenv.WriteFile(t, dir, c.file, []byte(c.text)), c.opt); err != nil {
			t.Errorf("%s with a byte-order mark (labels 1 and 2.0): %v", c.file, err)
		}
	}
	if err := load(testenv.WriteFile(t, dir, "m2.mtx", []byte(mtxHead+"1 1 1\n2 2 1\n")), LoadOptions{Labels: testenv.WriteFile(t, dir, "bad.txt", []byte("1\n2.5\n"))}); err == nil || !strings.Contains(err.Error(), "bad.txt:2") {
		t.Errorf("label 2.5: %v", err)
	}
	var big bytes.Buffer
	for i := 0; i < 20000; i++ {
		big.WriteString(strings.Repeat("7", i%5+1) + "," + strings.Repeat("3", i%3+1) + "\n")
	}
	z := testenv.Gzip(big.Bytes())
	err := load(testenv.WriteFile(t, dir, "t.csv.gz", z[:len(z)/2]), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "t.csv.gz:") || !strings.Contains(err.Error(), "end in the middle") {
		t.Errorf("truncated .csv.gz: %v", err)
	}
	err = load(testenv.WriteFile(t, dir, "g.csv.gz", append(testenv.Gzip([]byte("1,2\n3,4\n")), "garbage"...)), LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "data after the end of the gzip stream") {
		t.Errorf("trailing data: %v", err)
	}
	d, err := Load(context.Background(), testenv.WriteFile(t, dir, "c.csv.gz", append(testenv.Gzip([]byte("1,2\n3,4\n")), testenv.Gzip([]byte("5,6\n"))...)), LoadOptions{})
	if err != nil {
		t.Fatalf("concatenated members: %v", err)
	}
	if n, _ := d.Dims(); n != 3 {
		t.Errorf("concatenated members: %d rows, want 3", n)
	}
}

// TestMTXDuplicatesOverflow: finite duplicate entries that sum past the
// largest float64 are an error of the reader naming the position, not a
// matrix that fails later.
func TestMTXDuplicatesOverflow(t *testing.T) {
	_, _, err := matrixio.ReadMatrixMarket(strings.NewReader("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 2 1e308\n1 2 1e308\n2 2 1\n"), "d.mtx")
	if err == nil || !strings.Contains(err.Error(), "d.mtx: the entries at row 1, column 2 (1-based) sum to +Inf") {
		t.Errorf("%v", err)
	}
}

// TestSmallFilesBoundMemory: small files that claim or expand
// to far more data than they hold are refused before the reader
// allocates it, naming the claim and the bound: a compressed .mat of a
// 32768 x 32768 uint8 matrix, a sparse .mat of 2^24 x 1, a Matrix Market
// size line of 2^24 x 2^24 with one entry, a .npy.gz of 32768 x 32768, a
// .csv.gz of one endless line; an explicit MemoryLimit lets a larger
// array through.
func TestSmallFilesBoundMemory(t *testing.T) {
	dir := t.TempDir()
	w := matWriter{bo: binary.LittleEndian, compress: true}
	bigDense := mvar{name: "fea", class: 9, dims: []int32{32768, 32768}, typ: miUINT8}
	tallSparse := mvar{name: "fea", class: mxSPARSE, dims: []int32{1 << 24, 1}, typ: miDOUBLE, ir: []int32{0}, jc: []int32{0, 1}, data: []float64{1}, nzmax: 1}
	npyHead := func(shape string) []byte {
		h := "{'descr': '|u1', 'fortran_order': False, 'shape': " + shape + ", }"
		h += strings.Repeat(" ", 118-len(h)-1) + "\n"
		return append([]byte("\x93NUMPY\x01\x00"+string(rune(len(h)))+"\x00"), h...)
	}
	var line bytes.Buffer
	for line.Len() < 1<<23 {
		line.WriteString("1,1,1,1,1,1,1,1,")
	}
	for _, c := range []struct {
		file string
		data []byte
		want string
	}{
		{"dense.mat", w.file(bigDense), "needs 8589934592 bytes as float64"},
		{"tall.mat", w.file(tallSparse), "16777216"},
		{"huge.mtx", []byte("%%MatrixMarket matrix coordinate real general\n16777216 16777216 1\n1 1 1\n"), "16777216 rows is implausible for 1 entries"},
		{"big.npy.gz", testenv.Gzip(npyHead("(32768, 32768)")), "needs 8589934592 bytes as float64"},
		{"line.csv.gz", testenv.Gzip(line.Bytes()), "line longer than"},
	} {
		_, err := Load(context.Background(), testenv.WriteFile(t, dir, c.file, c.data), LoadOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.file, err, c.want)
		}
	}
	// A budget given explicitly replaces the default one.
	arr := append(npyHead("(300, 300)"), make([]byte, 300*300)...)
	p := testenv.WriteFile(t, dir, "ok.npy", arr)
	if _, err := Load(context.Background(), p, LoadOptions{MemoryLimit: 1 << 10}); err == nil || !strings.Contains(err.Error(), "720000 bytes as float64, above the 1024") {
		t.Errorf("a 1 KiB bound: %v", err)
	}
}
