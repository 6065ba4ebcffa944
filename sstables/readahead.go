package sstables

import (
	"runtime"
	"sync"

	"github.com/castable-db/castable/compress"
)

// readAhead loads the chunks after the one a DataStream is reading on a
// goroutine of its own — the read, the checksum and the decompression of
// chunk i+1 overlap the decoding of chunk i's rows. depth+1 chunk buffers
// circulate: the consumer holds one, up to depth wait in ready, and the
// goroutine takes the next from free.
type readAhead struct {
	r     *DataReader
	next  int // the chunk the consumer receives next
	ready chan loadedChunk
	free  chan *chunkCache
	stop  chan struct{}
	done  chan struct{} // closed when the goroutine has returned
	once  sync.Once
}

// loadedChunk is one chunk the goroutine loaded, or the error loading it
// gave (the goroutine stops after an error).
type loadedChunk struct {
	c   *chunkCache
	err error
}

func (r *DataReader) startReadAhead(from, depth int) *readAhead {
	ra := &readAhead{
		r:     r,
		next:  from,
		ready: make(chan loadedChunk, depth),
		free:  make(chan *chunkCache, depth+1),
		stop:  make(chan struct{}),
		done:  make(chan struct{}),
	}
	for range depth + 1 {
		ra.free <- &chunkCache{idx: -1}
	}
	go ra.run(from)
	return ra
}

func (ra *readAhead) run(i int) {
	defer close(ra.done)
	// The buffers share one decompressor: only this goroutine decodes.
	var comp compress.Compressor
	for ; i < ra.r.nchunks; i++ {
		var c *chunkCache
		select {
		case c = <-ra.free:
		case <-ra.stop:
			return
		}
		if c.comp == nil {
			c.comp = comp
		}
		err := ra.r.load(c, i)
		comp = c.comp
		select {
		case ra.ready <- loadedChunk{c, err}:
		case <-ra.stop:
			return
		}
		if err != nil {
			return
		}
	}
}

// close stops the goroutine and waits for it; it may be called again.
func (ra *readAhead) close() {
	ra.once.Do(func() { close(ra.stop) })
	<-ra.done
}

// readAheadBox holds a stream's current read-ahead so that a cleanup can
// stop it when the stream is dropped without Close (the goroutine does
// not reference the stream, so the stream can become unreachable).
type readAheadBox struct {
	mu sync.Mutex
	ra *readAhead
}

func (b *readAheadBox) set(ra *readAhead) {
	b.mu.Lock()
	old := b.ra
	b.ra = ra
	b.mu.Unlock()
	if old != nil {
		old.close()
	}
}

// NewReadAheadStream returns a DataStream positioned at off that loads up
// to depth chunks ahead of the reader on a goroutine of its own, started
// by the first read. Reading backwards or far forwards restarts it at the
// new place; an error stops it (the stream then reads synchronously, and
// returns the same error again if asked for the same chunk). Close stops
// the goroutine; a stream dropped without Close stops it when collected.
// depth < 1 gives a plain stream.
func (r *DataReader) NewReadAheadStream(off int64, depth int) *DataStream {
	s := r.NewStream(off)
	if depth < 1 {
		return s
	}
	s.depth = depth
	s.box = &readAheadBox{}
	runtime.AddCleanup(s, func(b *readAheadBox) { b.set(nil) }, s.box)
	return s
}

// fillAhead makes chunk i current through the read-ahead goroutine. After
// an error the stream reads synchronously.
func (s *DataStream) fillAhead(i int) error {
	ra := s.box.ra
	if ra == nil || i != ra.next {
		s.held = nil
		ra = s.r.startReadAhead(i, s.depth)
		s.box.set(ra)
	}
	if s.held != nil {
		ra.free <- s.held // never blocks: there are only depth+1 buffers
		s.held = nil
	}
	l := <-ra.ready
	if l.err != nil {
		s.box.set(nil)
		s.depth = 0
		s.chunk, s.cur = nil, nil
		return l.err
	}
	ra.next++
	s.held = l.c
	s.start = int64(i) * s.r.chunk
	s.chunk = l.c.buf
	s.cur = s.chunk[s.pos-s.start:]
	return nil
}

// Close stops the stream's read-ahead goroutine, if it has one. The
// stream stays usable (synchronously).
func (s *DataStream) Close() error {
	if s.box != nil {
		s.box.set(nil)
		s.held = nil
		s.depth = 0
	}
	return nil
}
