package cluster

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestAccuracyHandComputed(t *testing.T) {
	cases := []struct {
		truth, pred []int
		want        float64
	}{
		// A perfect clustering under renamed labels.
		{[]int{1, 1, 2, 2, 3, 3}, []int{7, 7, 5, 5, 9, 9}, 1},
		// Best map 0->a, 1->b: 4 of 6 right.
		{[]int{1, 1, 1, 2, 2, 2}, []int{0, 0, 1, 1, 1, 0}, 4.0 / 6},
		// More predicted clusters than classes: one cluster stays unmatched.
		{[]int{1, 1, 2, 2}, []int{0, 1, 2, 2}, 3.0 / 4},
		// Fewer predicted clusters than classes.
		{[]int{1, 2, 3, 3}, []int{0, 0, 0, 0}, 2.0 / 4},
		// Unassigned samples (-1) count as wrong even if -1 is frequent.
		{[]int{1, 1, 1, 2}, []int{-1, -1, 0, 1}, 2.0 / 4},
		// Greedy (largest cell first) maps 0->1 for 3 and leaves 1 with
		// nothing; the optimum maps 0->2 (2) and 1->1 (3): 5 of 8.
		{[]int{1, 1, 1, 2, 2, 1, 1, 1}, []int{0, 0, 0, 0, 0, 1, 1, 1}, 5.0 / 8},
	}
	for _, c := range cases {
		got, _, err := Accuracy(c.truth, c.pred)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Accuracy(%v, %v) = %v, want %v", c.truth, c.pred, got, c.want)
		}
	}
	if _, _, err := Accuracy([]int{1}, []int{1, 2}); err == nil {
		t.Error("length mismatch accepted")
	}
	if _, _, err := Accuracy(nil, nil); err == nil {
		t.Error("empty labels accepted")
	}
}

// TestHungarianMatchesBruteForce compares with all permutations for small n.
func TestHungarianMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 1 + trial%6
		cost := make([][]float64, n)
		for i := range cost {
			cost[i] = make([]float64, n)
			for j := range cost[i] {
				cost[i][j] = float64(rng.IntN(20))
			}
		}
		a := Hungarian(cost)
		var got float64
		used := map[int]bool{}
		for i, j := range a {
			got += cost[i][j]
			used[j] = true
		}
		if len(used) != n {
			t.Fatalf("assignment %v is not a permutation", a)
		}
		perm := make([]int, n)
		for i := range perm {
			perm[i] = i
		}
		best := math.Inf(1)
		var rec func(int)
		rec = func(p int) {
			if p == n {
				var s float64
				for i, j := range perm {
					s += cost[i][j]
				}
				best = math.Min(best, s)
				return
			}
			for q := p; q < n; q++ {
				perm[p], perm[q] = perm[q], perm[p]
				rec(p + 1)
				perm[p], perm[q] = perm[q], perm[p]
			}
		}
		rec(0)
		if got != best {
			t.Fatalf("cost %v: Hungarian total %v, optimum %v", cost, got, best)
		}
	}
}

func TestNMIHandComputed(t *testing.T) {
	// Identical up to renaming.
	if v, _ := NMI([]int{1, 1, 2, 2}, []int{5, 5, 3, 3}); math.Abs(v-1) > 1e-15 {
		t.Errorf("NMI of identical partitions = %v", v)
	}
	// Independent: every predicted cluster holds one sample of each class.
	if v, _ := NMI([]int{1, 2, 1, 2}, []int{0, 0, 1, 1}); math.Abs(v) > 1e-15 {
		t.Errorf("NMI of independent partitions = %v", v)
	}
	// truth {1,1,2,2}, pred {0,0,0,1}: H(C) = 1, H(C') = 0.811278...,
	// MI = 1 - H(C|C') = 1 - 3/4*H(2/3,1/3) = 0.311278...; NMI = MI / 1.
	want := 1 - 0.75*(-(2.0/3)*math.Log2(2.0/3)-(1.0/3)*math.Log2(1.0/3))
	if v, _ := NMI([]int{1, 1, 2, 2}, []int{0, 0, 0, 1}); math.Abs(v-want) > 1e-12 {
		t.Errorf("NMI = %v, want %v", v, want)
	}
	// Symmetric in its arguments.
	a, b := []int{1, 1, 2, 2, 3, 3, 3}, []int{0, 1, 1, 1, 2, 2, 0}
	x, _ := NMI(a, b)
	y, _ := NMI(b, a)
	if math.Abs(x-y) > 1e-15 {
		t.Errorf("NMI not symmetric: %v vs %v", x, y)
	}
	if _, err := NMI([]int{1}, nil); err == nil {
		t.Error("length mismatch accepted")
	}
}

// TestAccuracyManyLabels: with far more labels on one side than the other
// squared, the matching runs on the labels a best matching can use and
// gives the full matching's accuracy; 100,000 classes against 20 clusters
// score at once, and a table past the bounds is an error.
func TestAccuracyManyLabels(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	full := func(truth, pred []int) float64 {
		c, tl, pl, err := contingency(truth, pred)
		if err != nil {
			t.Fatal(err)
		}
		n := max(len(tl), len(pl))
		cost := make([][]float64, n)
		for i := range cost {
			cost[i] = make([]float64, n)
			for j := range cost[i] {
				if i < len(pl) && j < len(tl) {
					cost[i][j] = -c[j][i]
				}
			}
		}
		var hit float64
		for i, j := range Hungarian(cost) {
			if i < len(pl) && j < len(tl) {
				hit += c[j][i]
			}
		}
		return hit / float64(len(truth))
	}
	for trial := 0; trial < 200; trial++ {
		small, large := 1+rng.IntN(4), 20+rng.IntN(30)
		n := 50 + rng.IntN(300)
		a, b := make([]int, n), make([]int, n)
		for i := range a {
			a[i], b[i] = rng.IntN(large), rng.IntN(small)
			if rng.IntN(3) == 0 {
				b[i] = a[i] % small // some structure, and ties
			}
		}
		for _, pair := range [][2][]int{{a, b}, {b, a}} {
			got, _, err := Accuracy(pair[0], pair[1])
			if want := full(pair[0], pair[1]); err != nil || math.Abs(got-want) > 1e-12 {
				t.Fatalf("trial %d: %v, %v; the full matching %v", trial, got, err, want)
			}
		}
	}
	truth, pred := make([]int, 200_000), make([]int, 200_000)
	for i := range truth {
		truth[i], pred[i] = i/2, rng.IntN(20)
	}
	if _, _, err := Accuracy(truth, pred); err != nil {
		t.Fatal(err)
	}
	for i := range pred {
		pred[i] = i / 2
	}
	if _, _, err := Accuracy(truth, pred); err == nil || !strings.Contains(err.Error(), "100000 classes and 100000 clusters") {
		t.Errorf("100,000 on both sides: %v", err)
	}
}
