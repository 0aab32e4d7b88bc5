package asm

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// legacySSE matches an instruction without the VEX prefix ("V...") that
// names an XMM or YMM register. Intel cores charge a state transition (or a
// merge with the register's upper half) for every such instruction met
// while the upper halves are dirty: a single legacy MOVQ in a kernel's
// prologue can cost more a call than the rest of a 128-entry KLStep
// (docs/PERFORMANCE.md). The kernels must use VEX encodings throughout;
// AMD cores do not show it, so only a test keeps it out.
var legacySSE = regexp.MustCompile(`^\s*[A-UW-Z][A-Z0-9]*\s+.*\b[XY]\d+\b`)

func TestKernelsUseVEXOnly(t *testing.T) {
	files, err := filepath.Glob("*_amd64.[sh]")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no assembly files found")
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code, _, _ := strings.Cut(line, "//")
			if legacySSE.MatchString(code) {
				t.Errorf("%s:%d: %s is a legacy SSE encoding; use its VEX form", name, i+1, strings.TrimSpace(code))
			}
		}
	}
}
