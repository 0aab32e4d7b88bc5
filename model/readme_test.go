package model

import (
	"os"
	"strings"
	"testing"
)

// TestREADMEIsExample: the README's library code is ExampleFit's body
// (after its import block, before its trailing comment), so that it
// compiles and runs in the test suite.
func TestREADMEIsExample(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	ex, err := os.ReadFile("example_test.go")
	if err != nil {
		t.Fatal(err)
	}
	s := string(readme)
	lib := strings.Index(s, "## Library")
	start := strings.Index(s[lib:], "```go\n")
	if lib < 0 || start < 0 {
		t.Fatal("README: no Go block under ## Library")
	}
	block := s[lib+start+len("```go\n"):]
	block = block[:strings.Index(block, "```")]
	_, code, ok := strings.Cut(block, ")\n\n")
	if !ok {
		t.Fatal("README: the library block has no import block")
	}
	var readmeLines []string
	for _, l := range strings.Split(code, "\n") {
		if strings.HasPrefix(l, "// res.") {
			break // the README's own closing comment
		}
		readmeLines = append(readmeLines, l)
	}
	e := string(ex)
	a := strings.Index(e, "func ExampleFit() {\n")
	b := strings.Index(e[a:], "\t// Output:")
	if a < 0 || b < 0 {
		t.Fatal("example_test.go: no ExampleFit with an Output comment")
	}
	var exLines []string
	for _, l := range strings.Split(e[a+len("func ExampleFit() {\n"):a+b], "\n") {
		exLines = append(exLines, strings.TrimPrefix(l, "\t"))
	}
	got, want := strings.Join(readmeLines, "\n"), strings.Join(exLines, "\n")
	if strings.TrimSpace(got) != strings.TrimSpace(want) {
		t.Errorf("README's library code is not ExampleFit's body:\nREADME:\n%s\nExampleFit:\n%s", got, want)
	}
}
