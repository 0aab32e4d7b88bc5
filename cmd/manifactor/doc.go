// Command manifactor factorizes non-negative data matrices (term-document
// matrices, image sets) and clusters their samples. Run `manifactor help`
// for the sub-commands.
//
// The command parses flags, reads and prints; every step of the work is
// a call into the library (model, dist, experiment), so that a Go program
// does what a command does. It must not import directly sparse,
// internal/asm, internal/nmfstep or internal/parallel, the computations
// under the library's steps.
package main
