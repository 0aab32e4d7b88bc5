package dataset_test

import (
	"context"
	"fmt"
	"log"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/sparse"
)

// Raw Reuters-21578 articles through the text pipeline (tokens, stop
// words, Snowball stemming) as term counts, which model.Prepare weighs;
// the data set records the pipeline, for the text a model meets later.
func ExampleLoad() {
	ds, err := dataset.Load(context.Background(), "../testdata/demo/reuters-demo.sgm.gz", dataset.LoadOptions{})
	if err != nil {
		log.Fatal(err)
	}
	n, m := ds.Dims()
	_, sizes := ds.Classes()
	fmt.Printf("%d articles, %d terms, %d topics; weighed: %v, stemmed: %v\n", n, m, len(sizes), ds.Weighted, !ds.Text.NoStem)
	// Output:
	// 800 articles, 5981 terms, 8 topics; weighed: false, stemmed: true
}

// A data set from a matrix built in memory (any gonum mat.Matrix; a CSR
// through its Matrix view stays sparse), weighed by tf-idf.
func ExampleNew() {
	a, err := sparse.FromTriplets(3, 3, []int{0, 0, 1, 2}, []int{0, 1, 1, 2}, []float64{2, 1, 3, 1})
	if err != nil {
		log.Fatal(err)
	}
	ds, err := dataset.New("in memory", a.Matrix(), []int{1, 1, 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("idf %.3f\n", ds.IDF())
	if err := ds.TFIDF(); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("weighed %.3f\n", ds.Sparse.Val)
	// Output:
	// idf [1.099 0.405 1.099]
	// weighed [2.197 0.405 1.216 1.099]
}
