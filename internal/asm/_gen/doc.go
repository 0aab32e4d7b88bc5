// Command _gen writes the AVX2 assembly of package asm (the
// *_amd64.s files next to this directory) with avo
// (github.com/mmcloughlin/avo). go generate ./internal/asm runs it.
//
// Each kernel is a Go function that emits its instructions with physical
// registers, chosen as the kernel's design needs them (avo allocates
// none); Go loops and helper functions write the unrolled blocks, the
// loops chosen by width at run time, and a body's four-wide and one-wide
// forms (shape). The signatures come from the Go declarations
// of the assembly functions in the package's *_amd64.go files, so that
// the two cannot disagree, and go vet ./internal/asm checks the frames.
//
// The generator is a module of its own, so that package asm does not
// depend on avo; the leading underscore keeps it out of ./... .
package main
