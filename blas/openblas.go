//go:build cgo && openblas

package blas

import "github.com/manifactor/manifactor/blas/openblas"

func init() {
	openblasImpl = openblas.Implementation{}
	openblasThreads = openblas.SetThreads
}
