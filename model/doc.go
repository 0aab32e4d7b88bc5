// Package model is manifactor's one pipeline from a data set to clusters:
//
//	Prepare: weighting (tf-idf for term counts) and unit-length samples,
//	         the features no sample uses dropped, a class subset;
//	Fit:     the sample graph (for the graph methods), the start, the
//	         factorization (for the graph methods under Auto, once per
//	         candidate weight, keeping the one the data supports), and the
//	         assignment of every sample to a cluster;
//	Model:   what a fit learned (the fitted Preparation: kept features,
//	         idf, weighting; the factors; the k-means centres; the
//	         training graph's construction and reach), which Transform
//	         applies to samples the fit did not see and Save and Load
//	         keep in a directory (manifest.json and Matrix Market files,
//	         see save.go); Prepared.ReadGraph reads a user's graph file.
//
// The command line, the experiment protocol and library users all go
// through Prepare and Fit, so the same Options and Seed give the same
// factors and labels whichever calls them, and the zero value of Options is
// the command line's default (but for the seed, which the command line
// sets to 1). Seeds of the steps derive from Options.Seed
// in one place (see Fit).
//
// Three subpackages hold what a caller reads apart from the pipeline:
// autolambda, Auto's rule for the graph term's weight and the report of
// its candidates (Result.Candidates, Result.Verdict); memory, the
// estimate of what a fit will hold, which the command line checks against
// --memory before it starts; and rank, which cross-validates k on hidden
// entries. A Dataset's Missing entries are left out of the fit
// (solver.Data.Hide) by the methods that can: nmf, gnmf and nmf-kl.
//
// Its own choices are typed: Assign, Weighting and Normalization,
// each with a parser for the command line; the method, lambda and
// formulation are the solver package's types.
//
// The package sits above dataset, graph, solver and cluster and uses
// them; it must not import dist, experiment, figure or cmd, and it never prints
// or reads flags.
package model
