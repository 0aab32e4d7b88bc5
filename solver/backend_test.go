package solver_test

import (
	"os"
	"testing"

	"github.com/manifactor/manifactor/blas"
	_ "github.com/manifactor/manifactor/solver"
)

// backendAtInit is the BLAS installed once the packages' init functions
// have run, before any test can switch it.
var backendAtInit = blas.Name()

// TestImportInstallsBackend: importing solver is enough to get the
// compiled-in BLAS (OpenBLAS in a build with -tags openblas).
func TestImportInstallsBackend(t *testing.T) {
	want := blas.Gonum
	if blas.HasOpenBLAS() {
		want = blas.OpenBLAS
	}
	if env := os.Getenv("MANIFACTOR_BLAS"); env != "" && env != "auto" {
		t.Skipf("MANIFACTOR_BLAS=%s chooses the backend", env)
	}
	if backendAtInit != want {
		t.Errorf("backend %q after importing solver, want %q", backendAtInit, want)
	}
}
