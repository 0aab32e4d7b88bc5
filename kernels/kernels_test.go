package kernels

import (
	"math"
	"testing"
)

// TestPrimitives: each primitive on every path gives its documented
// reference (the paths themselves are tested against the reference at
// every length in internal/asm), and Use refuses an unknown path without
// changing the one in use.
func TestPrimitives(t *testing.T) {
	defer func() { _ = Use("auto") }()
	b := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9} // 3 x 3
	ind, val := []int{2, 0}, []float64{0.5, 2}
	for _, p := range Available() {
		if err := Use(p); err != nil || Path() != p {
			t.Fatalf("Use(%q): %v, path %q", p, err, Path())
		}
		y := []float64{1, 1, 1}
		Axpy(2, []float64{1, 2, 3}, y)
		if y[0] != 3 || y[1] != 5 || y[2] != 7 {
			t.Errorf("%s: Axpy %v", p, y)
		}
		if d := Dot([]float64{1, 2, 3}, []float64{4, 5, 6}); d != 32 {
			t.Errorf("%s: Dot %v", p, d)
		}
		dst := make([]float64, 3)
		AxpyGather(dst, val, ind, b, 3)
		if want := []float64{0.5*7 + 2*1, 0.5*8 + 2*2, 0.5*9 + 2*3}; !equal(dst, want) {
			t.Errorf("%s: AxpyGather %v, want %v", p, dst, want)
		}
		sc := make([]float64, 9)
		AxpyScatter(sc, 3, val, ind, []float64{1, 2, 3})
		if want := []float64{2, 4, 6, 0, 0, 0, 0.5, 1, 1.5}; !equal(sc, want) {
			t.Errorf("%s: AxpyScatter %v, want %v", p, sc, want)
		}
		dg := make([]float64, 2)
		DotGather(dg, []float64{1, 1, 1}, ind, b, 3)
		if want := []float64{24, 6}; !equal(dg, want) {
			t.Errorf("%s: DotGather %v, want %v", p, dg, want)
		}
		ht := make([]float64, 6)
		DotGatherT(dg, ht, []float64{1, 1, 1}, ind, b, 3)
		if want := []float64{7, 1, 8, 2, 9, 3}; !equal(dg, []float64{24, 6}) || !equal(ht, want) {
			t.Errorf("%s: DotGatherT %v %v, want %v", p, dg, ht, want)
		}
	}
	before := Path()
	if err := Use("bogus"); err == nil || Path() != before {
		t.Errorf(`Use("bogus"): %v, path %q`, err, Path())
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}
