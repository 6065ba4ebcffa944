package sstables

import (
	"sync"

	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/compress"
)

// chunkPool compresses chunks on worker goroutines while the DataWriter
// writes the results strictly in order.
//
// It owns a ring of jobs·slotsPerJob slots. The writer fills the slot after
// the in-flight ones, submits it, and when every slot is in flight waits for
// the oldest, writes it out and reuses it: memory is bounded, the writer
// blocks when the workers fall behind (back-pressure), and nothing is
// allocated per chunk. Each worker owns one compressor.
type chunkPool struct {
	slots  []*chunkSlot
	head   int // index of the oldest in-flight slot
	count  int // in-flight slots
	work   chan *chunkSlot
	wg     sync.WaitGroup
	closed bool
}

func newChunkPool(jobs, chunkLen, maxStored int, cs checksummer.Checksummer, newComp func() (compress.Compressor, error)) (*chunkPool, error) {
	comps := make([]compress.Compressor, jobs)
	for i := range comps {
		c, err := newComp()
		if err != nil {
			return nil, err
		}
		comps[i] = c
	}
	n := jobs * slotsPerJob
	p := &chunkPool{slots: make([]*chunkSlot, n), work: make(chan *chunkSlot, n)}
	maxOut := comps[0].MaxCompressedLen(chunkLen)
	for i := range p.slots {
		p.slots[i] = &chunkSlot{
			src:  make([]byte, 0, chunkLen),
			dst:  make([]byte, 0, maxOut),
			done: make(chan struct{}, 1),
		}
	}
	p.wg.Add(jobs)
	for _, c := range comps {
		go p.worker(c, cs, maxStored)
	}
	return p, nil
}

func (p *chunkPool) worker(c compress.Compressor, cs checksummer.Checksummer, maxStored int) {
	defer p.wg.Done()
	for s := range p.work {
		s.dst, s.err = c.Compress(s.dst[:0], s.src)
		if s.err == nil {
			s.out = storedChunk(s.dst, s.src, maxStored)
			s.sum = cs.Update(cs.Init(), s.out)
		}
		s.done <- struct{}{}
	}
}

// acquire returns an empty slot to fill, first writing out the oldest
// chunk through write when every slot is in flight.
func (p *chunkPool) acquire(write func([]byte, uint32, error)) (*chunkSlot, error) {
	if p.closed {
		return nil, errAborted
	}
	if p.count == len(p.slots) {
		p.drainOne(write)
	}
	s := p.slots[(p.head+p.count)%len(p.slots)]
	s.src = s.src[:0]
	s.err = nil
	return s, nil
}

// submit queues the slot returned by the last acquire.
func (p *chunkPool) submit(s *chunkSlot) {
	p.count++
	p.work <- s
}

// release gives back an acquired slot that was not submitted.
func (p *chunkPool) release(s *chunkSlot) { s.src = s.src[:0] }

// drainOne waits for the oldest in-flight chunk and writes it.
func (p *chunkPool) drainOne(write func([]byte, uint32, error)) {
	s := p.slots[p.head]
	<-s.done
	p.head = (p.head + 1) % len(p.slots)
	p.count--
	write(s.out, s.sum, s.err)
}

// drain writes every in-flight chunk in order.
func (p *chunkPool) drain(write func([]byte, uint32, error)) error {
	for p.count > 0 {
		p.drainOne(write)
	}
	return nil
}

// close stops the workers after the queued chunks; it is idempotent.
func (p *chunkPool) close() {
	if p.closed {
		return
	}
	p.closed = true
	close(p.work)
	p.wg.Wait()
	// Consume completion signals of chunks nobody will write.
	for p.count > 0 {
		<-p.slots[p.head].done
		p.head = (p.head + 1) % len(p.slots)
		p.count--
	}
}
