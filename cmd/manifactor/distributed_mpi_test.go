//go:build cgo && mpi

package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/manifactor/manifactor/internal/testenv"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/dist/disttest"
	"github.com/manifactor/manifactor/model"
)

// distSummaryOf reads the summary.json a distributed fit wrote in dir.
func distSummaryOf(t *testing.T, dir string) distSummary {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var sum distSummary
	if err := json.Unmarshal(b, &sum); err != nil {
		t.Fatal(err)
	}
	return sum
}

// skipUnderRace skips a test of mpirun's ranks under the race detector:
// each rank is a process of its own, and dist's tests check the ranks'
// concurrency in one process under it; make test runs these in its MPI
// pass.
func skipUnderRace(t *testing.T) {
	if testenv.Race {
		t.Skip("ranks under mpirun: run in make test's MPI pass")
	}
}

// fitOnGrid runs fit with args on np ranks (on grid when not "", else
// the default grid), which must succeed, and returns the summary it
// wrote in out (one of args' --out).
func fitOnGrid(t *testing.T, np int, grid, out string, args []string) distSummary {
	t.Helper()
	if grid != "" {
		args = append(args, "--grid", grid)
	}
	text, err := mpirunCLI(t, np, args...)
	if err != nil {
		t.Fatalf("%d ranks, grid %q: %v\n%s", np, grid, err, text)
	}
	return distSummaryOf(t, out)
}

// mpirunCLI runs this test binary as manifactor on np ranks.
func mpirunCLI(t *testing.T, np int, args ...string) ([]byte, error) {
	t.Helper()
	path, full, err := disttest.MPIRun(np)
	if err != nil {
		t.Skip(err)
	}
	full = append(full, os.Args[0])
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, append(full, args...)...)
	cmd.Env = append(append(os.Environ(), "MANIFACTOR_TEST_MAIN=1"), disttest.MPIEnv...)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("mpirun -np %d %v hung: %s", np, args, out)
	}
	return out, err
}

// TestDistributedFitMatchesOneProcess: fit --distributed on 1 to 4 ranks
// (every grid shape the default and --grid give), nmf, gnmf and nmf-kl, reaches
// the objective of a one-process fit with the same updates, start,
// graph and iterations to 1e-9 relative, moves the values the formula
// says, and rank 0 writes the factors.
func TestDistributedFitMatchesOneProcess(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	mtx, _ := writeFixture(t, dir)
	x := preparedDense(t, mtx)
	common := []string{"fit", "--data", mtx, "--k", "3", "--iters", "40", "--tol", "off", "--seed", "4", "--quiet", "--json"}
	ref, _, err := runCLI(t, append(common, "--out", filepath.Join(dir, "ref"), "--solver", "mu", "--pg-tol", "off")...)
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, ref)["objective"].(float64)
	gnmf := []string{"--method", "gnmf", "--lambda", "10", "--neighbors", "4"}
	refG, _, err := runCLI(t, append(append(common, gnmf...), "--out", filepath.Join(dir, "refg"), "--solver", "mu", "--pg-tol", "off")...)
	if err != nil {
		t.Fatal(err)
	}
	wantG := decode(t, refG)["objective"].(float64)
	kl := []string{"--method", "nmf-kl"}
	refK, _, err := runCLI(t, append(append(common, kl...), "--out", filepath.Join(dir, "refk"), "--solver", "mu", "--pg-tol", "off")...)
	if err != nil {
		t.Fatal(err)
	}
	wantK := decode(t, refK)["objective"].(float64)
	for _, c := range []struct {
		np     int
		grid   string
		method string
	}{{1, "", "nmf"}, {2, "", "nmf"}, {2, "1x2", "nmf"}, {3, "", "nmf"}, {4, "2x2", "nmf"}, {4, "1x4", "nmf"},
		{2, "", "gnmf"}, {3, "", "gnmf"}, {4, "2x2", "gnmf"}, {2, "", "nmf-kl"}, {4, "2x2", "nmf-kl"}} {
		out := filepath.Join(dir, "d"+strconv.Itoa(c.np)+c.grid+c.method)
		args := append(append([]string(nil), common...), "--distributed", "--solver", "mu", "--out", out)
		want := want
		switch c.method {
		case "gnmf":
			args, want = append(args, gnmf...), wantG
		case "nmf-kl":
			args, want = append(args, kl...), wantK
		}
		sum := fitOnGrid(t, c.np, c.grid, out, args)
		if sum.Ranks != c.np || (c.grid != "" && sum.Grid != c.grid) {
			t.Errorf("%d ranks, grid %q: summary says %d ranks, grid %s", c.np, c.grid, sum.Ranks, sum.Grid)
		}
		if math.Abs(sum.Objective-want) > 1e-9*want {
			t.Errorf("%d ranks, grid %s, %s: objective %v, one process %v", c.np, sum.Grid, c.method, sum.Objective, want)
		}
		if sum.WordsMeasured != sum.WordsPerIter {
			t.Errorf("%d ranks, grid %s, %s: %d values moved per iteration, the formula says %d", c.np, sum.Grid, c.method, sum.WordsMeasured, sum.WordsPerIter)
		}
		if c.method == "nmf" {
			checkFactorParts(t, out, sum, x)
		} else {
			checkFactorParts(t, out, sum, nil) // other objectives
		}
	}
}

// preparedData is data prepared as fit prepares it: a dense samples x
// features matrix and its features' names.
type preparedData struct {
	x     *mat.Dense
	names []string
}

// preparedDense returns the data at path prepared as fit prepares it.
func preparedDense(t *testing.T, path string) *preparedData {
	t.Helper()
	ds, err := dataset.Load(context.Background(), path, dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := p.Data.Sparse
	x := mat.NewDense(a.Rows, a.Cols, nil)
	for i := 0; i < a.Rows; i++ {
		for q := a.Indptr[i]; q < a.Indptr[i+1]; q++ {
			x.Set(i, a.Ind[q], a.Val[q])
		}
	}
	return &preparedData{x: x, names: p.Data.Vocabulary}
}

// checkFactorParts: the ranks wrote U and V as parts directories that
// read back whole, features x k and samples x k, non-negative, and the
// objective ||X - U V^T||^2 recomputed from them and the prepared data
// (when not nil: nmf's objective) is the summary's, U's rows read in the
// order vocabulary.txt names them.
func checkFactorParts(t *testing.T, out string, sum distSummary, data *preparedData) {
	t.Helper()
	var f [2]*mat.Dense
	for q, c := range []struct {
		dir  string
		rows int
	}{{"U", sum.Features}, {"V", sum.Samples}} {
		ds, err := dataset.Load(context.Background(), filepath.Join(out, c.dir), dataset.LoadOptions{})
		if err != nil {
			t.Fatalf("%d ranks: %v", sum.Ranks, err)
		}
		if r, k := ds.Dims(); r != c.rows || k != sum.K || ds.Dense == nil {
			t.Fatalf("%d ranks: %s is %d x %d, want %d x %d dense", sum.Ranks, c.dir, r, k, c.rows, sum.K)
		}
		if err := ds.CheckNonNegative(); err != nil {
			t.Fatalf("%d ranks: %v", sum.Ranks, err)
		}
		f[q] = ds.Dense
	}
	if data == nil {
		return
	}
	b, err := os.ReadFile(filepath.Join(out, "vocabulary.txt"))
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for c, name := range data.names {
		col[name] = c
	}
	names := strings.Fields(string(b))
	u := mat.NewDense(len(data.names), sum.K, nil)
	for p, name := range names {
		c, ok := col[name]
		if !ok || len(names) != len(data.names) {
			t.Fatalf("%d ranks: vocabulary.txt is not an order of the data's %d features (%q)", sum.Ranks, len(data.names), name)
		}
		u.SetRow(c, f[0].RawRowView(p))
	}
	var r mat.Dense
	r.Mul(f[1], u.T())
	r.Sub(data.x, &r)
	if obj := mat.Norm(&r, 2); math.Abs(obj*obj-sum.Objective) > 1e-9*sum.Objective {
		t.Errorf("%d ranks: the objective of the factors written is %v, the summary says %v", sum.Ranks, obj*obj, sum.Objective)
	}
}

// TestDistributedFitFailure: an error on the ranks (a grid that does not
// fit the job) ends every rank with a non-zero status and the message,
// not a hang, and leaves no output directory.
func TestDistributedFitFailure(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	mtx, _ := writeFixture(t, dir)
	out := filepath.Join(dir, "out")
	text, err := mpirunCLI(t, 2, "fit", "--data", mtx, "--k", "3", "--distributed", "--grid", "3x1", "--out", out)
	if err == nil {
		t.Fatalf("exit 0: %s", text)
	}
	if !strings.Contains(string(text), "--grid 3x1: 3 ranks, but the job has 2") {
		t.Errorf("output lacks the error: %s", text)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed job left its output directory")
	}
}

// TestDistributedFitTDT2: on TDT2 (prepared as fit prepares it), nmf on
// 2 and 3 ranks and gnmf and nmf-kl on 2 reach the one-process objective
// to 1e-9 relative, and the values moved per iteration are the formula's.
func TestDistributedFitTDT2(t *testing.T) {
	if testing.Short() {
		t.Skip("a distributed fit of TDT2")
	}
	data := realData(t, "tdt2/TDT2.mat")
	dir := t.TempDir()
	common := []string{"fit", "--data", data, "--k", "10", "--iters", "10", "--tol", "off", "--seed", "1", "--quiet", "--json"}
	for _, c := range []struct {
		method []string
		ranks  []int
	}{
		{[]string{"--method", "nmf"}, []int{2, 3}},
		{[]string{"--method", "gnmf", "--lambda", "10"}, []int{2}},
		{[]string{"--method", "nmf-kl"}, []int{2}},
	} {
		args := append(append([]string(nil), common...), c.method...)
		ref, _, err := runCLI(t, append(args, "--out", filepath.Join(dir, "ref"+c.method[1]), "--solver", "mu", "--pg-tol", "off")...)
		if err != nil {
			t.Fatal(err)
		}
		want := decode(t, ref)["objective"].(float64)
		for _, np := range c.ranks {
			out := filepath.Join(dir, c.method[1]+strconv.Itoa(np))
			text, err := mpirunCLI(t, np, append(args, "--distributed", "--solver", "mu", "--out", out)...)
			if err != nil {
				t.Fatalf("%s on %d ranks: %v\n%s", c.method[1], np, err, text)
			}
			sum := distSummaryOf(t, out)
			if math.Abs(sum.Objective-want) > 1e-9*want {
				t.Errorf("%s on %d ranks: objective %v, one process %v", c.method[1], np, sum.Objective, want)
			}
			if sum.WordsPerIter == 0 || sum.WordsMeasured != sum.WordsPerIter {
				t.Errorf("%s on %d ranks: %d values moved per iteration, the formula says %d", c.method[1], np, sum.WordsMeasured, sum.WordsPerIter)
			}
		}
	}
}

// TestDistributedFitParts: split writes the data as row blocks; fit
// --distributed on them, each rank reading only its samples' parts and
// preparing them with the corpus's statistics pooled over the ranks,
// reaches the objective of the one-process fit on the file to 1e-9
// relative on 1 to 4 ranks (more parts than ranks, and parts cut across
// the ranks' blocks), writes factors of that objective, and gnmf takes
// its graph from --graph or builds it on the ranks (the ring) as one
// process builds it.
func TestDistributedFitParts(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	mtx, _ := writeFixture(t, dir)
	x := preparedDense(t, mtx)
	parts := filepath.Join(dir, "parts")
	if _, _, err := runCLI(t, "split", "--data", mtx, "--parts", "5", "--out", parts); err != nil {
		t.Fatal(err)
	}
	graphFile := filepath.Join(dir, "g.mtx")
	if _, _, err := runCLI(t, "graph", "--data", mtx, "--neighbors", "4", "--out", graphFile); err != nil {
		t.Fatal(err)
	}
	common := []string{"fit", "--k", "3", "--iters", "30", "--tol", "off", "--seed", "4", "--quiet", "--json"}
	gnmf := []string{"--method", "gnmf", "--lambda", "10", "--graph", graphFile}
	want := map[string]float64{}
	for _, m := range []struct {
		name string
		args []string
	}{{"nmf", nil}, {"gnmf", gnmf}} {
		args := append(append(append([]string(nil), common...), m.args...), "--solver", "mu", "--pg-tol", "off")
		ref, _, err := runCLI(t, append(args, "--data", mtx, "--out", filepath.Join(dir, "ref"+m.name))...)
		if err != nil {
			t.Fatal(err)
		}
		want[m.name] = decode(t, ref)["objective"].(float64)
		// One process reads the parts directory whole: the same data.
		got, _, err := runCLI(t, append(args, "--data", parts, "--out", filepath.Join(dir, "refp"+m.name))...)
		if err != nil {
			t.Fatal(err)
		}
		if obj := decode(t, got)["objective"].(float64); obj != want[m.name] {
			t.Fatalf("%s: one process on the parts %v, on the file %v", m.name, obj, want[m.name])
		}
	}
	for _, c := range []struct {
		np     int
		grid   string
		method string
	}{{1, "", "nmf"}, {2, "", "nmf"}, {3, "", "nmf"}, {4, "2x2", "nmf"}, {4, "1x4", "nmf"}, {2, "", "gnmf"}, {3, "", "gnmf"}} {
		out := filepath.Join(dir, "p"+strconv.Itoa(c.np)+c.grid+c.method)
		args := append(append([]string(nil), common...), "--data", parts, "--distributed", "--solver", "mu", "--out", out)
		if c.method == "gnmf" {
			args = append(args, gnmf...)
		}
		if c.grid != "" {
			args = append(args, "--grid", c.grid)
		}
		text, err := mpirunCLI(t, c.np, args...)
		if err != nil {
			t.Fatalf("%d ranks, grid %q, %s: %v\n%s", c.np, c.grid, c.method, err, text)
		}
		sum := distSummaryOf(t, out)
		if math.Abs(sum.Objective-want[c.method]) > 1e-9*want[c.method] {
			t.Errorf("%d ranks, grid %s, %s: objective %v, one process %v", c.np, sum.Grid, c.method, sum.Objective, want[c.method])
		}
		xc := x
		if c.method != "nmf" {
			xc = nil // the objective has the graph term
		}
		checkFactorParts(t, out, sum, xc)
	}
	// gnmf whose graph the ranks build among themselves (the ring): the
	// one-process fit with the graph built from the whole data.
	ring := []string{"--method", "gnmf", "--lambda", "10", "--neighbors", "4", "--weight", "cosine"}
	ref, _, err := runCLI(t, append(append(append([]string(nil), common...), ring...), "--data", mtx, "--solver", "mu", "--pg-tol", "off", "--out", filepath.Join(dir, "refring"))...)
	if err != nil {
		t.Fatal(err)
	}
	wantRing := decode(t, ref)["objective"].(float64)
	for _, np := range []int{2, 3, 4} {
		out := filepath.Join(dir, "ring"+strconv.Itoa(np))
		text, err := mpirunCLI(t, np, append(append(append([]string(nil), common...), ring...), "--data", parts, "--distributed", "--out", out)...)
		if err != nil {
			t.Fatalf("ring graph on %d ranks: %v\n%s", np, err, text)
		}
		if sum := distSummaryOf(t, out); math.Abs(sum.Objective-wantRing) > 1e-9*wantRing {
			t.Errorf("ring graph on %d ranks: objective %v, one process %v", np, sum.Objective, wantRing)
		}
	}
	text, err := mpirunCLI(t, 2, append(append(append([]string(nil), common...), ring...), "--data", parts, "--distributed", "--out", filepath.Join(dir, "approx"), "--graph-search", "approx")...)
	if err == nil || !strings.Contains(string(text), "approximate search is not cut by blocks") {
		t.Errorf("approximate search on the ranks: %v\n%s", err, text)
	}
}

// TestDistributedFitMissingPart: a rank that cannot read its block (a
// part file missing, a bad line in its byte range) makes every rank exit
// non-zero, the message naming the file (and line), and leaves no output
// directory.
func TestDistributedFitMissingPart(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	mtx, _ := writeFixture(t, dir)
	parts := filepath.Join(dir, "parts")
	if _, _, err := runCLI(t, "split", "--data", mtx, "--parts", "5", "--out", parts); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(parts, "part-00004.mtx")); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	text, err := mpirunCLI(t, 2, "fit", "--data", parts, "--k", "3", "--distributed", "--out", out)
	if err == nil {
		t.Fatalf("exit 0: %s", text)
	}
	if !strings.Contains(string(text), "part-00004.mtx") || !strings.Contains(string(text), "rank 1 of 2") {
		t.Errorf("output lacks the error: %s", text)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a failed job left its output directory")
	}
	// A bad line of a Matrix Market file read by byte ranges: the rank
	// that reads it names the file's line.
	b, err := os.ReadFile(mtx)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	last := len(lines)
	lines[last-1] = strings.Fields(lines[last-1])[0] + " 1 -x"
	bad := filepath.Join(dir, "bad.mtx")
	os.WriteFile(bad, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
	text, err = mpirunCLI(t, 3, "fit", "--data", bad, "--k", "3", "--distributed", "--out", out)
	if err == nil {
		t.Fatalf("exit 0: %s", text)
	}
	if want := "bad.mtx:" + strconv.Itoa(last) + ":"; !strings.Contains(string(text), want) {
		t.Errorf("output lacks %q: %s", want, text)
	}
}

// TestDistributedFitCD: nmf's default solver on the ranks is one
// process's, coordinate descent: on a corpus large enough for several
// blocks of nmfstep.Block rows per factor, 1 to 4 ranks (grids aligned
// to those blocks, features in one process's frequency order) reach the
// objective of `fit --solver cd` to 1e-9 relative, write factors of that
// objective, and say so in the summary; too many ranks for the blocks is
// an error naming them under --solver cd, and the multiplicative updates
// under auto.
func TestDistributedFitCD(t *testing.T) {
	skipUnderRace(t)
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(8, 9))
	const docs, terms = 700, 620
	var lines []string
	for d := 0; d < docs; d++ {
		for w := 0; w < terms; w++ {
			if rng.Float64() < 0.04 || w == d%terms {
				lines = append(lines, fmt.Sprintf("%d %d %d", d+1, w+1, 1+rng.IntN(5)))
			}
		}
	}
	mtx := filepath.Join(dir, "big.mtx")
	body := fmt.Sprintf("%%%%MatrixMarket matrix coordinate real general\n%d %d %d\n%s\n", docs, terms, len(lines), strings.Join(lines, "\n"))
	if err := os.WriteFile(mtx, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	x := preparedDense(t, mtx)
	common := []string{"fit", "--data", mtx, "--k", "4", "--iters", "15", "--tol", "off", "--seed", "3", "--quiet", "--json"}
	ref, _, err := runCLI(t, append(append([]string(nil), common...), "--out", filepath.Join(dir, "ref"), "--solver", "cd", "--pg-tol", "off")...)
	if err != nil {
		t.Fatal(err)
	}
	want := decode(t, ref)["objective"].(float64)
	for _, c := range []struct {
		np   int
		grid string
	}{{1, ""}, {2, "1x2"}, {2, "2x1"}, {3, ""}, {4, "2x2"}} {
		out := filepath.Join(dir, "cd"+strconv.Itoa(c.np)+c.grid)
		args := append(append([]string(nil), common...), "--distributed", "--out", out)
		sum := fitOnGrid(t, c.np, c.grid, out, args)
		if sum.Solver != "cd" || math.Abs(sum.Objective-want) > 1e-9*want {
			t.Errorf("%d ranks, grid %s: %s, objective %v, one process (cd) %v", c.np, sum.Grid, sum.Solver, sum.Objective, want)
		}
		if sum.WordsMeasured != sum.WordsPerIter {
			t.Errorf("%d ranks, grid %s: %d values moved per iteration, the formula says %d", c.np, sum.Grid, sum.WordsMeasured, sum.WordsPerIter)
		}
		checkFactorParts(t, out, sum, x)
	}
	// Plain cd (--extrapolate=false, the default extrapolating) likewise.
	ref, _, err = runCLI(t, append(append([]string(nil), common...), "--out", filepath.Join(dir, "refp"), "--solver", "cd", "--pg-tol", "off", "--extrapolate=false")...)
	if err != nil {
		t.Fatal(err)
	}
	wantP := decode(t, ref)["objective"].(float64)
	if wantP == want {
		t.Errorf("--extrapolate=false gave the default's objective %v", want)
	}
	for _, grid := range []string{"1x2", "2x1"} {
		out := filepath.Join(dir, "p"+grid)
		sum := fitOnGrid(t, 2, grid, out, append(append([]string(nil), common...), "--distributed", "--extrapolate=false", "--out", out))
		if math.Abs(sum.Objective-wantP) > 1e-9*wantP {
			t.Errorf("--extrapolate=false, grid %s: objective %v, one process %v", grid, sum.Objective, wantP)
		}
		checkFactorParts(t, out, sum, x)
	}
	// A grid with more feature blocks than the data have blocks of
	// rows: an error when cd was asked for, the multiplicative updates
	// (said in the summary) under auto.
	text, err := mpirunCLI(t, 4, append(append([]string(nil), common...), "--distributed", "--grid", "4x1", "--solver", "cd", "--out", filepath.Join(dir, "cd4x1"))...)
	if err == nil || !strings.Contains(string(text), "dist: a 4 x 1 grid") || !strings.Contains(string(text), "coordinate descent takes whole blocks") {
		t.Errorf("--solver cd on a 4x1 grid of 3 blocks of features: %v\n%s", err, text)
	}
	out := filepath.Join(dir, "auto4x1")
	if text, err := mpirunCLI(t, 4, append(append([]string(nil), common...), "--distributed", "--grid", "4x1", "--out", out)...); err != nil {
		t.Fatalf("auto on a 4x1 grid: %v\n%s", err, text)
	}
	if sum := distSummaryOf(t, out); sum.Solver != "mu" {
		t.Errorf("auto on a 4x1 grid of 3 blocks of features ran %s, want mu", sum.Solver)
	}
}
