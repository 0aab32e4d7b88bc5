// Package dist runs factorizations distributed over ranks (processes,
// usually launched by mpirun or srun) that exchange data only through
// collectives: the Comm interface, which dist/mpi's communicator
// satisfies over MPI, and Local's in-process ranks, goroutines sharing
// memory, satisfy for tests and for running the distributed code paths on
// one machine without MPI.
//
// The collectives are the ones the 2-D distribution of MPI-FAUN (Kannan,
// Ballard and Park) needs: gathers of factor blocks along a grid row or
// column (Allgatherv), reduce-scatters of the partial products to the
// rows' owners, sums of k x k Gram matrices and objective terms
// (AllreduceSum), the exchange of neighbours' rows for a graph term
// (Alltoallv), and the grid's row and column communicators (Split).
//
// Each rank can read its own samples (ReadMTXShard: byte ranges of a
// Matrix Market file, entries sent to their samples' ranks; or
// dataset.LoadRows from a parts directory) and prepare them with the
// corpus's statistics pooled over the ranks (ShardPool, for
// model.PrepareShard), so no rank holds the whole corpus.
//
// RunJob is the whole distributed fit from a corpus on disk, the command
// line's fit --distributed, for a program launched by mpirun with
// dist/mpi's communicator; RunLocal runs it on goroutines.
//
// This package must not import cmd, experiment or dist/mpi; it reads
// files through dataset.
package dist
