package reliability

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"hash/fnv"
	"io"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// Probe is what reading one SSTable through the library gave: the first
// error of each stage and a fingerprint of everything read before it.
type Probe struct {
	// Open is the error of Format.Open (the other stages do not run when
	// it fails).
	Open error
	// Scan is the first error of a full scan (every partition, row and
	// marker), read with chunk checksums off so that the decoders see the
	// damaged bytes.
	Scan error
	// Get is the first error of the lookups (Get of every key the sound
	// SSTable holds, or a sample of them for large SSTables).
	Get error
	// Verify is the error of Reader.Verify.
	Verify error
	// Fingerprint hashes the partitions, rows, markers and cells the scan
	// and the lookups returned (a key Get did not find included).
	Fingerprint uint64
	// Keys are the partition keys the scan returned, in order.
	Keys [][]byte
}

// ReadError returns the first error of Open, Scan and Get.
func (p *Probe) ReadError() error {
	for _, err := range []error{p.Open, p.Scan, p.Get} {
		if err != nil {
			return err
		}
	}
	return nil
}

// FirstError returns the first error of any stage.
func (p *Probe) FirstError() error {
	if err := p.ReadError(); err != nil {
		return err
	}
	return p.Verify
}

// ProbeLibrary opens the SSTable desc of format f through fsys, scans it,
// looks up keys and verifies it.
func ProbeLibrary(s *SSTable, fsys sstables.FS, desc sstables.Descriptor, keys [][]byte) Probe {
	var p Probe
	h := fnv.New64a()
	r, err := s.Format.Open(desc, s.Table, sstables.ReaderOptions{FS: fsys, CRCCheckChance: -1})
	if err != nil {
		p.Open = err
		return p
	}
	defer r.Close()
	p.Keys, p.Scan = scanAll(r, h)
	for _, key := range keys {
		part, err := r.Get(key)
		if err != nil {
			p.Get = err
			break
		}
		if part == nil {
			h.Write([]byte("absent"))
			h.Write(key)
			continue
		}
		hashPartition(h, part)
		for i := range part.Rows {
			hashRow(h, &part.Rows[i])
		}
		for i := range part.Markers {
			hashMarker(h, &part.Markers[i])
		}
	}
	p.Verify = r.Verify()
	p.Fingerprint = h.Sum64()
	return p
}

// scanAll reads every partition of r into h and returns the keys.
func scanAll(r sstables.Reader, h hash.Hash64) ([][]byte, error) {
	sc, err := r.Scan()
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	var keys [][]byte
	for {
		part, err := sc.NextPartition()
		if err == io.EOF {
			return keys, nil
		}
		if err != nil {
			return keys, err
		}
		keys = append(keys, append([]byte(nil), part.Key...))
		hashPartition(h, part)
		for {
			row, m, err := sc.Next()
			if err != nil {
				return keys, err
			}
			switch {
			case row != nil:
				hashRow(h, row)
			case m != nil:
				hashMarker(h, m)
			default:
				goto next
			}
		}
	next:
	}
}

func hashInts(h hash.Hash64, vs ...int64) {
	var b [8]byte
	for _, v := range vs {
		binary.LittleEndian.PutUint64(b[:], uint64(v))
		h.Write(b[:])
	}
}

func hashBytes(h hash.Hash64, b []byte) {
	hashInts(h, int64(len(b)))
	if b == nil {
		hashInts(h, -1)
	}
	h.Write(b)
}

func hashDeletion(h hash.Hash64, d mutation.DeletionTime) {
	hashInts(h, d.MarkedForDeleteAt, int64(d.LocalDeletionTime))
}

func hashPartition(h hash.Hash64, p *mutation.Partition) {
	h.Write([]byte("P"))
	hashBytes(h, p.Key)
	hashInts(h, int64(p.Token.Prefix()))
	hashDeletion(h, p.Deletion)
	hashRow(h, &p.Static)
}

func hashRow(h hash.Hash64, r *mutation.Row) {
	h.Write([]byte("R"))
	hashInts(h, int64(len(r.Clustering)))
	for _, c := range r.Clustering {
		hashBytes(h, c)
	}
	hashInts(h, r.Liveness.Timestamp, int64(r.Liveness.TTL), int64(r.Liveness.LocalExpirationTime))
	hashDeletion(h, r.Deletion)
	hashDeletion(h, r.ShadowableDeletion)
	if r.DeletionShadowable {
		h.Write([]byte("s"))
	}
	for i := range r.Cells {
		c := &r.Cells[i]
		if c.Column != nil {
			h.Write([]byte(c.Column.Name))
		}
		hashBytes(h, c.Path)
		hashBytes(h, c.Value)
		hashInts(h, c.Timestamp, int64(c.TTL), int64(c.LocalDeletionTime))
	}
	for _, d := range r.ComplexDeletions {
		if d.Column != nil {
			h.Write([]byte(d.Column.Name))
		}
		hashDeletion(h, d.Deletion)
	}
}

func hashMarker(h hash.Hash64, m *mutation.RangeTombstoneMarker) {
	h.Write([]byte("M"))
	hashInts(h, int64(m.Kind), int64(len(m.Clustering)))
	for _, c := range m.Clustering {
		hashBytes(h, c)
	}
	hashDeletion(h, m.Close)
	hashDeletion(h, m.Open)
}

// Guarded is the outcome of running a probe under guard: its result, or the
// panic, hang or allocation that stopped it.
type Guarded[T any] struct {
	Result T
	// Panic is the recovered panic value and stack ("" when none).
	Panic string
	// Hung is set when the probe did not return within the timeout; it
	// keeps running in the background.
	Hung bool
	// Alloc is the number of heap bytes allocated while the probe ran (by
	// the whole process: probes must run one at a time for it to mean
	// something).
	Alloc uint64
}

// Guard runs fn on its own goroutine, recovering a panic, giving up after
// timeout, and measuring the heap bytes allocated meanwhile.
func Guard[T any](timeout time.Duration, fn func() T) Guarded[T] {
	done := make(chan Guarded[T], 1)
	go func() {
		var g Guarded[T]
		before := allocatedBytes()
		defer func() {
			if v := recover(); v != nil {
				g.Panic = fmt.Sprintf("%v\n%s", v, debug.Stack())
			}
			g.Alloc = allocatedBytes() - before
			done <- g
		}()
		g.Result = fn()
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case g := <-done:
		return g
	case <-timer.C:
		return Guarded[T]{Hung: true}
	}
}

// allocSample reads the cumulative heap allocation counter (cheaper than
// runtime.ReadMemStats, which stops the world).
var allocSample = []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}

func allocatedBytes() uint64 {
	s := []metrics.Sample{allocSample[0]}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// corruptionOf returns the CorruptionError in err's chain, or nil.
func corruptionOf(err error) *sstables.CorruptionError {
	var ce *sstables.CorruptionError
	if errors.As(err, &ce) {
		return ce
	}
	return nil
}
