// Package nmfstep holds the pieces of the Frobenius NMF iterations that
// one process (package solver) and many (package dist) share, so that a
// rank of a distributed fit takes the steps one process takes: the
// coordinate-descent sweeps over blocks of rows and their stopping rule,
// the coordinate-descent half-step, the extrapolation that drives it,
// the layouts of the data products (column blocks, column panels, the
// renumbered features), the seeded random starts, drawable row by row,
// and a hook to package solver's multiplicative half-step (MUUpdate).
//
// This package must not import solver, model, dist or cmd.
package nmfstep
