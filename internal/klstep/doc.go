// Package klstep holds the coordinate-descent solve of one row of a
// factor under the KL divergence with the other factor fixed, which
// package solver's KL iterations and package minibatch's online KL fit
// share.
//
// This package must not import solver, model, dist or cmd.
package klstep
