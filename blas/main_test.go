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

// TestNothingAtStart: importing the package installs nothing, whatever
// MANIFACTOR_BLAS says (gonum's blas64 default runs); Use("auto") then
// installs OpenBLAS when it is compiled in.
func TestNothingAtStart(t *testing.T) {
	if nameAtStart != Gonum {
		t.Fatalf("backend at start-up %q, want %q (MANIFACTOR_BLAS=%q)", nameAtStart, Gonum, os.Getenv("MANIFACTOR_BLAS"))
	}
	if err := Use("auto"); err != nil {
		t.Fatal(err)
	}
	want := Gonum
	if HasOpenBLAS() {
		want = OpenBLAS
	}
	if Name() != want {
		t.Errorf("Use(auto): %q, want %q", Name(), want)
	}
	fmt.Fprintf(os.Stderr, "blas after Use(auto): %s\n", Name())
}
