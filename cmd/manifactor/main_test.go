package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/blas"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/dist/mpi"
	"github.com/manifactor/manifactor/experiment"
	"github.com/manifactor/manifactor/internal/backend"
	"github.com/manifactor/manifactor/internal/testenv"
	"github.com/manifactor/manifactor/model/autolambda"
	"github.com/manifactor/manifactor/solver"
)

// TestMain lets the tests run this binary as the real command: with
// MANIFACTOR_TEST_MAIN=1 the test binary behaves as manifactor.
// Otherwise the tests run on the backends make test's pass names, as the
// commands they run do.
func TestMain(m *testing.M) {
	if os.Getenv("MANIFACTOR_TEST_MAIN") == "1" {
		main()
		os.Exit(0)
	}
	testenv.Main(m)
}

var sharedData = filepath.Join("..", "..", "..", "shared", "data")

func realData(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(sharedData, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("%s not found: the real data sets live in ../shared/data beside the project", p)
	}
	return p
}

// runCLI runs the command in-process and returns stdout, stderr and error.
func runCLI(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	err := run(context.Background(), args, &out, &errOut)
	// Sub-commands install backends globally (--blas, --simd); put
	// the pass's back.
	t.Cleanup(func() {
		if err := backend.FromEnv(); err != nil {
			t.Error(err)
		}
	})
	return out.String(), errOut.String(), err
}

func decode(t *testing.T, s string) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, s)
	}
	return m
}

// writeFixture writes a small labelled term-count matrix: three groups of
// documents using disjoint vocabularies, so any sound NMF separates them.
func writeFixture(t *testing.T, dir string) (mtx, labels string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 1))
	var lines []string
	var lab strings.Builder
	const docs, terms = 60, 45
	for d := 0; d < docs; d++ {
		g := d % 3
		fmt.Fprintln(&lab, g+1)
		for w := g * 15; w < g*15+15; w++ {
			if rng.Float64() < 0.5 {
				lines = append(lines, fmt.Sprintf("%d %d %d", d+1, w+1, 1+rng.IntN(4)))
			}
		}
	}
	mtx = filepath.Join(dir, "docs.mtx")
	body := fmt.Sprintf("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n%s\n", docs, terms, len(lines), strings.Join(lines, "\n"))
	if err := os.WriteFile(mtx, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	labels = filepath.Join(dir, "docs.labels")
	if err := os.WriteFile(labels, []byte(lab.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return mtx, labels
}

// writeTemp writes body to dir/name and returns the path.
func writeTemp(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUsage(t *testing.T) {
	if _, _, err := runCLI(t); err == nil {
		t.Error("no sub-command accepted")
	}
	out, _, err := runCLI(t, "help")
	if err != nil || !strings.Contains(out, "describe") {
		t.Errorf("help: %v\n%s", err, out)
	}
	if _, _, err := runCLI(t, "frobnicate"); err == nil || !strings.Contains(err.Error(), "unknown sub-command") {
		t.Errorf("unknown sub-command: %v", err)
	}
	if _, _, err := runCLI(t, "info", "stray"); err == nil {
		t.Error("stray argument accepted")
	}
}

func TestInfo(t *testing.T) {
	out, _, err := runCLI(t, "info", "--json")
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	for _, f := range []string{"blas", "kernels", "cpu", "threads", "go"} {
		if _, ok := m[f]; !ok {
			t.Errorf("info --json lacks %q", f)
		}
	}
	if blas.HasOpenBLAS() && m["blas"] != "openblas" {
		t.Errorf("default blas %v in an OpenBLAS build", m["blas"])
	}
	// "mpi": the library's version in an MPI build, false otherwise.
	if v, ok := m["mpi"].(string); mpi.Available != ok || ok && !strings.Contains(v, "MPI") {
		t.Errorf(`"mpi": %v in a build where MPI available is %v`, m["mpi"], mpi.Available)
	}
	out, _, err = runCLI(t, "info", "--json", "--blas", "gonum", "--simd", "generic", "--threads", "3")
	if err != nil {
		t.Fatal(err)
	}
	m = decode(t, out)
	if m["blas"] != "gonum" || m["kernels"] != "generic" || m["threads"] != 3.0 {
		t.Errorf("info with --blas gonum --simd generic --threads 3: %v", m)
	}
	for _, bad := range [][]string{{"--blas", "mkl"}, {"--simd", "avx9000"}, {"--threads", "-1"}} {
		if _, _, err := runCLI(t, append([]string{"info"}, bad...)...); err == nil {
			t.Errorf("info %v accepted", bad)
		}
	}
	if !blas.HasOpenBLAS() {
		if _, _, err := runCLI(t, "info", "--blas", "openblas"); err == nil || !strings.Contains(err.Error(), "not compiled") {
			t.Errorf("--blas openblas without OpenBLAS: %v", err)
		}
	}
}

func TestDescribeRealData(t *testing.T) {
	if testing.Short() {
		t.Skip("describes every real corpus")
	}
	cases := []struct {
		file                            string
		samples, features, nnz, classes int
		largest, smallest, zeroFeatures int
	}{
		{"tdt2/TDT2.mat", 9394, 36771, 1224135, 30, 1844, 52, 678},
		{"coil20/COIL20.mat", 1440, 1024, -1, 20, 72, 72, -1},
		{"pie/PIE_32x32_10class.mat", 1700, 1024, -1, 10, 170, 170, -1},
	}
	for _, c := range cases {
		path := realData(t, c.file)
		out, _, err := runCLI(t, "describe", "--data", path, "--json")
		if err != nil {
			t.Fatal(err)
		}
		var d describeOutput
		if err := json.Unmarshal([]byte(out), &d); err != nil {
			t.Fatal(err)
		}
		if d.Samples != c.samples || d.Features != c.features || d.Classes != c.classes {
			t.Errorf("%s: %d x %d, %d classes", c.file, d.Samples, d.Features, d.Classes)
		}
		if c.nnz >= 0 && d.NNZ != c.nnz {
			t.Errorf("%s: %d non-zeros, want %d", c.file, d.NNZ, c.nnz)
		}
		if c.zeroFeatures >= 0 && d.ZeroFeatures != c.zeroFeatures {
			t.Errorf("%s: %d all-zero features, want %d", c.file, d.ZeroFeatures, c.zeroFeatures)
		}
		lo, hi := 1<<62, 0
		for _, s := range d.ClassSizes {
			lo, hi = min(lo, s), max(hi, s)
		}
		if hi != c.largest || lo != c.smallest {
			t.Errorf("%s: class sizes %d..%d, want %d..%d", c.file, lo, hi, c.smallest, c.largest)
		}
	}
}

// TestStoppingRuleReported: the summary names the rule that stopped the
// fit and the final KKT residual; with the objective's rule off, cd stops
// by --pg-tol, below it, and with both off every iteration runs.
func TestStoppingRuleReported(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	base := []string{"cluster", "--data", mtx, "--labels", labels, "--method", "nmf", "--solver", "cd", "--k", "3", "--tol", "off", "--iters", "2000", "--json"}
	out, _, err := runCLI(t, append(base, "--pg-tol", "1e-6")...)
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	if m["status"] != "stationary" || !(m["projected_gradient"].(float64) < 1e-6) || m["iterations"].(float64) >= 2000 {
		t.Errorf("--pg-tol 1e-6: status %v, residual %v after %v iterations", m["status"], m["projected_gradient"], m["iterations"])
	}
	out, _, err = runCLI(t, append(base[:len(base)-3], "--iters", "40", "--pg-tol", "off", "--json")...)
	if err != nil {
		t.Fatal(err)
	}
	if m := decode(t, out); m["status"] != "iteration limit" || m["iterations"] != 40.0 {
		t.Errorf("--tol off --pg-tol off: status %v after %v iterations", m["status"], m["iterations"])
	}
}

func TestFitWritesResults(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	out := filepath.Join(dir, "out")
	stdout, _, err := runCLI(t, "fit", "--data", mtx, "--labels", labels, "--method", "nmf", "--k", "3", "--restarts", "3", "--seed", "7", "--out", out, "--json")
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, stdout)
	if m["accuracy"].(float64) < 0.99 || m["nmi"].(float64) < 0.95 {
		t.Errorf("three disjoint-vocabulary groups not separated: accuracy %v, NMI %v", m["accuracy"], m["nmi"])
	}
	for _, f := range []string{"U.mtx", "V.mtx", "labels.txt", "vocabulary.txt", "factors.mat", "summary.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("fit did not write %s: %v", f, err)
		}
	}
	u, err := os.ReadFile(filepath.Join(out, "U.mtx"))
	if err != nil || !strings.Contains(string(u), "\n45 3\n") {
		t.Errorf("U.mtx is not a 45 x 3 array file: %v", err)
	}
	lab, _ := os.ReadFile(filepath.Join(out, "labels.txt"))
	if n := strings.Count(string(lab), "\n"); n != 60 {
		t.Errorf("labels.txt has %d lines, want 60", n)
	}
	// factors.mat reads back with the package's own MAT reader; labels
	// has one entry a sample, as many as V's rows.
	for _, c := range []struct {
		opt  dataset.LoadOptions
		rows int
	}{{dataset.LoadOptions{Var: "U"}, 45}, {dataset.LoadOptions{Var: "V", LabelVar: "labels"}, 60}} {
		d, err := dataset.Load(context.Background(), filepath.Join(out, "factors.mat"), c.opt)
		if err != nil {
			t.Errorf("factors.mat %s: %v", c.opt.Var, err)
			continue
		}
		if n, m := d.Dims(); n != c.rows || m != 3 {
			t.Errorf("factors.mat %s: %d x %d, want %d x 3", c.opt.Var, n, m, c.rows)
		}
	}
	sum, _ := os.ReadFile(filepath.Join(out, "summary.json"))
	if s := decode(t, string(sum)); s["iterations"].(float64) < 1 || s["k"] != 3.0 {
		t.Errorf("summary.json: %v", s)
	}
	// The same seed gives the same labels with one thread.
	out1 := filepath.Join(dir, "out1")
	if _, _, err := runCLI(t, "fit", "--data", mtx, "--labels", labels, "--k", "3", "--restarts", "3", "--seed", "7", "--threads", "1", "--out", out1); err != nil {
		t.Fatal(err)
	}
	lab1, _ := os.ReadFile(filepath.Join(out1, "labels.txt"))
	v0, _ := os.ReadFile(filepath.Join(out, "V.mtx"))
	v1, _ := os.ReadFile(filepath.Join(out1, "V.mtx"))
	if !bytes.Equal(lab, lab1) || !bytes.Equal(v0, v1) {
		t.Error("same seed, different thread count: different results")
	}
}

func TestBenchJSON(t *testing.T) {
	mtx, labels := writeFixture(t, t.TempDir())
	out, _, err := runCLI(t, "bench", "--data", mtx, "--labels", labels, "--k", "3", "--iters", "5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	for _, f := range []string{"method", "k", "iterations", "ms_per_iter", "setup_seconds", "blas", "kernels", "samples", "features", "nnz"} {
		if _, ok := m[f]; !ok {
			t.Errorf("bench --json lacks %q", f)
		}
	}
	if m["iterations"] != 5.0 || m["samples"] != 60.0 || m["features"] != 45.0 {
		t.Errorf("bench: %v", m)
	}
}

// TestDemo runs the main job on the embedded Reuters sample, from raw
// SGML: 800 single-label articles of the 8 largest topics. NMF reaches
// 64.0 % accuracy and 53.1 % NMI, GNMF (lambda auto) 64.9 % and 59.7 % at
// the time of writing (kernel paths round differently, so the bars leave
// room); chance is about 25 %, so a broken reader, pipeline or solver
// falls far below them.
func TestDemo(t *testing.T) {
	// --k 0 once ran with the default k.
	if _, _, err := runCLI(t, "demo", "--k", "0"); err == nil || !strings.Contains(err.Error(), "--k 0") {
		t.Errorf("demo --k 0: %v", err)
	}
	if testing.Short() {
		t.Skip("demo takes a second")
	}
	out, _, err := runCLI(t, "demo", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var sums map[string]fitSummary
	if err := json.Unmarshal([]byte(out), &sums); err != nil {
		t.Fatal(err)
	}
	for m, bar := range map[string]float64{"nmf": 0.55, "gnmf": 0.55} {
		s, ok := sums[m]
		if !ok {
			t.Fatalf("demo --json lacks %s", m)
		}
		if s.Samples != 800 || s.K != 8 {
			t.Fatalf("%s ran on %d samples with k %d", m, s.Samples, s.K)
		}
		if s.Accuracy == nil || *s.Accuracy < bar {
			t.Errorf("%s demo accuracy %v, want at least %v", m, s.Accuracy, bar)
		}
	}
	if g, n := *sums["gnmf"].NMI, *sums["nmf"].NMI; g < n+0.03 {
		t.Errorf("demo: GNMF's NMI %v, NMF's %v: the graph should help", g, n)
	}
	text, _, err := runCLI(t, "demo")
	if err != nil || !strings.Contains(text, "top terms") || !strings.Contains(text, "oil") {
		t.Errorf("demo text output (want the crude oil topic's terms): %v\n%s", err, text)
	}
}

// TestBadInput: every mistake a user or a file can make is an error that
// says what and where, never a panic.
func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	write := func(name, body string) string { return writeTemp(t, dir, name, body) }
	full, _ := os.ReadFile(mtx)
	truncated := write("truncated.mtx", string(full[:len(full)/2]))
	header := write("header.mtx", "%%MatrixMarket matrix frobnicate real general\n2 2 1\n1 1 1\n")
	nan := write("nan.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 nan\n")
	neg := write("neg.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 -3\n")
	rng := write("range.mtx", "%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1\n")
	empty := write("empty.mtx", "%%MatrixMarket matrix coordinate real general\n0 0 0\n")
	matHeader := write("bad.mat", strings.Repeat("x", 200))
	out := filepath.Join(dir, "out")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"describe"}, []string{"--data is required"}},
		{[]string{"describe", "--data", filepath.Join(dir, "missing.mat")}, []string{"missing.mat"}},
		{[]string{"describe", "--data", truncated}, []string{"truncated.mtx"}},
		{[]string{"describe", "--data", header}, []string{"header.mtx", "frobnicate"}},
		{[]string{"describe", "--data", nan}, []string{"nan.mtx"}},
		{[]string{"describe", "--data", rng}, []string{"range.mtx"}},
		{[]string{"describe", "--data", empty}, []string{"empty.mtx"}},
		{[]string{"describe", "--data", matHeader}, []string{"bad.mat"}},
		{[]string{"fit", "--data", neg, "--k", "1", "--out", out}, []string{"neg.mtx", "-3"}},
		{[]string{"fit", "--data", mtx, "--k", "0", "--out", out}, []string{"--k"}},
		{[]string{"fit", "--data", mtx, "--k", "46", "--out", out}, []string{"k = 46 is more than the data allows"}},
		{[]string{"fit", "--data", mtx, "--k", "2"}, []string{"--out is required"}},
		{[]string{"fit", "--data", mtx, "--k", "2", "--method", "svd", "--out", out}, []string{"unknown method"}},
		{[]string{"fit", "--data", mtx, "--k", "2", "--iters", "0", "--out", out}, []string{"--iters"}},
		{[]string{"fit", "--data", mtx, "--labels", filepath.Join(dir, "nope"), "--k", "2", "--out", out}, []string{"nope"}},
		{[]string{"bench", "--data", mtx, "--k", "2", "--normalize", "l7"}, []string{"-normalize"}},
		{[]string{"bench", "--data", mtx, "--labels", neg, "--k", "2"}, []string{"neg.mtx"}},
		{[]string{"describe", "--data", mtx, "--labels", labels, "--transpose"}, []string{"labels"}},
		{[]string{"fit", "--data", mtx, "--k", "2", "--memory", "1K", "--out", out}, []string{"estimated", "memory limit", "--memory 1K"}},
		{[]string{"cluster", "--data", mtx, "--labels", labels, "--k", "2", "--method", "gnmf", "--memory", "2k"}, []string{"estimated", "graph"}},
		{[]string{"bench", "--data", mtx, "--k", "2", "--memory", "1K"}, []string{"estimated"}},
		{[]string{"graph", "--data", mtx, "--memory", "100", "--out", out}, []string{"estimated"}},
		{[]string{"fit", "--data", mtx, "--k", "2", "--memory", "-3G", "--out", out}, []string{"--memory", "-3G"}},
		{[]string{"fit", "--data", mtx, "--k", "2", "--memory", "lots", "--out", out}, []string{"--memory", "lots"}},
	}
	for _, c := range cases {
		_, _, err := runCLI(t, c.args...)
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not mention %q", c.args, err, w)
			}
		}
	}
}

// TestExitStatus runs the real command (this test binary as manifactor)
// on bad input: non-zero exit, an error line on stderr, no Go panic.
func TestExitStatus(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.mtx")
	os.WriteFile(bad, []byte("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 inf\n"), 0o644)
	for _, args := range [][]string{{"describe", "--data", bad}, {"fit", "--k", "2"}, {"nonsense"}} {
		cmd := exec.Command(os.Args[0], args...)
		cmd.Env = append(os.Environ(), "MANIFACTOR_TEST_MAIN=1")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		err := cmd.Run()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != 1 {
			t.Errorf("%v: exit %v, want status 1", args, err)
		}
		if s := stderr.String(); !strings.Contains(s, "manifactor:") || strings.Contains(s, "panic") || strings.Contains(s, "goroutine") {
			t.Errorf("%v: stderr %q", args, s)
		}
	}
}

// TestClusterAndGraphCommands runs the manifold methods end to end on the
// disjoint-vocabulary fixture: every method separates the three groups.
func TestClusterAndGraphCommands(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	for _, m := range []string{"nmf", "gnmf", "cf", "lccf", "nmf-ncw", "gnmf-ncw", "cf-ncw", "lccf-ncw"} {
		for _, assign := range []string{"argmax", "kmeans"} {
			args := []string{"cluster", "--data", mtx, "--labels", labels, "--method", m, "--k", "3",
				"--restarts", "3", "--assign", assign, "--json"}
			if m == "gnmf-ncw" || m == "lccf-ncw" {
				args = append(args, "--lambda", "0.1")
			}
			out, _, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("%s: %v", m, err)
			}
			var s fitSummary
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatal(err)
			}
			if *s.Accuracy < 0.99 || len(s.Labels) != 60 {
				t.Errorf("%s/%s: accuracy %v with %d labels", m, assign, *s.Accuracy, len(s.Labels))
			}
			if meth, _ := parseMethod(m); meth.TakesGraph() && (s.Lambda == nil || s.Neighbors != 5) {
				t.Errorf("%s: summary lacks the graph settings", m)
			}
		}
	}
	// --classes keeps two of the three groups.
	out, _, err := runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--classes", "1,3", "--method", "gnmf", "--k", "2", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if m := decode(t, out); m["samples"] != 40.0 {
		t.Errorf("--classes 1,3 kept %v samples, want 40", m["samples"])
	}
	// --screen-iters reaches Auto: with a budget of 1 iteration (and no
	// stopping rule) every candidate is cut short, and the result is the
	// kept weight's fit with all of --iters.
	out, _, err = runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--method", "gnmf", "--k", "3", "--screen-iters", "1", "--iters", "7", "--tol", "off", "--pg-tol", "off", "--json")
	if err != nil {
		t.Fatal(err)
	}
	m := decode(t, out)
	cands, _ := m["lambda_candidates"].([]any)
	if len(cands) != 8 || m["iterations"] != 7.0 {
		t.Errorf("--screen-iters 1: %d candidates, %v iterations; want 8 and 7", len(cands), m["iterations"])
	}
	for _, c := range cands {
		if c := c.(map[string]any); c["screened"] != true || c["iterations"] != 1.0 {
			t.Errorf("--screen-iters 1: candidate %v", c)
		}
	}
	// --auto-sample: the choice on 40 of the 60 samples, then the plain
	// fit and the sample's weight, if any, on all of them.
	out, _, err = runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--method", "gnmf", "--k", "3", "--auto-sample", "40", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var sampled fitSummary
	if err := json.Unmarshal([]byte(out), &sampled); err != nil {
		t.Fatal(err)
	}
	if a := sampled.AutoSample; a == nil || a.Samples != 40 || len(a.Candidates) != 8 || sampled.Verdict == autolambda.NoVerdict {
		t.Errorf("--auto-sample 40: %+v, verdict %v", a, sampled.Verdict)
	}
	// --lambdas with one weight: auto between it and the plain method,
	// said on stderr.
	_, errOut, err := runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--method", "gnmf", "--k", "3", "--lambdas", "10")
	if err != nil || !strings.Contains(errOut, "between the plain method and lambda 10") {
		t.Errorf("--lambdas 10: %v, stderr %q", err, errOut)
	}
	// --min-df on a matrix: the rarer terms go (each of the fixture's is
	// in about 10 documents), said on stderr.
	out, errOut, err = runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--method", "nmf", "--k", "3", "--min-df", "11", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if m := decode(t, out); !strings.Contains(errOut, "--min-df 11: dropped") || !(m["features"].(float64) < 45) {
		t.Errorf("--min-df 11: %v features, stderr %q", m["features"], errOut)
	}
	// gnmf's candidates run along the weights by default (above weight
	// 1, each from the previous one's factors), and --candidate-start
	// same starts them all from the run's start.
	for _, c := range []struct {
		flags []string
		want  string
		paths int
	}{{nil, "path", 6}, {[]string{"--candidate-start", "same"}, "same", 0}} {
		out, _, err = runCLI(t, append([]string{"cluster", "--data", mtx, "--labels", labels, "--method", "gnmf", "--k", "3", "--json"}, c.flags...)...)
		if err != nil {
			t.Fatal(err)
		}
		m := decode(t, out)
		paths := 0
		cands, _ := m["lambda_candidates"].([]any)
		for _, x := range cands {
			if x.(map[string]any)["path"] == true {
				paths++
			}
		}
		if m["candidate_start"] != c.want || paths != c.paths {
			t.Errorf("%v: candidate_start %v with %d candidates along the path; want %s and %d", c.flags, m["candidate_start"], paths, c.want, c.paths)
		}
	}
	// graph writes a symmetric 0/1 matrix with each sample's 5 neighbours.
	gfile := filepath.Join(dir, "g.mtx")
	out, _, err = runCLI(t, "graph", "--data", mtx, "--neighbors", "5", "--weight", "binary", "--out", gfile, "--json")
	if err != nil {
		t.Fatal(err)
	}
	g := decode(t, out)
	if g["samples"] != 60.0 || g["edges"].(float64) < 150 || g["edges"].(float64) > 300 {
		t.Errorf("graph: %v", g)
	}
	if g["metric"] != "cosine" {
		t.Errorf("graph of sparse samples: metric %v, want cosine", g["metric"])
	}
	if _, _, err := runCLI(t, "graph", "--data", mtx, "--graph-metric", "correlation", "--out", gfile); err == nil || !strings.Contains(err.Error(), "--graph-metric correlation") {
		t.Errorf("graph --graph-metric correlation on sparse samples: %v", err)
	}
	// The written graph can drive gnmf as a user graph.
	if _, _, err := runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--method", "gnmf", "--k", "3", "--graph", gfile); err != nil {
		t.Errorf("gnmf with the written graph: %v", err)
	}
}

func TestManifoldBadInput(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	write := func(name, body string) string { return writeTemp(t, dir, name, body) }
	small := write("small.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 1\n2 1 1\n")
	negW := write("negw.mtx", fmt.Sprintf("%%%%MatrixMarket matrix coordinate real general\n60 60 2\n1 2 -1\n2 1 -1\n"))
	nanW := write("nanw.mtx", fmt.Sprintf("%%%%MatrixMarket matrix coordinate real general\n60 60 2\n1 2 nan\n2 1 nan\n"))
	directed := write("directed.mtx", "%%MatrixMarket matrix coordinate real general\n60 60 1\n1 2 1\n")
	base := []string{"cluster", "--data", mtx, "--labels", labels, "--k", "3"}
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--method", "gnmf", "--lambda", "-2"}, []string{"-lambda", "-2"}},
		{[]string{"--method", "gnmf", "--lambda", "-1"}, []string{"-lambda", "-1"}},
		{[]string{"--method", "gnmf", "--lambda", "NaN"}, []string{"-lambda", "NaN"}},
		{[]string{"--method", "gnmf", "--lambdas", "1,0"}, []string{"--lambdas", "0"}},
		{[]string{"--method", "gnmf", "--min-shared", "5"}, []string{"--min-shared 5"}},
		{[]string{"--method", "gnmf", "--symmetry", "both"}, []string{"-symmetry", "both"}},
		{[]string{"--method", "gnmf", "--formulation", "mine"}, []string{"-formulation", "mine"}},
		{[]string{"--method", "gnmf", "--heat-t", "-1"}, []string{"--heat-t -1"}},
		{[]string{"--method", "gnmf", "--heat-t", "0.5"}, []string{"--heat-t 0.5", "binary"}},
		{[]string{"--method", "gnmf", "--lambda", "10", "--lambdas", "1,2"}, []string{"--lambdas 1,2", "10"}},
		{[]string{"--method", "lccf", "--kernel-memory", "1e-10"}, []string{"--kernel-memory 1e-10"}},
		{[]string{"--method", "nmf", "--tol", "NaN"}, []string{`--tol NaN`, "or off"}},
		{[]string{"--method", "gnmf", "--tol", "2"}, []string{`--tol 2`, "[0, 1)"}},
		// Flags the method would ignore.
		{[]string{"--method", "nmf", "--lambda", "5"}, []string{"--lambda: nmf takes no graph", "gnmf"}},
		{[]string{"--method", "nmf-ncw", "--neighbors", "3"}, []string{"--neighbors: nmf-ncw takes no graph"}},
		{[]string{"--method", "nmf", "--graph", small}, []string{"--graph: nmf takes no graph"}},
		{[]string{"--method", "gnmf", "--graph", small, "--weight", "heat"}, []string{"--weight: the graph is --graph"}},
		{[]string{"--method", "cf", "--sigma", "2"}, []string{"--sigma: a setting of the gaussian kernel, but --kernel is linear"}},
		{[]string{"--method", "lccf", "--kernel", "gaussian", "--degree", "3"}, []string{"--degree: a setting of the poly kernel"}},
		{[]string{"--method", "gnmf", "--coef0", "1"}, []string{"--coef0: a setting of cf's and lccf's kernels"}},
		{[]string{"--method", "gnmf", "--cg-tol", "1e-6"}, []string{"--cg-tol: a setting of lpnmf's linear solves"}},
		// An empty value once passed for the flag's default.
		{[]string{"--method", "gnmf", "--lambda", ""}, []string{"-lambda", "empty value"}},
		{[]string{"--method", "gnmf", "--lambdas", ""}, []string{"-lambdas", "empty value"}},
		{[]string{"--method", "nmf", "--memory", ""}, []string{"-memory", "empty value"}},
		{[]string{"--method", "nmf", "--classes", " "}, []string{"-classes", "empty value"}},
		{[]string{"--method", "nmf", "--tol", "-1"}, []string{`--tol -1`}},
		{[]string{"--method", "nmf", "--start", "labels"}, []string{"--start labels", "kmeans"}},
		{[]string{"--method", "nmf", "--pg-tol", "NaN"}, []string{`--pg-tol NaN`}},
		{[]string{"--method", "nmf", "--pg-tol", "-1e-4"}, []string{`--pg-tol -1e-4`}},
		{[]string{"--method", "nmf", "--pg-tol", "1"}, []string{`--pg-tol 1`, "[0, 1)"}},
		{[]string{"--method", "nmf", "--min-iters", "900"}, []string{"--min-iters 900"}},
		{[]string{"--method", "nmf", "--restart-iters", "900"}, []string{"--restart-iters 900"}},
		{[]string{"--method", "nmf", "--evaluate", "0"}, []string{"--evaluate 0"}},
		{[]string{"--method", "nmf", "--restarts", "0"}, []string{"--restarts 0"}},
		{[]string{"--method", "lccf", "--kernel-memory", "Inf"}, []string{"--kernel-memory +Inf"}},
		{[]string{"--method", "lccf", "--kernel-memory", "-1"}, []string{"--kernel-memory -1"}},
		{[]string{"--method", "lccf", "--sigma", "-1"}, []string{"--sigma -1"}},
		{[]string{"--method", "lccf", "--degree", "0"}, []string{"--degree 0"}},
		{[]string{"--method", "lccf", "--coef0", "NaN"}, []string{"--coef0 NaN"}},
		{[]string{"--method", "lpnmf", "--cg-tol", "0"}, []string{"--cg-tol 0"}},
		{[]string{"--method", "lpnmf", "--cg-tol", "Inf"}, []string{"--cg-tol +Inf"}},
		{[]string{"--method", "lpnmf", "--cg-iters", "0"}, []string{"--cg-iters 0"}},
		{[]string{"--method", "gnmf", "--screen-iters", "-5"}, []string{"--screen-iters -5"}},
		{[]string{"--method", "gnmf", "--auto-sample", "-2"}, []string{"--auto-sample -2"}},
		{[]string{"--method", "gnmf", "--auto-sample", "20"}, []string{"--auto-sample 20", "--k 3", "10 samples a cluster"}},
		{[]string{"--method", "gnmf", "--auto-sample", "60"}, []string{"--auto-sample 60", "60 samples", "smaller"}},
		{[]string{"--method", "gnmf", "--auto-sample", "100"}, []string{"--auto-sample 100", "60 samples"}},
		{[]string{"--method", "gnmf", "--lambda", "10", "--auto-sample", "40"}, []string{"--auto-sample 40", "--lambda is 10"}},
		{[]string{"--method", "gnmf", "--formulation", "papers", "--auto-sample", "40"}, []string{"--auto-sample 40", "papers"}},
		{[]string{"--method", "gnmf", "--formulation", "papers", "--lambdas", "3"}, []string{"--lambdas 3", "papers"}},
		{[]string{"--method", "nmf", "--auto-sample", "40"}, []string{"--auto-sample: nmf takes no graph"}},
		{[]string{"--method", "gnmf", "--graph", small, "--auto-sample", "40"}, []string{"--auto-sample", "whole data"}},
		{[]string{"--method", "gnmf", "--candidate-start", "warm"}, []string{"candidate-start", "warm"}},
		{[]string{"--method", "nmf", "--max-df", "2"}, []string{"--max-df 2"}},
		{[]string{"--method", "nmf", "--threads", "-3"}, []string{"--threads -3"}},
		{[]string{"--method", "gnmf", "--neighbors", "60"}, []string{"60"}},
		{[]string{"--method", "gnmf", "--neighbors", "0"}, []string{"--neighbors"}},
		{[]string{"--method", "gnmf", "--weight", "gaussian"}, []string{"weight"}},
		{[]string{"--method", "gnmf", "--graph", small}, []string{"small.mtx"}},
		{[]string{"--method", "gnmf", "--graph", negW}, []string{"negw.mtx"}},
		{[]string{"--method", "gnmf", "--graph", nanW}, []string{"nanw.mtx"}},
		{[]string{"--method", "gnmf", "--graph", directed}, []string{"directed.mtx", "--symmetrize"}},
		{[]string{"--method", "lccf", "--kernel", "poly", "--kernel-memory", "0.00001"}, []string{"over the limit"}},
		{[]string{"--method", "cf", "--kernel", "sigmoid"}, []string{"-kernel", "sigmoid"}},
		{[]string{"--method", "nmf", "--assign", "spectral"}, []string{"-assign", "spectral"}},
		{[]string{"--method", "nmf", "--classes", "1,9"}, []string{"label 9 does not occur"}},
		{[]string{"--method", "nmf", "--classes", "x"}, []string{"--classes"}},
		{[]string{"--method", "nmf", "--weighting", "sqrt"}, []string{"-weighting", "sqrt"}},
		{[]string{"--method", "nmf", "--normalize", "l7"}, []string{"-normalize", "l7"}},
		{[]string{"--method", "nmf", "--start", "big"}, []string{"-start", "big"}},
		{[]string{"--method", "nmf", "--solver", "hals"}, []string{"-solver", "hals"}},
		{[]string{"--method", "gnmf", "--graph-search", "lsh"}, []string{"-graph-search", "lsh"}},
		{[]string{"--method", "gnmf", "--graph-metric", "manhattan"}, []string{"-graph-metric", "manhattan"}},
		{[]string{"--method", "gnmf", "--graph-metric", "euclidean"}, []string{"--graph-metric euclidean", "sparse samples are compared by cosine"}},
		{[]string{"--method", "lccf", "--graph-metric", "correlation"}, []string{"--graph-metric correlation", "sparse"}},
		{[]string{"--method", "cf", "--solver", "cd"}, []string{"--solver cd", "cf", "nmf, gnmf"}},
		{[]string{"--method", "lccf", "--solver", "cd"}, []string{"--solver cd", "lccf"}},
		{[]string{"--method", "gnmf", "--solver", "minibatch"}, []string{"--solver minibatch: gnmf has no mini-batch solver"}},
		{[]string{"--method", "nmf-kl-ncw", "--solver", "minibatch"}, []string{"--solver minibatch: nmf-kl-ncw"}},
		{[]string{"--method", "nmf", "--solver", "minibatch", "--batch-size", "-3"}, []string{"--batch-size -3"}},
		{[]string{"--method", "nmf", "--batch-size", "100"}, []string{"--batch-size 100: for --solver minibatch, not cd"}},
		{[]string{"--method", "plsa"}, []string{"unknown method"}},
	}
	for _, c := range cases {
		_, _, err := runCLI(t, append(append([]string{}, base...), c.args...)...)
		if err == nil {
			t.Errorf("%v: no error", c.args)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%v: error %q does not mention %q", c.args, err, w)
			}
		}
	}
	if _, _, err := runCLI(t, append(append([]string{}, base...), "--method", "gnmf", "--graph", directed, "--symmetrize")...); err != nil {
		t.Errorf("--symmetrize: %v", err)
	}
}

// TestKLMethodsAndStarts runs the KL methods and every start on the
// disjoint-vocabulary fixture; a CG cap too small to converge is an error
// that gives the residual.
func TestKLMethodsAndStarts(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	for _, m := range []string{"nmf-kl", "lpnmf", "lpnmf-ncw"} {
		for _, init := range []string{"random", "kmeans", "nndsvd"} {
			args := []string{"cluster", "--data", mtx, "--labels", labels, "--method", m, "--k", "3", "--start", init, "--json"}
			if m != "nmf-kl" {
				args = append(args, "--lambda", "1")
			}
			out, _, err := runCLI(t, args...)
			if err != nil {
				t.Fatalf("%s --start %s: %v", m, init, err)
			}
			var s fitSummary
			if err := json.Unmarshal([]byte(out), &s); err != nil {
				t.Fatal(err)
			}
			if *s.Accuracy < 0.99 || s.Start != init {
				t.Errorf("%s --start %s: accuracy %v", m, init, *s.Accuracy)
			}
			if strings.HasPrefix(m, "lpnmf") && (s.CG == nil || s.CG.Solves == 0 || s.CG.MaxResidual > solver.DefaultCGTol) {
				t.Errorf("%s: CG report %+v", m, s.CG)
			}
		}
	}
	out, _, err := runCLI(t, "bench", "--data", mtx, "--labels", labels, "--method", "lpnmf", "--k", "3", "--iters", "3", "--json")
	if err != nil {
		t.Fatal(err)
	}
	if b := decode(t, out); b["cg"] == nil {
		t.Errorf("bench lpnmf lacks the CG counts: %v", b)
	}
	_, _, err = runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--method", "lpnmf", "--k", "3", "--lambda", "1000", "--cg-iters", "1")
	if err == nil || !strings.Contains(err.Error(), "did not converge") || !strings.Contains(err.Error(), "residual") {
		t.Errorf("non-converged CG: %v", err)
	}
	if _, _, err := runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--method", "nmf-kl", "--k", "3", "--start", "svd"); err == nil {
		t.Error("--start svd accepted")
	}
}

// TestTopics: on the fixture each group uses its own 15 words, so every
// factor's top terms must come from a single group, and its dominant class
// must be that group.
func TestTopics(t *testing.T) {
	mtx, labels := writeFixture(t, t.TempDir())
	out, _, err := runCLI(t, "topics", "--data", mtx, "--labels", labels, "--method", "nmf", "--k", "3", "--restarts", "3", "--top", "5", "--json")
	if err != nil {
		t.Fatal(err)
	}
	var o struct {
		Topics []topic `json:"topics"`
	}
	if err := json.Unmarshal([]byte(out), &o); err != nil {
		t.Fatal(err)
	}
	if len(o.Topics) != 3 {
		t.Fatalf("%d topics", len(o.Topics))
	}
	for _, tp := range o.Topics {
		if len(tp.Terms) != 5 || tp.Size != 20 || tp.DominantShare != 1 {
			t.Fatalf("topic %+v", tp)
		}
		group := -1
		for _, term := range tp.Terms {
			col, err := strconv.Atoi(strings.TrimPrefix(term, "f"))
			if err != nil {
				t.Fatalf("term %q", term)
			}
			g := (col - 1) / 15
			if group >= 0 && g != group {
				t.Fatalf("topic %d mixes groups: %v", tp.Topic, tp.Terms)
			}
			group = g
		}
		if tp.DominantClass != strconv.Itoa(group+1) {
			t.Fatalf("topic of group %d has dominant class %s", group+1, tp.DominantClass)
		}
	}
	text, _, err := runCLI(t, "topics", "--data", mtx, "--labels", labels, "--k", "3")
	if err != nil || !strings.Contains(text, "topic  1") {
		t.Errorf("topics text: %v\n%s", err, text)
	}
}

// TestExperiment runs the protocol on the fixture's three separable
// groups: every method clusters every draw perfectly, the JSON is keyed by
// method, then k and "average"; mistakes are errors before any work.
func TestExperiment(t *testing.T) {
	mtx, labels := writeFixture(t, t.TempDir())
	out, _, err := runCLI(t, "experiment", "--data", mtx, "--labels", labels, "--methods", "nmf,gnmf,kmeans", "--clusters", "2-3", "--runs", "2", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for _, m := range []string{"nmf", "gnmf", "kmeans"} {
		var row map[string]map[string]float64
		if err := json.Unmarshal(raw[m], &row); err != nil {
			t.Fatalf("%s: %v\n%s", m, err, out)
		}
		for _, k := range []string{"2", "3", "average"} {
			c := row[k]
			if c["accuracy_mean"] != 1 || c["nmi_mean"] != 1 {
				t.Errorf("%s k=%s: %v", m, k, c)
			}
		}
	}
	// gnmf ran lambda auto: its candidates, the plain fit first, each
	// scored, one kept in each of the 4 runs.
	var cands map[string][]map[string]any
	if err := json.Unmarshal(raw[experiment.CandidatesKey], &cands); err != nil || len(cands) != 1 || len(cands["gnmf"]) != len(autolambda.Grid())+1 {
		t.Fatalf("candidates %v: %s", err, raw[experiment.CandidatesKey])
	}
	kept := 0.0
	for _, c := range cands["gnmf"] {
		kept += c["kept"].(float64)
	}
	if cands["gnmf"][0]["lambda"] != 0.0 || kept != 4 {
		t.Errorf("candidates %v", cands["gnmf"])
	}
	// --solver cd runs for methods that have it, whatever other families
	// lack it.
	if _, _, err := runCLI(t, "experiment", "--data", mtx, "--labels", labels, "--methods", "nmf-kl,gnmf", "--clusters", "2", "--runs", "1", "--solver", "cd"); err != nil {
		t.Errorf("experiment --solver cd with nmf-kl and gnmf: %v", err)
	}
	base := []string{"experiment", "--data", mtx, "--labels", labels, "--runs", "1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--methods", "nmf,plsa"}, "unknown method"},
		{[]string{"--methods", "nmf", "--clusters", "2-4"}, "k = 4"},
		{[]string{"--methods", "nmf", "--format", "xml"}, "--format"},
		{[]string{"--clusters", "2"}, "--methods is required"},
		{[]string{"--methods", "nmf", "--assign", "vote"}, "-assign"},
		{[]string{"--methods", "nmf", "--start", "big"}, "-start"},
		{[]string{"--methods", "nmf", "--compare", "999-table1"}, "000-table2"},
		{[]string{"--methods", "nmf", "--lambda", "-2"}, "-lambda"},
		{[]string{"--methods", "nmf", "--tol", "NaN"}, `--tol NaN`},
		{[]string{"--methods", "gnmf", "--neighbors", "0"}, "--neighbors 0"},
		{[]string{"--methods", "nmf", "--runs", "0"}, "--runs"},
		{[]string{"--methods", "nmf", "--runs", "99999999999"}, "--runs 99999999999: must be 1 to 100000"},
		{[]string{"--methods", "lpnmf", "--papers", "--start", "normalized"}, "Frobenius"},
		{[]string{"--methods", "gnmf", "--graph", mtx}, "-graph"},
		{[]string{"--methods", "nmf", "--plot", filepath.Join(mtx, "sub")}, "--plot"},
		{[]string{"--methods", "nmf-kl,lccf", "--solver", "cd"}, "--solver cd: lccf"},
		{[]string{"--methods", "nmf,gnmf", "--solver", "minibatch"}, "--solver minibatch: gnmf"},
	} {
		if _, _, err := runCLI(t, withFlags(base, c.args)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestExperimentCompareAndPlots: --compare prints the paper's averages
// beside ours, --plot writes the figures, and sweep reports one point per
// value and draws them; bad sweeps fail before any work.
func TestExperimentCompareAndPlots(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	plots := filepath.Join(dir, "plots", "nested")
	out, errOut, err := runCLI(t, "experiment", "--data", mtx, "--labels", labels, "--methods", "nmf-ncw,gnmf,kmeans", "--clusters", "2-3", "--runs", "2", "--compare", "000-table2", "--plot", plots)
	if err != nil {
		t.Fatal(err)
	}
	// Beside a paper's table the papers' updates run, and it says so
	// (nmf-ncw's auto would be cd).
	if !strings.Contains(errOut, "--solver mu") {
		t.Errorf("--compare does not say it runs mu:\n%s", errOut)
	}
	// Every method separates the fixture, so ours is 100.0 against the
	// paper's TDT2 averages: GNMF 97.6, so +2.4.
	for _, want := range []string{"000-table2", "97.6", "+2.4", "Only in the paper: lsi-kmeans"} {
		if !strings.Contains(out, want) {
			t.Errorf("comparison lacks %q:\n%s", want, out)
		}
	}
	for _, f := range []string{"accuracy-vs-k", "nmi-vs-k", "objective-gnmf", "objective-nmf-ncw"} {
		for _, ext := range []string{".png", ".svg"} {
			if st, err := os.Stat(filepath.Join(plots, f+ext)); err != nil || st.Size() == 0 {
				t.Errorf("%s%s: %v", f, ext, err)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(plots, "objective-kmeans.png")); err == nil {
		t.Error("an objective plot for a baseline")
	}
	out, _, err = runCLI(t, "sweep", "--data", mtx, "--labels", labels, "--method", "gnmf", "--param", "neighbors=2-4", "--clusters", "2-3", "--runs", "2", "--baselines", "nmf", "--format", "json", "--plot", plots)
	if err != nil {
		t.Fatal(err)
	}
	var sw struct {
		Param  string
		Points []struct {
			Value        float64
			AccuracyMean float64 `json:"accuracy_mean"`
			Runs         int
		}
		Baselines map[string]map[string]float64
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if sw.Param != "neighbors" || len(sw.Points) != 3 || sw.Points[2].Value != 4 || sw.Points[0].Runs != 4 || sw.Points[0].AccuracyMean != 1 || sw.Baselines["nmf"]["accuracy_mean"] != 1 {
		t.Errorf("sweep output %+v", sw)
	}
	for _, f := range []string{"accuracy-vs-neighbors.png", "nmi-vs-neighbors.svg"} {
		if _, err := os.Stat(filepath.Join(plots, f)); err != nil {
			t.Error(err)
		}
	}
	base := []string{"sweep", "--data", mtx, "--labels", labels, "--runs", "1", "--clusters", "2"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--method", "nmf", "--param", "lambda=1"}, "takes no graph"},
		// The swept flag itself was silently overridden.
		{[]string{"--method", "gnmf", "--param", "lambda=1", "--lambda", "5"}, "--lambda: --param lambda=1 sets lambda at each of its values"},
		{[]string{"--method", "gnmf", "--param", "neighbors=2-3", "--neighbors", "4"}, "--neighbors: --param neighbors=2-3"},
		{[]string{"--method", "gnmf", "--param", "lambda=1,-3"}, "-3"},
		{[]string{"--method", "gnmf", "--param", "alpha=1"}, "lambda and neighbors"},
		{[]string{"--method", "gnmf", "--param", "neighbors=0-2"}, "at least 1"},
		{[]string{"--method", "gnmf", "--param", "neighbors=2-4", "--min-shared", "2"}, "p = 2 must be above --min-shared 2"},
		{[]string{"--method", "gnmf"}, "--param is required"},
		{[]string{"--method", "gnmf", "--param", "lambda=1", "--baselines", "plsa"}, "plsa"},
		{[]string{"--method", "gnmf", "--param", "lambda=1", "--plot", filepath.Join(mtx, "x")}, "--plot"},
		{[]string{"--method", "gnmf", "--param", "lambda=1", "--clusters", "2-9"}, "k = 4"},
	} {
		if _, _, err := runCLI(t, withFlags(base, c.args)...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
}

// TestParseSize: sizes with and without a unit; everything else is an
// error.
func TestParseSize(t *testing.T) {
	for s, want := range map[string]int64{"6G": 6e9, "6gb": 6e9, "512M": 512e6, "1.5T": 1.5e12, "1000": 1000, "2K": 2000} {
		if got, err := parseSize(s); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "G", "-1G", "0", "1X", "NaN", "Inf", "1e30T"} {
		if _, err := parseSize(s); err == nil {
			t.Errorf("parseSize(%q) accepted", s)
		}
	}
}

// withFlags is base with extra's flags added, each replacing base's value
// of the same flag (a flag may be given only once).
func withFlags(base, extra []string) []string {
	given := map[string]bool{}
	for _, a := range extra {
		if strings.HasPrefix(a, "-") {
			given[strings.TrimLeft(a, "-")] = true
		}
	}
	var out []string
	for i := 0; i < len(base); i++ {
		if a := base[i]; strings.HasPrefix(a, "-") && given[strings.TrimLeft(a, "-")] {
			if i+1 < len(base) && !strings.HasPrefix(base[i+1], "-") {
				i++ // its value
			}
			continue
		}
		out = append(out, base[i])
	}
	return append(out, extra...)
}

// TestFlagGivenTwice: a flag given twice is an error naming it and both
// values, for valued and boolean flags, in every sub-command.
func TestFlagGivenTwice(t *testing.T) {
	mtx, labels := writeFixture(t, t.TempDir())
	for _, args := range [][]string{
		{"cluster", "--data", mtx, "--labels", labels, "--k", "3", "--iters", "10", "--iters", "20"},
		{"describe", "--data", mtx, "--json", "--json"},
		{"info", "--threads", "1", "--threads=2"},
	} {
		_, _, err := runCLI(t, args...)
		if err == nil || !strings.Contains(err.Error(), "given twice") {
			t.Errorf("%v: %v", args, err)
		}
	}
	_, _, err := runCLI(t, "cluster", "--data", mtx, "--labels", labels, "--k", "3", "--iters", "10", "--iters", "20")
	if err == nil || !strings.Contains(err.Error(), `"10", then "20"`) || !strings.Contains(err.Error(), "iters") {
		t.Errorf("the values: %v", err)
	}
}

// TestThreadsFarAboveCores: --threads far above the cores is refused with
// the core count and the limit, not run (OpenBLAS allocates per thread).
func TestThreadsFarAboveCores(t *testing.T) {
	n := maxThreads() + 1
	_, _, err := runCLI(t, "info", "--threads", strconv.Itoa(n))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("--threads %d", n)) || !strings.Contains(err.Error(), "cores") {
		t.Errorf("--threads %d: %v", n, err)
	}
	if _, _, err := runCLI(t, "info", "--threads", strconv.Itoa(maxThreads())); err != nil {
		t.Errorf("--threads %d: %v", maxThreads(), err)
	}
}

// TestThreadsSameBits: dense data large enough for the BLAS products to be
// split into blocks; every method (its -ncw form too), start and solver
// gives the same factors byte for byte at --threads 1, 2 and 7, on whichever BLAS the
// build has (the suite runs it with OpenBLAS too, whose own threads
// rounded differently for different counts).
func TestThreadsSameBits(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(21, 22))
	data := writeDenseCSV(t, filepath.Join(dir, "dense.csv"), 600, 400, func(i, j int) float64 { return rng.Float64() * float64(1+(i+j)%7) })
	cases := [][]string{
		{"--method", "nmf", "--start", "random"},
		{"--method", "nmf", "--start", "kmeans"},
		{"--method", "nmf", "--start", "nndsvd"},
		{"--method", "cf"},
	}
	if !testing.Short() { // 10 s more; the race detector's pass is -short
		cases = append(cases, [][]string{
			{"--method", "nmf", "--solver", "mu"},
			{"--method", "gnmf"}, // lambda auto: every candidate's fit
			{"--method", "gnmf", "--solver", "mu", "--lambda", "10"},
			{"--method", "lccf", "--kernel", "gaussian", "--lambda", "10"},
			{"--method", "nmf-kl", "--start", "kmeans"},
			{"--method", "nmf-kl", "--solver", "mu"},
			{"--method", "lpnmf", "--lambda", "10"},
			{"--method", "nmf-ncw"},
			{"--method", "gnmf-ncw", "--lambda", "10"},
			{"--method", "cf-ncw"},
			{"--method", "lccf-ncw", "--lambda", "10"},
			{"--method", "nmf-kl-ncw"},
			{"--method", "lpnmf-ncw", "--lambda", "10"},
		}...)
	}
	for _, args := range cases {
		var first []byte
		for _, threads := range []string{"1", "2", "7"} {
			out := filepath.Join(dir, strings.Join(args, "")+threads)
			full := append([]string{"fit", "--data", data, "--k", "10", "--iters", "20", "--threads", threads, "--out", out, "--quiet"}, args...)
			if _, _, err := runCLI(t, full...); err != nil {
				t.Fatal(err)
			}
			v, err := os.ReadFile(filepath.Join(out, "V.mtx"))
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = v
			} else if !bytes.Equal(first, v) {
				t.Errorf("%v: --threads %s gives other factors than --threads 1", args, threads)
			}
		}
	}
}

// TestValuesNotSilentlyUsed (issue 15): values the methods cannot use are
// errors naming the flag or the file, place and value, not a run that
// ends with garbage: a negative polynomial coef0, text options on a
// matrix, data too large or too small for float64's products.
func TestValuesNotSilentlyUsed(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	row := func(x float64) string { return fmt.Sprintf("%g,%g,%g\n", x, 2*x, 3*x) }
	big := filepath.Join(dir, "big.csv")
	os.WriteFile(big, []byte(row(1)+row(2)+row(1e155)+row(3)), 0o644)
	tiny := filepath.Join(dir, "tiny.csv")
	os.WriteFile(tiny, []byte(row(1e-300)+row(2e-300)+row(3e-300)+row(1e-300)), 0o644)
	// A path graph on the fixture's samples whose weights are each
	// finite but whose degrees overflow.
	const n = 60 // writeFixture's documents
	var g strings.Builder
	fmt.Fprintf(&g, "%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n", n, n, 2*(n-1))
	for i := 1; i < n; i++ {
		fmt.Fprintf(&g, "%d %d 1e308\n%d %d 1e308\n", i, i+1, i+1, i)
	}
	huge := filepath.Join(dir, "huge.mtx")
	os.WriteFile(huge, []byte(g.String()), 0o644)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--data", mtx, "--labels", labels, "--method", "cf", "--kernel", "poly", "--coef0", "-1e6"}, "coef0 -1e+06"},
		{[]string{"--data", mtx, "--labels", labels, "--max-df", "0.5"}, "--max-df applies to text corpora"},
		{[]string{"--data", big, "--header", "no", "--min-df", "2"}, "(MinDF 2) is for sparse term counts; the data is dense"},
		{[]string{"--data", mtx, "--labels", labels, "--min-df", "100"}, "MinDF 100 drops every feature"},
		{[]string{"--data", mtx, "--labels", labels, "--strip", "headers"}, "--strip applies to text corpora"},
		{[]string{"--data", "../../testdata/rawnews", "--largest", "2"}, "--largest selects Reuters-21578 articles"},
		{[]string{"--data", big, "--method", "nmf", "--k", "2"}, "value 3e+155 at sample 3, feature 3 (1-based) is above 1e+100"},
		{[]string{"--data", tiny, "--method", "nmf-kl", "--k", "2"}, "below 1e-150"},
		// Parameters whose graph term or kernel overflows float64: an
		// error naming the value, never a NaN objective reported as a run.
		{[]string{"--data", mtx, "--method", "gnmf", "--lambda", "1e308"}, "lambda 1e+308 is too large"},
		{[]string{"--data", mtx, "--method", "lccf", "--lambda", "1e308", "--formulation", "papers"}, "lambda 1e+308 is too large"},
		{[]string{"--data", mtx, "--method", "lpnmf", "--lambda", "1e308"}, "lambda 1e+308 is too large"},
		{[]string{"--data", mtx, "--method", "gnmf", "--graph", huge}, huge + ": weight 1e+308 at row 1, column 2 (1-based) is above 1e+150"},
		{[]string{"--data", mtx, "--method", "lccf", "--kernel", "gaussian", "--sigma", "1e-300"}, "width 1e-300 is too small"},
		{[]string{"--data", mtx, "--method", "cf", "--kernel", "poly", "--degree", "1000", "--coef0", "2"}, "the poly kernel overflows float64 (degree 1000, coef0 2)"},
	} {
		args := append([]string{"cluster", "--k", "2"}, c.args...)
		if slices.Contains(c.args, "--k") {
			args = append([]string{"cluster"}, c.args...)
		}
		if _, _, err := runCLI(t, args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v, want %q", c.args, err, c.want)
		}
	}
	// experiment stops with the same error, in either format, rather than
	// printing a table of NaN scores (or failing in the JSON encoder).
	for _, format := range []string{"markdown", "json"} {
		out, _, err := runCLI(t, "experiment", "--data", mtx, "--labels", labels, "--methods", "nmf,gnmf", "--clusters", "2-3",
			"--runs", "1", "--lambda", "1e308", "--format", format)
		if err == nil || !strings.Contains(err.Error(), "lambda 1e+308 is too large") || strings.Contains(out, "NaN") {
			t.Errorf("experiment --format %s with lambda 1e308: %v, output %q", format, err, out)
		}
	}
}

// TestHelp asks every sub-command for its options: -h prints the common
// ones and --help-all every one (the wrapped flags' defaults included) on
// stdout, with no error and nothing the flag package recovered from.
func TestHelp(t *testing.T) {
	for _, c := range commands() {
		for _, arg := range []string{"-h", "--help-all"} {
			var out, errOut bytes.Buffer
			err := run(context.Background(), []string{c.name, arg}, &out, &errOut)
			if err != nil && !errors.Is(err, flag.ErrHelp) {
				t.Errorf("%s %s: %v", c.name, arg, err)
			}
			s := out.String()
			if !strings.Contains(s, "usage: manifactor "+c.name) || !strings.Contains(s, "--threads") || errOut.Len() > 0 {
				t.Errorf("%s %s printed %q, %q", c.name, arg, s, errOut.String())
			}
			if strings.Contains(s, "panic") || strings.Contains(s, "(default default)") {
				t.Errorf("%s %s: %s", c.name, arg, s)
			}
		}
	}
}

// TestDenseGraphMetrics: the dense samples' metrics pass the flags' check
// made before the data is read (which once assumed sparse data and
// refused them in every command that factorizes), and are still refused
// for sparse data once it is read.
func TestDenseGraphMetrics(t *testing.T) {
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(31, 32))
	data := writeDenseCSV(t, filepath.Join(dir, "dense.csv"), 40, 12, func(i, j int) float64 { return rng.Float64() + float64((i/20)*(j%2)) })
	for _, cmd := range []string{"fit", "cluster", "bench"} {
		for _, metric := range []string{"euclidean", "correlation"} {
			args := []string{cmd, "--data", data, "--method", "gnmf", "--lambda", "1", "--k", "2", "--iters", "5", "--graph-metric", metric, "--quiet"}
			if cmd == "fit" {
				args = append(args, "--out", filepath.Join(dir, "fit-"+metric))
			}
			if _, _, err := runCLI(t, args...); err != nil {
				t.Errorf("%s --graph-metric %s on dense data: %v", cmd, metric, err)
			}
		}
	}
	mtx, _ := writeFixture(t, dir)
	if _, _, err := runCLI(t, "cluster", "--data", mtx, "--method", "gnmf", "--lambda", "1", "--k", "2", "--graph-metric", "euclidean", "--quiet"); err == nil || !strings.Contains(err.Error(), "sparse samples are compared by cosine") {
		t.Errorf("--graph-metric euclidean on sparse data: %v", err)
	}
}

// TestOutputIsNotInput: an output file naming a file the command reads is
// refused before any work, and the input is left as it was.
func TestOutputIsNotInput(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	before, err := os.ReadFile(mtx)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range [][]string{
		{"graph", "--data", mtx, "--out", mtx},
		{"graph", "--data", mtx, "--labels", labels, "--out", labels},
		{"bench", "--data", mtx, "--k", "2", "--iters", "1", "--cpuprofile", mtx},
	} {
		if _, _, err := runCLI(t, c...); err == nil || !strings.Contains(err.Error(), "the same file as the input") {
			t.Errorf("%v: %v, want a refusal", c, err)
		}
	}
	if after, _ := os.ReadFile(mtx); string(after) != string(before) {
		t.Error("the input was replaced")
	}
}

// writeDenseCSV writes a rows x cols CSV of value(i, j), row by row, to
// path and returns path.
func writeDenseCSV(t *testing.T, path string, rows, cols int, value func(i, j int) float64) string {
	t.Helper()
	var b strings.Builder
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			if j > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "%.6f", value(i, j))
		}
		b.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestEnvBackends: the environment's backends are the program's to read;
// a value no backend has is an error naming the variable, not a silent
// default.
func TestEnvBackends(t *testing.T) {
	for _, env := range []string{"MANIFACTOR_BLAS", "MANIFACTOR_KERNELS"} {
		t.Run(env, func(t *testing.T) {
			t.Setenv(env, "bogus")
			err := run(context.Background(), []string{"info"}, io.Discard, io.Discard)
			if err == nil || !strings.Contains(err.Error(), env+"=bogus") {
				t.Errorf("%s=bogus: %v", env, err)
			}
		})
	}
}
