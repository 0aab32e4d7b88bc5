package corpus

import (
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/manifactor/manifactor/internal/parallel"
	"github.com/manifactor/manifactor/sparse"
)

// Options describes a corpus. The zero value of each field is its default.
type Options struct {
	// Docs is the number of documents (default 10,000).
	Docs int
	// Terms is the vocabulary's size (default 100,000).
	Terms int
	// Classes is the number of planted classes (default 20).
	Classes int
	// Words is a document's mean length in words (default 200; lengths
	// are uniform on [Words/2, 3 Words/2]). With the other defaults a
	// document holds about 125 distinct terms.
	Words int
	// Topic is the share of a document's words drawn from its class's
	// band of terms rather than from the whole vocabulary (default 0.3).
	Topic float64
	// Zipf is the exponent of the Zipf law, above 1 (default 1.1).
	Zipf float64
	// Story is the share of a document's words drawn from its story's
	// terms (default 0.15). Each class is cut into stories of StoryDocs
	// documents (default 20), each story with storyTerms terms of its own
	// drawn from the vocabulary, the way a news corpus holds several
	// reports of one event: without them every pair of a class's documents
	// is alike but for noise, and no real corpus measured here looks like
	// that (bench/RESULTS.md, approximate search). Flat turns them off.
	Story     float64
	StoryDocs int
	Flat      bool
	// Seed seeds the corpus; document i draws from its own stream.
	Seed uint64
	// Threads bounds the parallelism (0: GOMAXPROCS); the corpus does not
	// depend on it.
	Threads int
}

func (o Options) withDefaults() (Options, error) {
	def := func(v *int, d int, name string) error {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			return fmt.Errorf("corpus: %s %d, want a positive number", name, *v)
		}
		return nil
	}
	for _, f := range []struct {
		v    *int
		d    int
		name string
	}{{&o.Docs, 10000, "documents"}, {&o.Terms, 100000, "terms"}, {&o.Classes, 20, "classes"}, {&o.Words, 200, "words"}} {
		if err := def(f.v, f.d, f.name); err != nil {
			return o, err
		}
	}
	if o.Topic == 0 {
		o.Topic = 0.3
	}
	if o.Zipf == 0 {
		o.Zipf = 1.1
	}
	if o.Story == 0 {
		o.Story = 0.15
	}
	if err := def(&o.StoryDocs, 20, "documents per story"); err != nil {
		return o, err
	}
	switch {
	case !(o.Topic > 0 && o.Topic <= 1):
		return o, fmt.Errorf("corpus: topic share %v, want (0, 1]", o.Topic)
	case !(o.Story > 0 && o.Topic+o.Story <= 1):
		return o, fmt.Errorf("corpus: story share %v with topic share %v, want a positive share and a sum at most 1", o.Story, o.Topic)
	case !(o.Zipf > 1):
		return o, fmt.Errorf("corpus: Zipf exponent %v, want above 1", o.Zipf)
	case o.Classes > o.Terms:
		return o, fmt.Errorf("corpus: %d classes for %d terms: each class needs a term of its own", o.Classes, o.Terms)
	case o.Classes > o.Docs:
		return o, fmt.Errorf("corpus: %d classes for %d documents", o.Classes, o.Docs)
	}
	return o, nil
}

// storyTerms is the number of terms a story draws its words from.
const storyTerms = 100

// Generate returns the corpus as a documents x terms matrix of word
// counts, and each document's class in 0..Classes-1 (document i is in class
// i mod Classes, and in story (i / Classes) / StoryDocs of its class).
// Class c's band is the terms perm[c b : (c+1) b] of a
// seeded permutation of the vocabulary, b = Terms/Classes, so that the
// words common in every document and a class's own words are different
// terms; within the band, words again follow the Zipf law. Terms that no
// document uses are kept as empty columns.
func Generate(opt Options) (*sparse.CSR, []int, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	n, m := o.Docs, o.Terms
	band := m / o.Classes
	perm := rand.New(rand.NewPCG(o.Seed, 1<<62)).Perm(m)
	story := o.Story
	if o.Flat {
		story = 0
	}
	// Each document's sorted distinct terms and counts, then one CSR.
	terms := make([][]int32, n)
	counts := make([][]float64, n)
	parallel.For(n, o.Threads, 256, func(lo, hi int) {
		var words []int32
		for i := lo; i < hi; i++ {
			rng := rand.New(rand.NewPCG(o.Seed, uint64(i)))
			all := rand.NewZipf(rng, o.Zipf, 1, uint64(m-1))
			own := rand.NewZipf(rng, o.Zipf, 1, uint64(band-1))
			c := i % o.Classes
			// The story's terms come from a stream of their own, the
			// same for every document of the story.
			st := uint64(i/o.Classes/o.StoryDocs*o.Classes + c)
			srng := rand.New(rand.NewPCG(o.Seed^0x5eed, st))
			var sterms [storyTerms]int32
			for t := range sterms {
				sterms[t] = int32(srng.IntN(m))
			}
			length := o.Words/2 + rng.IntN(o.Words+1)
			words = words[:0]
			for range length {
				var f int
				switch u := rng.Float64(); {
				case u < o.Topic:
					f = perm[c*band+int(own.Uint64())]
				case u < o.Topic+story:
					f = int(sterms[rng.IntN(storyTerms)])
				default:
					f = int(all.Uint64())
				}
				words = append(words, int32(f))
			}
			slices.Sort(words)
			var t []int32
			var v []float64
			for k, f := range words {
				if k > 0 && f == words[k-1] {
					v[len(v)-1]++
					continue
				}
				t, v = append(t, f), append(v, 1)
			}
			terms[i], counts[i] = t, v
		}
	})
	indptr := make([]int, n+1)
	for i := range terms {
		indptr[i+1] = indptr[i] + len(terms[i])
	}
	ind := make([]int, indptr[n])
	val := make([]float64, indptr[n])
	labels := make([]int, n)
	parallel.For(n, o.Threads, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k, f := range terms[i] {
				ind[indptr[i]+k] = int(f)
			}
			copy(val[indptr[i]:], counts[i])
			labels[i] = i % o.Classes
		}
	})
	return &sparse.CSR{Rows: n, Cols: m, Indptr: indptr, Ind: ind, Val: val}, labels, nil
}
