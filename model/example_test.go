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

// A model fitted once and applied later: trained on raw Reuters-21578
// articles with the default pipeline (term counts weighed by tf-idf, the
// idf kept), saved, loaded (in another process as well), and placing new
// raw text through its own text pipeline.
func ExampleModel() {
	ctx := context.Background()
	ds, err := dataset.Load(ctx, "../testdata/demo/reuters-demo.sgm.gz", dataset.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	m, _, err := model.Train(ctx, ds, model.PrepareOptions{}, model.Options{Method: solver.GNMF, K: 8, Lambda: solver.Fixed(10), Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	topics := m.TopTerms(3)
	for c, terms := range topics {
		fmt.Printf("topic %d:", c)
		for _, t := range terms {
			fmt.Printf(" %s", t.Name)
		}
		fmt.Println()
	}
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
	t, err := loaded.TransformText(ctx, []string{
		"Crude oil prices rose after OPEC agreed to cut output",
		"The Bank of England gave the money market assistance of 200 mln stg",
		"The company reported higher quarterly net profit and raised its dividend",
		"White sugar traders expect the EC to sell more at its weekly tender",
		"Japan and the United States met over the trade surplus",
	}, model.TransformOptions{})
	if err != nil {
		log.Fatal(err)
	}
	for i, c := range model.LargestFactor(t.V) {
		fmt.Printf("text %d: topic %d (%s)\n", i, c, topics[c][0].Name)
	}
	// Output:
	// topic 0: trade japan japanes
	// topic 1: stg money england
	// topic 2: cts vs div
	// topic 3: sugar tonn ec
	// topic 4: vs net loss
	// topic 5: oil opec price
	// topic 6: fed reserv repurchas
	// topic 7: rate bank pct
	// text 0: topic 5 (oil)
	// text 1: topic 1 (stg)
	// text 2: topic 4 (vs)
	// text 3: topic 3 (sugar)
	// text 4: topic 0 (trade)
}
