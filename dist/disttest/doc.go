// Package disttest checks a dist.Comm: every collective run with data that
// depends on the ranks, each result compared with what the collective
// defines. The tests of dist's in-process ranks and of dist/mpi's binding
// (under mpirun) run the same checks.
//
// This package must not import cmd, experiment or dist/mpi.
package disttest
