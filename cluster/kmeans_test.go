package cluster

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/manifactor/manifactor/internal/asm"
)

// blobs returns k Gaussian blobs of per rows each in d dimensions, with
// centers drawn uniformly in [0, spread)^d and unit deviation, rows
// interleaved across blobs, and the true blob of each row.
func blobs(rng *rand.Rand, per, d, k int, spread float64) (*mat.Dense, []int) {
	centers := make([]float64, k*d)
	for i := range centers {
		centers[i] = spread * rng.Float64()
	}
	n := per * k
	x := mat.NewDense(n, d, nil)
	truth := make([]int, n)
	for i := range n {
		b := i % k
		truth[i] = b
		for t := range d {
			x.Set(i, t, centers[b*d+t]+rng.NormFloat64())
		}
	}
	return x, truth
}

// randRows returns an n x d matrix of standard normal entries.
func randRows(rng *rand.Rand, n, d int) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := range n {
		for t := range d {
			x.Set(i, t, rng.NormFloat64())
		}
	}
	return x
}

// factorRows imitates the rows of an NMF factor V (n x k, non-negative):
// each row is dominated by one of k topics over a small non-negative noise.
func factorRows(rng *rand.Rand, n, k int) *mat.Dense {
	v := mat.NewDense(n, k, nil)
	for i := range n {
		z := rng.IntN(k)
		for t := range k {
			v.Set(i, t, 0.05*math.Abs(rng.NormFloat64()))
		}
		v.Set(i, z, v.At(i, z)+0.5+rng.Float64())
	}
	return v
}

func rowsOf(x mat.Matrix) [][]float64 {
	n, d := x.Dims()
	r := make([][]float64, n)
	for i := range r {
		r[i] = make([]float64, d)
		for t := range d {
			r[i][t] = x.At(i, t)
		}
	}
	return r
}

// refSqDist is the plain squared distance. The conversion keeps the
// product unfused, as the definition in kmeans.go requires.
func refSqDist(x, c []float64) float64 {
	var s float64
	for t := range x {
		e := x[t] - c[t]
		s += float64(e * e)
	}
	return s
}

// refLloyd is the plain Lloyd iteration that lloyd must reproduce:
// each row to the nearest center (lowest index on a tie); each empty
// cluster, in order, takes the row farthest from its center among clusters
// of two or more rows (lowest row on a tie) and centers on it; centers move
// to the means of their rows; the loop stops when no label changes.
func refLloyd(x, c [][]float64, maxIter int) (labels []int, inertia float64, iters int) {
	k := len(c)
	step := func() ([]int, []float64) {
		lab := make([]int, len(x))
		dist := make([]float64, len(x))
		for i, xi := range x {
			lab[i], dist[i] = 0, refSqDist(xi, c[0])
			for j := 1; j < k; j++ {
				if e := refSqDist(xi, c[j]); e < dist[i] {
					lab[i], dist[i] = j, e
				}
			}
		}
		for j := range k {
			size := func(l int) int {
				s := 0
				for _, m := range lab {
					if m == l {
						s++
					}
				}
				return s
			}
			if size(j) > 0 {
				continue
			}
			far := -1
			for i := range x {
				if size(lab[i]) > 1 && (far < 0 || dist[i] > dist[far]) {
					far = i
				}
			}
			lab[far], dist[far] = j, 0
			c[j] = slices.Clone(x[far])
		}
		return lab, dist
	}
	total := func(dist []float64) float64 {
		var s float64
		for _, v := range dist {
			s += v
		}
		return s
	}
	labels, dist := step()
	inertia = total(dist)
	for iters = 1; iters <= maxIter; iters++ {
		sums := make([][]float64, k)
		counts := make([]int, k)
		for j := range sums {
			sums[j] = make([]float64, len(x[0]))
		}
		for i, l := range labels {
			counts[l]++
			for t, v := range x[i] {
				sums[l][t] += v
			}
		}
		for j := range c {
			for t := range c[j] {
				c[j][t] = sums[j][t] / float64(counts[j])
			}
		}
		next, dist := step()
		inertia = total(dist)
		same := slices.Equal(next, labels)
		labels = next
		if same {
			break
		}
	}
	return labels, inertia, min(iters, maxIter)
}

// withPaths runs f under every kernel path, restoring the path in use.
func withPaths(t *testing.T, f func(t *testing.T)) {
	saved := asm.Path()
	defer func() { _ = asm.Use(saved) }()
	for _, path := range asm.Available() {
		if err := asm.Use(path); err != nil {
			t.Fatal(err)
		}
		t.Run(path, f)
	}
}

func mustPoints(t *testing.T, x mat.Matrix, threads int) *points {
	t.Helper()
	p, err := newPoints(x, threads)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestKMeansBlobs(t *testing.T) {
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 100))
		x, truth := blobs(rng, 150, 5, 6, 60)
		res, err := KMeans(context.Background(), x, KMeansOptions{K: 6, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		acc, _, err := Accuracy(truth, res.Labels)
		if err != nil {
			t.Fatal(err)
		}
		if acc != 1 {
			t.Errorf("seed %d: accuracy %v, want 1", seed, acc)
		}
		if !res.Converged || res.Iterations < 1 {
			t.Errorf("seed %d: converged %v after %d iterations", seed, res.Converged, res.Iterations)
		}
		if r, c := res.Centers.Dims(); r != 6 || c != 5 {
			t.Errorf("centers are %d x %d", r, c)
		}
		checkConsistent(t, x, res, 0)
	}
}

// checkConsistent checks that every cluster is non-empty, no center is NaN
// or infinite, and Inertia is the sum of squared distances to the assigned
// centers: exactly for tol 0, else to a relative difference of at most tol
// (KMeansSparse computes its distances otherwise).
func checkConsistent(t *testing.T, x mat.Matrix, res *KMeansResult, tol float64) {
	t.Helper()
	k, _ := res.Centers.Dims()
	size := make([]int, k)
	rows := rowsOf(x)
	var inertia float64
	for i, l := range res.Labels {
		if l < 0 || l >= k {
			t.Fatalf("label %d of row %d out of range", l, i)
		}
		size[l]++
		inertia += refSqDist(rows[i], res.Centers.RawRowView(l))
	}
	for j, s := range size {
		if s == 0 {
			t.Errorf("cluster %d is empty", j)
		}
	}
	for _, v := range res.Centers.RawMatrix().Data {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("center entry %v", v)
		}
	}
	if inertia != res.Inertia && !(math.Abs(inertia-res.Inertia) <= tol*inertia) {
		t.Errorf("Inertia %v, recomputed %v", res.Inertia, inertia)
	}
}

// referenceCase is a data set and initial centers for comparing lloyd with
// refLloyd.
type referenceCase struct {
	name    string
	x       *mat.Dense
	centers [][]float64
}

func referenceCases() []referenceCase {
	rng := rand.New(rand.NewPCG(7, 7))
	var cases []referenceCase
	pick := func(x *mat.Dense, k int) [][]float64 {
		n, _ := x.Dims()
		c := make([][]float64, k)
		for j, i := range rng.Perm(n)[:k] {
			c[j] = slices.Clone(x.RawRowView(i))
		}
		return c
	}
	for _, s := range []struct{ n, d, k int }{{40, 1, 1}, {40, 1, 3}, {300, 2, 5}, {300, 7, 6}, {2100, 30, 30}, {600, 3, 17}} {
		x := randRows(rng, s.n, s.d)
		cases = append(cases, referenceCase{fmt.Sprintf("normal n=%d d=%d k=%d", s.n, s.d, s.k), x, pick(x, s.k)})
	}
	// An offset of 1e6 makes the fast form lose about 12 digits, so the
	// screening bound admits several centers and sqDist must decide.
	x := randRows(rng, 500, 4)
	for i, v := range x.RawMatrix().Data {
		x.RawMatrix().Data[i] = 1e6 + v
	}
	cases = append(cases, referenceCase{"offset 1e6", x, pick(x, 8)})
	// Integer points and half-integer centers: exact ties everywhere.
	g := mat.NewDense(400, 3, nil)
	for i := range g.RawMatrix().Data {
		g.RawMatrix().Data[i] = float64(rng.IntN(4))
	}
	half := [][]float64{{0.5, 0.5, 0.5}, {1.5, 1.5, 1.5}, {0.5, 1.5, 2.5}, {2.5, 0.5, 1.5}, {1.5, 0.5, 0.5}}
	cases = append(cases, referenceCase{"ties", g, half})
	// A center far away: its cluster empties at once and is repaired.
	f := randRows(rng, 300, 3)
	far := pick(f, 4)
	far[2] = []float64{1e3, 1e3, 1e3}
	cases = append(cases, referenceCase{"far center", f, far})
	// Three distinct rows, five centers on two of them.
	dup := mat.NewDense(30, 2, nil)
	for i := range 30 {
		dup.SetRow(i, [][]float64{{0, 0}, {1, 0}, {0, 5}}[i%3])
	}
	cases = append(cases, referenceCase{"duplicates", dup, [][]float64{{0, 0}, {0, 0}, {1, 0}, {1, 0}, {1, 0}}})
	return cases
}

func TestLloydMatchesReference(t *testing.T) {
	cases := referenceCases()
	withPaths(t, func(t *testing.T) {
		for _, tc := range cases {
			for _, threads := range []int{1, 3} {
				p := mustPoints(t, tc.x, threads)
				d := p.d
				c := make([]float64, 0, len(tc.centers)*d)
				for _, r := range tc.centers {
					c = append(c, r...)
				}
				run, err := lloyd(context.Background(), p, c, lloydConfig{maxIter: 500, tol: -1})
				if err != nil {
					t.Fatal(err)
				}
				ref := make([][]float64, len(tc.centers))
				for j := range ref {
					ref[j] = slices.Clone(tc.centers[j])
				}
				labels, inertia, iters := refLloyd(rowsOf(tc.x), ref, 500)
				if !slices.Equal(run.labels, labels) {
					t.Errorf("%s threads %d: labels differ from the reference", tc.name, threads)
				}
				for j := range ref {
					for u := range d {
						if got := run.centers[j*d+u]; math.Float64bits(got) != math.Float64bits(ref[j][u]) {
							t.Errorf("%s threads %d: center %d[%d] = %v, reference %v", tc.name, threads, j, u, got, ref[j][u])
						}
					}
				}
				if run.inertia != inertia || run.iters != iters {
					t.Errorf("%s threads %d: inertia %v after %d iterations, reference %v after %d", tc.name, threads, run.inertia, run.iters, inertia, iters)
				}
				if !run.converged {
					t.Errorf("%s: not converged in 500 iterations", tc.name)
				}
			}
		}
	})
}

// TestAssignScreening checks the screened nearest center against a brute
// force search where the fast form is least accurate: large offsets and
// centers that differ from each other by a few ulps.
func TestAssignScreening(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	withPaths(t, func(t *testing.T) {
		for _, offset := range []float64{0, 1, 1e4, 1e8, 1e-150} {
			for _, d := range []int{1, 2, 5, 17, 64} {
				n, k := 200, 9
				x := mat.NewDense(n, d, nil)
				for i := range n {
					for u := range d {
						scale := 1.0
						if offset != 0 {
							scale = offset * 1e-6
						}
						x.Set(i, u, offset+scale*rng.NormFloat64())
					}
				}
				p := mustPoints(t, x, 2)
				c := make([]float64, k*d)
				for j := range k {
					copy(c[j*d:], p.row(rng.IntN(n)))
					if j%3 == 2 {
						// A near-copy of the previous center.
						copy(c[j*d:(j+1)*d], c[(j-1)*d:j*d])
						u := rng.IntN(d)
						c[j*d+u] = math.Nextafter(c[j*d+u], math.Inf(1))
					}
				}
				w := p.work(k)
				labels, dist := make([]int, n), make([]float64, n)
				p.assign(c, labels, dist, w)
				for i := range n {
					best, bestDist := 0, math.Inf(1)
					for j := range k {
						if e := refSqDist(p.row(i), c[j*d:(j+1)*d]); e < bestDist {
							best, bestDist = j, e
						}
					}
					if labels[i] != best || dist[i] != bestDist {
						t.Fatalf("offset %g d %d row %d: assigned %d at %v, nearest %d at %v", offset, d, i, labels[i], dist[i], best, bestDist)
					}
				}
			}
		}
	})
}

// TestHamerlyMatchesPlain moves centers step by step, as Lloyd's
// iterations and repairs do and in ways they rarely do (a jump, a center
// onto a row, two centers onto each other, exact ties, data far below and
// above unit scale), and checks that assign with its bounds gives, at
// every step, the labels and distances of the full search, bit for bit,
// and that the bounds did skip rows where the centers barely moved.
func TestHamerlyMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	type dataset struct {
		name string
		x    *mat.Dense
	}
	scaled := func(x *mat.Dense, f, off float64) *mat.Dense {
		y := mat.DenseCopyOf(x)
		for i, v := range y.RawMatrix().Data {
			y.RawMatrix().Data[i] = off + f*v
		}
		return y
	}
	b, _ := blobs(rng, 60, 5, 7, 20)
	grid := mat.NewDense(300, 3, nil)
	for i := range grid.RawMatrix().Data {
		grid.RawMatrix().Data[i] = float64(rng.IntN(4))
	}
	sets := []dataset{
		{"blobs", b},
		{"factor rows", factorRows(rng, 500, 12)},
		{"normal", randRows(rng, 400, 9)},
		{"grid", grid},
		{"blobs at 1e-155", scaled(b, 1e-155, 0)},
		{"blobs at 1e-140", scaled(b, 1e-140, 0)},
		{"blobs at 1e140", scaled(b, 1e140, 0)},
		{"blobs offset 1e6", scaled(b, 1, 1e6)},
	}
	withPaths(t, func(t *testing.T) {
		skippedBlobs := 0
		for _, ds := range sets {
			for _, threads := range []int{1, 2, 7} {
				p := mustPoints(t, ds.x, threads)
				ref := mustPoints(t, ds.x, threads)
				ref.plain = true
				n, d := p.n, p.d
				k := 7
				c := make([]float64, k*d)
				for j, i := range rng.Perm(n)[:k] {
					copy(c[j*d:], p.row(i))
				}
				scale := math.Sqrt(p.norms[0]/float64(d)) + math.SmallestNonzeroFloat64
				w, rw := p.work(k), ref.work(k)
				labels, dist := make([]int, n), make([]float64, n)
				rl, rd := make([]int, n), make([]float64, n)
				for step := range 40 {
					switch {
					case step == 0:
					case step%10 == 3:
						// A jump across the data.
						copy(c[(step%k)*d:], p.row(rng.IntN(n)))
					case step%10 == 5:
						// Two centers onto each other.
						copy(c[((step+1)%k)*d:((step+1)%k+1)*d], c[(step%k)*d:(step%k+1)*d])
					case step%10 == 7 && ds.name == "grid":
						// Half-integer centers: exact ties.
						for u := range c {
							c[u] = float64(rng.IntN(4)) + 0.5
						}
					case step%10 == 9:
						// A center onto a row: distance 0.
						copy(c[(step%k)*d:], p.row(step))
					default:
						// Small moves, as late iterations make.
						for u := range c {
							c[u] += 1e-3 * scale * rng.NormFloat64()
						}
					}
					p.assign(c, labels, dist, w)
					ref.assign(c, rl, rd, rw)
					for i := range n {
						if labels[i] != rl[i] || math.Float64bits(dist[i]) != math.Float64bits(rd[i]) {
							t.Fatalf("%s threads %d step %d row %d: bounded %d at %v, full search %d at %v",
								ds.name, threads, step, i, labels[i], dist[i], rl[i], rd[i])
						}
					}
				}
				if rw.hamerly != nil {
					t.Fatalf("%s: the plain points kept bounds", ds.name)
				}
				if ds.name == "blobs" {
					for _, s := range w.hamerly.skipped {
						skippedBlobs += s
					}
				}
			}
		}
		if skippedBlobs == 0 {
			t.Error("the bounds never kept a row's center on the blobs")
		}
	})
}

// TestHamerlyNearTies aims at the bounds' margins: a row last assigned to
// a center, then centers moved so that another one ties with it or nearly
// does (mirrored about the row, or moved by a few ulps or a tiny relative
// step), over offsets of up to 1e8 (where the fast distances lose most
// digits, so the lower bounds lean on the screen's error bound), scales
// from 2^-495 to 2^460 and d up to 500. The full search must decide every
// such tie, so the bounded labels and distances must equal it bit for bit
// (without eta and tiny, or without the screen's bound in the lower
// bound, this fails).
func TestHamerlyNearTies(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	kept := 0
	for trial := range 12000 {
		d := []int{1, 2, 3, 7, 64, 500}[trial%6]
		n, k := 5, 3
		sc := math.Ldexp(1, []int{rng.IntN(60) - 30, -495, -470, -300, 300, 460}[trial%6])
		off := []float64{0, 0, 1e3, 1e8}[trial%4]
		x := mat.NewDense(n, d, nil)
		for u := range x.RawMatrix().Data {
			x.RawMatrix().Data[u] = sc * (off + rng.NormFloat64())
		}
		threads := 1 + trial%2
		p, ref := mustPoints(t, x, threads), mustPoints(t, x, threads)
		ref.plain = true
		xr := p.row(0)
		v := make([]float64, d)
		for u := range v {
			v[u] = sc * rng.NormFloat64() * math.Ldexp(1, -rng.IntN(20))
		}
		// Row 0 clearly nearest center 2 first.
		c := make([]float64, k*d)
		for u := range d {
			c[u] = xr[u] + 10*v[u]
			c[d+u] = xr[u] + 20*v[u]
			c[2*d+u] = xr[u] + v[u]
		}
		w, rw := p.work(k), ref.work(k)
		labels, dist := make([]int, n), make([]float64, n)
		rl, rd := make([]int, n), make([]float64, n)
		p.assign(c, labels, dist, w)
		ref.assign(c, rl, rd, rw)
		if trial%3 == 0 {
			// Center 0 the mirror of center 2 about the row: an exact or
			// near tie, which the lower index wins.
			for u := range d {
				c[u] = xr[u] - v[u]
			}
		} else {
			// Center 0 nearly the mirror, center 2 moved by an ulp.
			delta := math.Ldexp(rng.Float64()-0.5, -rng.IntN(50)-1)
			for u := range d {
				c[u] = xr[u] - v[u]*(1+delta)
				c[2*d+u] = math.Nextafter(c[2*d+u], float64(rng.IntN(3)-1)*math.Inf(1))
			}
		}
		for step := range 3 {
			p.assign(c, labels, dist, w)
			ref.assign(c, rl, rd, rw)
			for i := range n {
				if labels[i] != rl[i] || math.Float64bits(dist[i]) != math.Float64bits(rd[i]) {
					t.Fatalf("trial %d (d %d, scale %g, offset %g) step %d row %d: bounded %d at %v, full search %d at %v",
						trial, d, sc, off, step, i, labels[i], dist[i], rl[i], rd[i])
				}
			}
		}
		for _, s := range w.hamerly.skipped {
			kept += s
		}
	}
	if kept == 0 {
		t.Error("the bounds never kept a row's center")
	}
	// Two centers only, mirrored about a row that was last assigned to
	// the higher one: the exact tie sits right on the half-distance test
	// (the row's distance is half the centers'), so without eta the bounds
	// would keep center 1 where the lower index wins; at the scales where
	// squares underflow, without tiny.
	for trial := range 12000 {
		d := []int{1, 2, 3, 4, 50, 300}[trial%6]
		sc := math.Ldexp(1, []int{rng.IntN(40) - 20, -500, -490, -480, -470, 470, 480, -530, -540, -520}[trial%10])
		x := mat.NewDense(4, d, nil)
		for u := range x.RawMatrix().Data {
			x.RawMatrix().Data[u] = sc * rng.NormFloat64()
		}
		p, ref := mustPoints(t, x, 1), mustPoints(t, x, 1)
		ref.plain = true
		xr := p.row(0)
		c := make([]float64, 2*d)
		v := make([]float64, d)
		for u := range d {
			v[u] = sc * rng.NormFloat64()
			c[u], c[d+u] = xr[u]+10*v[u], xr[u]+1.01*v[u]
		}
		w, rw := p.work(2), ref.work(2)
		labels, dist := make([]int, 4), make([]float64, 4)
		rl, rd := make([]int, 4), make([]float64, 4)
		p.assign(c, labels, dist, w)
		ref.assign(c, rl, rd, rw)
		for u := range d {
			c[u], c[d+u] = xr[u]-v[u], xr[u]+v[u]
		}
		p.assign(c, labels, dist, w)
		ref.assign(c, rl, rd, rw)
		for i := range 4 {
			if labels[i] != rl[i] || math.Float64bits(dist[i]) != math.Float64bits(rd[i]) {
				t.Fatalf("mirror trial %d (d %d, scale %g) row %d: bounded %d at %v, full search %d at %v",
					trial, d, sc, i, labels[i], dist[i], rl[i], rd[i])
			}
		}
	}
}

func TestLloydInertiaNonIncreasing(t *testing.T) {
	for seed := range uint64(4) {
		rng := rand.New(rand.NewPCG(seed, 21))
		// Overlapping blobs take many iterations.
		x, _ := blobs(rng, 100, 4, 8, 4)
		p := mustPoints(t, x, 2)
		c, err := p.seed(context.Background(), 12, rng)
		if err != nil {
			t.Fatal(err)
		}
		var trace []float64
		run, err := lloyd(context.Background(), p, c, lloydConfig{maxIter: 300, tol: -1, trace: func(v float64) { trace = append(trace, v) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(trace) != run.iters+1 || trace[len(trace)-1] != run.inertia {
			t.Fatalf("trace of %d values for %d iterations", len(trace), run.iters)
		}
		if run.iters < 5 {
			t.Errorf("seed %d: only %d iterations; the test wants a longer descent", seed, run.iters)
		}
		for i := 1; i < len(trace); i++ {
			// In exact arithmetic the inertia cannot increase; rounding
			// of the means may add a few ulps.
			if trace[i] > trace[i-1]*(1+1e-13) {
				t.Errorf("seed %d: inertia rose from %v to %v at iteration %d", seed, trace[i-1], trace[i], i)
			}
		}
	}
}

func TestKMeansThreadInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	x, _ := blobs(rng, 500, 6, 10, 8)
	var first *KMeansResult
	for _, threads := range []int{1, 2, 3, 8} {
		res, err := KMeans(context.Background(), x, KMeansOptions{K: 12, Replicates: 2, Seed: 42, Threads: threads})
		if err != nil {
			t.Fatal(err)
		}
		if first == nil {
			first = res
			checkConsistent(t, x, res, 0)
			continue
		}
		if !slices.Equal(res.Labels, first.Labels) {
			t.Errorf("threads %d: labels differ from threads 1", threads)
		}
		if !slices.EqualFunc(res.Centers.RawMatrix().Data, first.Centers.RawMatrix().Data, func(a, b float64) bool {
			return math.Float64bits(a) == math.Float64bits(b)
		}) {
			t.Errorf("threads %d: centers differ from threads 1", threads)
		}
		if math.Float64bits(res.Inertia) != math.Float64bits(first.Inertia) || res.Iterations != first.Iterations || res.Replicate != first.Replicate {
			t.Errorf("threads %d: inertia %v (%d iterations, replicate %d), threads 1: %v (%d, %d)", threads,
				res.Inertia, res.Iterations, res.Replicate, first.Inertia, first.Iterations, first.Replicate)
		}
	}
}

func TestKMeansReproducibleAndSeeded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	x, _ := blobs(rng, 60, 3, 5, 5)
	run := func(seed uint64) *KMeansResult {
		res, err := KMeans(context.Background(), x, KMeansOptions{K: 5, Replicates: 1, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	a, b := run(1), run(1)
	if !slices.Equal(a.Labels, b.Labels) || a.Inertia != b.Inertia || !mat.Equal(a.Centers, b.Centers) {
		t.Error("same seed, different results")
	}
	differ := false
	for seed := uint64(2); seed < 6 && !differ; seed++ {
		differ = !mat.Equal(run(seed).Centers, a.Centers)
	}
	if !differ {
		t.Error("five seeds gave the same centers")
	}
	// A transposed view goes through At rather than the raw copy.
	var xt mat.Dense
	xt.CloneFrom(x.T())
	c, err := KMeans(context.Background(), xt.T(), KMeansOptions{K: 5, Replicates: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Labels, c.Labels) || a.Inertia != c.Inertia {
		t.Error("a transposed view of the same rows clusters differently")
	}
}

// replicate is one replicate as a plain reference: k-means++ seeding
// from PCG(seed, r) by data.seed, then Lloyd's iterations.
func replicate(ctx context.Context, data lloydData, k int, seed uint64, r int, cfg lloydConfig) (*lloydRun, error) {
	c, err := data.seed(ctx, k, rand.New(rand.NewPCG(seed, uint64(r))))
	if err != nil {
		return nil, err
	}
	return lloyd(ctx, data, c, cfg)
}

// TestSeedsMatchSeed: the replicates seeded in lockstep draw the same
// rows as seed does for each generator alone, at any thread count, on
// rows with repeats (zero distances) and k up to n.
func TestSeedsMatchSeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for _, c := range []struct{ n, d, k, reps int }{{1, 1, 1, 1}, {9, 3, 9, 4}, {300, 7, 12, 10}, {2500, 20, 20, 3}} {
		x := randRows(rng, c.n, c.d)
		// Repeated rows, and one far away.
		for i := 1; i < c.n; i += 3 {
			for j := range c.d {
				x.Set(i, j, x.At(i-1, j))
			}
		}
		x.Set(c.n-1, 0, 1e3)
		for _, threads := range []int{1, 3} {
			p := mustPoints(t, x, threads)
			rngs := make([]*rand.Rand, c.reps)
			for r := range rngs {
				rngs[r] = rand.New(rand.NewPCG(uint64(c.n), uint64(r)))
			}
			got, err := p.seeds(context.Background(), c.k, rngs)
			if err != nil {
				t.Fatal(err)
			}
			for r := range c.reps {
				want, err := p.seed(context.Background(), c.k, rand.New(rand.NewPCG(uint64(c.n), uint64(r))))
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got[r], want) {
					t.Errorf("n %d, k %d, threads %d, replicate %d: seeds' centers differ from seed's", c.n, c.k, threads, r)
				}
			}
		}
	}
}

func TestKMeansReplicates(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	x, _ := blobs(rng, 40, 2, 10, 6)
	opt := KMeansOptions{K: 7, Replicates: 6, Seed: 9}
	res, err := KMeans(context.Background(), x, opt)
	if err != nil {
		t.Fatal(err)
	}
	p := mustPoints(t, x, 0)
	cfg := newLloydConfig(opt)
	lowest, at := math.Inf(1), -1
	distinct := map[float64]bool{}
	for r := range opt.Replicates {
		run, err := replicate(context.Background(), p, opt.K, opt.Seed, r, cfg)
		if err != nil {
			t.Fatal(err)
		}
		distinct[run.inertia] = true
		if res.Inertia > run.inertia {
			t.Errorf("winner's inertia %v above replicate %d's %v", res.Inertia, r, run.inertia)
		}
		if run.inertia < lowest {
			lowest, at = run.inertia, r
		}
	}
	if res.Inertia != lowest || res.Replicate != at {
		t.Errorf("winner: replicate %d at %v, want %d at %v", res.Replicate, res.Inertia, at, lowest)
	}
	if len(distinct) < 2 {
		t.Error("all replicates reached the same inertia; the test does not discriminate")
	}
}

// TestSeedOnePerBlob checks the D^2 weighting: with blobs far apart
// compared to their width, k-means++ puts one center in each.
func TestSeedOnePerBlob(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	x, truth := blobs(rng, 50, 3, 6, 1e4)
	p := mustPoints(t, x, 2)
	for seed := range uint64(10) {
		c, err := p.seed(context.Background(), 6, rand.New(rand.NewPCG(seed, 0)))
		if err != nil {
			t.Fatal(err)
		}
		hit := map[int]bool{}
		for j := range 6 {
			for i := range p.n {
				if slices.Equal(p.row(i), c[j*p.d:(j+1)*p.d]) {
					hit[truth[i]] = true
				}
			}
		}
		if len(hit) != 6 {
			t.Errorf("seed %d: centers in %d of 6 blobs", seed, len(hit))
		}
	}
}

func TestKMeansEmptyClusterRepair(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	x, _ := blobs(rng, 50, 2, 3, 10)
	p := mustPoints(t, x, 2)
	// Center 1 is far from every row, so its cluster is empty after the
	// first assignment; centers 2 and 3 coincide, so 3 loses every tie.
	c := []float64{0, 0, 1e4, 1e4, 5, 5, 5, 5}
	run, err := lloyd(context.Background(), p, c, lloydConfig{maxIter: 100, tol: -1})
	if err != nil {
		t.Fatal(err)
	}
	res := run.result(p.d, 0)
	checkConsistent(t, x, res, 0)
	for _, v := range c {
		if v > 1e3 {
			t.Errorf("a center stayed at %v", v)
		}
	}
}

func TestKMeansDuplicates(t *testing.T) {
	distinct := [][]float64{{0, 0}, {3, 1}, {-2, 4}}
	x := mat.NewDense(12, 2, nil)
	for i := range 12 {
		x.SetRow(i, distinct[i%3])
	}
	for k := 1; k <= 12; k++ {
		for seed := range uint64(3) {
			res, err := KMeans(context.Background(), x, KMeansOptions{K: k, Seed: seed, Replicates: 2})
			if err != nil {
				t.Fatal(err)
			}
			checkConsistent(t, x, res, 0)
			if k >= 3 && res.Inertia != 0 {
				t.Errorf("k %d seed %d: inertia %v, want 0", k, seed, res.Inertia)
			}
		}
	}
	// Every row identical: all D^2 are zero after the first center.
	same := mat.NewDense(5, 3, []float64{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3})
	res, err := KMeans(context.Background(), same, KMeansOptions{K: 4})
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, same, res, 0)
}

func TestKMeansKEqualsN(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	x := randRows(rng, 9, 4)
	res, err := KMeans(context.Background(), x, KMeansOptions{K: 9, Replicates: 3})
	if err != nil {
		t.Fatal(err)
	}
	checkConsistent(t, x, res, 0)
	if res.Inertia != 0 {
		t.Errorf("inertia %v, want 0", res.Inertia)
	}
	for i, l := range res.Labels {
		if !slices.Equal(x.RawRowView(i), res.Centers.RawRowView(l)) {
			t.Errorf("row %d is not its own center", i)
		}
	}
	one := mat.NewDense(1, 2, []float64{4, 5})
	res, err = KMeans(context.Background(), one, KMeansOptions{K: 1})
	if err != nil || res.Labels[0] != 0 || res.Inertia != 0 {
		t.Errorf("one row: %+v, %v", res, err)
	}
}

// notDense is a mat.Matrix of any shape, without a raw backing array.
type notDense struct{ r, c int }

func (m notDense) Dims() (int, int)    { return m.r, m.c }
func (m notDense) At(i, j int) float64 { return 1 }
func (m notDense) T() mat.Matrix       { return mat.Transpose{Matrix: m} }

func TestKMeansBadInput(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	x := randRows(rng, 10, 3)
	with := func(i, j int, v float64) *mat.Dense {
		y := mat.DenseCopyOf(x)
		y.Set(i, j, v)
		return y
	}
	cases := []struct {
		name string
		x    mat.Matrix
		opt  KMeansOptions
		want string
	}{
		{"K 0", x, KMeansOptions{}, "K = 0"},
		{"K negative", x, KMeansOptions{K: -2}, "K = -2"},
		{"K above n", x, KMeansOptions{K: 11}, "K = 11"},
		{"NaN", with(2, 1, math.NaN()), KMeansOptions{K: 2}, "row 3, column 2 (1-based) = NaN"},
		{"Inf", with(9, 0, math.Inf(-1)), KMeansOptions{K: 2}, "row 10, column 1 (1-based) = -Inf"},
		{"huge", with(4, 2, 1e200), KMeansOptions{K: 2}, "row 5, column 3 (1-based)"},
		{"nil", nil, KMeansOptions{K: 1}, "nil"},
		{"no rows", notDense{0, 3}, KMeansOptions{K: 1}, "0 x 3"},
		{"no columns", notDense{4, 0}, KMeansOptions{K: 1}, "4 x 0"},
		{"replicates", x, KMeansOptions{K: 2, Replicates: -1}, "Replicates"},
		{"iterations", x, KMeansOptions{K: 2, MaxIter: -1}, "MaxIter"},
		{"tol", x, KMeansOptions{K: 2, Tol: math.NaN()}, "Tol"},
		// Rows are checked in parallel chunks of 1,024: the first bad
		// value in row order is the one named, whichever chunk ends first.
		{"two chunks", func() mat.Matrix {
			y := randRows(rng, 3000, 3)
			y.Set(2500, 0, math.NaN())
			y.Set(1500, 1, 1e200)
			y.Set(1500, 2, math.Inf(1))
			return y
		}(), KMeansOptions{K: 2, Threads: 3}, "row 1501, column 2 (1-based) = 1e+200 is larger"},
	}
	for _, c := range cases {
		res, err := KMeans(context.Background(), c.x, c.opt)
		if err == nil || res != nil {
			t.Errorf("%s: result %v, error %v", c.name, res, err)
			continue
		}
		if !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q does not mention %q", c.name, err, c.want)
		}
	}
}

func TestKMeansContext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	x, _ := blobs(rng, 100, 3, 5, 4)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := KMeans(ctx, x, KMeansOptions{K: 5})
	if !errors.Is(err, context.Canceled) || res != nil {
		t.Errorf("cancelled before the start: %v, %v", res, err)
	}
	p := mustPoints(t, x, 1)
	run := cancelAfterOneIteration(t, p, mustSeed(t, p, 5))
	checkConsistent(t, x, run.result(p.d, 0), 0)
}

// errAfter is a context whose Err is nil for its first calls calls and
// context.Canceled from then on.
type errAfter struct {
	context.Context
	calls int
}

func (c *errAfter) Err() error {
	if c.calls--; c.calls < 0 {
		return context.Canceled
	}
	return nil
}

// TestKMeansCancelWhileSeeding: a context that ends between two seeding
// steps (dense rows seed every replicate before Lloyd's iterations) gives
// no clustering and the context's error.
func TestKMeansCancelWhileSeeding(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	x, _ := blobs(rng, 100, 3, 5, 4)
	for calls := 1; calls <= 3; calls++ {
		res, err := KMeans(&errAfter{Context: context.Background(), calls: calls}, x, KMeansOptions{K: 5})
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("cancelled after %d checks: %v, %v", calls, res, err)
		}
	}
}

// cancelAfterOneIteration runs lloyd on data from the centers c with a
// context cancelled during the first iteration and checks that the
// clustering that iteration produced comes back with the error.
func cancelAfterOneIteration(t *testing.T, data lloydData, c []float64) *lloydRun {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	cfg := lloydConfig{maxIter: 100, tol: -1, trace: func(float64) {
		if calls++; calls == 2 {
			cancel()
		}
	}}
	run, err := lloyd(ctx, data, c, cfg)
	if !errors.Is(err, context.Canceled) || run == nil || run.iters != 1 {
		t.Fatalf("cancelled after one iteration: %+v, %v", run, err)
	}
	return run
}

// mustSeed returns k centers seeded on data from PCG(1, 2).
func mustSeed(t *testing.T, data lloydData, k int) []float64 {
	t.Helper()
	c, err := data.seed(context.Background(), k, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// BenchmarkKMeans times the typical use: k-means on the rows of an NMF
// factor V, n x k with K = k clusters and 10 replicates.
func BenchmarkKMeans(b *testing.B) {
	for _, s := range []struct{ n, k int }{{9394, 30}, {9394, 10}, {200000, 20}} {
		v := factorRows(rand.New(rand.NewPCG(1, 1)), s.n, s.k)
		for _, threads := range []int{1, 0} {
			b.Run(fmt.Sprintf("n=%d/d=%d/K=%d/threads=%d", s.n, s.k, s.k, threads), func(b *testing.B) {
				b.ReportAllocs()
				var iters int
				for b.Loop() {
					res, err := KMeans(context.Background(), v, KMeansOptions{K: s.k, Threads: threads})
					if err != nil {
						b.Fatal(err)
					}
					iters = res.Iterations
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/op")
				b.ReportMetric(float64(iters), "iters")
			})
		}
	}
}
