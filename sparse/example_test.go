package sparse_test

import (
	"fmt"
	"log"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/sparse"
)

// A CSR passed to gonum as a mat.Matrix (no copy), and a gonum matrix
// turned into a CSR.
func ExampleCSR_Matrix() {
	a, err := sparse.FromTriplets(2, 3, []int{0, 1, 1}, []int{2, 0, 1}, []float64{4, 1, 2})
	if err != nil {
		log.Fatal(err)
	}
	var p mat.Dense
	p.Mul(a.Matrix(), a.Matrix().T()) // A A^T through gonum
	fmt.Println(mat.Formatted(&p))
	b := sparse.FromMatrix(mat.NewDense(2, 2, []float64{0, 3, 5, 0}))
	fmt.Println(b.Indptr, b.Ind, b.Val)
	// Output:
	// ⎡16   0⎤
	// ⎣ 0   5⎦
	// [0 1 2] [1 0] [3 5]
}
