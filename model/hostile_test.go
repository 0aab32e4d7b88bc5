package model

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/manifactor/manifactor/solver"
)

// TestTransformNeedsSharedFeatures: data that barely meets the model's
// features (another corpus named otherwise) is refused, where it was
// placed, every sample alike, in one cluster; data that meets them is
// placed.
func TestTransformNeedsSharedFeatures(t *testing.T) {
	ctx := context.Background()
	m, _, err := Train(ctx, countCorpus(t, 3, 60, 40, 3), PrepareOptions{}, Options{Method: solver.NMF, K: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	other := countCorpus(t, 4, 20, 40, 3)
	for j := range other.Vocabulary {
		other.Vocabulary[j] = "other" + other.Vocabulary[j]
	}
	if _, err := m.Transform(ctx, other, TransformOptions{}); err == nil || !strings.Contains(err.Error(), "fall on the model's 40 features") {
		t.Errorf("no shared feature: %v", err)
	}
	if _, err := m.Transform(ctx, countCorpus(t, 4, 20, 40, 3), TransformOptions{}); err != nil {
		t.Errorf("the same features: %v", err)
	}
}

// FuzzLoad: a saved model with any one of its files replaced by other
// bytes loads (and then places samples) or is refused with an error;
// nothing panics and nothing hangs.
func FuzzLoad(f *testing.F) {
	m, _, err := Train(context.Background(), countCorpus(f, 8, 40, 30, 3), PrepareOptions{}, Options{Method: solver.GNMF, K: 3, Seed: 1, Lambda: solver.Fixed(10)})
	if err != nil {
		f.Fatal(err)
	}
	good := f.TempDir()
	if err := m.Save(good); err != nil {
		f.Fatal(err)
	}
	entries, err := os.ReadDir(good)
	if err != nil {
		f.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	for i, n := range names {
		b, _ := os.ReadFile(filepath.Join(good, n))
		f.Add(uint8(i), b)
		f.Add(uint8(i), b[:len(b)/2])
	}
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		dir := t.TempDir()
		for i, n := range names {
			b, _ := os.ReadFile(filepath.Join(good, n))
			if i == int(which)%len(names) {
				b = body
			}
			if err := os.WriteFile(filepath.Join(dir, n), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := Load(dir)
		if err != nil {
			return
		}
		if _, err := got.Transform(context.Background(), countCorpus(t, 9, 5, 30, 3), TransformOptions{MaxIter: 5}); err != nil && strings.Contains(err.Error(), "panic") {
			t.Fatal(err)
		}
	})
}
