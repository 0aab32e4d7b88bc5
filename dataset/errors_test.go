package dataset

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/matrixio"
)

// TestParseErrors: every reader's complaint about its input is a
// *ParseError that errors.As finds, with the file, the 1-based line (text
// formats) or the byte offset (binary ones), and the value where the
// reader singles one out; its message reads as before.
func TestParseErrors(t *testing.T) {
	type want struct {
		line   int
		offset int64
		column int
		value  string
		text   string
	}
	cases := []struct {
		name string
		read func() error
		want want
	}{
		{"mtx", func() error {
			_, _, err := matrixio.ReadMatrixMarket(strings.NewReader("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n"), "a.mtx")
			return err
		}, want{line: 3, offset: -1, text: "a.mtx:3: "}},
		{"csv field", func() error {
			_, err := ReadCSV(strings.NewReader("1,2\n3,abc\n"), "a.csv", CSVOptions{})
			return err
		}, want{line: 2, offset: -1, column: 2, value: "abc", text: "a.csv:2: "}},
		{"csv empty", func() error {
			_, err := ReadCSV(strings.NewReader(""), "a.csv", CSVOptions{})
			return err
		}, want{offset: -1, text: "a.csv: empty file"}},
		{"svmlight", func() error {
			_, _, err := ReadSVMLight(strings.NewReader("1 1:2\n1 x\n"), "a.svm")
			return err
		}, want{line: 2, offset: -1, text: "a.svm:2: "}},
		{"npy", func() error {
			_, err := matrixio.ReadNPY(strings.NewReader("\x93NUMPX\x01\x00\x10\x00{}"), "a.npy")
			return err
		}, want{offset: 0, text: "a.npy: byte 0: not a NumPy"}},
		{"mat", func() error {
			_, err := readMAT(strings.NewReader(strings.Repeat(" ", 200)), "a.mat")
			return err
		}, want{offset: -1, text: "a.mat: not a MATLAB level-5 MAT-file"}},
		{"labels", func() error {
			_, err := ReadLabels(strings.NewReader("1\n2\nthree\n"), "l.txt")
			return err
		}, want{line: 3, offset: -1, column: 1, value: "three", text: "l.txt:3: "}},
	}
	for _, c := range cases {
		err := c.read()
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Errorf("%s: %v (%T) is not a *ParseError", c.name, err, err)
			continue
		}
		if pe.Line != c.want.line || pe.Offset != c.want.offset || pe.Column != c.want.column || pe.Value != c.want.value || !strings.HasPrefix(err.Error(), c.want.text) || pe.Err == nil {
			t.Errorf("%s: %+v (%q), want %+v", c.name, *pe, err, c.want)
		}
	}
	// Through Load, from a file and from a line corpus.
	dir := t.TempDir()
	path := filepath.Join(dir, "docs.txt")
	os.WriteFile(path, []byte("a\tfine\nno tab\n"), 0o644)
	_, err := Load(context.Background(), path, LoadOptions{CSV: CSVOptions{LabelColumn: "1"}})
	var pe *ParseError
	if !errors.As(err, &pe) || pe.File != path || pe.Line != 2 || pe.Value != "no tab" {
		t.Errorf("Load of a line corpus: %v", err)
	}
}
