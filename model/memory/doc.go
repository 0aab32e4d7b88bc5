// Package memory estimates what a run holds at its peak before it starts:
// the data in the solver's forms, the graph search and the factors, from
// the data's shape and the run's options (Fit, Graph), so that a job too
// large for the machine is refused before it reads or allocates more.
//
// It imports model; it must not import experiment, dist or cmd.
package memory
