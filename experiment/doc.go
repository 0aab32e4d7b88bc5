// Package experiment runs the papers' clustering evaluation protocol: for
// each number of classes k in a range, k classes are drawn at random from a
// labelled data set, their samples are clustered into k clusters by every
// method under comparison, and the clusterings are scored by accuracy and
// normalized mutual information against the true classes; this is repeated
// a number of times per k, and the table reports the mean and standard
// deviation per k and the average over k (the papers' "Avg." row).
//
// It owns the Method interface, the Factorization method (the pipeline of
// package model on each subset: its own graph when the method takes one,
// the start, the factorization and the assignment), the baseline methods (k-means, LSI, Average Association, Normalized
// Cut, PCA), the Protocol that draws the subsets and runs the methods, and
// the Table of scores with its Markdown, CSV and JSON forms (with, for a
// factorization that chose its lambda by Auto, every candidate weight
// scored on the same fits: Table.Candidates), Sweep (the protocol's
// average against one parameter's values), and the published
// tables of the five papers as data (References, LookupReference), which
// Table.Compare prints beside a run's scores with the differences.
//
// Invariants: every method sees the same subsets, drawn from the protocol's
// Seed, k and run; each (k, run) is computed independently of the others and
// the scores are aggregated in a fixed order, so a Table is identical for any
// number of Workers (apart from the measured Seconds).
//
// This package uses dataset, model, solver and cluster; it must not import
// cmd.
package experiment
