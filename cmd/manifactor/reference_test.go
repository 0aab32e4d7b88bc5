package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestCLIReference: docs/cli.md is what `manifactor help reference`
// writes from the flags, so an option's text edited without `make docs`
// fails here.
func TestCLIReference(t *testing.T) {
	want, err := os.ReadFile("../../docs/cli.md")
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := writeReference(&got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		a, b := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := 0; i < max(len(a), len(b)); i++ {
			if i >= len(a) || i >= len(b) || !bytes.Equal(a[i], b[i]) {
				var x, y []byte
				if i < len(a) {
					x = a[i]
				}
				if i < len(b) {
					y = b[i]
				}
				t.Fatalf("docs/cli.md is stale (run make docs): line %d is %q, the flags give %q", i+1, y, x)
			}
		}
	}
}

// TestHelpFitsAScreen: each command's --help stays short; the rest is
// --help-all's.
func TestHelpFitsAScreen(t *testing.T) {
	for _, c := range commands() {
		out, _, _ := runCLI(t, c.name, "--help")
		if n := bytes.Count([]byte(out), []byte("\n")); n > 45 {
			t.Errorf("%s --help: %d lines", c.name, n)
		}
	}
}

// TestMistakesAnsweredShortly: a mistyped option or value is answered in
// one line that names the nearest valid one, not the whole usage.
func TestMistakesAnsweredShortly(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"fit", "--neighbours", "3"}, "did you mean --neighbors?"},
		{[]string{"cluster", "--method", "gnfm"}, "did you mean gnmf?"},
		{[]string{"fit", "--kernels", "generic"}, "--kernels is now --simd"},
		{[]string{"topics", "--k"}, "--k needs a value"},
	} {
		out, errOut, err := runCLI(t, c.args...)
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(c.want)) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
		if out != "" || errOut != "" {
			t.Errorf("%v printed %q, %q besides the error", c.args, out, errOut)
		}
	}
}

// TestDocsCommandsRun runs every manifactor command of the README's and
// docs/'s shell blocks whose data is in the repository (the tour runs
// on the embedded corpus), and checks the options of the others against
// their command's, so that a renamed option breaks the build, not the
// reader.
func TestDocsCommandsRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the documented commands on the demo corpus")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	docs, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	docs = append([]string{filepath.Join(root, "README.md")}, docs...)
	tmp := t.TempDir()
	ran := 0
	for _, doc := range docs {
		for _, args := range docCommands(t, doc) {
			where := fmt.Sprintf("%s: manifactor %s", filepath.Base(doc), strings.Join(args, " "))
			// Runnable: every path in the repository or under out/, and
			// the data named by one.
			runnable, vetoed := args[0] == "info" || args[0] == "demo", false
			for i, a := range args {
				switch {
				case strings.HasPrefix(a, "testdata/"):
					args[i] = filepath.Join(root, a)
					runnable = runnable || args[i-1] == "--data"
				case strings.HasPrefix(a, "out/"):
					args[i] = filepath.Join(tmp, a)
					runnable = runnable || args[i-1] == "--model"
				case strings.Contains(a, "$"):
					vetoed = true // a shell variable
				}
			}
			runnable = runnable && !vetoed
			if !runnable {
				help, _, _ := runCLI(t, args[0], "--help-all")
				for _, a := range args[1:] {
					if name, ok := strings.CutPrefix(a, "--"); ok && !strings.Contains(help, "--"+strings.SplitN(name, "=", 2)[0]+"\n") && !strings.Contains(help, "--"+strings.SplitN(name, "=", 2)[0]+" ") {
						t.Errorf("%s: %s takes no --%s", where, args[0], name)
					}
				}
				continue
			}
			if _, errOut, err := runCLI(t, append(args, "--quiet")...); err != nil {
				t.Errorf("%s: %v\n%s", where, err, errOut)
			}
			ran++
		}
	}
	if ran < 6 {
		t.Errorf("ran %d documented commands; the README's tour has more", ran)
	}
}

// docCommands returns the arguments of each manifactor command line in
// the sh blocks of the Markdown file path, continuation lines joined.
func docCommands(t *testing.T, path string) [][]string {
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	in := false
	line := ""
	for _, l := range strings.Split(string(b), "\n") {
		switch {
		case strings.HasPrefix(l, "```"):
			in = l == "```sh"
			continue
		case !in:
			continue
		}
		line += strings.TrimSpace(l)
		if strings.HasSuffix(line, "\\") {
			line = strings.TrimSuffix(line, "\\") + " "
			continue
		}
		// The command alone: no comment, no pipe.
		line, _, _ = strings.Cut(line, "#")
		line, _, _ = strings.Cut(line, " | ")
		f := strings.Fields(line)
		line = ""
		if len(f) > 1 && (f[0] == "bin/manifactor" || f[0] == "manifactor") {
			out = append(out, f[1:])
		}
	}
	return out
}

// TestEveryCommandJSON: every command takes --json and prints one valid
// JSON value with it.
func TestEveryCommandJSON(t *testing.T) {
	if testing.Short() {
		t.Skip("runs every command on the demo corpus")
	}
	data, err := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	model := filepath.Join(dir, "model")
	small := []string{"--data", data, "--classes", "1-3"}
	cmds := map[string][]string{
		"info":       nil,
		"describe":   small,
		"fit":        append(slices.Clone(small), "--k", "3", "--out", model),
		"transform":  {"--model", model, "--data", data},
		"cluster":    append(slices.Clone(small), "--k", "3"),
		"graph":      append(slices.Clone(small), "--out", filepath.Join(dir, "g.mtx")),
		"split":      {"--data", data, "--parts", "2", "--out", filepath.Join(dir, "parts")},
		"topics":     append(slices.Clone(small), "--k", "3"),
		"experiment": {"--data", data, "--methods", "nmf", "--clusters", "2", "--runs", "1"},
		"sweep":      {"--data", data, "--method", "gnmf", "--param", "lambda=1", "--clusters", "2", "--runs", "1"},
		"bench":      append(slices.Clone(small), "--k", "3", "--iters", "2"),
		"demo":       {"--k", "3"},
	}
	for _, c := range commands() { // in order: transform reads fit's model
		args, ok := cmds[c.name]
		if !ok {
			t.Errorf("%s: no case here", c.name)
			continue
		}
		out, errOut, err := runCLI(t, append(append([]string{c.name}, args...), "--json", "--quiet")...)
		if err != nil {
			t.Errorf("%s --json: %v\n%s", c.name, err, errOut)
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("%s --json printed no JSON (%v): %.200q", c.name, err, out)
		}
	}
}
