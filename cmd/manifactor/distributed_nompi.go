//go:build !(cgo && mpi)

package main

import (
	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/dist/mpi"
)

// mpiJob is never made in a build without MPI: startMPI fails.
type mpiJob struct{}

// startMPI fails with how to get a build with MPI.
func startMPI() (*mpiJob, error) { return nil, mpi.Init() }

func (j *mpiJob) rank() int { return 0 }
func (j *mpiJob) size() int { return 1 }
func (j *mpiJob) abort(int) {}
func (j *mpiJob) finish()   {}
func (j *mpiJob) bcastString(string) (string, error) {
	panic("unreachable: no MPI job without MPI")
}
func (j *mpiJob) comms(dist.Grid) (dist.GridComms, error) {
	panic("unreachable: no MPI job without MPI")
}

func (j *mpiJob) barrier() error { return nil }
