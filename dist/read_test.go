package dist_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/manifactor/manifactor/dataset"
	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/internal/matrixio"
)

// readShards runs ReadMTXShard on every rank of g as goroutines.
func readShards(t *testing.T, g dist.Grid, path string) ([]*dataset.Dataset, []error) {
	t.Helper()
	p, err := matrixio.ReadMTXParts(path)
	if err != nil {
		t.Fatal(err)
	}
	comms := dist.LocalGrid(g)
	out, errs := make([]*dataset.Dataset, g.Size()), make([]error, g.Size())
	var wg sync.WaitGroup
	for r := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[r], errs[r] = dist.ReadMTXShard(context.Background(), comms[r].World, g, p)
		}()
	}
	wg.Wait()
	return out, errs
}

// TestReadMTXShard: every rank of every grid gets the rows of its sample
// block exactly as the whole reader reads them (duplicates summed in file
// order), reading only its byte range of the file; a bad line makes every
// rank fail, the reading rank naming the file's line.
func TestReadMTXShard(t *testing.T) {
	a := randomSamples(3, 37, 11, 0.3)
	dir := t.TempDir()
	path := filepath.Join(dir, "x.mtx")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := matrixio.WriteMatrixMarket(f, a); err != nil {
		t.Fatal(err)
	}
	f.Close()
	// A duplicate entry at the end: summed with the first, after it.
	b, _ := os.ReadFile(path)
	text := strings.Replace(string(b), " "+strconv.Itoa(a.NNZ())+"\n", " "+strconv.Itoa(a.NNZ()+1)+"\n", 1) + "1 1 0.125\n"
	os.WriteFile(path, []byte(text), 0o644)
	whole, _, err := matrixio.ReadMatrixMarketFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, shape := range [][2]int{{1, 1}, {1, 2}, {2, 1}, {2, 2}, {1, 5}, {3, 2}, {2, 4}} {
		g, err := dist.NewGrid(shape[0]*shape[1], 11, 37, shape[0])
		if err != nil {
			t.Fatal(err)
		}
		shards, errs := readShards(t, g, path)
		for r, s := range shards {
			if errs[r] != nil {
				t.Fatalf("grid %v, rank %d: %v", shape, r, errs[r])
			}
			_, j := g.Pos(r)
			s0, s1 := g.SampleBlock(j)
			want := whole.SelectRows(seq(s0, s1))
			if !reflect.DeepEqual(s.Sparse, want) {
				t.Fatalf("grid %v, rank %d: samples %d-%d differ from the whole reader's", shape, r, s0, s1)
			}
		}
	}
	// A bad value on the last line.
	os.WriteFile(path, []byte(text[:len(text)-len("0.125\n")]+"-x\n"), 0o644)
	_, _, werr := matrixio.ReadMatrixMarketFile(path)
	g, _ := dist.NewGrid(4, 11, 37, 2)
	_, errs := readShards(t, g, path)
	named := 0
	for r, err := range errs {
		if err == nil {
			t.Fatalf("rank %d read a bad file", r)
		}
		if err.Error() == werr.Error() {
			named++
		}
	}
	if named != 1 {
		t.Fatalf("%d ranks name the line as the whole reader does (%v): %v", named, werr, errs)
	}
}

func seq(lo, hi int) []int {
	out := make([]int, hi-lo)
	for q := range out {
		out[q] = lo + q
	}
	return out
}
