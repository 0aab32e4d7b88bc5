package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
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
		"rank":       append(slices.Clone(small), "--k", "2-3", "--replicates", "2", "--iters", "5"),
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

// TestSkipUnreadable: a corpus directory whose files end in NUL padding
// is read; a binary file among them stops the command with one line that
// names it and the way out, and --skip-unreadable reads the rest,
// reporting the file on stderr and in the JSON.
func TestSkipUnreadable(t *testing.T) {
	dir := t.TempDir()
	docs := map[string]string{
		"earn/1": "profits rose on strong quarterly earnings", "earn/2": "quarterly earnings beat forecasts, profits up",
		"earn/3": "net profits and earnings per share rose", "sport/1": "the striker scored twice in the cup final",
		"sport/2": "the team won the final after extra time", "sport/3": "a late goal won the cup for the home team",
	}
	for rel, text := range docs {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		// Every file padded with NULs, as some archives leave them.
		if err := os.WriteFile(p, append([]byte(text), make([]byte, 512)...), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := runCLI(t, "describe", "--data", dir, "--json"); err != nil {
		t.Fatalf("padded files: %v", err)
	}
	noise := make([]byte, 4096)
	for i := range noise {
		noise[i] = byte(i*7919 + i*i*31)
	}
	os.WriteFile(filepath.Join(dir, "sport", "scan.pdf"), noise, 0o644)
	_, errOut, err := runCLI(t, "describe", "--data", dir)
	if err == nil || !strings.Contains(err.Error(), "scan.pdf") || !strings.Contains(err.Error(), "--skip-unreadable") || strings.Count(err.Error(), "\n") > 2 || errOut != "" {
		t.Errorf("a binary file: %v, stderr %q", err, errOut)
	}
	for _, cmd := range [][]string{{"describe"}, {"cluster", "--k", "2", "--method", "nmf"}} {
		out, errOut, err := runCLI(t, append(cmd, "--data", dir, "--skip-unreadable", "--json")...)
		if err != nil {
			t.Fatalf("%v --skip-unreadable: %v", cmd, err)
		}
		var got struct {
			Samples int
			Skipped struct {
				Count int
				First []string
			}
		}
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatal(err)
		}
		if got.Samples != 6 || got.Skipped.Count != 1 || !slices.Equal(got.Skipped.First, []string{"sport/scan.pdf"}) || !strings.Contains(errOut, "skipped 1 unreadable files") {
			t.Errorf("%v --skip-unreadable: %+v, stderr %q", cmd, got, errOut)
		}
	}
}

// TestOutputsForPeople: fit names each document's cluster in
// assignments.tsv (the same 0-based clusters as labels.txt), topics reads
// as words (stems with --stems) and reads a saved model's, and the usual
// mistakes are answered in a line or two that say what to do.
func TestOutputsForPeople(t *testing.T) {
	if testing.Short() {
		t.Skip("fits the demo corpus")
	}
	data, _ := filepath.Abs("../../testdata/demo/reuters-demo.sgm.gz")
	dir := t.TempDir()
	mod := filepath.Join(dir, "model")
	if _, _, err := runCLI(t, "fit", "--data", data, "--classes", "1-4", "--k", "4", "--out", mod, "--quiet"); err != nil {
		t.Fatal(err)
	}
	tsv, err := os.ReadFile(filepath.Join(mod, "assignments.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	labels, _ := os.ReadFile(filepath.Join(mod, "labels.txt"))
	rows := strings.Split(strings.TrimSpace(string(tsv)), "\n")
	nums := strings.Fields(string(labels))
	if rows[0] != "id\tcluster\tclass" || len(rows) != len(nums)+1 {
		t.Fatalf("assignments.tsv: header %q, %d rows for %d labels", rows[0], len(rows)-1, len(nums))
	}
	for i, r := range rows[1:] {
		f := strings.Split(r, "\t")
		if len(f) != 3 || f[0] == "" || f[1] != nums[i] || f[2] == "" {
			t.Fatalf("assignments.tsv row %d: %q, labels.txt %q", i+1, r, nums[i])
		}
	}
	words, _, err := runCLI(t, "topics", "--model", mod, "--top", "8")
	if err != nil || !strings.Contains(words, "topic  0 (") || strings.Contains(words, "topic  4 (") {
		t.Fatalf("topics --model: %v\n%s", err, words)
	}
	stems, _, _ := runCLI(t, "topics", "--model", mod, "--top", "8", "--stems")
	if words == stems || !strings.Contains(words, "prices") || !strings.Contains(stems, "price ") {
		t.Errorf("words and stems:\n%s\n%s", words, stems)
	}
	csv := filepath.Join(dir, "docs.csv")
	os.WriteFile(csv, []byte("id,text\n1,markets rallied today\n"), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"transform", "--model", data, "--data", data}, "is a file, not a model directory"},
		{[]string{"topics", "--model", filepath.Join(dir, "none")}, "does not exist (fit --out DIR"},
		{[]string{"topics", "--model", mod, "--k", "3"}, "takes no --k"},
		{[]string{"describe", "--data", csv}, "a .txt file of one per line"},
	} {
		_, errOut, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Count(err.Error(), "\n") > 2 || errOut != "" {
			t.Errorf("%v: %v (stderr %q), want %q in at most 3 lines", c.args, err, errOut, c.want)
		}
	}
}

// TestNamedPipesRefused: a FIFO named as a data, labels or graph file,
// or standing in a model directory, is refused at once with a message
// that names it, where opening it waited for a writer forever.
func TestNamedPipesRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := func(name string) string {
		p := filepath.Join(dir, name)
		if err := syscall.Mkfifo(p, 0o644); err != nil {
			t.Skip("no named pipes here:", err)
		}
		return p
	}
	mtx, labels := writeFixture(t, dir)
	mod := filepath.Join(dir, "model")
	os.MkdirAll(mod, 0o755)
	os.Rename(fifo("manifest.json"), filepath.Join(mod, "manifest.json"))
	for _, args := range [][]string{
		{"describe", "--data", fifo("x.csv")},
		{"cluster", "--data", mtx, "--labels", fifo("labels.txt"), "--k", "2"},
		{"cluster", "--data", mtx, "--labels", labels, "--method", "gnmf", "--graph", fifo("g.mtx"), "--k", "2"},
		{"topics", "--model", mod},
	} {
		done := make(chan error, 1)
		go func() { _, _, err := runCLI(t, args...); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), "named pipe") {
				t.Errorf("%v: %v", args, err)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%v: blocked on a named pipe", args)
		}
	}
}

// TestHostileRound2: cases of the second round of hostile input each end
// in a clean error that names the flag or the file, at once.
func TestHostileRound2(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	huge := writeTemp(t, dir, "huge.csv", "1e149,2,3\n4,5,6\n7,8,9\n1,1,1\n")
	dup := writeTemp(t, dir, "dup.csv", "a,b,a\n1,2,3\n4,5,6\n7,8,9\n")
	base := []string{"cluster", "--data", mtx, "--labels", labels, "--method", "nmf"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{append(slices.Clone(base), "--k", "2", "--classes", "9223372036854775807"), "values must be within"},
		{append(slices.Clone(base), "--k", "2", "--classes", "1-1000000,2000000-3000000"), "more than 100000 values"},
		{append(slices.Clone(base), "--k", "1_0"), `"1_0" is not a decimal integer`},
		{[]string{"experiment", "--data", mtx, "--labels", labels, "--methods", "nmf", "--clusters", "2-99999999999"}, "values must be within"},
		{[]string{"cluster", "--data", huge, "--k", "2"}, "huge.csv: value 1e+149"},
		{[]string{"fit", "--data", dup, "--k", "2", "--out", filepath.Join(dir, "o")}, `dup.csv:1: column name "a" repeats column 1's`},
	} {
		start := time.Now()
		_, _, err := runCLI(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || time.Since(start) > 10*time.Second {
			t.Errorf("%v: %v (%v), want %q", c.args, err, time.Since(start), c.want)
		}
	}
	// --k 010 is ten, not Go's octal eight.
	out, _, err := runCLI(t, append(slices.Clone(base), "--k", "010", "--json")...)
	if err != nil || decode(t, out)["k"] != 10.0 {
		t.Errorf("--k 010: %v, %v", err, decode(t, out)["k"])
	}
}

// TestPrintable: what a terminal would act on is escaped; text is kept.
func TestPrintable(t *testing.T) {
	for in, want := range map[string]string{
		"plain café":              "plain café",
		"a\nforged line":          `a\x0aforged line`,
		"x\x1b[31mred":            `x\x1b[31mred`,
		"bad\xffbyte":             `bad\xffbyte`,
		"right\u202eto left":      `right\u202eto left`,
		"tab\there and \u0085 C1": `tab\x09here and \u0085 C1`,
	} {
		if got := printable(in); got != want {
			t.Errorf("printable(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestOutputsOutsideTheCorpus: an output written inside the corpus
// directory would be read as documents by the next run, so it is refused;
// and cf's explicit kernel counts in the memory a job is refused for.
func TestOutputsOutsideTheCorpus(t *testing.T) {
	corpus := t.TempDir()
	for i, text := range []string{"markets rallied on earnings", "markets fell on earnings", "the striker scored", "the team won the cup"} {
		p := filepath.Join(corpus, []string{"biz", "sport"}[i/2], fmt.Sprint(i))
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(text), 0o644)
	}
	for _, args := range [][]string{
		{"split", "--data", corpus, "--parts", "2", "--out", filepath.Join(corpus, "parts")},
		{"graph", "--data", corpus, "--neighbors", "1", "--out", filepath.Join(corpus, "g.mtx")},
		{"fit", "--data", corpus, "--k", "2", "--out", filepath.Join(corpus, "model")},
	} {
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), "inside the input directory") {
			t.Errorf("%v: %v", args, err)
		}
	}
	var b strings.Builder
	for i := 0; i < 30000; i++ {
		fmt.Fprintf(&b, "%d,%d,%d\n", i%7+1, i%5+1, i%3+1)
	}
	csv := writeTemp(t, t.TempDir(), "rows.csv", b.String())
	_, _, err := runCLI(t, "cluster", "--data", csv, "--method", "cf", "--kernel", "gaussian", "--k", "3", "--memory", "2G")
	if err == nil || !strings.Contains(err.Error(), "factors 7.2") {
		t.Errorf("cf's 30,000 x 30,000 kernel under --memory 2G: %v", err)
	}
}
