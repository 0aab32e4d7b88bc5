// Package rank answers which k: it cross-validates the rank of a
// factorization on entries it hides (CrossValidate). A seeded share of all
// entries, zeros included, is left out of each replicate's objective
// (solver.Data.Hide); every rank is fitted on the rest, each from the
// previous rank's factors, and scored by its loss at the hidden entries.
// The rank is the model's, the number of components the data support: a
// number of clusters is a different question.
//
// It imports model, solver, graph and dataset; it must not import
// experiment, dist or cmd.
package rank
