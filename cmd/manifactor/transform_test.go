package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/kernels"
)

// TestTransformSavedModel: fit --out on raw text writes a model; transform
// of the same articles through that model gives back fit's clusters (the
// text goes through the model's tokenization and idf), and twice the same
// V, bit for bit; new data with the wrong features, a missing model and
// bad flags are errors.
func TestTransformSavedModel(t *testing.T) {
	dir := t.TempDir()
	data := "../../testdata/demo/reuters-demo.sgm.gz"
	for _, method := range []string{"nmf", "gnmf"} {
		mdir := filepath.Join(dir, method)
		args := []string{"fit", "--data", data, "--method", method, "--k", "8", "--seed", "3", "--out", mdir}
		if method == "gnmf" {
			args = append(args, "--lambda", "10")
		}
		if _, _, err := runCLI(t, args...); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{"manifest.json", "features.tsv", "U.mtx", "V.mtx", "labels.txt", "centers.mtx"} {
			if _, err := os.Stat(filepath.Join(mdir, f)); err != nil {
				t.Errorf("%s: fit --out did not write %s", method, f)
			}
		}
		_, err := os.Stat(filepath.Join(mdir, "train.mtx"))
		if (err == nil) != (method == "gnmf") {
			t.Errorf("%s: train.mtx present: %v", method, err == nil)
		}
		var vs [][]byte
		for round := 0; round < 2; round++ {
			tdir := filepath.Join(dir, method+"-t"+string(rune('0'+round)))
			stdout, _, err := runCLI(t, "transform", "--model", mdir, "--data", data, "--out", tdir, "--json", "--threads", string(rune('1'+round)))
			if err != nil {
				t.Fatal(err)
			}
			s := decode(t, stdout)
			if s["samples"] != 800.0 || s["unknown_features"] != 0.0 || s["aligned_by_name"] != true {
				t.Errorf("%s: transform summary %v", method, s)
			}
			fitLabels, _ := os.ReadFile(filepath.Join(mdir, "labels.txt"))
			newLabels, _ := os.ReadFile(filepath.Join(tdir, "labels.txt"))
			a, b := strings.Fields(string(fitLabels)), strings.Fields(string(newLabels))
			same := 0
			for i := range a {
				if i < len(b) && a[i] == b[i] {
					same++
				}
			}
			// The fixed point of each row's update is the fit's row (a
			// training sample's links are its row of the training
			// graph), up to the fit's own convergence and k-means's
			// boundaries.
			if float64(same) < 0.99*float64(len(a)) {
				t.Errorf("%s: transform of the training articles keeps %d of %d labels", method, same, len(a))
			}
			v, _ := os.ReadFile(filepath.Join(tdir, "V.mtx"))
			vs = append(vs, v)
		}
		if !bytes.Equal(vs[0], vs[1]) {
			t.Errorf("%s: two transforms (1 and 2 threads) differ", method)
		}
		// And in a process of its own (this test binary as the command),
		// on the kernels and BLAS this process runs (earlier tests may
		// have set them against the environment's choice, which the new
		// process would read; kernel paths round differently).
		sub := filepath.Join(dir, method+"-process")
		cmd := exec.Command(os.Args[0], "transform", "--model", mdir, "--data", data, "--out", sub, "--quiet",
			"--simd", kernels.Path(), "--blas", blas.Name())
		cmd.Env = append(os.Environ(), "MANIFACTOR_TEST_MAIN=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: transform in a new process: %v\n%s", method, err, out)
		}
		if v, _ := os.ReadFile(filepath.Join(sub, "V.mtx")); !bytes.Equal(v, vs[0]) {
			t.Errorf("%s: transform in a new process gives another V", method)
		}
	}
	mtx, labels := writeFixture(t, dir)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", filepath.Join(dir, "nmf"), "--data", mtx, "--labels", labels}, "45 features, but the model was trained on"},
		{[]string{"--model", filepath.Join(dir, "none"), "--data", data}, "does not exist (fit --out DIR"},
		{[]string{"--model", data, "--data", data}, "is a file, not a model directory"},
		{[]string{"--model", filepath.Join(dir, "nmf")}, "--data is required"},
		{[]string{"--data", data}, "--model is required"},
		{[]string{"--model", filepath.Join(dir, "nmf"), "--data", data, "--max-iter", "0"}, "--max-iter 0"},
		{[]string{"--model", filepath.Join(dir, "nmf"), "--data", data, "--largest", "-2"}, "--largest -2"},
	} {
		_, _, err := runCLI(t, append([]string{"transform"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("transform %v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestRawCorpus: the raw newsgroup-style fixture (one folder per class,
// extension-less Latin-1 files) reads with its 12 documents in 3 classes
// with and without --strip; a model fitted with --strip keeps it, so that
// transform strips the new documents the same way.
func TestRawCorpus(t *testing.T) {
	data := "../../testdata/rawnews"
	var features []float64
	for _, strip := range []string{"", "headers,footers,quotes"} {
		args := []string{"describe", "--data", data, "--json"}
		if strip != "" {
			args = append(args, "--strip", strip)
		}
		stdout, stderr, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		s := decode(t, stdout)
		if s["samples"] != 12.0 || s["classes"] != 3.0 {
			t.Errorf("--strip %q: %v samples, %v classes", strip, s["samples"], s["classes"])
		}
		if !strings.Contains(stderr, "12 of 12 files are not UTF-8, read as Latin-1") {
			t.Errorf("--strip %q: stderr %q", strip, stderr)
		}
		features = append(features, s["features"].(float64))
	}
	if !(features[1] < features[0]) {
		t.Errorf("features %v: stripping removed none", features)
	}
	mdir := filepath.Join(t.TempDir(), "m")
	if _, _, err := runCLI(t, "fit", "--data", data, "--strip", "headers,footers,quotes", "--method", "nmf", "--k", "3", "--out", mdir); err != nil {
		t.Fatal(err)
	}
	man, _ := os.ReadFile(filepath.Join(mdir, "manifest.json"))
	if !strings.Contains(string(man), `"strip": "headers,footers,quotes"`) {
		t.Errorf("manifest.json does not keep the stripping:\n%s", man)
	}
	stdout, _, err := runCLI(t, "transform", "--model", mdir, "--data", data, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if s := decode(t, stdout); s["unknown_features"] != 0.0 || s["samples"] != 12.0 {
		t.Errorf("transform of the training documents: %v", s)
	}
}

// TestFitOutputDirectory: fit --out replaces the directory as a whole (a
// second run with another method leaves none of the first run's files),
// never writes through a link inside it, refuses a directory holding
// other files before any work, and creates nothing when loading fails.
func TestFitOutputDirectory(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	out := filepath.Join(dir, "out")
	fit := func(method string, extra ...string) error {
		_, _, err := runCLI(t, append([]string{"fit", "--data", mtx, "--labels", labels, "--method", method, "--k", "3", "--out", out}, extra...)...)
		return err
	}
	if err := fit("cf"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "W.mtx")); err != nil {
		t.Fatalf("cf wrote no W.mtx: %v", err)
	}
	// labels.txt becomes a link to a file outside the output.
	target := filepath.Join(dir, "precious.txt")
	os.WriteFile(target, []byte("keep"), 0o644)
	os.Remove(filepath.Join(out, "labels.txt"))
	os.Symlink(target, filepath.Join(out, "labels.txt"))
	if err := fit("nmf"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(out, "W.mtx")); err == nil {
		t.Error("nmf left cf's W.mtx in the output")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("fit wrote through the link: %q", b)
	}
	es, _ := os.ReadDir(dir)
	for _, e := range es {
		if strings.HasPrefix(e.Name(), ".out.") {
			t.Errorf("left %s beside the output", e.Name())
		}
	}
	// A directory of someone else's files is refused before the load.
	mine := filepath.Join(dir, "mine")
	os.Mkdir(mine, 0o755)
	os.WriteFile(filepath.Join(mine, "notes.txt"), []byte("mine"), 0o644)
	_, _, err := runCLI(t, "fit", "--data", filepath.Join(dir, "missing.mtx"), "--method", "nmf", "--k", "3", "--out", mine)
	if err == nil || !strings.Contains(err.Error(), `"notes.txt"`) {
		t.Errorf("a foreign directory: %v", err)
	}
	// A failed load creates no output.
	fresh := filepath.Join(dir, "fresh")
	if _, _, err := runCLI(t, "fit", "--data", filepath.Join(dir, "missing.mtx"), "--method", "nmf", "--k", "3", "--out", fresh); err == nil {
		t.Fatal("missing data accepted")
	}
	if _, err := os.Stat(fresh); err == nil {
		t.Error("--out created although loading failed")
	}
}
