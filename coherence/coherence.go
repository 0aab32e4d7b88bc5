package coherence

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/manifactor/manifactor/internal/parallel"
)

// Measure is a coherence measure.
type Measure int

const (
	// NPMI is the mean, over ordered pairs of a topic's words, of their
	// normalized pointwise mutual information
	// log(P(a, b) / (P(a) P(b))) / -log P(a, b), in [-1, 1], over
	// sliding windows of 10 tokens by default.
	NPMI Measure = iota
	// CV is the mean, over a topic's words, of the cosine between the
	// word's vector of NPMI with every topic word (each raised to
	// Options.Gamma) and the sum of all the topic words' vectors, over
	// sliding windows of 110 tokens by default.
	CV
	// UMass is the mean, over pairs of a topic's words with b ranked
	// above a, of log((D(a, b) / D + epsilon) / (D(b) / D)), D(.) counting
	// documents: it needs no word order.
	UMass
)

var measureNames = [...]string{NPMI: "npmi", CV: "cv", UMass: "umass"}

func (m Measure) String() string {
	if m < 0 || int(m) >= len(measureNames) {
		return fmt.Sprintf("Measure(%d)", int(m))
	}
	return measureNames[m]
}

// MarshalText returns the measure's name.
func (m Measure) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a measure's name: npmi, cv or umass.
func (m *Measure) UnmarshalText(b []byte) error {
	for i, n := range measureNames {
		if string(b) == n {
			*m = Measure(i)
			return nil
		}
	}
	return fmt.Errorf("coherence measure %q: want npmi, cv or umass", b)
}

// Epsilon keeps the logarithms of pairs that never co-occur finite, as
// gensim's and Palmetto's measures do.
const Epsilon = 1e-12

// Default window sizes, in tokens: Palmetto's and gensim's.
const (
	DefaultNPMIWindow = 10
	DefaultCVWindow   = 110
)

// Reference is the corpus topics are scored against: each document as
// its word ids, in text order when Ordered (so that sliding windows can
// be counted), or a bag of them when not (document co-occurrence only).
// Words bounds the ids: id < Words. A negative id is a token that is no
// word a topic can hold (a term left out of the vocabulary): it takes
// its place in a window.
type Reference struct {
	Docs    [][]int32
	Words   int
	Ordered bool
}

// NewReference numbers the distinct words of texts (each document's
// tokens) and of topics (each topic's words, best first), and returns
// texts as a reference, in text order when ordered, and topics as its
// ids, ready for Score. A topic word that texts never use gets an id that
// occurs nowhere, so that Score gives the topic NaN and lists the word
// as missing.
func NewReference(texts, topics [][]string, ordered bool) (*Reference, [][]int) {
	ids := map[string]int32{}
	id := func(w string) int32 {
		i, ok := ids[w]
		if !ok {
			i = int32(len(ids))
			ids[w] = i
		}
		return i
	}
	total := 0
	for _, t := range texts {
		total += len(t)
	}
	flat := make([]int32, 0, total)
	ref := &Reference{Docs: make([][]int32, len(texts)), Ordered: ordered}
	for d, t := range texts {
		start := len(flat)
		for _, w := range t {
			flat = append(flat, id(w))
		}
		ref.Docs[d] = flat[start:len(flat):len(flat)]
	}
	out := make([][]int, len(topics))
	for q, t := range topics {
		out[q] = make([]int, len(t))
		for i, w := range t {
			out[q][i] = int(id(w))
		}
	}
	ref.Words = len(ids)
	return ref, out
}

// Options configures Score. The zero value is each measure's usual
// setting.
type Options struct {
	// Window is the sliding window's size in tokens (a document shorter
	// than it is one window); 0 means the measure's default for an
	// ordered reference and whole documents otherwise, and -1 whole
	// documents. UMass always counts documents.
	Window int
	// Gamma is CV's exponent on each NPMI; 0 means 1 (gensim's; Palmetto
	// uses 2).
	Gamma float64
	// Threads bounds the goroutines that count; 0 means GOMAXPROCS. The
	// result does not depend on it.
	Threads int
}

// WindowFor returns the window, in tokens, that Score counts m over with
// o on a reference in text order (ordered) or of bags of words; 0 means
// whole documents.
func (o Options) WindowFor(m Measure, ordered bool) int {
	switch w := o.Window; {
	case m == UMass || w < 0 || (w == 0 && !ordered):
		return 0
	case w == 0 && m == NPMI:
		return DefaultNPMIWindow
	case w == 0:
		return DefaultCVWindow
	default:
		return w
	}
}

// Scores is the outcome of Score.
type Scores struct {
	// Topics is each topic's score: NaN for a topic one of whose words
	// never occurs in the reference (Missing lists them).
	Topics []float64
	// Mean is the mean of the topics' scores that are not NaN (NaN when
	// none is).
	Mean float64
	// Window is the window counted over, 0 for whole documents, and
	// Units the number of windows (or documents) counted.
	Window, Units int
	// Missing lists, for each topic, its words that the reference never
	// uses.
	Missing [][]int
}

// Score scores each topic (its word ids, best first; at least two, no
// word twice) with measure m against ref.
func Score(ctx context.Context, ref *Reference, topics [][]int, m Measure, o Options) (*Scores, error) {
	if err := check(ref, topics, m, o); err != nil {
		return nil, err
	}
	window := o.WindowFor(m, ref.Ordered)
	if window > 0 && !ref.Ordered {
		return nil, fmt.Errorf("coherence: a window of %d tokens needs a reference in text order; this one is bags of words (use whole documents)", window)
	}
	gamma := o.Gamma
	if gamma == 0 {
		gamma = 1
	}
	c, err := count(ctx, ref, topics, window, o.Threads)
	if err != nil {
		return nil, err
	}
	out := &Scores{Window: window, Units: c.units, Topics: make([]float64, len(topics)), Missing: make([][]int, len(topics))}
	var sum float64
	scored := 0
	for t, words := range topics {
		idx := make([]int, len(words))
		for i, w := range words {
			idx[i] = c.index[w]
			if c.occ[idx[i]] == 0 {
				out.Missing[t] = append(out.Missing[t], w)
			}
		}
		if len(out.Missing[t]) > 0 {
			out.Topics[t] = math.NaN()
			continue
		}
		switch m {
		case NPMI:
			out.Topics[t] = c.npmiTopic(idx)
		case CV:
			out.Topics[t] = c.cvTopic(idx, gamma)
		case UMass:
			out.Topics[t] = c.umassTopic(idx)
		}
		sum += out.Topics[t]
		scored++
	}
	out.Mean = math.NaN()
	if scored > 0 {
		out.Mean = sum / float64(scored)
	}
	return out, nil
}

// check refuses a reference or topics that cannot be scored.
func check(ref *Reference, topics [][]int, m Measure, o Options) error {
	switch {
	case ref == nil || len(ref.Docs) == 0:
		return errors.New("coherence: the reference corpus has no documents")
	case m < NPMI || m > UMass:
		return fmt.Errorf("coherence: unknown measure %d", int(m))
	case o.Window < -1:
		return fmt.Errorf("coherence: window %d: want a number of tokens, 0 for the default or -1 for whole documents", o.Window)
	case o.Window == 1:
		return errors.New("coherence: a window of 1 token holds no pair")
	case o.Gamma < 0 || math.IsNaN(o.Gamma) || math.IsInf(o.Gamma, 0):
		return fmt.Errorf("coherence: gamma %v: want a positive exponent (0 for 1)", o.Gamma)
	case len(topics) == 0:
		return errors.New("coherence: no topics")
	}
	for t, words := range topics {
		if len(words) < 2 {
			return fmt.Errorf("coherence: topic %d has %d words: a score needs two at least", t+1, len(words))
		}
		for i, w := range words {
			if w < 0 || w >= ref.Words {
				return fmt.Errorf("coherence: topic %d, word %d: id %d outside the reference's %d words", t+1, i+1, w, ref.Words)
			}
			if slices.Contains(words[:i], w) {
				return fmt.Errorf("coherence: topic %d lists word %d twice", t+1, w)
			}
		}
	}
	return nil
}

// counts are the occurrences of the topics' words (r of them, numbered
// by index) in units (windows or documents), alone and in pairs.
type counts struct {
	index map[int]int // word id -> 0..r-1
	r     int
	units int
	occ   []int64 // [r]
	co    []int64 // [r*r], symmetric, occ on the diagonal
}

func (c *counts) pair(a, b int) float64 { return float64(c.co[a*c.r+b]) }

// count collects the counts in one pass over the documents, in fixed
// chunks whose integer sums do not depend on the threads.
func count(ctx context.Context, ref *Reference, topics [][]int, window, threads int) (*counts, error) {
	c := &counts{index: map[int]int{}}
	for _, words := range topics {
		for _, w := range words {
			if _, ok := c.index[w]; !ok {
				c.index[w] = len(c.index)
			}
		}
	}
	c.r = len(c.index)
	lookup := make([]int32, ref.Words)
	for i := range lookup {
		lookup[i] = -1
	}
	for w, i := range c.index {
		lookup[w] = int32(i)
	}
	// relevant is the topic word of token w, or -1.
	relevant := func(w int32) int32 {
		if w < 0 {
			return -1
		}
		return lookup[w]
	}
	workers := parallel.Workers(len(ref.Docs), threads, 256)
	type part struct {
		units    int
		occ, co  []int64
		seen     []int32 // per relevant word: its count in the current window
		present  []int32 // the relevant words in the current window
		badDoc   int
		badToken int
		badID    int32
	}
	parts := make([]part, workers)
	for w := range parts {
		parts[w] = part{occ: make([]int64, c.r), co: make([]int64, c.r*c.r), seen: make([]int32, c.r), badDoc: -1}
	}
	parallel.ForWorker(len(ref.Docs), threads, 256, func(wk, lo, hi int) {
		p := &parts[wk]
		// add counts the current window's words once each.
		add := func() {
			p.units++
			for a, i := range p.present {
				p.occ[i]++
				for _, j := range p.present[a+1:] {
					p.co[int(i)*c.r+int(j)]++
				}
			}
		}
		for d := lo; d < hi; d++ {
			if d%64 == 0 && ctx.Err() != nil {
				return
			}
			doc := ref.Docs[d]
			for q, w := range doc {
				if int(w) >= ref.Words {
					if p.badDoc < 0 {
						p.badDoc, p.badToken, p.badID = d, q, w
					}
					return
				}
			}
			p.present = p.present[:0]
			enter := func(w int32) {
				if i := relevant(w); i >= 0 {
					if p.seen[i] == 0 {
						p.present = append(p.present, i)
					}
					p.seen[i]++
				}
			}
			leave := func(w int32) {
				if i := relevant(w); i >= 0 {
					if p.seen[i]--; p.seen[i] == 0 {
						p.present = slices.DeleteFunc(p.present, func(x int32) bool { return x == i })
					}
				}
			}
			switch {
			case window > 0 && len(doc) == 0:
				// An empty document has no window (a document it is).
			case window == 0 || len(doc) <= window:
				for _, w := range doc {
					enter(w)
				}
				add()
			default:
				for _, w := range doc[:window] {
					enter(w)
				}
				add()
				for q := window; q < len(doc); q++ {
					leave(doc[q-window])
					enter(doc[q])
					add()
				}
			}
			for _, i := range p.present {
				p.seen[i] = 0
			}
		}
	})
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	c.occ, c.co = make([]int64, c.r), make([]int64, c.r*c.r)
	for _, p := range parts {
		if p.badDoc >= 0 {
			return nil, fmt.Errorf("coherence: reference document %d, token %d: word id %d outside the reference's %d words", p.badDoc+1, p.badToken+1, p.badID, ref.Words)
		}
		c.units += p.units
		for i, x := range p.occ {
			c.occ[i] += x
		}
		for i, x := range p.co {
			c.co[i] += x
		}
	}
	// Pairs were counted once, in the order their words entered: both
	// halves of the matrix hold their sum.
	for i := 0; i < c.r; i++ {
		for j := i + 1; j < c.r; j++ {
			s := c.co[i*c.r+j] + c.co[j*c.r+i]
			c.co[i*c.r+j], c.co[j*c.r+i] = s, s
		}
		c.co[i*c.r+i] = c.occ[i]
	}
	return c, nil
}

// npmi is the normalized PMI of words a and b (indices).
func (c *counts) npmi(a, b int) float64 {
	n := float64(c.units)
	pab := c.pair(a, b) / n
	pa, pb := float64(c.occ[a])/n, float64(c.occ[b])/n
	return math.Log((pab+Epsilon)/(pa*pb)) / -math.Log(pab+Epsilon)
}

// npmiTopic is NPMI's mean over the ordered pairs of distinct words.
func (c *counts) npmiTopic(idx []int) float64 {
	var s float64
	for i, a := range idx {
		for j, b := range idx {
			if i != j {
				s += c.npmi(a, b)
			}
		}
	}
	return s / float64(len(idx)*(len(idx)-1))
}

// umassTopic is UMass's mean over the pairs (a, b), b ranked above a.
func (c *counts) umassTopic(idx []int) float64 {
	n := float64(c.units)
	var s float64
	pairs := 0
	for i := 1; i < len(idx); i++ {
		for _, b := range idx[:i] {
			s += math.Log((c.pair(idx[i], b)/n + Epsilon) / (float64(c.occ[b]) / n))
			pairs++
		}
	}
	return s / float64(pairs)
}

// cvTopic is C_V: for each word, the cosine between its context vector
// (NPMI with each topic word, to the power gamma) and the topic's (the
// sum of its words' vectors), averaged.
func (c *counts) cvTopic(idx []int, gamma float64) float64 {
	n := len(idx)
	vec := make([]float64, n*n) // row i: word i's context vector
	all := make([]float64, n)
	for i, a := range idx {
		for j, b := range idx {
			v := math.Pow(c.npmi(a, b), gamma)
			vec[i*n+j] = v
			all[j] += v
		}
	}
	norm := func(x []float64) float64 {
		var s float64
		for _, v := range x {
			s += v * v
		}
		return math.Sqrt(s)
	}
	na := norm(all)
	var s float64
	for i := range idx {
		row := vec[i*n : (i+1)*n]
		var dot float64
		for j, v := range row {
			dot += v * all[j]
		}
		s += dot / (norm(row) * na)
	}
	return s / float64(n)
}

// DiversityTop is the number of each topic's top words that topic
// diversity is usually measured on (Dieng et al.'s).
const DiversityTop = 25

// Diversity is the share of distinct words among all the topics' first
// top words (Dieng et al.'s topic diversity): 1 when no two topics share
// a word. It is an error for a topic with fewer than top words.
func Diversity(topics [][]int, top int) (float64, error) {
	if len(topics) == 0 || top < 1 {
		return 0, fmt.Errorf("coherence: diversity of %d topics' top %d words", len(topics), top)
	}
	seen := map[int]bool{}
	for t, words := range topics {
		if len(words) < top {
			return 0, fmt.Errorf("coherence: topic %d has %d words, fewer than the top %d", t+1, len(words), top)
		}
		for _, w := range words[:top] {
			seen[w] = true
		}
	}
	return float64(len(seen)) / float64(len(topics)*top), nil
}
