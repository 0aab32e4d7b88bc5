package corpus

import (
	"fmt"
	"math"
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
	// that (docs/PERFORMANCE.md, approximate search). Flat turns them off.
	Story     float64
	StoryDocs int
	Flat      bool
	// Authors, when positive, groups the documents by author instead of
	// by story, the way a blog or forum corpus is: authors write this
	// many documents on average (log-normal sizes: most write a few, a
	// few write hundreds), each author in one class, and AuthorShare of
	// every document's words come from AuthorTerms terms of the author's
	// own, drawn uniformly from the vocabulary and so mostly from its
	// rare tail. A document's nearest neighbours are then its author's
	// other documents whatever its class: the local, not topical, graph
	// of real corpora with authors, templates and threads. Story and
	// StoryDocs do not apply; documents are shuffled, so an author's
	// documents are not consecutive.
	Authors     int
	AuthorShare float64 // default 0.3
	AuthorTerms int     // default 200
	// ClassSkew makes the classes unequal under Authors: an author's class
	// is c with probability proportional to (c+1)^-ClassSkew (0: equal
	// classes; 1: the largest class about Classes/ln(Classes) times the
	// mean).
	ClassSkew float64
	// Rare is the share of a document's words drawn uniformly from
	// RareTerms further terms, numbered after the vocabulary (default
	// 0: none): the long tail of names, misspellings and one-off words
	// of real text, most of them in one document or two. RareTerms
	// defaults to 10 Terms.
	Rare      float64
	RareTerms int
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
	if o.Rare != 0 {
		if err := def(&o.RareTerms, 10*o.Terms, "rare terms"); err != nil {
			return o, err
		}
	}
	if !(o.Rare >= 0 && o.Rare < 1) {
		return o, fmt.Errorf("corpus: rare share %v, want [0, 1)", o.Rare)
	}
	if o.Authors < 0 {
		return o, fmt.Errorf("corpus: %d documents per author, want a positive number (0: no authors)", o.Authors)
	}
	if o.Authors > 0 {
		if o.AuthorShare == 0 {
			o.AuthorShare = 0.3
		}
		if err := def(&o.AuthorTerms, 200, "terms per author"); err != nil {
			return o, err
		}
	}
	switch {
	case !(o.Topic > 0 && o.Topic <= 1):
		return o, fmt.Errorf("corpus: topic share %v, want (0, 1]", o.Topic)
	case o.Authors == 0 && !(o.Story > 0 && o.Topic+o.Story <= 1):
		return o, fmt.Errorf("corpus: story share %v with topic share %v, want a positive share and a sum at most 1", o.Story, o.Topic)
	case o.Authors > 0 && !(o.AuthorShare > 0 && o.Topic+o.AuthorShare <= 1):
		return o, fmt.Errorf("corpus: author share %v with topic share %v, want a positive share and a sum at most 1", o.AuthorShare, o.Topic)
	case o.Authors > 0 && o.AuthorTerms > o.Terms:
		return o, fmt.Errorf("corpus: %d terms per author for %d terms", o.AuthorTerms, o.Terms)
	case !(o.ClassSkew >= 0) || o.ClassSkew > 10:
		return o, fmt.Errorf("corpus: class skew %v, want [0, 10]", o.ClassSkew)
	case o.ClassSkew > 0 && o.Authors == 0:
		return o, fmt.Errorf("corpus: class skew %v needs authors", o.ClassSkew)
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

// authorStream is mixed into the seed of an author's terms, so that they
// are not a story's.
const authorStream = 0xa07e5

// authorSigma is the spread of the log of an author's document count:
// with 1.2 a tenth of the authors write a third of the documents.
const authorSigma = 1.2

// layAuthors returns each document's author and each author's class:
// authors of log-normal sizes with mean o.Authors and classes drawn with
// weights (c+1)^-ClassSkew, laid out in turn until the documents run out,
// then the documents shuffled. It runs on one seeded stream, so the
// layout does not depend on the threads.
func layAuthors(o Options) (authorOf []int32, class []int) {
	rng := rand.New(rand.NewPCG(o.Seed, authorStream))
	cum := make([]float64, o.Classes)
	var total float64
	for c := range cum {
		total += math.Pow(float64(c+1), -o.ClassSkew)
		cum[c] = total
	}
	authorOf = make([]int32, o.Docs)
	for i := 0; i < o.Docs; {
		size := int(math.Round(float64(o.Authors) * math.Exp(authorSigma*rng.NormFloat64()-authorSigma*authorSigma/2)))
		size = min(max(size, 1), o.Docs-i)
		c, _ := slices.BinarySearch(cum, rng.Float64()*total)
		a := int32(len(class))
		class = append(class, min(c, o.Classes-1))
		for range size {
			authorOf[i] = a
			i++
		}
	}
	rng.Shuffle(len(authorOf), func(i, j int) { authorOf[i], authorOf[j] = authorOf[j], authorOf[i] })
	return authorOf, class
}

// Generate returns the corpus as a documents x terms matrix of word
// counts, and each document's class in 0..Classes-1. Without Authors,
// document i is in class i mod Classes, and in story (i / Classes) /
// StoryDocs of its class; under Authors, in its author's class. Class c's
// band is the terms perm[c b : (c+1) b] of a seeded permutation of the
// vocabulary, b = Terms/Classes, so that the words common in every
// document and a class's own words are different terms; within the band,
// words again follow the Zipf law. Terms that no document uses are kept
// as empty columns.
func Generate(opt Options) (*sparse.CSR, []int, error) {
	o, err := opt.withDefaults()
	if err != nil {
		return nil, nil, err
	}
	n, m := o.Docs, o.Terms
	band := m / o.Classes
	perm := rand.New(rand.NewPCG(o.Seed, 1<<62)).Perm(m)
	// A document's group is its story or its author: the documents that
	// draw groupShare of their words from the group's own terms.
	groupShare, groupTerms := o.Story, storyTerms
	if o.Flat {
		groupShare = 0
	}
	var authorOf []int32
	var authorClass []int
	if o.Authors > 0 {
		authorOf, authorClass = layAuthors(o)
		groupShare, groupTerms = o.AuthorShare, o.AuthorTerms
	}
	// Each document's sorted distinct terms and counts, then one CSR.
	terms := make([][]int32, n)
	counts := make([][]float64, n)
	labels := make([]int, n)
	parallel.For(n, o.Threads, 256, func(lo, hi int) {
		var words []int32
		gterms := make([]int32, groupTerms)
		for i := lo; i < hi; i++ {
			rng := rand.New(rand.NewPCG(o.Seed, uint64(i)))
			all := rand.NewZipf(rng, o.Zipf, 1, uint64(m-1))
			own := rand.NewZipf(rng, o.Zipf, 1, uint64(band-1))
			c := i % o.Classes
			// The group's terms come from a stream of their own, the
			// same for every document of the group.
			var grng *rand.Rand
			if authorOf != nil {
				a := authorOf[i]
				c = authorClass[a]
				grng = rand.New(rand.NewPCG(o.Seed^authorStream, uint64(a)))
			} else {
				grng = rand.New(rand.NewPCG(o.Seed^0x5eed, uint64(i/o.Classes/o.StoryDocs*o.Classes+c)))
			}
			for t := range gterms {
				gterms[t] = int32(grng.IntN(m))
			}
			labels[i] = c
			length := o.Words/2 + rng.IntN(o.Words+1)
			words = words[:0]
			for range length {
				var f int
				// The rare words' draw comes first and only with Rare,
				// so that corpora without them are as before.
				if o.Rare > 0 && rng.Float64() < o.Rare {
					words = append(words, int32(m+rng.IntN(o.RareTerms)))
					continue
				}
				switch u := rng.Float64(); {
				case u < o.Topic:
					f = perm[c*band+int(own.Uint64())]
				case u < o.Topic+groupShare:
					f = int(gterms[rng.IntN(groupTerms)])
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
	parallel.For(n, o.Threads, 1024, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			for k, f := range terms[i] {
				ind[indptr[i]+k] = int(f)
			}
			copy(val[indptr[i]:], counts[i])
		}
	})
	return &sparse.CSR{Rows: n, Cols: m + o.RareTerms, Indptr: indptr, Ind: ind, Val: val}, labels, nil
}
