package dist

// Comm is a communicator: a group of ranks that call the same collectives
// in the same order. Every method is collective (each rank of the group
// calls it) and returns an error for a failure of the transport; a
// mismatch of buffer lengths with counts is a program error and panics.
// Buffers are float64; counts and offsets are in values.
type Comm interface {
	// Rank is the calling rank's index in [0, Size()).
	Rank() int
	// Size is the number of ranks.
	Size() int
	// Barrier returns once every rank has called it.
	Barrier() error
	// Bcast copies root's buf into every rank's buf (same length).
	Bcast(buf []float64, root int) error
	// AllreduceSum replaces each rank's buf by the element-wise sum of
	// all ranks' bufs.
	AllreduceSum(buf []float64) error
	// Allgatherv gives every rank every rank's send: rank r's part lands
	// in recv at offset counts[0] + ... + counts[r-1]; len(send) must be
	// counts[Rank()].
	Allgatherv(send, recv []float64, counts []int) error
	// ReduceScatterSum adds all ranks' send (of length sum(counts))
	// element-wise and gives rank r the part at offset counts[0] + ...
	// + counts[r-1], counts[r] values, in recv.
	ReduceScatterSum(send, recv []float64, counts []int) error
	// Alltoallv sends rank r the part of send at offset sendCounts[0] +
	// ... + sendCounts[r-1] (sendCounts[r] values) and receives rank r's
	// part for the caller in recv at offset recvCounts[0] + ... +
	// recvCounts[r-1].
	Alltoallv(send []float64, sendCounts []int, recv []float64, recvCounts []int) error
}

// offsets returns the running sums of counts: offsets[r] is where rank
// r's part starts, offsets[len(counts)] the total.
func offsets(counts []int) []int {
	off := make([]int, len(counts)+1)
	for r, n := range counts {
		if n < 0 {
			panic("dist: negative count")
		}
		off[r+1] = off[r] + n
	}
	return off
}
