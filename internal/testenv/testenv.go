// Package testenv applies the environment's BLAS backend and kernel path
// to a package's tests, as the command line does for a run, so that each
// pass of make test (OpenBLAS, generic kernels) reaches every package.
package testenv

import (
	"fmt"
	"os"
	"testing"

	"github.com/manifactor/manifactor/internal/backend"
)

// Main installs the backends the environment names (backend.FromEnv),
// runs the tests and exits; a package's TestMain calls it.
func Main(m *testing.M) {
	if err := backend.FromEnv(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
