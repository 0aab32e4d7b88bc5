package graph

import "sync"

// progress passes a search's work to Options.Progress one call at a time,
// so that the callback needs no locking and its counts never go back.
type progress struct {
	fn    func(done, total int)
	mu    sync.Mutex
	done  int
	total int
}

func newProgress(fn func(done, total int), total int) *progress {
	if fn == nil {
		return nil
	}
	return &progress{fn: fn, total: total}
}

// add reports d more units of work done.
func (p *progress) add(d int) {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = min(p.done+d, p.total)
	p.fn(p.done, p.total)
	p.mu.Unlock()
}

// finish reports the work complete (NN-descent stops before its last
// possible round).
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	p.done = p.total
	p.fn(p.done, p.total)
	p.mu.Unlock()
}
