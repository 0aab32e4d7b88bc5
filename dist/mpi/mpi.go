//go:build cgo && mpi

package mpi

// #cgo pkg-config: ompi-c
// #include <stdlib.h>
// #include <mpi.h>
//
// // The handles below are macros (casts of addresses) in OpenMPI, which
// // cgo cannot take directly.
// static MPI_Comm mf_world(void) { return MPI_COMM_WORLD; }
// static MPI_Datatype mf_double(void) { return MPI_DOUBLE; }
// static MPI_Datatype mf_byte(void) { return MPI_BYTE; }
// static MPI_Op mf_sum(void) { return MPI_SUM; }
// static void *mf_in_place(void) { return MPI_IN_PLACE; }
// static int mf_set_errors_return(MPI_Comm c) { return MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN); }
import "C"

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// Available reports whether this build has MPI (the tags cgo and mpi).
const Available = true

// Comm is an MPI communicator.
type Comm struct {
	c          C.MPI_Comm
	rank, size int
}

// Init initializes MPI for serialized calls from any goroutine and makes
// errors returnable on the world communicator. It must be called once,
// before World, by every rank.
func Init() error {
	var provided C.int
	if err := check("MPI_Init_thread", C.MPI_Init_thread(nil, nil, C.MPI_THREAD_SERIALIZED, &provided)); err != nil {
		return err
	}
	if provided < C.MPI_THREAD_SERIALIZED {
		return fmt.Errorf("mpi: the MPI library provides thread level %d, below MPI_THREAD_SERIALIZED (%d) which Go's scheduler needs", int(provided), int(C.MPI_THREAD_SERIALIZED))
	}
	return check("MPI_Comm_set_errhandler", C.mf_set_errors_return(C.mf_world()))
}

// Finalize ends MPI; every rank calls it last.
func Finalize() error { return check("MPI_Finalize", C.MPI_Finalize()) }

// LaunchedByMPI reports whether the process was started by an MPI
// launcher (mpirun, srun), from the environment it sets.
func LaunchedByMPI() bool { return launched() }

// Version returns the MPI library's version string.
func Version() string {
	buf := make([]byte, C.MPI_MAX_LIBRARY_VERSION_STRING)
	var n C.int
	if C.MPI_Get_library_version((*C.char)(unsafe.Pointer(&buf[0])), &n) != C.MPI_SUCCESS {
		return "MPI (version unknown)"
	}
	s := string(buf[:n])
	for i, r := range s {
		if r == '\n' || r == ',' {
			return s[:i]
		}
	}
	return s
}

// World returns the communicator of every rank of the job.
func World() *Comm { return wrap(C.mf_world()) }

func wrap(c C.MPI_Comm) *Comm {
	var r, s C.int
	C.MPI_Comm_rank(c, &r)
	C.MPI_Comm_size(c, &s)
	return &Comm{c: c, rank: int(r), size: int(s)}
}

// Rank is this process's rank in c, in [0, Size()).
func (c *Comm) Rank() int { return c.rank }

// Size is the number of ranks in c.
func (c *Comm) Size() int { return c.size }

// Barrier returns once every rank of c has called it.
func (c *Comm) Barrier() error { return check("MPI_Barrier", C.MPI_Barrier(c.c)) }

// Bcast copies root's buf into every rank's buf.
func (c *Comm) Bcast(buf []float64, root int) error {
	n, err := count("MPI_Bcast", len(buf))
	if err != nil || n == 0 {
		return err
	}
	defer runtime.KeepAlive(buf)
	return check("MPI_Bcast", C.MPI_Bcast(unsafe.Pointer(&buf[0]), n, C.mf_double(), C.int(root), c.c))
}

// BcastBytes is Bcast for bytes.
func (c *Comm) BcastBytes(buf []byte, root int) error {
	n, err := count("MPI_Bcast", len(buf))
	if err != nil || n == 0 {
		return err
	}
	defer runtime.KeepAlive(buf)
	return check("MPI_Bcast", C.MPI_Bcast(unsafe.Pointer(&buf[0]), n, C.mf_byte(), C.int(root), c.c))
}

// AllreduceSum replaces buf on every rank by the element-wise sum of
// every rank's buf. The order of the additions is MPI's.
func (c *Comm) AllreduceSum(buf []float64) error {
	n, err := count("MPI_Allreduce", len(buf))
	if err != nil || n == 0 {
		return err
	}
	defer runtime.KeepAlive(buf)
	return check("MPI_Allreduce", C.MPI_Allreduce(C.mf_in_place(), unsafe.Pointer(&buf[0]), n, C.mf_double(), C.mf_sum(), c.c))
}

// Allgatherv sends send to every rank; recv receives rank r's part at
// offset counts[0] + ... + counts[r-1], counts[r] values, and
// len(send) must be counts[Rank()].
func (c *Comm) Allgatherv(send, recv []float64, counts []int) error {
	cs, displ, total, err := layout("MPI_Allgatherv", counts, c.size)
	if err != nil {
		return err
	}
	if len(send) != counts[c.rank] || len(recv) < total {
		panic(fmt.Sprintf("mpi: Allgatherv: %d values sent where counts give %d, receive buffer %d for %d", len(send), counts[c.rank], len(recv), total))
	}
	defer runtime.KeepAlive(send)
	defer runtime.KeepAlive(recv)
	return check("MPI_Allgatherv", C.MPI_Allgatherv(ptr(send), C.int(len(send)), C.mf_double(), ptr(recv), &cs[0], &displ[0], C.mf_double(), c.c))
}

// ReduceScatterSum adds every rank's send element-wise and gives rank r
// the part of the sum at offset counts[0] + ... + counts[r-1], counts[r]
// values, in recv.
func (c *Comm) ReduceScatterSum(send, recv []float64, counts []int) error {
	cs, _, total, err := layout("MPI_Reduce_scatter", counts, c.size)
	if err != nil {
		return err
	}
	if len(send) != total || len(recv) < counts[c.rank] {
		panic(fmt.Sprintf("mpi: ReduceScatterSum: %d values sent where counts give %d, receive buffer %d for %d", len(send), total, len(recv), counts[c.rank]))
	}
	if total == 0 {
		return nil
	}
	defer runtime.KeepAlive(send)
	defer runtime.KeepAlive(recv)
	return check("MPI_Reduce_scatter", C.MPI_Reduce_scatter(ptr(send), ptr(recv), &cs[0], C.mf_double(), C.mf_sum(), c.c))
}

// Alltoallv sends rank r the part of send at offset sendCounts[0] + ... +
// sendCounts[r-1], sendCounts[r] values, and receives rank r's part for
// this rank in recv at offset recvCounts[0] + ... + recvCounts[r-1].
func (c *Comm) Alltoallv(send []float64, sendCounts []int, recv []float64, recvCounts []int) error {
	sc, sd, st, err := layout("MPI_Alltoallv", sendCounts, c.size)
	if err != nil {
		return err
	}
	rc, rd, rt, err := layout("MPI_Alltoallv", recvCounts, c.size)
	if err != nil {
		return err
	}
	if len(send) < st || len(recv) < rt {
		panic(fmt.Sprintf("mpi: Alltoallv: buffers of %d and %d values for counts of %d and %d", len(send), len(recv), st, rt))
	}
	defer runtime.KeepAlive(send)
	defer runtime.KeepAlive(recv)
	return check("MPI_Alltoallv", C.MPI_Alltoallv(ptr(send), &sc[0], &sd[0], C.mf_double(), ptr(recv), &rc[0], &rd[0], C.mf_double(), c.c))
}

// Split partitions c by color: the ranks with the same color form a new
// communicator, ranked by key (ties by rank in c). Every rank of c calls
// it.
func (c *Comm) Split(color, key int) (*Comm, error) {
	var out C.MPI_Comm
	if err := check("MPI_Comm_split", C.MPI_Comm_split(c.c, C.int(color), C.int(key), &out)); err != nil {
		return nil, err
	}
	if err := check("MPI_Comm_set_errhandler", C.mf_set_errors_return(out)); err != nil {
		return nil, err
	}
	return wrap(out), nil
}

// Abort ends every rank of the job with the given exit code; it does not
// return.
func (c *Comm) Abort(code int) {
	C.MPI_Abort(c.c, C.int(code))
	// MPI_Abort should not return; if it does, this rank still ends.
	panic("mpi: MPI_Abort returned")
}

// ptr returns the address of a float64 buffer's first value, or nil for an
// empty one (MPI reads nothing there).
func ptr(b []float64) unsafe.Pointer {
	if len(b) == 0 {
		return nil
	}
	return unsafe.Pointer(&b[0])
}

// count converts a buffer length to MPI's int count.
func count(op string, n int) (C.int, error) {
	if n > math.MaxInt32 {
		return 0, fmt.Errorf("mpi: %s of %d values: above MPI's count limit of %d; use more ranks", op, n, math.MaxInt32)
	}
	return C.int(n), nil
}

// layout converts per-rank counts to MPI's counts and displacements and
// returns their total.
func layout(op string, counts []int, size int) (cs, displ []C.int, total int, err error) {
	if len(counts) != size {
		panic(fmt.Sprintf("mpi: %s: %d counts for %d ranks", op, len(counts), size))
	}
	cs, displ = make([]C.int, size), make([]C.int, size)
	for r, n := range counts {
		if n < 0 {
			panic(fmt.Sprintf("mpi: %s: negative count %d for rank %d", op, n, r))
		}
		if cs[r], err = count(op, n); err != nil {
			return nil, nil, 0, err
		}
		if displ[r], err = count(op, total); err != nil {
			return nil, nil, 0, err
		}
		total += n
	}
	return cs, displ, total, nil
}

// check turns an MPI return code into an error naming the call.
func check(op string, rc C.int) error {
	if rc == C.MPI_SUCCESS {
		return nil
	}
	buf := make([]byte, C.MPI_MAX_ERROR_STRING)
	var n C.int
	C.MPI_Error_string(rc, (*C.char)(unsafe.Pointer(&buf[0])), &n)
	return fmt.Errorf("mpi: %s: %s (code %d)", op, string(buf[:n]), int(rc))
}
