// Package rank answers which k, two ways. CrossValidate finds the
// model's rank, the number of components the data support: a seeded
// share of all entries, zeros included, is left out of each replicate's
// objective (solver.Data.Hide); every rank is fitted on the rest, each
// from the previous rank's factors, and scored by its loss at the hidden
// entries. Consensus finds a number of clusters, how many groups the
// samples fall into reproducibly: each k is fitted from many random
// starts and the agreement of their clusterings is measured (Brunet et
// al.'s cophenetic correlation, Kim and Park's dispersion).
//
// It imports model, solver, graph and dataset; it must not import
// experiment, dist or cmd.
package rank
