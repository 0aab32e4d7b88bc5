package dist

// countingComm passes every collective to c and counts the values this
// rank moves to or from other ranks, as an implementation that sends
// nothing twice would: for a gather, what arrives from the others; for a
// reduce-scatter, the parts that go to the others; for an all-reduce,
// the buffer once (nothing with one rank).
type countingComm struct {
	Comm
	words int
}

func (c *countingComm) Bcast(buf []float64, root int) error {
	if c.Size() > 1 {
		c.words += len(buf)
	}
	return c.Comm.Bcast(buf, root)
}

func (c *countingComm) AllreduceSum(buf []float64) error {
	if c.Size() > 1 {
		c.words += len(buf)
	}
	return c.Comm.AllreduceSum(buf)
}

func (c *countingComm) Allgatherv(send, recv []float64, counts []int) error {
	c.words += offsets(counts)[len(counts)] - counts[c.Rank()]
	return c.Comm.Allgatherv(send, recv, counts)
}

func (c *countingComm) ReduceScatterSum(send, recv []float64, counts []int) error {
	c.words += len(send) - counts[c.Rank()]
	return c.Comm.ReduceScatterSum(send, recv, counts)
}

func (c *countingComm) Alltoallv(send []float64, sendCounts []int, recv []float64, recvCounts []int) error {
	off := offsets(recvCounts)
	c.words += off[len(recvCounts)] - recvCounts[c.Rank()]
	return c.Comm.Alltoallv(send, sendCounts, recv, recvCounts)
}
