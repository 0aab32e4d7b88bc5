// Package autolambda is how model chooses the graph term's weight from the
// data (model.Options.Lambda set to solver.Auto): the weights it tries
// (Grid), where their fits start (Start), what it measures of each fit
// (Candidate), the rule that keeps one (Choose) and its verdict on the
// graph (Verdict). model runs the fits; this package holds what a caller
// reads in model.Result and the rule itself, so that the rule can be read
// and tested apart from the pipeline.
//
// It imports solver; it must not import model, experiment or cmd.
package autolambda
