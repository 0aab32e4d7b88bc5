package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/manifactor/manifactor/experiment"
	"github.com/manifactor/manifactor/graph"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// TestMethodSettings checks the options each factorization of the
// protocol gets: the pipeline's defaults, or with --papers the authors'
// code's (rescaled random start and k-means on V for gnmf and lccf, a
// k-means start for the KL methods, the papers' formulation and lambda,
// 100 iterations on text), which flags given explicitly override.
func TestMethodSettings(t *testing.T) {
	const def = solver.DefaultMaxIter
	for _, c := range []struct {
		args   []string
		method string
		want   model.Options
		iters  int
	}{
		{nil, "gnmf", model.Options{Method: solver.GNMF}, def},
		{nil, "nmf-kl", model.Options{Method: solver.NMFKL}, def},
		{[]string{"--lambda", "auto"}, "gnmf", model.Options{Method: solver.GNMF, Lambda: solver.Auto}, def},
		{[]string{"--papers"}, "gnmf", model.Options{Method: solver.GNMF, Formulation: solver.Papers, Start: solver.NormalizedStart}, 100},
		{[]string{"--papers"}, "lccf-ncw", model.Options{Method: solver.LCCFNCW, Formulation: solver.Papers, Start: solver.NormalizedStart, Graph: graph.Options{Weight: graph.Cosine}}, 100},
		{[]string{"--papers"}, "lpnmf", model.Options{Method: solver.LPNMF, Formulation: solver.Papers, Start: solver.KMeansStart, Assign: model.ArgMaxAssign}, 100},
		{[]string{"--papers"}, "nmf-ncw", model.Options{Method: solver.NMFNCW, Formulation: solver.Papers, Assign: model.ArgMaxAssign}, 100},
		{[]string{"--papers", "--start", "random", "--lambda", "3", "--iters", "50"}, "gnmf", model.Options{Method: solver.GNMF, Formulation: solver.Papers, Lambda: solver.Fixed(3)}, 50},
		{[]string{"--assign", "argmax", "--start", "kmeans", "--lambda", "0"}, "gnmf", model.Options{Method: solver.GNMF, Lambda: solver.Fixed(0), Start: solver.KMeansStart, Assign: model.ArgMaxAssign}, def},
	} {
		fs := newFlagSet("experiment", "", io.Discard, io.Discard)
		var f protocolFlags
		f.register(fs)
		if err := fs.Parse(c.args); err != nil {
			t.Fatal(err)
		}
		m, err := f.method(c.method, true, nil)
		if err != nil {
			t.Fatalf("%v %s: %v", c.args, c.method, err)
		}
		fz, ok := m.(experiment.Factorization)
		if !ok {
			t.Fatalf("%s: %T, not a factorization", c.method, m)
		}
		o := fz.Options
		w := c.want
		if o.Method != w.Method || o.Formulation != w.Formulation || o.Lambda != w.Lambda || o.Start != w.Start || o.Assign != w.Assign || o.Graph.Weight != w.Graph.Weight {
			t.Errorf("%v %s: method %v formulation %v lambda %v start %v assign %v weight %v; want %v %v %v %v %v %v", c.args, c.method,
				o.Method, o.Formulation, o.Lambda, o.Start, o.Assign, o.Graph.Weight, w.Method, w.Formulation, w.Lambda, w.Start, w.Assign, w.Graph.Weight)
		}
		if o.Solver.MaxIter != c.iters {
			t.Errorf("%v %s: %d iterations, want %d", c.args, c.method, o.Solver.MaxIter, c.iters)
		}
	}
}

// TestOnePipeline: the same options and seed give the same factors and
// labels through the command line (cluster and fit --classes), the
// experiment protocol's Factorization and the library's model.Fit, for the
// default options (lambda auto) and for a fixed lambda.
func TestOnePipeline(t *testing.T) {
	dir := t.TempDir()
	mtx, labels := writeFixture(t, dir)
	ctx := context.Background()
	fs := newFlagSet("experiment", "", io.Discard, io.Discard)
	var pf protocolFlags
	pf.register(fs)
	if err := fs.Parse([]string{"--data", mtx, "--labels", labels, "--seed", "3"}); err != nil {
		t.Fatal(err)
	}
	p, err := pf.df.load(context.Background(), &runtimeFlags{quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	prot := pf.protocol([]int{2}, io.Discard)
	sub, seed, err := prot.Subset(p.Data, 2, 1)
	if err != nil {
		t.Fatal(err)
	}
	classes, _ := sub.Classes()
	for _, extra := range [][]string{nil, {"--lambda", "30", "--start", "kmeans"}} {
		args := append([]string{"--method", "gnmf"}, extra...)
		m, err := pf.method("gnmf", true, nil)
		if err != nil {
			t.Fatal(err)
		}
		if extra != nil {
			fs := newFlagSet("experiment", "", io.Discard, io.Discard)
			var pf2 protocolFlags
			pf2.register(fs)
			if err := fs.Parse(extra); err != nil {
				t.Fatal(err)
			}
			if m, err = pf2.method("gnmf", true, nil); err != nil {
				t.Fatal(err)
			}
		}
		fz := m.(experiment.Factorization)
		viaProtocol, err := fz.Cluster(ctx, sub, 2, seed)
		if err != nil {
			t.Fatal(err)
		}
		o := fz.Options
		o.K, o.Seed, o.Threads = 2, seed, 0
		lib, err := model.Fit(ctx, sub, o)
		if err != nil {
			t.Fatal(err)
		}
		cli := append([]string{"cluster", "--data", mtx, "--labels", labels, "--classes", fmt.Sprintf("%d,%d", classes[0], classes[1]),
			"--k", "2", "--seed", strconv.FormatUint(seed, 10), "--json"}, args...)
		out, _, err := runCLI(t, cli...)
		if err != nil {
			t.Fatal(err)
		}
		var s fitSummary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(viaProtocol, lib.Labels) || !slices.Equal(s.Labels, lib.Labels) || *s.Lambda != lib.Lambda {
			t.Fatalf("%v: labels differ: protocol %v, library %v, command line %v (lambda %v, %v)", extra, viaProtocol, lib.Labels, s.Labels, *s.Lambda, lib.Lambda)
		}
		// fit writes the library's factors.
		outDir := filepath.Join(dir, "fit")
		if _, _, err := runCLI(t, append([]string{"fit", "--data", mtx, "--labels", labels, "--classes", fmt.Sprintf("%d,%d", classes[0], classes[1]),
			"--k", "2", "--seed", strconv.FormatUint(seed, 10), "--out", outDir}, args...)...); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(outDir, "V.mtx"))
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		if err := matrixio.WriteMatrixMarketDense(&want, lib.V); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want.Bytes()) {
			t.Fatalf("%v: fit's V.mtx differs from the library's V", extra)
		}
	}
}
