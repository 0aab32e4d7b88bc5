package outdir

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}

func text(s string) func(io.Writer) error {
	return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
}

// TestCommitAndAbort: a new output appears whole; a second run replaces
// the first entirely (no stale file of the first); a run whose write
// fails part way leaves the previous output byte for byte, and no
// temporary directory behind.
func TestCommitAndAbort(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	known := []string{"U.mtx", "V.mtx", "W.mtx", "summary.json"}
	write := func(files map[string]string) error {
		d, err := Begin(out, known)
		if err != nil {
			return err
		}
		defer d.Abort()
		for _, name := range []string{"U.mtx", "V.mtx", "W.mtx", "summary.json"} {
			if body, ok := files[name]; ok {
				if err := d.WriteFile(name, text(body)); err != nil {
					return err
				}
			}
		}
		return d.Commit()
	}
	if err := write(map[string]string{"U.mtx": "u1", "V.mtx": "v1", "W.mtx": "w1", "summary.json": "s1"}); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, out); !slices.Equal(got, []string{"U.mtx", "V.mtx", "W.mtx", "summary.json"}) {
		t.Fatalf("first run: %v", got)
	}
	if err := write(map[string]string{"U.mtx": "u2", "V.mtx": "v2", "summary.json": "s2"}); err != nil {
		t.Fatal(err)
	}
	if got := entries(t, out); !slices.Equal(got, []string{"U.mtx", "V.mtx", "summary.json"}) {
		t.Errorf("second run left %v (W.mtx of the first is stale)", got)
	}
	// A write that fails part way, after two complete files.
	d, err := Begin(out, known)
	if err != nil {
		t.Fatal(err)
	}
	d.WriteFile("U.mtx", text("u3"))
	d.WriteFile("V.mtx", text("v3"))
	werr := d.WriteFile("summary.json", func(w io.Writer) error {
		io.WriteString(w, `{"half": `)
		return errors.New("disk full")
	})
	if werr == nil || !strings.Contains(werr.Error(), "disk full") || !strings.Contains(werr.Error(), filepath.Join(out, "summary.json")) {
		t.Errorf("failed write: %v", werr)
	}
	d.Abort()
	for name, want := range map[string]string{"U.mtx": "u2", "V.mtx": "v2", "summary.json": "s2"} {
		if b, _ := os.ReadFile(filepath.Join(out, name)); string(b) != want {
			t.Errorf("after a failed run %s holds %q, want the previous %q", name, b, want)
		}
	}
	if got := entries(t, parent); !slices.Equal(got, []string{"out"}) {
		t.Errorf("left beside the output: %v", got)
	}
}

// TestRefusals: a directory holding a file the command does not write, a
// symbolic link, a file, "." are refused before anything is written; a
// link inside the output is replaced, never written through.
func TestRefusals(t *testing.T) {
	parent := t.TempDir()
	foreign := filepath.Join(parent, "mine")
	os.Mkdir(foreign, 0o755)
	os.WriteFile(filepath.Join(foreign, "thesis.tex"), []byte("precious"), 0o644)
	if _, err := Begin(foreign, []string{"V.mtx"}); err == nil || !strings.Contains(err.Error(), `"thesis.tex"`) {
		t.Errorf("a foreign file: %v", err)
	}
	link := filepath.Join(parent, "link")
	os.Symlink(foreign, link)
	if _, err := Begin(link, []string{"V.mtx"}); err == nil || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("a link: %v", err)
	}
	file := filepath.Join(parent, "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := Begin(file, []string{"V.mtx"}); err == nil || !strings.Contains(err.Error(), "not a directory") {
		t.Errorf("a file: %v", err)
	}
	if _, err := Begin(".", []string{"V.mtx"}); err == nil {
		t.Error(`"." accepted`)
	}
	// A link named like an output, pointing at a file outside.
	out := filepath.Join(parent, "out")
	os.Mkdir(out, 0o755)
	target := filepath.Join(parent, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	os.Symlink(target, filepath.Join(out, "V.mtx"))
	d, err := Begin(out, []string{"V.mtx"})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.WriteFile("V.mtx", text("new")); err != nil {
		t.Fatal(err)
	}
	if err := d.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was written: %q", b)
	}
	if fi, _ := os.Lstat(filepath.Join(out, "V.mtx")); fi.Mode()&os.ModeSymlink != 0 {
		t.Error("the output is still a link")
	}
	if os.Geteuid() != 0 {
		ro := filepath.Join(parent, "ro")
		os.Mkdir(ro, 0o555)
		if _, err := Begin(filepath.Join(ro, "out"), nil); err == nil || !strings.Contains(err.Error(), "cannot write") {
			t.Errorf("an unwritable parent: %v", err)
		}
	}
}

// TestWriteFile: a failed write keeps the previous content and leaves no
// temporary file; a link at the path is replaced, not written through.
func TestWriteFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "g.mtx")
	if err := WriteFile(path, text("one")); err != nil {
		t.Fatal(err)
	}
	err := WriteFile(path, func(w io.Writer) error {
		io.WriteString(w, "tw")
		return errors.New("disk full")
	})
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("failed write: %v", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one" {
		t.Errorf("after a failed write: %q", b)
	}
	target := filepath.Join(dir, "target")
	os.WriteFile(target, []byte("keep"), 0o644)
	link := filepath.Join(dir, "link.mtx")
	os.Symlink(target, link)
	if err := WriteFile(link, text("new")); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("written through the link: %q", b)
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"g.mtx", "link.mtx", "target"}) {
		t.Errorf("directory holds %v", got)
	}
}

// TestSweepKilledRuns: the temporary directory and file of a run that was
// killed (its process gone) are removed by the next run into the same
// place; those of a live process are kept.
func TestSweepKilledRuns(t *testing.T) {
	parent := t.TempDir()
	out := filepath.Join(parent, "out")
	dead := filepath.Join(parent, ".out.tmp-999999999-42")      // no such process
	oldBuild := filepath.Join(parent, ".out.tmp-3000000001")    // a name without a process ID
	live := filepath.Join(parent, ".out.tmp-1-42")              // process 1 exists
	deadFile := filepath.Join(parent, ".g.mtx.tmp-999999999-7") // WriteFile's
	for _, d := range []string{dead, oldBuild, live} {
		if err := os.MkdirAll(filepath.Join(d, "sub"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(deadFile, []byte("half"), 0o644)
	d, err := Begin(out, []string{"a"})
	if err != nil {
		t.Fatal(err)
	}
	defer d.Abort()
	for path, want := range map[string]bool{dead: false, oldBuild: false, live: true, deadFile: true} {
		if _, err := os.Stat(path); (err == nil) != want {
			t.Errorf("%s: exists %v, want %v", filepath.Base(path), err == nil, want)
		}
	}
	if err := WriteFile(filepath.Join(parent, "g.mtx"), func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(deadFile); err == nil {
		t.Error("WriteFile left the killed run's temporary file")
	}
}
