package model_test

import (
	"context"
	"fmt"
	"log"

	"github.com/manifactor/manifactor/cluster"
	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/solver"
)

// The pipeline on raw Reuters-21578 articles: load (the text pipeline),
// prepare, and GNMF with every default, lambda chosen from the data.
func ExampleFit() {
	ds, err := dataset.Load("../testdata/demo/reuters-demo.sgm.gz", dataset.LoadOptions{})
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
	fmt.Printf("%d documents, %d terms; lambda %g (graph trusted: %v) of %d candidates\n", n, m, res.Lambda, res.Trusted, len(res.Candidates))
	fmt.Printf("U is %d x %d; accuracy above 60 %%: %v\n", res.U.RawMatrix().Rows, res.U.RawMatrix().Cols, acc > 0.6)
	// Output:
	// 800 documents, 5981 terms; lambda 3 (graph trusted: false) of 8 candidates
	// U is 5981 x 8; accuracy above 60 %: true
}
