package dist_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/manifactor/manifactor/dist"
	"github.com/manifactor/manifactor/dist/disttest"
)

// runRanks runs body on every rank of a Local group of size ranks, each in
// its own goroutine, and returns the ranks' errors.
func runRanks(size int, body func(c *dist.LocalComm) error) []error {
	comms := dist.Local(size)
	errs := make([]error, size)
	var wg sync.WaitGroup
	for r, c := range comms {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[r] = body(c)
		}()
	}
	wg.Wait()
	return errs
}

// TestLocalCollectives: every collective of the in-process ranks gives
// what it defines, for 1 to 5 ranks, twice in a row (the slots are
// reused).
func TestLocalCollectives(t *testing.T) {
	for size := 1; size <= 5; size++ {
		for r, err := range runRanks(size, func(c *dist.LocalComm) error {
			if err := disttest.Check(c); err != nil {
				return err
			}
			return disttest.Check(c)
		}) {
			if err != nil {
				t.Errorf("%d ranks, rank %d: %v", size, r, err)
			}
		}
	}
}

// TestLocalSplit: splitting 6 ranks by rank % 2, ranked by descending
// rank, gives two groups of 3 whose collectives work on their own.
func TestLocalSplit(t *testing.T) {
	for r, err := range runRanks(6, func(c *dist.LocalComm) error {
		sub, err := c.Split(c.Rank()%2, -c.Rank())
		if err != nil {
			return err
		}
		if sub.Size() != 3 {
			return fmt.Errorf("sub-communicator of %d ranks, want 3", sub.Size())
		}
		// Keys -r: the highest rank of each colour comes first.
		if want := (5 - c.Rank()) / 2; sub.Rank() != want {
			return fmt.Errorf("rank %d in its colour, want %d", sub.Rank(), want)
		}
		buf := []float64{float64(c.Rank())}
		if err := sub.AllreduceSum(buf); err != nil {
			return err
		}
		if want := map[int]float64{0: 0 + 2 + 4, 1: 1 + 3 + 5}[c.Rank()%2]; buf[0] != want {
			return fmt.Errorf("sum over the colour %v, want %v", buf[0], want)
		}
		return disttest.Check(sub)
	}) {
		if err != nil {
			t.Errorf("rank %d: %v", r, err)
		}
	}
}

// TestLocalMismatchPanics: a rank whose buffer does not match the counts
// is a program error, reported by a panic naming the collective.
func TestLocalMismatchPanics(t *testing.T) {
	c := dist.Local(1)[0]
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "Allgatherv") {
			t.Errorf("recovered %v, want a panic naming Allgatherv", r)
		}
	}()
	c.Allgatherv([]float64{1, 2}, make([]float64, 1), []int{1})
}
