package corpus

import (
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestGenerate: the corpus has the asked shape, counts that sum to lengths
// within [Words/2, 3 Words/2], sorted distinct terms, classes i mod
// Classes; it is the same at 1 and 3 threads and differs with the seed;
// documents of a story share more terms than documents of a class, which
// share more than documents of different classes (and Flat removes the
// story's excess).
func TestGenerate(t *testing.T) {
	opt := Options{Docs: 400, Terms: 3000, Classes: 4, Words: 60, Seed: 9, Threads: 1}
	a, labels, err := Generate(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	if a.Rows != 400 || a.Cols != 3000 || len(labels) != 400 {
		t.Fatalf("%d x %d with %d labels", a.Rows, a.Cols, len(labels))
	}
	for i := 0; i < a.Rows; i++ {
		var words float64
		for _, v := range a.Val[a.Indptr[i]:a.Indptr[i+1]] {
			words += v
		}
		if words < 30 || words > 90 || labels[i] != i%4 {
			t.Fatalf("document %d: %v words, class %d", i, words, labels[i])
		}
	}
	opt.Threads = 3
	b, _, _ := Generate(opt)
	if !slices.Equal(a.Ind, b.Ind) || !slices.Equal(a.Val, b.Val) || !slices.Equal(a.Indptr, b.Indptr) {
		t.Error("the corpus depends on the thread count")
	}
	opt.Seed = 10
	if c, _, _ := Generate(opt); slices.Equal(a.Ind, c.Ind) {
		t.Error("the corpus does not depend on the seed")
	}
	overlap := func(flat bool) (story, class, other float64) {
		o := Options{Docs: 400, Terms: 3000, Classes: 4, Words: 200, Seed: 9, Flat: flat}
		x, _, err := Generate(o)
		if err != nil {
			t.Fatal(err)
		}
		common := func(i, j int) float64 {
			ri, rj := x.Ind[x.Indptr[i]:x.Indptr[i+1]], x.Ind[x.Indptr[j]:x.Indptr[j+1]]
			n := 0
			for _, f := range ri {
				if _, ok := slices.BinarySearch(rj, f); ok {
					n++
				}
			}
			return float64(n)
		}
		// Documents 0, 4, 8, ... are class 0; the first 20 of them
		// (0..76) one story, the next 20 (80..156) another.
		for q := 1; q < 20; q++ {
			story += common(0, 4*q) / 19
			class += common(0, 80+4*q) / 19
			other += common(0, 4*q+1) / 19
		}
		return
	}
	s, c, o := overlap(false)
	fs, fc, _ := overlap(true)
	t.Logf("shared terms: story %.1f, class %.1f, other classes %.1f; flat: story %.1f, class %.1f", s, c, o, fs, fc)
	if !(s > c+5 && c > o+5) || fs-fc > (s-c)/2 {
		t.Error("the story and class structure is not there")
	}
	for _, bad := range []Options{{Docs: -1}, {Topic: 1.5}, {Zipf: 1}, {Story: 0.8}, {Classes: 10, Docs: 5}, {Classes: 20, Terms: 10}} {
		if _, _, err := Generate(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestGenerateAuthors: under Authors every document's author is in one
// class, an author's documents share more terms than documents of one
// class by different authors, the classes shrink with ClassSkew, the
// corpus is the same at any thread count and the author options are
// checked.
func TestGenerateAuthors(t *testing.T) {
	opt := Options{Docs: 3000, Terms: 20000, Classes: 5, Words: 100, Topic: 0.05, Authors: 10, AuthorShare: 0.2, ClassSkew: 1, Seed: 3, Threads: 1}
	a, labels, err := Generate(opt)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Validate(); err != nil {
		t.Fatal(err)
	}
	o, _ := opt.withDefaults()
	authorOf, class := layAuthors(o)
	size := make([]int, len(class))
	for i, au := range authorOf {
		size[au]++
		if labels[i] != class[au] {
			t.Fatalf("document %d: class %d, its author %d's %d", i, labels[i], au, class[au])
		}
	}
	count := make([]int, opt.Classes)
	for _, c := range labels {
		count[c]++
	}
	if !(count[0] > count[1] && count[1] > count[opt.Classes-1]) || slices.Min(size) < 1 {
		t.Errorf("class sizes %v under skew 1; smallest author %d", count, slices.Min(size))
	}
	if len(class) < 3000/10/2 || len(class) > 3000/10*2 {
		t.Errorf("%d authors for 3000 documents at 10 each on average", len(class))
	}
	// Rare terms (in under 1 % of the documents) shared: the common
	// words every document draws hide the author's few.
	df := make([]int, a.Cols)
	for _, f := range a.Ind {
		df[f]++
	}
	common := func(i, j int) float64 {
		ri, rj := a.Ind[a.Indptr[i]:a.Indptr[i+1]], a.Ind[a.Indptr[j]:a.Indptr[j+1]]
		n := 0
		for _, f := range ri {
			if _, ok := slices.BinarySearch(rj, f); ok && df[f] < a.Rows/100 {
				n++
			}
		}
		return float64(n)
	}
	var same, class0, pairs, others float64
	for i := 0; i < 600; i++ {
		for j := i + 1; j < 600; j++ {
			switch {
			case authorOf[i] == authorOf[j]:
				same += common(i, j)
				pairs++
			case labels[i] == labels[j]:
				class0 += common(i, j)
				others++
			}
		}
	}
	same, class0 = same/pairs, class0/others
	t.Logf("shared rare terms: same author %.2f (%v pairs), same class %.2f", same, pairs, class0)
	if !(pairs > 10 && same > class0+1 && same > 5*class0) {
		t.Error("the author structure is not there")
	}
	opt.Threads = 3
	b, _, _ := Generate(opt)
	if !slices.Equal(a.Ind, b.Ind) || !slices.Equal(a.Val, b.Val) {
		t.Error("the corpus depends on the thread count")
	}
	for _, bad := range []Options{{Authors: -1}, {Authors: 5, AuthorShare: 0.8}, {Authors: 5, AuthorTerms: 200000}, {ClassSkew: 1}, {Authors: 5, ClassSkew: -1}, {Authors: 5, ClassSkew: math.NaN()}} {
		if _, _, err := Generate(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}

// TestLowRank: the shape asked for, non-negative, the same for the same
// seed, and without noise of rank r: additive noise leaves its r-th
// singular value more than twice the next.
func TestLowRank(t *testing.T) {
	a := LowRank(3, 60, 40, 4, 0.5, false)
	if r, c := a.Dims(); r != 60 || c != 40 || !mat.Equal(a, LowRank(3, 60, 40, 4, 0.5, false)) {
		t.Fatalf("%d x %d, or not the same for the same seed", r, c)
	}
	if mat.Min(a) < 0 {
		t.Error("a negative entry")
	}
	var svd mat.SVD
	if !svd.Factorize(LowRank(5, 60, 40, 4, 1, true), mat.SVDNone) {
		t.Fatal("SVD failed")
	}
	s := svd.Values(nil)
	if s[3] < 2*s[4] {
		t.Errorf("singular values %v: no clear gap after the 4th", s[:6])
	}
}
