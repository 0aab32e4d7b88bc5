package blas

import (
	"fmt"
	"os"
	"testing"
)

// nameAtStart is the backend the package chose by itself at start-up,
// before any test called Use.
var nameAtStart string

func TestMain(m *testing.M) {
	nameAtStart = Name()
	os.Exit(m.Run())
}

// TestDefaultAtStart: with OpenBLAS compiled in and no MANIFACTOR_BLAS, the
// package must start on OpenBLAS; MANIFACTOR_BLAS=gonum must win.
func TestDefaultAtStart(t *testing.T) {
	want := Gonum
	if HasOpenBLAS() && os.Getenv("MANIFACTOR_BLAS") != Gonum {
		want = OpenBLAS
	}
	if nameAtStart != want {
		t.Fatalf("backend at start-up %q, want %q (MANIFACTOR_BLAS=%q, OpenBLAS compiled in: %v)",
			nameAtStart, want, os.Getenv("MANIFACTOR_BLAS"), HasOpenBLAS())
	}
	fmt.Fprintf(os.Stderr, "blas at start-up: %s\n", nameAtStart)
}
