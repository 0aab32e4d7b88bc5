// Package cluster scores and produces clusterings: k-means (k-means++
// seeding, replicates, singleton repair of empty clusters) on dense rows,
// such as the rows of a factor V, or on sparse rows, such as tf-idf
// documents; clustering accuracy under the best one-to-one map between
// predicted and true clusters (found with the Kuhn-Munkres algorithm); and
// normalized mutual information. K-means results are identical for any
// thread count.
//
// Labels are arbitrary integers; a predicted label of -1 marks a sample the
// method could not assign, which counts as wrong for accuracy and forms its
// own group for NMI.
//
// This package uses sparse and kernels; it must not import dataset, solver,
// experiment or cmd.
package cluster
