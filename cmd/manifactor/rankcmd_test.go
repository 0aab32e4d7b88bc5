package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRankCriteria: rank's two criteria print their curves as JSON with
// the chosen k and draw them; flags of the other criterion, and values
// out of range, are refused by name.
func TestRankCriteria(t *testing.T) {
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out, errOut, err := runCLI(t, "rank", "--data", data, "--classes", "1-4", "--k", "2-5", "--replicates", "2", "--json", "--quiet", "--plot", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	s := decode(t, out)
	if k := s["k"].(float64); k < 2 || k > 5 || len(s["curve"].([]any)) != 4 {
		t.Errorf("held-out: k %v, curve %v", k, s["curve"])
	}
	// A text corpus is far more zeros than stored entries: they are
	// hidden at a lower share.
	if zs := s["zero_share"].(float64); !(zs > 0 && zs < 0.05) {
		t.Errorf("zero share %v", zs)
	}
	out, errOut, err = runCLI(t, "rank", "--data", data, "--classes", "1-4", "--criterion", "cophenetic", "--method", "cf", "--k", "2-5", "--runs", "4", "--sample", "100", "--json", "--quiet", "--plot", dir)
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	s = decode(t, out)
	curve := s["curve"].([]any)
	if k := s["k"].(float64); k < 2 || k > 5 || len(curve) != 4 || s["measured_samples"].(float64) != 100 || s["runs"].(float64) != 4 {
		t.Errorf("cophenetic: %.400s", out)
	}
	for _, p := range curve {
		if c := p.(map[string]any)["cophenetic"].(float64); !(c >= -1 && c <= 1) {
			t.Errorf("cophenetic %v", c)
		}
	}
	for _, f := range []string{"test-error-vs-k.png", "test-error-vs-k.svg", "consensus-vs-k.png", "consensus-vs-k.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--criterion", "stability"}, `"stability": want held-out or cophenetic`},
		{[]string{"--criterion", "cophenetic", "--runs", "1"}, "--runs 1: want 2 to 1000"},
		{[]string{"--criterion", "cophenetic", "--sample", "5"}, "--sample 5: want at least 10"},
		{[]string{"--criterion", "cophenetic", "--test-share", "0.1"}, "--test-share is read by --criterion held-out only"},
		{[]string{"--criterion", "cophenetic", "--restarts", "3"}, "--restarts is read by --criterion held-out only"},
		{[]string{"--runs", "5"}, "--runs is read by --criterion cophenetic only"},
		{[]string{"--test-share", "0"}, "--test-share 0: want a share in (0, 0.5]"},
		{[]string{"--test-share", "1"}, "--test-share 1: want a share in (0, 0.5]"},
		{[]string{"--method", "cf"}, "cf cannot leave entries out"},
		{[]string{"--criterion", "cophenetic", "--k", "1-3"}, "1 clusters out of range"},
		{[]string{"--k", "2-900"}, "ranks up to 900"},
	} {
		args := append([]string{"rank", "--data", data, "--quiet"}, c.args...)
		if !strings.Contains(strings.Join(c.args, " "), "--k ") {
			args = append(args, "--k", "2-3")
		}
		_, _, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
