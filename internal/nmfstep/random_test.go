package nmfstep

import (
	"slices"
	"testing"
)

// TestRandomRows: any rows of the start are those of the whole
// start, so a rank of package dist starts where one process does.
func TestRandomRows(t *testing.T) {
	const rows, n, k = 7, 9, 3
	a, v := Random(rows, n, k, 11, 2)
	for _, r := range [][4]int{{0, rows, 0, n}, {0, 0, 0, 0}, {2, 5, 4, 9}, {6, 7, 0, 1}, {rows, rows, n, n}} {
		ga, gv := RandomRows(rows, n, k, 11, 2, r[0], r[1], r[2], r[3])
		if !slices.Equal(ga, a[r[0]*k:r[1]*k]) || !slices.Equal(gv, v[r[2]*k:r[3]*k]) {
			t.Fatalf("rows %v differ from the whole start's", r)
		}
	}
}

// TestRandomSelect: rows picked in any order are the whole
// start's rows.
func TestRandomSelect(t *testing.T) {
	const rows, n, k = 9, 5, 2
	a, v := Random(rows, n, k, 4, 0)
	sel := []int{7, 0, 3, 8}
	ga, gv := RandomSelect(rows, n, k, 4, 0, sel, 1, 4)
	for q, r := range sel {
		if !slices.Equal(ga[q*k:(q+1)*k], a[r*k:(r+1)*k]) {
			t.Fatalf("row %d differs", r)
		}
	}
	if !slices.Equal(gv, v[1*k:4*k]) {
		t.Fatal("V's rows differ")
	}
}
