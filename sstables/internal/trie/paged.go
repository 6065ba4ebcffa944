package trie

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
)

// PagedSource reads a trie file through an io.ReaderAt one PageSize page
// at a time (the writer lays branches out so that a lookup passes few
// pages: it reads whole pages, about one per level it has not cached), keeping the most recently used pages (up to a byte budget) so
// that the pages near the root, which every lookup passes, are read once.
// Its memory does not grow with the file. It is safe for concurrent use: a
// page is never modified once read, so a view stays valid after the page is
// evicted.
type PagedSource struct {
	r          io.ReaderAt
	start, end int64
	maxPages   int

	mu    sync.Mutex
	pages map[int64]*cachedPage
	// head is the most recently used page, head.prev the least (a ring).
	head *cachedPage

	read  atomic.Int64 // bytes read from r
	reads atomic.Int64 // ReadAt calls
}

type cachedPage struct {
	index      int64
	data       []byte
	prev, next *cachedPage
}

// PagedSourceOptions configure a PagedSource.
type PagedSourceOptions struct {
	// Start and End bound the trie's bytes in the file (End is usually
	// where what follows the trie starts: Partitions.db's footer keys).
	Start, End int64
	// CacheBytes is the memory kept for pages; 0 means 256 KiB. A value
	// below PageSize keeps no page.
	CacheBytes int
}

// DefaultCacheBytes is PagedSourceOptions.CacheBytes's default.
const DefaultCacheBytes = 256 << 10

// NewPagedSource returns a source over r.
func NewPagedSource(r io.ReaderAt, opts PagedSourceOptions) *PagedSource {
	cache := opts.CacheBytes
	if cache == 0 {
		cache = DefaultCacheBytes
	}
	return &PagedSource{r: r, start: opts.Start, end: opts.End, maxPages: cache / PageSize, pages: map[int64]*cachedPage{}}
}

// Start implements Source.
func (s *PagedSource) Start() int64 { return s.start }

// End implements Source.
func (s *PagedSource) End() int64 { return s.end }

// BytesRead returns the number of bytes read from the file so far, and
// the number of reads.
func (s *PagedSource) BytesRead() (bytes, reads int64) { return s.read.Load(), s.reads.Load() }

// View implements Source: the rest of pos's page when that holds need
// bytes (or the data ends in it), else the need bytes joined from the
// cached pages they lie in (without a cache, read apart).
func (s *PagedSource) View(pos int64, need int) ([]byte, error) {
	if pos < s.start || pos >= s.end {
		return nil, errorf(pos, "position outside the trie [%d, %d)", s.start, s.end)
	}
	idx := pos / PageSize
	pageStart := idx * PageSize
	pageEnd := min(pageStart+PageSize, s.end)
	if pos+int64(need) > pageEnd && pageEnd < s.end {
		// Across a page boundary: rare (the page-aware writer lets only
		// the parent of a branch larger than a page straddle two), or a
		// damaged or foreign file. The pages come through the cache like
		// any other, so a straddling node near the root, which every
		// lookup passes, costs no read after the first.
		n := min(int64(need), s.end-pos)
		b := make([]byte, 0, n)
		if s.maxPages == 0 {
			b = b[:n]
			if err := s.readAt(b, pos); err != nil {
				return nil, err
			}
			return b, nil
		}
		for at := pos; int64(len(b)) < n; {
			i := at / PageSize
			ps, pe := i*PageSize, min((i+1)*PageSize, s.end)
			p, err := s.page(i, ps, pe)
			if err != nil {
				return nil, err
			}
			take := min(n-int64(len(b)), pe-at)
			b = append(b, p[at-ps:at-ps+take]...)
			at += take
		}
		return b, nil
	}
	p, err := s.page(idx, pageStart, pageEnd)
	if err != nil {
		return nil, err
	}
	return p[pos-pageStart:], nil
}

func (s *PagedSource) readAt(b []byte, off int64) error {
	s.reads.Add(1)
	n, err := s.r.ReadAt(b, off)
	s.read.Add(int64(n))
	if n == len(b) {
		return nil
	}
	if err == nil || errors.Is(err, io.EOF) {
		return errorf(off+int64(n), "file ends %d bytes into a read of %d at %d", n, len(b), off)
	}
	return fmt.Errorf("trie: reading %d bytes at %d: %w", len(b), off, err)
}

// page returns page idx ([start, end) of the file), from the cache or read.
func (s *PagedSource) page(idx, start, end int64) ([]byte, error) {
	s.mu.Lock()
	if p := s.pages[idx]; p != nil {
		s.touch(p)
		s.mu.Unlock()
		return p.data, nil
	}
	s.mu.Unlock()
	b := make([]byte, end-start)
	if err := s.readAt(b, start); err != nil {
		return nil, err
	}
	if s.maxPages == 0 {
		return b, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if p := s.pages[idx]; p != nil { // read meanwhile by another lookup
		s.touch(p)
		return p.data, nil
	}
	p := &cachedPage{index: idx, data: b}
	if len(s.pages) >= s.maxPages {
		lru := s.head.prev
		s.unlink(lru)
		delete(s.pages, lru.index)
	}
	s.pages[idx] = p
	s.pushFront(p)
	return b, nil
}

func (s *PagedSource) touch(p *cachedPage) {
	if s.head == p {
		return
	}
	s.unlink(p)
	s.pushFront(p)
}

func (s *PagedSource) unlink(p *cachedPage) {
	if p.next == p {
		s.head = nil
	} else {
		p.prev.next, p.next.prev = p.next, p.prev
		if s.head == p {
			s.head = p.next
		}
	}
	p.prev, p.next = nil, nil
}

func (s *PagedSource) pushFront(p *cachedPage) {
	if s.head == nil {
		p.prev, p.next = p, p
	} else {
		p.next, p.prev = s.head, s.head.prev
		s.head.prev.next = p
		s.head.prev = p
	}
	s.head = p
}

var _ Source = (*PagedSource)(nil)
