package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maskFiles writes a 60 x 40 Matrix Market data set of three planted
// blocks with its labels, and a mask of about a fifth of its entries; the
// data's values at the masked entries are offset by shift.
func maskFiles(t *testing.T, dir string, shift float64) (data, labels, mask string) {
	t.Helper()
	const n, m = 60, 40
	rng := rand.New(rand.NewPCG(1, 2))
	masked := map[[2]int]bool{}
	for i := 0; i < n; i++ {
		for j := 0; j < m; j++ {
			if rng.Float64() < 0.2 && j != i%m {
				masked[[2]int{i, j}] = true
			}
		}
	}
	var x, mk, lb strings.Builder
	fmt.Fprintf(&x, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, m, n*m)
	fmt.Fprintf(&mk, "%%%%MatrixMarket matrix coordinate pattern general\n%d %d %d\n", n, m, len(masked))
	for i := 0; i < n; i++ {
		fmt.Fprintf(&lb, "%d\n", i%3+1)
		for j := 0; j < m; j++ {
			v := 0.1 + rng.Float64()/10
			if j/14 == i%3 {
				v += 1
			}
			if masked[[2]int{i, j}] {
				v += shift
				fmt.Fprintf(&mk, "%d %d\n", i+1, j+1)
			}
			fmt.Fprintf(&x, "%d %d %.17g\n", i+1, j+1, v)
		}
	}
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	return write("x.mtx", x.String()), write("labels.txt", lb.String()), write("mask.mtx", mk.String())
}

// TestMask: --mask leaves the marked entries out of the fit, so their
// values change nothing; the summary counts them; methods that cannot
// leave entries out, masks of the wrong shape and masks hiding a whole
// sample are refused by name.
func TestMask(t *testing.T) {
	var outs [2]map[string]any
	var mask string
	for i, shift := range []float64{0, 50} {
		dir := t.TempDir()
		data, labels, m := maskFiles(t, dir, shift)
		mask = m
		for _, method := range []string{"nmf", "gnmf", "nmf-kl"} {
			out, errOut, err := runCLI(t, "cluster", "--data", data, "--labels", labels, "--mask", mask, "--method", method, "--k", "3", "--json", "--quiet")
			if err != nil {
				t.Fatalf("%s: %v\n%s", method, err, errOut)
			}
			s := decode(t, out)
			if method == "nmf" {
				outs[i] = s
			}
			if s["missing"] == nil || s["missing"].(float64) < 400 || s["accuracy"].(float64) != 1 {
				t.Errorf("%s, shift %g: missing %v, accuracy %v", method, shift, s["missing"], s["accuracy"])
			}
		}
	}
	if outs[0]["objective"] != outs[1]["objective"] {
		t.Errorf("the masked values changed the fit: objective %v, then %v", outs[0]["objective"], outs[1]["objective"])
	}
	dir := t.TempDir()
	data, _, _ := maskFiles(t, dir, 0)
	bad := filepath.Join(dir, "bad.mtx")
	os.WriteFile(bad, []byte("%%MatrixMarket matrix coordinate pattern general\n60 41 1\n1 41\n"), 0o644)
	var row strings.Builder
	row.WriteString("%%MatrixMarket matrix coordinate pattern general\n60 40 40\n")
	for j := 1; j <= 40; j++ {
		fmt.Fprintf(&row, "5 %d\n", j)
	}
	whole := filepath.Join(dir, "row.mtx")
	os.WriteFile(whole, []byte(row.String()), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--mask", mask, "--method", "cf"}, "cf cannot leave entries out"},
		{[]string{"--mask", bad}, "a mask of 60 x 41 entries for"},
		{[]string{"--mask", whole}, "every feature of sample 5 (1-based) is hidden"},
		{[]string{"--mask", filepath.Join(dir, "absent.mtx")}, "absent.mtx"},
	} {
		_, _, err := runCLI(t, append([]string{"cluster", "--data", data, "--k", "3", "--quiet"}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}
