package main

import (
	"testing"

	"github.com/manifactor/manifactor/experiment"
)

// TestMethodStarts checks the start and assignment each factorization gets
// from --start and --assign: auto follows the authors' code (rescaled
// random start and k-means on V for gnmf and lccf, a k-means start for the
// KL methods), and the explicit values apply to every method.
func TestMethodStarts(t *testing.T) {
	for _, c := range []struct {
		start, assign, method string
		normalize             bool
		init, assigned        string
	}{
		{"auto", "auto", "gnmf", true, "", "kmeans"},
		{"auto", "auto", "lccf-ncw", true, "", "kmeans"},
		{"auto", "auto", "nmf-kl", false, "kmeans", "argmax"},
		{"auto", "auto", "lpnmf-ncw", false, "kmeans", "argmax"},
		{"auto", "auto", "nmf-ncw", false, "", "argmax"},
		{"raw", "auto", "lpnmf", false, "", "argmax"},
		{"raw", "argmax", "gnmf", false, "", "argmax"},
		{"kmeans", "kmeans", "nmf", false, "kmeans", "kmeans"},
		{"normalized", "auto", "cf", true, "", "argmax"},
	} {
		f := protocolFlags{start: c.start, assign: c.assign, lambda: -1, neighbors: 5}
		m, err := f.method(c.method, true, -1, -1)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		fz, ok := m.(experiment.Factorization)
		if !ok {
			t.Fatalf("%s: %T, not a factorization", c.method, m)
		}
		if fz.Options.NormalizeStart != c.normalize || fz.Init != c.init || fz.Assign != c.assigned {
			t.Errorf("--start %s --assign %s, %s: NormalizeStart %v, Init %q, Assign %q; want %v, %q, %q",
				c.start, c.assign, c.method, fz.Options.NormalizeStart, fz.Init, fz.Assign, c.normalize, c.init, c.assigned)
		}
	}
}
