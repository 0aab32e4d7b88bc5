// Package matrixio reads and writes matrices in the formats package
// dataset loads and the command line writes: Matrix Market (coordinate
// and array, whole or by byte ranges, MTXParts), NumPy .npy, CSV (writing)
// and the manifest of a parts directory (a data set split into row blocks
// of Matrix Market files). It deals in matrices only: what the rows and
// columns mean (samples, labels, vocabularies) is package dataset's. It
// also holds what the readers of both packages share: ParseError, the line
// reader, gzip streams and the bounds every reader checks before it
// allocates.
//
// Files are untrusted input: readers never panic on bad data, every error
// names the file and where in it, and every size a file claims is checked
// against the bytes that can back it before anything is allocated.
//
// It imports sparse, gonum and internal/fileio; it must not import
// dataset, model, solver, graph or cmd.
package matrixio
