package minibatch_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver/minibatch"
)

// tdt2 is TDT2 prepared as the pipeline prepares it by default; it
// skips tb when the data sets are absent.
func tdt2(tb testing.TB) *model.Prepared {
	tb.Helper()
	path := filepath.Join("..", "..", "..", "shared", "data", "tdt2", "TDT2.mat")
	if _, err := os.Stat(path); err != nil {
		tb.Skipf("%s not found: real data sets live in ../shared/data", path)
	}
	ds, err := dataset.Load(context.Background(), path, dataset.LoadOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	return p
}

// TestPartialFitTDT2: a model fitted on a random half of TDT2 (three
// passes) and then given the other half (one PartialFit) is within 1 %
// of the objective of the pipeline's batch fit on the whole, k = 30.
func TestPartialFitTDT2(t *testing.T) {
	if testing.Short() {
		t.Skip("a fit of TDT2")
	}
	ctx := context.Background()
	p := tdt2(t)
	x := p.Data.Sparse
	const k = 30
	batch, err := model.Fit(ctx, p.Data, model.Options{K: k})
	if err != nil {
		t.Fatal(err)
	}
	want := minibatch.Objective(x, batch.U, batch.V)

	var first, second []int
	for j, r := range rand.New(rand.NewPCG(9, 9)).Perm(x.Rows) {
		if r < x.Rows/2 {
			first = append(first, j)
		} else {
			second = append(second, j)
		}
	}
	md, err := minibatch.New(x.Cols, minibatch.Options{K: k})
	if err != nil {
		t.Fatal(err)
	}
	if err := md.Fit(ctx, x.SelectRows(first), 3); err != nil {
		t.Fatal(err)
	}
	if err := md.PartialFit(ctx, x.SelectRows(second)); err != nil {
		t.Fatal(err)
	}
	v, err := md.Transform(ctx, x)
	if err != nil {
		t.Fatal(err)
	}
	got := md.Objective(x, v)
	t.Logf("batch fit %.2f, half then half %.2f (%+.2f %%)", want, got, 100*(got/want-1))
	if got > 1.01*want {
		t.Errorf("objective %v, more than 1 %% above the batch fit's %v", got, want)
	}
}

// BenchmarkFitTDT2 is one pass of Fit over TDT2, k = 30, batches of
// 1,024 documents.
func BenchmarkFitTDT2(b *testing.B) {
	ctx := context.Background()
	x := tdt2(b).Data.Sparse
	b.ResetTimer()
	for range b.N {
		md, err := minibatch.New(x.Cols, minibatch.Options{K: 30})
		if err != nil {
			b.Fatal(err)
		}
		if err := md.Fit(ctx, x, 1); err != nil {
			b.Fatal(err)
		}
	}
}
