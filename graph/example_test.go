package graph_test

import (
	"context"
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/graph"
)

// The 1-nearest-neighbour graph of four points on a line, weighted 0/1
// and made symmetric by the OR rule, with its degrees; its label purity
// against two classes.
func ExampleDense() {
	x := mat.NewDense(4, 1, []float64{0, 1, 10, 12})
	g, err := graph.Dense(context.Background(), x, graph.Options{Neighbors: 1})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("edges of sample 1:", g.W.Ind[g.W.Indptr[0]:g.W.Indptr[1]])
	fmt.Println("degrees:", g.Degree)
	fmt.Printf("purity against classes 1 1 2 2: %.2f\n", g.Agreement([]int{1, 1, 2, 2}))
	// Output:
	// edges of sample 1: [1]
	// degrees: [1 1 1 1]
	// purity against classes 1 1 2 2: 1.00
}
