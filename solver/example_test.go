package solver_test

import (
	"context"
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/solver"
)

// One factorization below the pipeline: NMF of six samples that are
// non-negative mixtures of two patterns, found back to round-off.
func ExampleFit() {
	x := mat.NewDense(6, 4, []float64{
		1, 0, 2, 0,
		0, 3, 0, 1,
		2, 3, 4, 1,
		1, 6, 2, 2,
		3, 0, 6, 0,
		0, 1.5, 0, 0.5,
	})
	d, err := solver.NewDenseData(x)
	if err != nil {
		log.Fatal(err)
	}
	res, err := solver.Fit(context.Background(), d, solver.Options{Method: solver.NMF, K: 2, Seed: 1, Control: solver.Control{Algorithm: solver.CD, Tol: 1e-12, PGTol: 1e-12, MaxIter: 2000}})
	if err != nil {
		log.Fatal(err)
	}
	var fit mat.Dense
	fit.Mul(res.V, res.U.T()) // samples x features, as x
	fit.Sub(&fit, x)
	fmt.Printf("U %d x %d, V %d x %d; relative error below 1e-6: %v\n",
		res.U.RawMatrix().Rows, res.U.RawMatrix().Cols, res.V.RawMatrix().Rows, res.V.RawMatrix().Cols,
		mat.Norm(&fit, 2)/mat.Norm(x, 2) < 1e-6)
	fmt.Println("samples 1 and 5 in one cluster, 2 and 6 in the other:", res.Labels[0] == res.Labels[4] && res.Labels[1] == res.Labels[5] && res.Labels[0] != res.Labels[1])
	// Output:
	// U 4 x 2, V 6 x 2; relative error below 1e-6: true
	// samples 1 and 5 in one cluster, 2 and 6 in the other: true
}
