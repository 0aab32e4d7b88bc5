package model_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// The pipeline on raw Reuters-21578 articles: load (the text pipeline),
// prepare, and GNMF with every default, lambda chosen from the data.
func ExampleFit() {
	ds, err := dataset.Load(context.Background(), "../testdata/demo/reuters-demo.sgm.gz", dataset.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	p, err := model.Prepare(ds, model.PrepareOptions{})
	if err != nil {
		log.Fatal(err)
	}
	res, err := model.Fit(context.Background(), p.Data, model.Options{Method: solver.GNMF, K: 8, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	acc, _, err := cluster.Accuracy(p.Data.Labels, res.Labels)
	if err != nil {
		log.Fatal(err)
	}
	n, m := p.Data.Dims()
	fmt.Printf("%d documents, %d terms; lambda %g (graph %v) of %d candidates\n", n, m, res.Lambda, res.Verdict, len(res.Candidates))
	fmt.Printf("U is %d x %d; accuracy above 60 %%: %v\n", res.U.RawMatrix().Rows, res.U.RawMatrix().Cols, acc > 0.6)
	// Output:
	// 800 documents, 5981 terms; lambda 1 (graph untrusted) of 8 candidates
	// U is 5981 x 8; accuracy above 60 %: true
}

// A model fitted once and applied later: the articles are read as term
// counts, so that the model keeps the training corpus's idf and weighs
// new articles by it; the model is saved, loaded (in another process as
// well) and transforms the articles it has not seen.
func ExampleModel() {
	text := dataset.TextOptions{NoTFIDF: true, NoNormalize: true}
	ds, err := dataset.Load(context.Background(), "../testdata/demo/reuters-demo.sgm.gz", dataset.LoadOptions{Text: text})
	if err != nil {
		log.Fatal(err)
	}
	// The first 600 articles train the model; the other 200 are new.
	n, _ := ds.Dims()
	first, rest := make([]int, 0, 600), make([]int, 0, n-600)
	for i := 0; i < n; i++ {
		if i < 600 {
			first = append(first, i)
		} else {
			rest = append(rest, i)
		}
	}
	train, fresh := ds.SelectSamples(first), ds.SelectSamples(rest)
	m, _, err := model.Train(context.Background(), train, model.PrepareOptions{Weighting: model.TFIDF},
		model.Options{Method: solver.GNMF, K: 8, Lambda: solver.Fixed(10), Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	m.Text = &text
	dir, err := os.MkdirTemp("", "model")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if err := m.Save(dir); err != nil {
		log.Fatal(err)
	}
	loaded, err := model.Load(dir)
	if err != nil {
		log.Fatal(err)
	}
	t, err := loaded.Transform(context.Background(), fresh, model.TransformOptions{})
	if err != nil {
		log.Fatal(err)
	}
	acc, _, err := cluster.Accuracy(t.Data.Labels, t.Labels)
	if err != nil {
		log.Fatal(err)
	}
	rows, k := t.V.Dims()
	fmt.Printf("%d new articles on %d factors; accuracy above 50 %%: %v\n", rows, k, acc > 0.5)
	fmt.Printf("terms the training articles lack: %v\n", t.Alignment.Unknown > 0)
	fmt.Printf("every cluster named by 5 terms: %v\n", allNamed(loaded.TopTerms(5), 5))
	// Output:
	// 200 new articles on 8 factors; accuracy above 50 %: true
	// terms the training articles lack: true
	// every cluster named by 5 terms: true
}

func allNamed(topics [][]model.Term, n int) bool {
	for _, t := range topics {
		if len(t) != n {
			return false
		}
	}
	return true
}
