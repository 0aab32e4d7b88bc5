//go:build !(cgo && mpi)

package mpi

import "errors"

// Available reports whether this build has MPI (the tags cgo and mpi).
const Available = false

var errNoMPI = errors.New("mpi: this build has no MPI: install OpenMPI (Debian: openmpi-bin libopenmpi-dev) and build with -tags mpi (the Makefile adds it when MPI is found)")

// Comm is a communicator; without MPI there is none.
type Comm struct{}

// Init fails: this build has no MPI.
func Init() error { return errNoMPI }

// Finalize does nothing without MPI.
func Finalize() error { return nil }

// World returns nil without MPI.
func World() *Comm { return nil }

// Version returns "" without MPI.
func Version() string { return "" }

// LaunchedByMPI reports whether the process was started by an MPI
// launcher (mpirun, srun), from the environment it sets.
func LaunchedByMPI() bool { return launched() }
