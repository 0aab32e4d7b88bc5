package dist

// ShardPool pools statistics over the ranks of c, each holding one shard
// of a data set's samples: model.Pool for model.PrepareShard. On a grid
// the ranks of a grid row hold every sample block once, so GridComms.Row
// is the communicator to pool over.
type ShardPool struct{ C Comm }

// Sum replaces x by its element-wise sum over the ranks.
func (p ShardPool) Sum(x []float64) error { return p.C.AllreduceSum(x) }

// Max replaces x by its element-wise maximum over the ranks.
func (p ShardPool) Max(x []float64) error {
	n := p.C.Size()
	all := make([]float64, n*len(x))
	counts := make([]int, n)
	for r := range counts {
		counts[r] = len(x)
	}
	if err := p.C.Allgatherv(x, all, counts); err != nil {
		return err
	}
	for r := 0; r < n; r++ {
		for q, y := range all[r*len(x) : (r+1)*len(x)] {
			x[q] = max(x[q], y)
		}
	}
	return nil
}
