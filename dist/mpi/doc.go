// Package mpi is a thin cgo binding to MPI (OpenMPI on Debian:
// openmpi-bin and libopenmpi-dev), with only the collectives the
// distributed factorizations use: Barrier, Bcast, Allreduce (sum),
// Allgatherv, Reduce_scatter (sum), Alltoallv and communicator splits, on
// float64 buffers. It is built only with the tags cgo and mpi; without
// them Available is false and Init returns an error saying how to build
// it, so that the module builds and tests on machines without MPI. A
// *Comm satisfies dist.Comm.
//
// MPI is initialized with MPI_THREAD_SERIALIZED: one goroutine at a time
// calls MPI, from whichever OS thread the Go scheduler gives it. Errors
// are returned (MPI_ERRORS_RETURN), not fatal, so that a rank can report
// its error before Abort ends the job.
//
// This package must not import anything of this module.
package mpi
