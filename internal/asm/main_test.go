package asm

import (
	"fmt"
	"os"
	"testing"
)

// pathAtStart is the path the package chose by itself, before TestMain
// applied MANIFACTOR_KERNELS.
var pathAtStart string

// TestMain runs the tests on the path MANIFACTOR_KERNELS names, as the
// command line would (make test's generic pass sets it); the package
// itself reads no environment.
func TestMain(m *testing.M) {
	pathAtStart = Path()
	if err := Use(os.Getenv("MANIFACTOR_KERNELS")); err != nil {
		fmt.Fprintln(os.Stderr, "MANIFACTOR_KERNELS:", err)
		os.Exit(2)
	}
	os.Exit(m.Run())
}
