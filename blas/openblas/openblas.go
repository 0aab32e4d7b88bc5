//go:build cgo && openblas

package openblas

// #cgo LDFLAGS: -lopenblas
// void openblas_set_num_threads(int num_threads);
import "C"

import (
	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/netlib/blas/netlib"
)

// Implementation is OpenBLAS's double-precision BLAS.
type Implementation struct{ netlib.Implementation }

var _ gblas.Float64 = Implementation{}

// SetThreads limits OpenBLAS to n threads per call.
func SetThreads(n int) { C.openblas_set_num_threads(C.int(n)) }
