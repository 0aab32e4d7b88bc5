// Package dataset reads data sets into memory for factorization, all
// through Load: MATLAB level-5 MAT-files (variables fea and gnd by
// default), Matrix Market, SVMlight (ReadSVMLight), CSV and TSV (ReadCSV)
// and NumPy .npy files, each also gzip-compressed; and raw text, from
// Reuters-21578 SGML (ReadReuters, LoadReuters), a directory of documents
// with any extension, UTF-8 or Latin-1, with optional stripping of message
// headers, signatures and quotations (LoadTextDir, Strip), or one document
// per line (LoadTextLines), through a text pipeline (Tokenize, English stop
// words, Snowball stemming, document frequency pruning, to term counts:
// Vectorize). The vocabulary, class names and sample IDs travel with a
// Dataset; package model weighs the counts.
//
// For processes that each hold part of a corpus: a parts directory
// (WriteParts, a manifest and one Matrix Market file per block of samples)
// from which LoadRows reads only the blocks of given samples.
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
// and value for bad data), as a *ParseError that errors.As finds. Every
// size a file claims is checked against the bytes that can back it before
// anything is allocated, decompression is bounded, and Load bounds the data
// a file may hold (LoadOptions.MemoryLimit). Load stops at its next read
// once its context is done.
//
// This package uses sparse, gonum and github.com/kljensen/snowball (the
// stemmer); it must not import solver, graph, cluster, experiment or cmd.
package dataset
