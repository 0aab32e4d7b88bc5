//go:build cgo && mpi

package main

import (
	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/dist/mpi"
)

// mpiJob is this process's part of an MPI job.
type mpiJob struct{ world *mpi.Comm }

// startMPI initializes MPI.
func startMPI() (*mpiJob, error) {
	if err := mpi.Init(); err != nil {
		return nil, err
	}
	return &mpiJob{world: mpi.World()}, nil
}

func (j *mpiJob) rank() int      { return j.world.Rank() }
func (j *mpiJob) size() int      { return j.world.Size() }
func (j *mpiJob) abort(code int) { j.world.Abort(code) }
func (j *mpiJob) finish()        { mpi.Finalize() }

// bcastString returns rank 0's s on every rank.
func (j *mpiJob) bcastString(s string) (string, error) {
	n := []float64{float64(len(s))}
	if err := j.world.Bcast(n, 0); err != nil {
		return "", err
	}
	b := make([]byte, int(n[0]))
	copy(b, s)
	if err := j.world.BcastBytes(b, 0); err != nil {
		return "", err
	}
	return string(b), nil
}

// comms splits the world by grid row and by grid column.
func (j *mpiJob) comms(g dist.Grid) (dist.GridComms, error) {
	i, c := g.Pos(j.world.Rank())
	row, err := j.world.Split(i, c)
	if err != nil {
		return dist.GridComms{}, err
	}
	col, err := j.world.Split(g.Rows+c, i)
	if err != nil {
		return dist.GridComms{}, err
	}
	return dist.GridComms{World: j.world, Row: row, Col: col}, nil
}

func (j *mpiJob) barrier() error { return j.world.Barrier() }
