// Package cluster scores and produces clusterings: clustering accuracy under
// the best one-to-one map between predicted and true clusters (found with
// the Kuhn-Munkres algorithm) and normalized mutual information.
//
// Labels are arbitrary integers; a predicted label of -1 marks a sample the
// method could not assign, which counts as wrong for accuracy and forms its
// own group for NMI.
//
// This package must not import dataset, solver's callers, experiment or cmd.
package cluster
