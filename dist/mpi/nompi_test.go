//go:build !(cgo && mpi)

package mpi

import "testing"

// TestWithoutMPI: a build without MPI says so, and how to get it.
func TestWithoutMPI(t *testing.T) {
	if Available {
		t.Fatal("Available in a build without the mpi tag")
	}
	if err := Init(); err == nil {
		t.Fatal("Init succeeded without MPI")
	}
	t.Skip("the MPI tests need a build with -tags mpi and OpenMPI (Debian: openmpi-bin libopenmpi-dev)")
}
