// Package dataset reads data sets into memory and prepares them for
// factorization: MATLAB level-5 MAT-files (ReadMAT), Matrix Market files
// (ReadMatrixMarket, WriteMatrixMarket), and the usual preparation of term
// counts (TFIDF, NormalizeL2, DropZeroFeatures).
//
// A Dataset keeps samples as rows, the layout of the field's files (fea is
// samples x features); the papers' X (features x samples) is its transpose.
// Sparse data is a sparse.CSR with one row per sample, dense data a gonum
// mat.Dense. Labels, when present, are kept as stored (usually 1-based).
//
// Invariants: a Dataset returned by Load has exactly one of Sparse and Dense
// set, passes Validate (valid CSR, finite values, one label per sample) and
// has at least one sample and one feature. The methods keep it valid
// (DropZeroFeatures leaves no features when every one is zero).
//
// Files are untrusted input. Readers never panic on bad data: every error
// starts with the file name and says what is wrong and where (byte offset
// for the structure of a MAT-file, line number for a text file, row, column
// and value for bad data). Every size a file claims is checked against the
// bytes that can back it before anything is allocated, and decompression
// is bounded.
//
// This package uses sparse and gonum; it must not import solver, graph,
// cluster, experiment or cmd.
package dataset
