// Package backend installs the BLAS backend and the kernel path that the
// environment names, for the programs of the module (the command line,
// the tests): the library's packages read no environment.
package backend

import (
	"fmt"
	"os"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/kernels"
)

// FromEnv installs what MANIFACTOR_BLAS and MANIFACTOR_KERNELS name
// (unset or "auto": OpenBLAS when compiled in, the CPU's widest
// kernels). A value neither package knows is an error naming the
// variable.
func FromEnv() error {
	for _, b := range []struct {
		env string
		use func(string) error
	}{{"MANIFACTOR_BLAS", blas.Use}, {"MANIFACTOR_KERNELS", kernels.Use}} {
		if v := os.Getenv(b.env); b.use(v) != nil {
			return fmt.Errorf("%s=%s: %w", b.env, v, b.use(v))
		}
	}
	return nil
}
