package main

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/internal/corpus"
	"github.com/manifactor/manifactor/internal/matrixio"
)

// TestStorage: --storage one holds the data in one orientation and says
// so in the summary, with the clusters of both orientations; under auto,
// fit holds one where both would pass --memory, and says why; a bad
// value, or one on dense data, is refused by name.
func TestStorage(t *testing.T) {
	dir := t.TempDir()
	gen, _, err := corpus.Generate(corpus.Options{Docs: 4000, Terms: 2000, Classes: 4, Words: 60, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "gen.mtx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := matrixio.WriteMatrixMarket(f, gen); err != nil {
		t.Fatal(err)
	}
	f.Close()
	sums := map[string]map[string]any{}
	for _, st := range []string{"both", "one"} {
		stdout, _, err := runCLI(t, "fit", "--data", path, "--k", "4", "--storage", st, "--quiet", "--json", "--out", filepath.Join(dir, st))
		if err != nil {
			t.Fatal(err)
		}
		sums[st] = decode(t, stdout)
		if sums[st]["storage"] != st {
			t.Errorf("--storage %s: the summary says %v", st, sums[st]["storage"])
		}
	}
	a, b := sums["both"], sums["one"]
	if a["iterations"] != b["iterations"] || math.Abs(a["objective"].(float64)-b["objective"].(float64)) > 1e-9*a["objective"].(float64) {
		t.Errorf("one orientation: %v iterations, objective %v; both: %v, %v", b["iterations"], b["objective"], a["iterations"], a["objective"])
	}
	la, _ := os.ReadFile(filepath.Join(dir, "both", "labels.txt"))
	lb, _ := os.ReadFile(filepath.Join(dir, "one", "labels.txt"))
	if string(la) != string(lb) {
		t.Error("one orientation's clusters differ from both's")
	}
	stdout, stderr, err := runCLI(t, "fit", "--data", path, "--k", "4", "--memory", "7M", "--json", "--quiet", "--out", filepath.Join(dir, "auto"))
	if err != nil {
		t.Fatal(err)
	}
	if decode(t, stdout)["storage"] != "one" || !strings.Contains(stderr, "in one orientation (--storage one): with both it needs an estimated") {
		t.Errorf("auto under 7M: storage %v, stderr %q", decode(t, stdout)["storage"], stderr)
	}
	dense := writeDenseCSV(t, filepath.Join(dir, "d.csv"), 20, 6, func(i, j int) float64 { return float64(1 + (i*j)%5) })
	_, _, err = runCLI(t, "fit", "--data", dense, "--k", "2", "--storage", "one", "--out", filepath.Join(dir, "dense"))
	if err == nil || !strings.Contains(err.Error(), "--storage one") || !strings.Contains(err.Error(), "dense") {
		t.Errorf("--storage one on dense data: %v", err)
	}
	_, _, err = runCLI(t, "fit", "--data", path, "--k", "4", "--storage", "half", "--out", filepath.Join(dir, "bad"))
	if err == nil || !strings.Contains(err.Error(), "storage") || !strings.Contains(err.Error(), `"half"`) {
		t.Errorf("--storage half: %v", err)
	}
}
