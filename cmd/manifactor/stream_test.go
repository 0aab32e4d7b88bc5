package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/internal/corpus"
)

// TestStreamedFit: fit streams a parts directory from disk under
// --solver minibatch, and by itself when the fit in memory would pass
// --memory even in one orientation, saying so (in one orientation in
// memory where that fits); its model serves transform; a part damaged later
// is an error naming it that leaves the previous output as it was; a
// method that cannot stream is refused with the estimate's parts.
func TestStreamedFit(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	parts := filepath.Join(dir, "parts")
	if _, _, err := runCLI(t, "split", "--data", mtx, "--labels", labels, "--parts", "3", "--out", parts); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "fit")
	stdout, stderr, err := runCLI(t, "fit", "--data", parts, "--k", "3", "--solver", "minibatch", "--batch-size", "16", "--json", "--out", out)
	if err != nil {
		t.Fatal(err)
	}
	sum := decode(t, stdout)
	if sum["mode"] != "streamed" || sum["samples"].(float64) != 60 || sum["accuracy"] == nil || sum["streamed"].(map[string]any)["parts"].(float64) != 3 {
		t.Fatalf("summary %v", sum)
	}
	if !strings.Contains(stderr, "streaming "+parts+" from disk, 3 parts") {
		t.Errorf("stderr %q does not name the mode", stderr)
	}
	for _, f := range []string{"V.mtx", "U.mtx", "labels.txt", "assignments.tsv", "summary.json", "centers.mtx"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
	tr, _, err := runCLI(t, "transform", "--model", out, "--data", parts, "--json")
	if err != nil {
		t.Fatal(err)
	}
	if got := decode(t, tr)["accuracy"]; got != sum["accuracy"] {
		t.Errorf("transform of the training parts: accuracy %v, the fit's %v", got, sum["accuracy"])
	}
	// The default solver streams when the fit in memory would not fit:
	// on a corpus where the parts are much smaller than the whole.
	gen, classes, err := corpus.Generate(corpus.Options{Docs: 4000, Terms: 2000, Classes: 4, Words: 60, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	big := filepath.Join(dir, "big")
	os.Mkdir(big, 0o755)
	ids := make([]string, gen.Rows)
	for i := range ids {
		ids[i] = fmt.Sprintf("post-%d", 7*i)
	}
	err = dataset.WritePartsDir(big, &dataset.Dataset{Source: "gen", Sparse: gen, Labels: classes, IDs: ids}, dataset.PartsOptions{Parts: 20})
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err = runCLI(t, "fit", "--data", big, "--k", "4", "--memory", "4M", "--quiet", "--json", "--out", filepath.Join(dir, "auto"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "in memory it needs an estimated") || decode(t, stdout)["mode"] != "streamed" {
		t.Errorf("stderr %q does not say why it streams", stderr)
	}
	// The documents are named by the ids the parts carry.
	tsv, _ := os.ReadFile(filepath.Join(dir, "auto", "assignments.tsv"))
	if lines := strings.Split(string(tsv), "\n"); len(lines) < 3 || !strings.HasPrefix(lines[2], "post-7\t") {
		t.Errorf("assignments.tsv begins %q", lines[:min(3, len(lines))])
	}
	// Between the two, in memory in one orientation (--storage auto).
	stdout, stderr, err = runCLI(t, "fit", "--data", big, "--k", "4", "--memory", "6M", "--quiet", "--json", "--out", filepath.Join(dir, "one"))
	if err != nil {
		t.Fatal(err)
	}
	if s := decode(t, stdout); s["mode"] != "in memory" || s["storage"] != "one" || !strings.Contains(stderr, "in one orientation") {
		t.Errorf("6M: mode %v, storage %v; stderr %q", s["mode"], s["storage"], stderr)
	}
	// nmf-kl streams too.
	stdout, stderr, err = runCLI(t, "fit", "--data", big, "--k", "4", "--method", "nmf-kl", "--memory", "6M", "--quiet", "--json", "--out", filepath.Join(dir, "kl"))
	if err != nil {
		t.Fatal(err)
	}
	if s := decode(t, stdout); s["mode"] != "streamed" || s["method"] != "nmf-kl" {
		t.Errorf("nmf-kl over the limit: mode %v, method %v; stderr %q", s["mode"], s["method"], stderr)
	}
	_, _, err = runCLI(t, "fit", "--data", big, "--k", "4", "--method", "gnmf", "--memory", "6M", "--out", filepath.Join(dir, "g"))
	if err == nil || !strings.Contains(err.Error(), "graph") || !strings.Contains(err.Error(), "only nmf and nmf-kl on sparse parts") {
		t.Errorf("gnmf over the limit: %v", err)
	}
	_, _, err = runCLI(t, "fit", "--data", big, "--k", "4", "--solver", "cd", "--memory", "4M", "--out", filepath.Join(dir, "cd"))
	if err == nil || !strings.Contains(err.Error(), "--solver minibatch (or the default solver) streams it") {
		t.Errorf("cd over the limit: %v", err)
	}
	// A damaged part: the error names it, the last output stays.
	before, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	part := filepath.Join(parts, "part-00001.mtx")
	b, _ := os.ReadFile(part)
	os.WriteFile(part, b[:len(b)*2/3], 0o644)
	_, _, err = runCLI(t, "fit", "--data", parts, "--k", "3", "--solver", "minibatch", "--out", out)
	if err == nil || !strings.Contains(err.Error(), "part-00001.mtx") {
		t.Fatalf("truncated part: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(out, "summary.json")); string(after) != string(before) {
		t.Error("a failed streamed fit changed the previous output")
	}
}
