package asm

// The assembly of the avx2 path (the *_amd64.s files) is written by the
// avo program in _gen, a module of its own so that avo is no dependency
// of this one: edit the generator, never the assembly, and run
// go generate ./internal/asm. make generate-check fails when the committed
// files differ from what it writes.
//
//go:generate go run -C _gen .
