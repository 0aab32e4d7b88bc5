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

// TestImportInstallsNothing: importing solver reads no environment and
// installs no BLAS (gonum's blas64 default runs until a program calls
// blas.Use).
func TestImportInstallsNothing(t *testing.T) {
	if backendAtInit != blas.Gonum {
		t.Errorf("backend %q after importing solver (MANIFACTOR_BLAS=%q), want %q", backendAtInit, os.Getenv("MANIFACTOR_BLAS"), blas.Gonum)
	}
}
