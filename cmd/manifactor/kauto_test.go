package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKAuto: cluster --k auto fits the rank that rank.CrossValidate
// chooses among --ranks and reports the curve; what cannot choose k that
// way says so.
func TestKAuto(t *testing.T) {
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, err := runCLI(t, "cluster", "--data", data, "--classes", "1-4", "--k", "auto", "--ranks", "2-6", "--json", "--quiet")
	if err != nil {
		t.Fatalf("%v\n%s", err, errOut)
	}
	s := decode(t, out)
	ka, ok := s["k_auto"].(map[string]any)
	if !ok {
		t.Fatalf("no k_auto in %.300s", out)
	}
	curve := ka["curve"].([]any)
	k := s["k"].(float64)
	if len(curve) != 5 || k < 2 || k > 6 || ka["ranks"] != "2-6" {
		t.Errorf("k %v, ranks %v, %d points", k, ka["ranks"], len(curve))
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"cluster", "--method", "cf", "--k", "auto"}, "cf cannot leave entries out"},
		{[]string{"cluster", "--k", "auto", "--ranks", "5"}, "want two or more ranks"},
		{[]string{"cluster", "--k", "auto", "--ranks", "2-900"}, "ranks up to 900"},
		// Refused by its range, not by the memory its largest rank needs.
		{[]string{"cluster", "--k", "auto", "--ranks", "2-9000"}, "ranks up to 9000, but the data"},
		{[]string{"bench", "--k", "auto"}, "bench times one k"},
		{[]string{"cluster", "--k", "many"}, `"many" is not a decimal integer or auto`},
	} {
		_, _, err := runCLI(t, append(c.args, "--data", data, "--quiet")...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
