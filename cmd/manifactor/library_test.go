package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// TestLibraryIsCommandLine: the library's zero options are the command
// line's defaults. fit with nothing but the data, the classes, k and the
// method writes the same model, file for file and bit for bit, as
// model.Train with zero LoadOptions and PrepareOptions (the same classes)
// and Options holding only the method, k and the seed (the command
// line's --seed is 1: a seed is the caller's input, never a default to
// match): on raw Reuters-21578 text (tf-idf, lambda auto), TDT2's counts
// (log tf-idf) and COIL20's images (no weighting).
func TestLibraryIsCommandLine(t *testing.T) {
	if testing.Short() {
		t.Skip("factorizations of three real corpora")
	}
	ctx := context.Background()
	for _, c := range []struct {
		rel, classes string
		keep         []int
	}{
		{"reuters21578", "12,13", []int{12, 13}},
		{"tdt2/TDT2.mat", "28,29", []int{28, 29}},
		{"coil20/COIL20.mat", "3,4", []int{3, 4}},
	} {
		path := realData(t, c.rel)
		dir := t.TempDir()
		cli := filepath.Join(dir, "cli")
		if _, _, err := runCLI(t, "fit", "--data", path, "--classes", c.classes, "--k", "2", "--method", "gnmf", "--quiet", "--out", cli); err != nil {
			t.Fatalf("%s: %v", c.rel, err)
		}
		ds, err := dataset.Load(ctx, path, dataset.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		m, _, err := model.Train(ctx, ds, model.PrepareOptions{Classes: c.keep}, model.Options{Method: solver.GNMF, K: 2, Seed: 1})
		if err != nil {
			t.Fatal(err)
		}
		lib := filepath.Join(dir, "lib")
		if err := m.Save(lib); err != nil {
			t.Fatal(err)
		}
		files, err := os.ReadDir(lib)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			want, err := os.ReadFile(filepath.Join(lib, f.Name()))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(filepath.Join(cli, f.Name()))
			if err != nil {
				t.Fatalf("%s: fit wrote no %s: %v", c.rel, f.Name(), err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: fit's %s differs from the library's (lambda %v):\n%s\n%s", c.rel, f.Name(), m.Lambda, firstLines(got), firstLines(want))
			}
		}
		t.Logf("%s classes %s: lambda %v, %d model files equal", c.rel, c.classes, m.Lambda, len(files))
	}
}

func firstLines(b []byte) string {
	if len(b) > 1500 {
		b = b[:1500]
	}
	return string(b)
}

// TestZeroIsDefault: a threshold of 0 is the default on the command line
// as in the library (the solver's zero), and off has its own spelling
// (the solver's negative value).
func TestZeroIsDefault(t *testing.T) {
	opts := func(args ...string) model.Options {
		t.Helper()
		fs := newFlagSet("fit", "", io.Discard, io.Discard)
		var mf methodFlags
		mf.register(fs, solver.DefaultMaxIter)
		if err := fs.Parse(append([]string{"--method", "gnmf", "--k", "3"}, args...)); err != nil {
			t.Fatal(err)
		}
		o, err := mf.options(0, sparseData)
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	def, zero, off := opts(), opts("--tol", "0", "--pg-tol", "0"), opts("--tol", "off", "--pg-tol", "off")
	if def.Solver.Tol != 0 || def.Solver.PGTol != 0 || zero.Solver.Tol != 0 || zero.Solver.PGTol != 0 {
		t.Errorf("default %v/%v, --tol 0 %v/%v: want the library's zero", def.Solver.Tol, def.Solver.PGTol, zero.Solver.Tol, zero.Solver.PGTol)
	}
	if !(off.Solver.Tol < 0 && off.Solver.PGTol < 0) {
		t.Errorf("--tol off: %v/%v, want negative (no rule)", off.Solver.Tol, off.Solver.PGTol)
	}
}
