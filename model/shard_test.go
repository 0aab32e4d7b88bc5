package model_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/model"
	"github.com/manifactor/manifactor/sparse"
)

// countCorpus returns n documents of m terms as counts: term 0 in every
// document (idf 0, so dropped after the weighting), term m-1 in none,
// term m-2 only in the last document, document 3 holding term 0 only (so
// all zero once weighted).
func countCorpus(n, m int, seed uint64) *dataset.Dataset {
	rng := rand.New(rand.NewPCG(seed, 1))
	var ri, ci []int
	var v []float64
	for i := 0; i < n; i++ {
		ri, ci, v = append(ri, i), append(ci, 0), append(v, float64(1+rng.IntN(3)))
		if i == 3 {
			continue
		}
		for j := 1; j < m-2; j++ {
			if rng.Float64() < 0.3 {
				ri, ci, v = append(ri, i), append(ci, j), append(v, float64(1+rng.IntN(5)))
			}
		}
		if i == n-1 {
			ri, ci, v = append(ri, i), append(ci, m-2), append(v, 2)
		}
	}
	a, err := sparse.FromTriplets(n, m, ri, ci, v)
	if err != nil {
		panic(err)
	}
	return &dataset.Dataset{Source: "corpus", Sparse: a}
}

// shards cuts d into p shards of consecutive samples.
func shards(d *dataset.Dataset, p int) []*dataset.Dataset {
	n, _ := d.Dims()
	out := make([]*dataset.Dataset, p)
	for r := range out {
		lo, hi := r*n/p, (r+1)*n/p
		idx := make([]int, hi-lo)
		for q := range idx {
			idx[q] = lo + q
		}
		out[r] = d.SelectSamples(idx)
		out[r].Source = d.Source
	}
	return out
}

// prepareShards runs PrepareShard on every shard as in-process ranks.
func prepareShards(parts []*dataset.Dataset, opt model.PrepareOptions) ([]*model.Prepared, []error) {
	comms := dist.Local(len(parts))
	out, errs := make([]*model.Prepared, len(parts)), make([]error, len(parts))
	done := make(chan struct{})
	for r := range parts {
		go func() {
			defer func() { done <- struct{}{} }()
			out[r], errs[r] = model.PrepareShard(parts[r], opt, dist.ShardPool{C: comms[r]})
		}()
	}
	for range parts {
		<-done
	}
	return out, errs
}

// TestPrepareShardEqualsPrepare: each shard prepared with the corpus's
// statistics pooled is the same samples of the whole corpus prepared in
// one process, bit for bit, with the same preparation kept (idf, the
// features dropped) and the same counts.
func TestPrepareShardEqualsPrepare(t *testing.T) {
	const n, m = 40, 12
	opts := []model.PrepareOptions{
		{},
		{Weighting: model.TFIDF},
		{Weighting: model.NoWeighting, Normalize: model.L2},
		{KeepZeroFeatures: true},
	}
	for _, opt := range opts {
		whole, err := model.Prepare(countCorpus(n, m, 1), opt)
		if err != nil {
			t.Fatal(err)
		}
		if opt.Weighting == model.AutoWeighting && !opt.KeepZeroFeatures && (whole.Weighting != model.LogTFIDF || whole.ZeroFeatures != 2 || whole.ZeroSamples < 1) {
			t.Fatalf("the corpus should be weighted by log tf-idf with 2 features dropped and a sample left zero: %v, %d, %d", whole.Weighting, whole.ZeroFeatures, whole.ZeroSamples)
		}
		for _, p := range []int{1, 2, 3, 7} {
			got, errs := prepareShards(shards(countCorpus(n, m, 1), p), opt)
			for r := range got {
				if errs[r] != nil {
					t.Fatalf("%+v, %d shards, shard %d: %v", opt, p, r, errs[r])
				}
				lo, hi := r*n/p, (r+1)*n/p
				want := shards(whole.Data, 1)[0].Sparse.SelectRows(seq(lo, hi))
				if !reflect.DeepEqual(got[r].Data.Sparse, want) {
					t.Fatalf("%+v, %d shards: shard %d's data differ from the whole corpus's rows %d-%d", opt, p, r, lo, hi)
				}
				if !reflect.DeepEqual(got[r].Preparation, whole.Preparation) || got[r].ZeroFeatures != whole.ZeroFeatures ||
					got[r].ZeroSamples != whole.ZeroSamples || got[r].Weighting != whole.Weighting || got[r].Normalize != whole.Normalize {
					t.Fatalf("%+v, %d shards, shard %d: preparation %+v, want %+v", opt, p, r, got[r], whole)
				}
			}
		}
	}
}

// TestPrepareShardErrors: a shard that fails a check names the place,
// and every other shard returns an error too (none waits in a
// collective). Values that are not counts in one shard make the whole
// corpus unweighted.
func TestPrepareShardErrors(t *testing.T) {
	parts := shards(countCorpus(30, 8, 2), 3)
	parts[1].Sparse.Val[2] = -4
	_, errs := prepareShards(parts, model.PrepareOptions{})
	if errs[1] == nil || !strings.Contains(errs[1].Error(), "-4") {
		t.Fatalf("shard 1: %v", errs[1])
	}
	for _, r := range []int{0, 2} {
		if errs[r] == nil || !strings.Contains(errs[r].Error(), "another process") {
			t.Fatalf("shard %d: %v", r, errs[r])
		}
	}
	parts = shards(countCorpus(30, 8, 2), 3)
	parts[2].Sparse.Val[0] = 1.5
	got, errs := prepareShards(parts, model.PrepareOptions{})
	for r := range got {
		if errs[r] != nil || got[r].Weighting != model.NoWeighting {
			t.Fatalf("shard %d: %v, weighting %v, want none", r, errs[r], got[r].Weighting)
		}
	}
	parts = shards(countCorpus(30, 8, 2), 3)
	parts[0].Sparse.Val[0] = 1e200
	_, errs = prepareShards(parts, model.PrepareOptions{Weighting: model.NoWeighting})
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "sample 1, feature 1") || errs[1] == nil || errs[2] == nil {
		t.Fatalf("out of scale: %v", errs)
	}
	_, errs = prepareShards(shards(countCorpus(30, 8, 2), 2), model.PrepareOptions{Classes: []int{1}})
	if errs[0] == nil || !strings.Contains(errs[0].Error(), "class selection") {
		t.Fatalf("classes: %v", errs[0])
	}
}

func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for q := range out {
		out[q] = lo + q
	}
	return out
}
