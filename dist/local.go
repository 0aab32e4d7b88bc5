package dist

import (
	"cmp"
	"fmt"
	"slices"
	"sync"
)

// Local returns size communicators whose ranks are goroutines of this
// process: rank r uses the r-th, and each must be used by one goroutine
// at a time, every rank calling the same collectives in the same order,
// as under MPI. The collectives copy through shared memory and add in
// rank order, so results are the same on every run. It is the transport
// of the tests and of running distributed code paths on one machine.
func Local(size int) []*LocalComm {
	if size < 1 {
		panic(fmt.Sprintf("dist: Local(%d): need at least one rank", size))
	}
	g := newGroup(size)
	out := make([]*LocalComm, size)
	for r := range out {
		out[r] = &LocalComm{g: g, rank: r}
	}
	return out
}

// LocalComm is one rank of a Local group.
type LocalComm struct {
	g    *group
	rank int
}

var _ Comm = (*LocalComm)(nil)

// group is what the ranks of one Local communicator share: one slot per
// rank where each deposits what a collective sends, and a barrier.
type group struct {
	size  int
	slots []slot
	mu    sync.Mutex
	cond  *sync.Cond
	count int
	gen   int
}

// slot is one rank's contribution to the collective in progress.
type slot struct {
	data   []float64
	counts []int
	aux    any
}

func newGroup(size int) *group {
	g := &group{size: size, slots: make([]slot, size)}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// wait returns when every rank has called it (a reusable barrier).
func (g *group) wait() {
	g.mu.Lock()
	gen := g.gen
	g.count++
	if g.count == g.size {
		g.count = 0
		g.gen++
		g.cond.Broadcast()
	} else {
		for gen == g.gen {
			g.cond.Wait()
		}
	}
	g.mu.Unlock()
}

// exchange deposits s, waits for every rank's, runs read (which may look
// at every slot), and waits again so that no rank's next collective
// overwrites a slot another is still reading.
func (c *LocalComm) exchange(s slot, read func(slots []slot)) {
	g := c.g
	g.slots[c.rank] = s
	g.wait()
	read(g.slots)
	g.wait()
}

// Rank is the calling rank's index.
func (c *LocalComm) Rank() int { return c.rank }

// Size is the number of ranks.
func (c *LocalComm) Size() int { return c.g.size }

// Barrier returns once every rank has called it.
func (c *LocalComm) Barrier() error {
	c.g.wait()
	return nil
}

// Bcast copies root's buf into every rank's buf.
func (c *LocalComm) Bcast(buf []float64, root int) error {
	c.exchange(slot{data: buf}, func(s []slot) {
		src := s[root].data
		if len(src) != len(buf) {
			panic(fmt.Sprintf("dist: Bcast: rank %d has %d values, root %d has %d", c.rank, len(buf), root, len(src)))
		}
		if c.rank != root {
			copy(buf, src)
		}
	})
	return nil
}

// AllreduceSum replaces buf by the element-wise sum over ranks, added in
// rank order.
func (c *LocalComm) AllreduceSum(buf []float64) error {
	sum := make([]float64, len(buf))
	c.exchange(slot{data: buf}, func(s []slot) {
		for r := range s {
			if len(s[r].data) != len(buf) {
				panic(fmt.Sprintf("dist: AllreduceSum: rank %d has %d values, rank %d %d", c.rank, len(buf), r, len(s[r].data)))
			}
			for i, x := range s[r].data {
				sum[i] += x
			}
		}
	})
	copy(buf, sum)
	return nil
}

// Allgatherv gives every rank every rank's send.
func (c *LocalComm) Allgatherv(send, recv []float64, counts []int) error {
	off := c.checkCounts("Allgatherv", counts)
	if len(send) != counts[c.rank] || len(recv) < off[len(counts)] {
		panic(fmt.Sprintf("dist: Allgatherv: rank %d sends %d values where counts give %d, receive buffer %d for %d", c.rank, len(send), counts[c.rank], len(recv), off[len(counts)]))
	}
	c.exchange(slot{data: send}, func(s []slot) {
		for r := range s {
			copy(recv[off[r]:off[r+1]], s[r].data)
		}
	})
	return nil
}

// ReduceScatterSum adds every rank's send and gives each rank its part,
// added in rank order.
func (c *LocalComm) ReduceScatterSum(send, recv []float64, counts []int) error {
	off := c.checkCounts("ReduceScatterSum", counts)
	if len(send) != off[len(counts)] || len(recv) < counts[c.rank] {
		panic(fmt.Sprintf("dist: ReduceScatterSum: rank %d sends %d values where counts give %d, receive buffer %d for %d", c.rank, len(send), off[len(counts)], len(recv), counts[c.rank]))
	}
	part := make([]float64, counts[c.rank])
	c.exchange(slot{data: send}, func(s []slot) {
		lo := off[c.rank]
		for r := range s {
			for i, x := range s[r].data[lo : lo+len(part)] {
				part[i] += x
			}
		}
	})
	copy(recv, part)
	return nil
}

// Alltoallv sends each rank its part of send and receives each rank's
// part for the caller.
func (c *LocalComm) Alltoallv(send []float64, sendCounts []int, recv []float64, recvCounts []int) error {
	soff := c.checkCounts("Alltoallv", sendCounts)
	roff := c.checkCounts("Alltoallv", recvCounts)
	if len(send) < soff[len(sendCounts)] || len(recv) < roff[len(recvCounts)] {
		panic(fmt.Sprintf("dist: Alltoallv: buffers of %d and %d values for counts of %d and %d", len(send), len(recv), soff[len(sendCounts)], roff[len(recvCounts)]))
	}
	c.exchange(slot{data: send, counts: sendCounts}, func(s []slot) {
		for r := range s {
			theirs := offsets(s[r].counts)
			part := s[r].data[theirs[c.rank]:theirs[c.rank+1]]
			if len(part) != recvCounts[r] {
				panic(fmt.Sprintf("dist: Alltoallv: rank %d sends %d values to rank %d, which expects %d", r, len(part), c.rank, recvCounts[r]))
			}
			copy(recv[roff[r]:roff[r+1]], part)
		}
	})
	return nil
}

// Split partitions the ranks by color into new communicators, ranked by
// key (ties by rank), as MPI_Comm_split does. Every rank calls it.
func (c *LocalComm) Split(color, key int) (*LocalComm, error) {
	type member struct{ color, key, rank int }
	var mine *LocalComm
	// Each rank learns every rank's color and key; the lowest rank of
	// each color makes the new group and leaves it in its slot.
	me := member{color, key, c.rank}
	var members []member
	c.exchange(slot{aux: me}, func(s []slot) {
		for r := range s {
			members = append(members, s[r].aux.(member))
		}
	})
	var same []member
	for _, m := range members {
		if m.color == color {
			same = append(same, m)
		}
	}
	// Ranked by key, then by rank; the lowest rank leads.
	slices.SortFunc(same, func(a, b member) int { return cmp.Or(cmp.Compare(a.key, b.key), cmp.Compare(a.rank, b.rank)) })
	leader := slices.MinFunc(same, func(a, b member) int { return cmp.Compare(a.rank, b.rank) }).rank
	var made *group
	if c.rank == leader {
		made = newGroup(len(same))
	}
	c.exchange(slot{aux: made}, func(s []slot) {
		g := s[leader].aux.(*group)
		for i, m := range same {
			if m.rank == c.rank {
				mine = &LocalComm{g: g, rank: i}
			}
		}
	})
	return mine, nil
}

// checkCounts checks that there is one count per rank and returns the
// offsets.
func (c *LocalComm) checkCounts(op string, counts []int) []int {
	if len(counts) != c.g.size {
		panic(fmt.Sprintf("dist: %s: %d counts for %d ranks", op, len(counts), c.g.size))
	}
	return offsets(counts)
}
