package cluster

import (
	"fmt"
	"math"
	"sort"
)

// contingency counts how many samples have each (true, predicted) pair,
// with rows for the distinct true labels and columns for the distinct
// predicted labels, both in ascending label order.
func contingency(truth, pred []int) ([][]float64, []int, []int, error) {
	if len(truth) != len(pred) {
		return nil, nil, nil, fmt.Errorf("cluster: %d true labels but %d predicted", len(truth), len(pred))
	}
	if len(truth) == 0 {
		return nil, nil, nil, fmt.Errorf("cluster: no samples to score")
	}
	ti, tl := index(truth)
	pi, pl := index(pred)
	if cells := int64(len(tl)) * int64(len(pl)); cells > maxContingency {
		return nil, nil, nil, fmt.Errorf("cluster: %d classes and %d clusters: their table of %d cells is more than the %d a score may take", len(tl), len(pl), cells, int64(maxContingency))
	}
	c := make([][]float64, len(tl))
	for i := range c {
		c[i] = make([]float64, len(pl))
	}
	for s := range truth {
		c[ti[truth[s]]][pi[pred[s]]]++
	}
	return c, tl, pl, nil
}

func index(labels []int) (map[int]int, []int) {
	seen := map[int]int{}
	for _, l := range labels {
		seen[l] = 0
	}
	keys := make([]int, 0, len(seen))
	for l := range seen {
		keys = append(keys, l)
	}
	sort.Ints(keys)
	for i, l := range keys {
		seen[l] = i
	}
	return seen, keys
}

// Accuracy returns the fraction of samples whose predicted cluster, mapped
// one-to-one onto true classes by the map that maximizes the number of
// matches (Kuhn-Munkres), equals their true class. The predicted and true
// cluster counts may differ; unmatched clusters count as wrong, and so do
// samples predicted -1. It also returns the map from predicted label to
// true label (labels left unmatched are absent).
func Accuracy(truth, pred []int) (float64, map[int]int, error) {
	c, tl, pl, err := contingency(truth, pred)
	if err != nil {
		return 0, nil, err
	}
	// Labels a file declares by the hundred thousand would make the square
	// matching below cubic in their number: on the larger side only the
	// labels that can be in a best matching are kept (see candidates).
	if min(len(tl), len(pl)) > maxMatched {
		return 0, nil, fmt.Errorf("cluster: %d classes and %d clusters: matching them is cubic in the smaller count, which may be at most %d", len(tl), len(pl), maxMatched)
	}
	c, tl, pl = candidates(c, tl, pl)
	// Maximize matches = minimize (max - count) on a square matrix padded
	// with zero-count rows or columns.
	n := max(len(tl), len(pl))
	cost := make([][]float64, n)
	var top float64
	for i := range c {
		for j := range c[i] {
			top = math.Max(top, c[i][j])
		}
	}
	for i := range cost {
		cost[i] = make([]float64, n)
		for j := range cost[i] {
			var v float64
			if i < len(pl) && j < len(tl) && pl[i] != -1 {
				v = c[j][i]
			}
			cost[i][j] = top - v
		}
	}
	assign := Hungarian(cost)
	mapping := map[int]int{}
	var hit float64
	for i, j := range assign {
		if i < len(pl) && j < len(tl) && pl[i] != -1 {
			mapping[pl[i]] = tl[j]
			hit += c[j][i]
		}
	}
	return hit / float64(len(truth)), mapping, nil
}

// Bounds of a score's work: the cells of the contingency table, and the
// labels of the smaller side a matching may pair.
const (
	maxContingency = 50_000_000
	maxMatched     = 2_000
)

// candidates drops from the larger side of the contingency table c
// (classes x clusters, labelled tl and pl) the labels that no best
// one-to-one matching needs, when that side has more than s^2 labels for
// s on the smaller side. Each label of the smaller side is matched, if
// at all, to one of its s largest counts on the other side: the other
// s - 1 labels of the smaller side take at most s - 1 of them, so an
// exchange to a free one of the s never lowers the total. The union of
// those s sets, at most s^2 labels, therefore holds a best matching.
// Tables whose larger side has at most s^2 labels are returned as they
// are.
func candidates(c [][]float64, tl, pl []int) ([][]float64, []int, []int) {
	byClass := len(tl) > len(pl) // the classes are the larger side
	small, large := len(pl), len(tl)
	if !byClass {
		small, large = len(tl), len(pl)
	}
	if large <= small*small {
		return c, tl, pl
	}
	count := func(s, l int) float64 {
		if byClass {
			return c[l][s]
		}
		return c[s][l]
	}
	keep := make([]bool, large)
	order := make([]int, large)
	for s := 0; s < small; s++ {
		for l := range order {
			order[l] = l
		}
		sort.SliceStable(order, func(a, b int) bool { return count(s, order[a]) > count(s, order[b]) })
		for _, l := range order[:small] {
			keep[l] = true
		}
	}
	var idx []int
	for l, k := range keep {
		if k {
			idx = append(idx, l)
		}
	}
	if byClass {
		c2 := make([][]float64, len(idx))
		t2 := make([]int, len(idx))
		for q, l := range idx {
			c2[q], t2[q] = c[l], tl[l]
		}
		return c2, t2, pl
	}
	c2 := make([][]float64, len(c))
	p2 := make([]int, len(idx))
	for q, l := range idx {
		p2[q] = pl[l]
	}
	for i := range c {
		c2[i] = make([]float64, len(idx))
		for q, l := range idx {
			c2[i][q] = c[i][l]
		}
	}
	return c2, tl, p2
}

// Hungarian solves the square assignment problem: it returns, for each row
// i of cost, the column assign[i] such that the columns are distinct and
// the total cost is least. It runs in O(n^3) (the shortest augmenting path
// form of the Kuhn-Munkres algorithm with potentials). It panics if cost is
// not square.
func Hungarian(cost [][]float64) []int {
	n := len(cost)
	for _, r := range cost {
		if len(r) != n {
			panic("cluster: Hungarian needs a square cost matrix")
		}
	}
	// 1-based arrays; column 0 is a virtual start.
	u := make([]float64, n+1)
	v := make([]float64, n+1)
	match := make([]int, n+1) // match[j]: row matched to column j
	way := make([]int, n+1)
	minv := make([]float64, n+1)
	used := make([]bool, n+1)
	for i := 1; i <= n; i++ {
		match[0] = i
		j0 := 0
		for j := range minv {
			minv[j] = math.Inf(1)
			used[j] = false
		}
		for {
			used[j0] = true
			i0, delta, j1 := match[j0], math.Inf(1), 0
			for j := 1; j <= n; j++ {
				if used[j] {
					continue
				}
				cur := cost[i0-1][j-1] - u[i0] - v[j]
				if cur < minv[j] {
					minv[j], way[j] = cur, j0
				}
				if minv[j] < delta {
					delta, j1 = minv[j], j
				}
			}
			for j := 0; j <= n; j++ {
				if used[j] {
					u[match[j]] += delta
					v[j] -= delta
				} else {
					minv[j] -= delta
				}
			}
			j0 = j1
			if match[j0] == 0 {
				break
			}
		}
		for j0 != 0 {
			j1 := way[j0]
			match[j0] = match[j1]
			j0 = j1
		}
	}
	assign := make([]int, n)
	for j := 1; j <= n; j++ {
		assign[match[j]-1] = j - 1
	}
	return assign
}

// NMI returns the normalized mutual information of two labelings,
// MI(C, C') / max(H(C), H(C')) with logarithms to base 2 (paper 004 eq. 14).
// It is 1 for identical partitions (up to renaming) and 0 for independent
// ones; when both labelings have a single cluster it is 1.
func NMI(truth, pred []int) (float64, error) {
	c, _, _, err := contingency(truth, pred)
	if err != nil {
		return 0, err
	}
	n := float64(len(truth))
	rowSum := make([]float64, len(c))
	colSum := make([]float64, len(c[0]))
	for i := range c {
		for j := range c[i] {
			rowSum[i] += c[i][j]
			colSum[j] += c[i][j]
		}
	}
	entropy := func(s []float64) float64 {
		var h float64
		for _, x := range s {
			if x > 0 {
				p := x / n
				h -= p * math.Log2(p)
			}
		}
		return h
	}
	var mi float64
	for i := range c {
		for j := range c[i] {
			if x := c[i][j]; x > 0 {
				mi += x / n * math.Log2(x*n/(rowSum[i]*colSum[j]))
			}
		}
	}
	h := math.Max(entropy(rowSum), entropy(colSum))
	if h == 0 {
		return 1, nil
	}
	return math.Min(1, math.Max(0, mi/h)), nil
}
