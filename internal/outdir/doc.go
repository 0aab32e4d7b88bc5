// Package outdir writes a command's output directory as a whole: every
// file goes into a fresh hidden directory beside the final one, which
// replaces the final one only once every file is complete. A run that
// fails or is interrupted part way leaves the previous output as it was
// (and at most a hidden temporary directory, which the next run does not
// read); a run that succeeds leaves only its own files, none of an
// earlier run's. Nothing is written through a symbolic link, and a
// directory holding files the command does not write is refused rather
// than replaced, so that --out pointed at the wrong place destroys
// nothing.
//
// It imports only the standard library.
package outdir
