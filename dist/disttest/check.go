package disttest

import (
	"fmt"

	"github.com/manifactor/manifactor/dist"
)

// Check runs every collective of c once with values that encode the
// sending rank and position (some ranks sending nothing) and returns an
// error naming the first result that is not what the collective
// defines. Every rank of c must call it; each checks its own results.
func Check(c dist.Comm) error {
	r, p := c.Rank(), c.Size()
	fail := func(op string, i int, got, want float64) error {
		return fmt.Errorf("rank %d of %d: %s: value %d is %v, want %v", r, p, op, i, got, want)
	}
	if err := c.Barrier(); err != nil {
		return err
	}

	buf := []float64{float64(r), float64(r + 1), float64(r + 2)}
	if err := c.Bcast(buf, p-1); err != nil {
		return err
	}
	for i, x := range buf {
		if want := float64(p - 1 + i); x != want {
			return fail("Bcast", i, x, want)
		}
	}

	sum := make([]float64, 5)
	for i := range sum {
		sum[i] = float64(10*r + i)
	}
	if err := c.AllreduceSum(sum); err != nil {
		return err
	}
	for i, x := range sum {
		if want := float64(10*p*(p-1)/2 + p*i); x != want {
			return fail("AllreduceSum", i, x, want)
		}
	}

	// Rank q sends q % 3 values: some ranks send none.
	counts := make([]int, p)
	total := 0
	for q := range counts {
		counts[q] = q % 3
		total += counts[q]
	}
	send := make([]float64, counts[r])
	for j := range send {
		send[j] = float64(100*r + j)
	}
	recv := make([]float64, total)
	if err := c.Allgatherv(send, recv, counts); err != nil {
		return err
	}
	i := 0
	for q := range counts {
		for j := 0; j < counts[q]; j++ {
			if want := float64(100*q + j); recv[i] != want {
				return fail("Allgatherv", i, recv[i], want)
			}
			i++
		}
	}

	// Rank q receives (q + 1) % 3 values of the sum.
	off := 0
	total = 0
	for q := range counts {
		counts[q] = (q + 1) % 3
		if q < r {
			off += counts[q]
		}
		total += counts[q]
	}
	send = make([]float64, total)
	for j := range send {
		send[j] = float64(r + j)
	}
	recv = make([]float64, counts[r])
	if err := c.ReduceScatterSum(send, recv, counts); err != nil {
		return err
	}
	for j, x := range recv {
		if want := float64(p*(p-1)/2 + p*(off+j)); x != want {
			return fail("ReduceScatterSum", j, x, want)
		}
	}

	// Rank a sends rank b (a + b) % 3 values 1000a + 10b + j.
	sendCounts, recvCounts := make([]int, p), make([]int, p)
	send = send[:0]
	for q := range sendCounts {
		sendCounts[q] = (r + q) % 3
		recvCounts[q] = (q + r) % 3
		for j := 0; j < sendCounts[q]; j++ {
			send = append(send, float64(1000*r+10*q+j))
		}
	}
	recv = make([]float64, 0, 2*p)
	for q := range recvCounts {
		recv = append(recv, make([]float64, recvCounts[q])...)
	}
	if err := c.Alltoallv(send, sendCounts, recv, recvCounts); err != nil {
		return err
	}
	i = 0
	for q := range recvCounts {
		for j := 0; j < recvCounts[q]; j++ {
			if want := float64(1000*q + 10*r + j); recv[i] != want {
				return fail("Alltoallv", i, recv[i], want)
			}
			i++
		}
	}
	return c.Barrier()
}
