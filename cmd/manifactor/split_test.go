package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSplit: split writes a parts directory that every command reads as
// the data set it came from (fit on it gives the same factors and labels
// as on the file, labels included), and its bad flags are errors.
func TestSplit(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	parts := filepath.Join(dir, "parts")
	out, _, err := runCLI(t, "split", "--data", mtx, "--labels", labels, "--parts", "4", "--out", parts, "--json")
	if err != nil {
		t.Fatal(err)
	}
	man := decode(t, out)
	if man["samples"].(float64) != 60 || man["features"].(float64) != 45 || len(man["parts"].([]any)) != 4 || man["labels"] != "labels.txt" {
		t.Fatalf("manifest %v", man)
	}
	fit := func(data string, extra ...string) map[string]any {
		args := append([]string{"fit", "--data", data, "--k", "3", "--seed", "2", "--json", "--quiet", "--out", filepath.Join(dir, "fit"+filepath.Base(data))}, extra...)
		out, _, err := runCLI(t, args...)
		if err != nil {
			t.Fatal(err)
		}
		return decode(t, out)
	}
	a, b := fit(mtx, "--labels", labels), fit(parts)
	for _, key := range []string{"objective", "iterations", "accuracy", "nmi"} {
		if a[key] != b[key] {
			t.Errorf("%s: %v on the file, %v on its parts", key, a[key], b[key])
		}
	}
	uf, _ := os.ReadFile(filepath.Join(dir, "fitdocs.mtx", "U.mtx"))
	up, _ := os.ReadFile(filepath.Join(dir, "fitparts", "U.mtx"))
	if len(uf) == 0 || string(uf) != string(up) {
		t.Error("U differs between the file and its parts")
	}
	// Shuffled: the same clustering of the same documents, named by their
	// numbers in the file.
	shuffled := filepath.Join(dir, "shuffled")
	if _, _, err := runCLI(t, "split", "--data", mtx, "--labels", labels, "--parts", "4", "--shuffle", "--seed", "5", "--out", shuffled); err != nil {
		t.Fatal(err)
	}
	if c := fit(shuffled); c["samples"] != a["samples"] || c["accuracy"] == nil {
		t.Errorf("fit on shuffled parts: %v", c)
	}
	ids, _ := os.ReadFile(filepath.Join(shuffled, "ids.txt"))
	if lines := strings.Fields(string(ids)); len(lines) != 60 || strings.Join(lines, " ") == strings.Join(strings.Fields(seqText(60)), " ") {
		t.Errorf("ids.txt of a shuffled split: %q", lines)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--parts", "0", "--out", filepath.Join(dir, "p0")}, "--parts 0: want 1 to 1048576"},
		// Billions of parts exhausted memory listing their file names.
		{[]string{"--parts", "99999999999", "--out", filepath.Join(dir, "pbig")}, "--parts 99999999999: want 1 to 1048576"},
		{[]string{"--parts", "61", "--out", filepath.Join(dir, "p61")}, "--parts 61: " + mtx + " has 60 samples"},
		{[]string{"--parts", "2"}, "--out is required"},
		{[]string{"--parts", "2", "--out", filepath.Join(dir, "p2"), "--weighting", "none"}, "unknown option --weighting"},
		{[]string{"--parts", "2", "--out", filepath.Join(dir, "p2"), "--seed", "3"}, "--seed orders the samples of --shuffle"},
	} {
		if _, _, err := runCLI(t, append([]string{"split", "--data", mtx}, c.args...)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "p61")); err == nil {
		t.Error("a refused split left its output directory")
	}
}

// seqText is "1\n2\n...n\n".
func seqText(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	return b.String()
}
