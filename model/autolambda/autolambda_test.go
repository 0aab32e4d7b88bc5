package autolambda

import "testing"

// TestChoose: Auto's rule on hand-made candidates (the plain method
// first).
func TestChoose(t *testing.T) {
	// Equal cluster sizes but for the arguments that say otherwise.
	cand := func(rel, coh float64) Candidate {
		return Candidate{RelativeCut: rel, Cohesion: coh, Largest: 0.25, SizeEntropy: 1}
	}
	sized := func(c Candidate, largest, entropy float64) Candidate {
		c.Largest, c.SizeEntropy = largest, entropy
		return c
	}
	for _, c := range []struct {
		what    string
		c       []Candidate
		k       int
		kept    int
		verdict Verdict
	}{
		{"a weight halves the relative cut", []Candidate{cand(0.4, 0.5), cand(0.3, 0.49), cand(0.15, 0.45), cand(0.2, 0.46)}, 4, 2, GraphTrusted},
		{"exactly half", []Candidate{cand(0.4, 0.5), cand(0.2, 0.45)}, 4, 1, GraphTrusted},
		{"no weight halves it: the most cohesive", []Candidate{cand(0.4, 0.5), cand(0.25, 0.52), cand(0.21, 0.51)}, 4, 1, GraphUntrusted},
		{"untrusted, the plain method most cohesive", []Candidate{cand(0.4, 0.5), cand(0.3, 0.49)}, 4, 0, GraphUntrusted},
		{"ties keep the smaller weight", []Candidate{cand(0.4, 0.5), cand(0.1, 0.45), cand(0.1, 0.46)}, 4, 1, GraphTrusted},
		{"cohesion ties keep the smaller weight", []Candidate{cand(0.4, 0.5), cand(0.3, 0.5)}, 4, 0, GraphUntrusted},
		{"the plain method already follows the graph", []Candidate{cand(0, 0.5), cand(0, 0.6)}, 4, 0, GraphTrusted},
		// TDT2 topics 1, 4, 9 and 17 with seed 2: the plain clustering
		// (accuracy 0.994) cuts least; lambda 1's (0.787) is a little
		// more cohesive.
		{"the plain method cuts least, whatever the cohesion", []Candidate{cand(0.0249, 0.2326), cand(0.0801, 0.2344), cand(0.0355, 0.2313)}, 4, 0, GraphTrusted},
		// TDT2 at k = 3, seed 1 of the protocol's draw 3: NMF splits the
		// large topic (0.58 of the samples, accuracy 0.49), lambda 1000
		// finds it (0.91, accuracy 1.00): a true class, not a collapse.
		{"a trusted weight may merge split clusters", []Candidate{sized(cand(0.413, 0.2895), 0.58, 0.88), sized(cand(0.016, 0.2862), 0.91, 0.32)}, 3, 1, GraphTrusted},
		// The blog corpus of 575,229 posts at k = 40: the plain clusters
		// cut the 5-NN graph at 0.71 of chance; lambda 1000 cuts 0.23 by
		// putting 95 % of the posts in two clusters (size entropy 0.25
		// of its maximum against the plain one's 0.85); lambda 10 kept
		// the sizes (largest 0.205, entropy 0.80).
		{"off topic: the blog corpus", []Candidate{sized(cand(0.71, 0.1), 0.26, 0.85), sized(cand(0.6, 0.101), 0.205, 0.80), sized(cand(0.23, 0.09), 0.56, 0.25)}, 40, 1, GraphOffTopic},
		{"off topic, the plain method most cohesive", []Candidate{sized(cand(0.71, 0.1), 0.26, 0.85), sized(cand(0.6, 0.09), 0.27, 0.84)}, 40, 0, GraphOffTopic},
		{"off topic at exactly half of chance", []Candidate{cand(0.5, 0.5), sized(cand(0.1, 0.4), 0.5, 0.8)}, 4, 0, GraphOffTopic},
		{"a collapsed clustering is not kept, however little it cuts", []Candidate{sized(cand(0.4, 0.5), 0.2, 0.9), sized(cand(0.15, 0.45), 0.3, 0.85), sized(cand(0.01, 0.45), 0.9, 0.2)}, 20, 1, GraphTrusted},
		{"nor when it is the most cohesive", []Candidate{sized(cand(0.4, 0.5), 0.2, 0.9), sized(cand(0.3, 0.6), 0.9, 0.2)}, 20, 0, GraphTrusted},
		// Planted classes the data shows weakly (the plain clusters cut
		// the class graph at 0.85 of chance), which a weight finds
		// without reshaping the clusters.
		{"off topic, but a weight that keeps the sizes halves the cut", []Candidate{sized(cand(0.85, 0.487), 0.29, 0.995), sized(cand(0.26, 0.481), 0.26, 0.999), sized(cand(0.17, 0.478), 0.25, 1)}, 4, 2, GraphTrusted},
		{"off topic: the plain method cutting least proves nothing", []Candidate{sized(cand(0.6, 0.5), 0.2, 0.9), sized(cand(0.7, 0.49), 0.2, 0.9)}, 20, 0, GraphOffTopic},
		{"untrusted, a weight that grows the largest cluster past 1.5 times is not kept", []Candidate{sized(cand(0.4, 0.5), 0.2, 0.9), sized(cand(0.3, 0.6), 0.31, 0.88), sized(cand(0.35, 0.55), 0.3, 0.88)}, 20, 2, GraphUntrusted},
	} {
		for i := 1; i < len(c.c); i++ {
			c.c[i].Collapsed = Collapsed(c.c[i], c.c[0], c.k)
		}
		kept, verdict := Choose(c.c)
		if kept != c.kept || verdict != c.verdict {
			t.Errorf("%s: kept %d (%v), want %d (%v)", c.what, kept, verdict, c.kept, c.verdict)
		}
	}
}
