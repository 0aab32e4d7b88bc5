// Package sparsetest builds sparse matrices for the tests of the packages
// that read, write and multiply them.
//
// It imports sparse; it must not import dataset, solver, model or cmd.
package sparsetest
