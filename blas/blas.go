package blas

import (
	"fmt"

	gblas "gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

// Backend names accepted by Use.
const (
	OpenBLAS = "openblas"
	Gonum    = "gonum"
)

var name = Gonum

var _ gblas.Float64 = gonum.Implementation{}

// Name returns the backend in use: "openblas" or "gonum".
func Name() string { return name }

// HasOpenBLAS reports whether this build has OpenBLAS compiled in.
func HasOpenBLAS() bool { return openblasImpl != nil }

// Use installs a backend: "openblas", "gonum", or "" / "auto" for the
// default (OpenBLAS when compiled in). Asking for OpenBLAS in a build
// without it is an error. Call it before any concurrent use of blas64.
func Use(backend string) error {
	switch backend {
	case "", "auto":
		if openblasImpl != nil {
			return Use(OpenBLAS)
		}
		return Use(Gonum)
	case Gonum:
		blas64.Use(gonum.Implementation{})
		name = Gonum
		return nil
	case OpenBLAS:
		if openblasImpl == nil {
			return fmt.Errorf("blas: openblas is not compiled into this build (rebuild with -tags openblas and libopenblas-dev installed); use gonum")
		}
		blas64.Use(openblasImpl)
		name = OpenBLAS
		return nil
	}
	return fmt.Errorf("blas: unknown backend %q (want openblas, gonum or auto)", backend)
}

// SetThreads sets how many goroutines one matrix product of the OpenBLAS
// backend may use (over row blocks fixed by the product's shape, so the
// result does not depend on n; OpenBLAS itself runs on one thread).
// gonum's BLAS runs each call on the calling goroutine.
func SetThreads(n int) {
	if openblasThreads != nil && n > 0 {
		openblasThreads(n)
	}
}
