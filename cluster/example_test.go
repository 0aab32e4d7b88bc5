package cluster_test

import (
	"context"
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/cluster"
)

// K-means on the rows of a matrix: two groups of points, found whatever
// the seed, scored against the truth.
func ExampleKMeans() {
	x := mat.NewDense(6, 2, []float64{
		0, 0, 0.1, 0, 0, 0.2,
		5, 5, 5.1, 5, 5, 5.2,
	})
	res, err := cluster.KMeans(context.Background(), x, cluster.KMeansOptions{K: 2, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	acc, _, err := cluster.Accuracy([]int{1, 1, 1, 2, 2, 2}, res.Labels)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("accuracy %.2f, inertia %.3f\n", acc, res.Inertia)
	// Output:
	// accuracy 1.00, inertia 0.067
}

// The papers' two scores: accuracy under the best one-to-one matching of
// clusters to classes, and normalized mutual information. Cluster names do
// not matter, only the grouping.
func ExampleAccuracy() {
	truth := []int{1, 1, 1, 2, 2, 3}
	pred := []int{7, 7, 4, 4, 4, 9}
	acc, match, err := cluster.Accuracy(truth, pred)
	if err != nil {
		log.Fatal(err)
	}
	nmi, err := cluster.NMI(truth, pred)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("accuracy %.3f (cluster 7 is class %d), NMI %.3f\n", acc, match[7], nmi)
	// Output:
	// accuracy 0.833 (cluster 7 is class 1), NMI 0.685
}
