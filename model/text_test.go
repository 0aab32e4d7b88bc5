package model

import (
	"context"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/solver"
)

// TestTransformText: a model trained on raw text carries its pipeline,
// places raw strings through it (without the training corpus's pruning:
// a text placed alone keeps its terms and, to rounding, its row, which
// depends on its position and itself only), and refuses text tokenized otherwise or
// given to a model of a matrix.
func TestTransformText(t *testing.T) {
	ctx := context.Background()
	ds, err := dataset.Load(ctx, "../testdata/demo/reuters-demo.sgm.gz", dataset.LoadOptions{Text: dataset.TextOptions{MinDF: 2, DropEmpty: true}})
	if err != nil {
		t.Fatal(err)
	}
	m, _, err := Train(ctx, ds, PrepareOptions{}, Options{Method: solver.NMF, K: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Text == nil || *m.Text != (dataset.TextOptions{}) {
		t.Fatalf("the model's pipeline: %+v, want the training one's tokenization", m.Text)
	}
	texts := []string{"Oil prices rose as OPEC cut output", "Sugar traders bought white sugar", "the of and", "Oil output"}
	all, err := m.TransformText(ctx, texts, TransformOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := all.V.Dims(); n != len(texts) || len(all.Labels) != len(texts) {
		t.Fatalf("%d rows for %d texts", n, len(texts))
	}
	for i := range texts {
		// Text i first: the row the batch gave it at position 0.
		moved := append([]string{texts[i]}, texts[:i]...)
		for _, batch := range [][]string{texts[i : i+1], moved} {
			one, err := m.TransformText(ctx, batch, TransformOptions{})
			if err != nil {
				t.Fatal(err)
			}
			first, err := m.TransformText(ctx, moved, TransformOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !mat.EqualApprox(one.V.Slice(0, 1, 0, m.K), first.V.Slice(0, 1, 0, m.K), 1e-12) || one.Labels[0] != first.Labels[0] {
				t.Errorf("text %d placed alone: %v, first of a batch %v", i, one.V.RawRowView(0), first.V.RawRowView(0))
			}
		}
	}
	if mat.Norm(all.V.Slice(2, 3, 0, m.K), 2) != 0 {
		t.Errorf("a text of stop words only: row %v, want zero", all.V.RawRowView(2))
	}
	// The same texts through Vectorize with the model's pipeline and
	// Transform: the same rows.
	docs := make([]dataset.Document, len(texts))
	for i, s := range texts {
		docs[i].Text = s
	}
	vd, _, err := dataset.Vectorize(ctx, "texts", docs, m.Text.Tokenization())
	if err != nil {
		t.Fatal(err)
	}
	via, err := m.Transform(ctx, vd, TransformOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !mat.Equal(via.V, all.V) {
		t.Error("TransformText differs from Vectorize with the model's pipeline and Transform")
	}
	// Text tokenized otherwise would miss the model's terms.
	unstemmed, _, err := dataset.Vectorize(ctx, "unstemmed", docs, dataset.TextOptions{NoStem: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Transform(ctx, unstemmed, TransformOptions{}); err == nil || !strings.Contains(err.Error(), "unstemmed: tokenized as") {
		t.Errorf("text tokenized otherwise: %v", err)
	}
	if _, err := m.TransformText(ctx, nil, TransformOptions{}); err == nil {
		t.Error("no texts: no error")
	}
	// A model of a matrix has no words.
	counts, err := dataset.Load(ctx, "../testdata/demo/reuters-demo.sgm.gz", dataset.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	counts.Text = nil
	mm, _, err := Train(ctx, counts, PrepareOptions{}, Options{Method: solver.NMF, K: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := mm.TransformText(ctx, texts, TransformOptions{}); err == nil || !strings.Contains(err.Error(), "fitted on a matrix") {
		t.Errorf("TransformText on a model of a matrix: %v", err)
	}
	if _, err := mm.Transform(ctx, vd, TransformOptions{}); err == nil || !strings.Contains(err.Error(), "fitted on a matrix") {
		t.Errorf("text given to a model of a matrix: %v", err)
	}
}
