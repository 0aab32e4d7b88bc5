package dist_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/internal/matrixio"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// TestRunLocalMatchesOneProcess: the whole distributed job, run on 1 to 4
// in-process ranks from a Matrix Market file of counts (each rank reading
// a byte range, the idf pooled over the ranks), gives one process's
// prepared fit: the objective of model.Fit on the prepared data, to 1e-9,
// for nmf's multiplicative updates and gnmf with the ranks' own graph;
// options a distributed fit does not take are errors.
func TestRunLocalMatchesOneProcess(t *testing.T) {
	const n, m = 60, 45
	a := randomSamples(5, n, m, 0.15)
	for q := range a.Val {
		a.Val[q] = math.Ceil(a.Val[q]) // counts, which the preparation weighs
	}
	path := filepath.Join(t.TempDir(), "counts.mtx")
	var buf bytes.Buffer
	if err := matrixio.WriteMatrixMarket(&buf, a); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for _, o := range []model.Options{
		{Method: solver.NMF, K: 3, Seed: 4, Solver: solver.Control{MaxIter: 25, Tol: -1, PGTol: -1, Algorithm: solver.MU}},
		{Method: solver.GNMF, K: 3, Seed: 4, Lambda: solver.Fixed(10), Solver: solver.Control{MaxIter: 25, Tol: -1, PGTol: -1, Algorithm: solver.MU}},
	} {
		ds, err := dataset.Load(ctx, path, dataset.LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := model.Prepare(ds, model.PrepareOptions{})
		if err != nil {
			t.Fatal(err)
		}
		ref, err := model.Fit(ctx, p.Data, o)
		if err != nil {
			t.Fatal(err)
		}
		want := ref.Objective[len(ref.Objective)-1]
		for size := 1; size <= 4; size++ {
			res, err := dist.RunLocal(ctx, dist.Job{Path: path, Options: o}, size)
			if err != nil {
				t.Fatalf("%v on %d ranks: %v", o.Method, size, err)
			}
			for r, rr := range res {
				tr := rr.Fit.Objective
				if got := tr[len(tr)-1]; math.Abs(got-want) > 1e-9*want {
					t.Errorf("%v on %d ranks, rank %d: objective %v, one process %v", o.Method, size, r, got, want)
				}
				if rr.Grid.Size() != size || rr.Grid.N != n || rr.NNZ != a.NNZ() {
					t.Errorf("%v on %d ranks: grid %+v, %d entries", o.Method, size, rr.Grid, rr.NNZ)
				}
			}
		}
	}
	for _, c := range []struct {
		o    model.Options
		want string
	}{
		{model.Options{Method: solver.LCCF, K: 2}, "lccf is not available distributed"},
		{model.Options{Method: solver.GNMF, K: 2}, "gnmf needs a fixed weight"},
		{model.Options{Method: solver.NMFKL, K: 2, Solver: solver.Control{Algorithm: solver.CD}}, "coordinate descent runs for nmf only"},
		{model.Options{Method: solver.NMF, K: 2, Start: solver.NNDSVDStart}, "Options.Start is not applied"},
		{model.Options{Method: solver.NMF, K: 2, Solver: solver.Control{Restarts: 3}}, "Options.Solver"},
	} {
		if _, err := dist.RunLocal(ctx, dist.Job{Path: path, Options: c.o}, 2); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
}

// TestRunLocalMissingPart: a rank that cannot read its part of a parts
// directory fails the job on every rank instead of leaving the others
// waiting in the preparation's collectives.
func TestRunLocalMissingPart(t *testing.T) {
	dir := t.TempDir()
	a := randomSamples(6, 40, 30, 0.2)
	for q := range a.Val {
		a.Val[q] = math.Ceil(a.Val[q])
	}
	err := dataset.WritePartsDir(dir, &dataset.Dataset{Source: "counts", Sparse: a}, dataset.PartsOptions{Parts: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(dir, matrixio.PartName(1))); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := dist.RunLocal(context.Background(), dist.Job{Path: dir, GridRows: 1, Options: model.Options{Method: solver.NMF, K: 2}}, 2)
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("a missing part: no error")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("a missing part: the ranks still wait after 30 s")
	}
}
