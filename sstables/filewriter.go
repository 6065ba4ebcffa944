package sstables

import (
	"bufio"
	"errors"
	"io"
	"os"
	"sync"
	"syscall"
	"unsafe"
)

// dataOut is where a DataWriter puts the bytes of Data.db: a buffered
// writer, or a backgroundWriter for OS files.
type dataOut interface {
	io.Writer
	// Flush writes everything buffered (the DataWriter's last call).
	Flush() error
	// Stop ends any background work without flushing (Abort).
	Stop()
}

// bufferedOut is a bufio.Writer as a dataOut.
type bufferedOut struct{ *bufio.Writer }

func (bufferedOut) Stop() {}

const (
	// backgroundBufferSize is the size of the writes a backgroundWriter
	// issues once the file is large; the first pieces are smaller
	// (firstBackgroundBuffer, doubling), so that a small file costs little
	// memory.
	backgroundBufferSize  = 1 << 20
	firstBackgroundBuffer = 64 << 10
	// backgroundBuffers is the number of buffers of a backgroundWriter: one
	// being filled, the others written or waiting to be.
	backgroundBuffers = 4
	// directAlignment is the alignment of direct I/O: buffer addresses,
	// file offsets and lengths are multiples of it (the largest logical
	// block size of common devices).
	directAlignment = 4096
)

// errDirectUnsupported is returned by setDirectIO where direct I/O does not
// exist.
var errDirectUnsupported = errors.New("sstables: direct I/O not supported")

// backgroundWriter writes a file from a goroutine of its own in large
// aligned pieces, so that the caller (the partition sink's goroutine)
// never waits for the kernel or the disk unless it runs a few MiB ahead.
//
// When the file allows it (Linux O_DIRECT, set on the open file), the full
// pieces bypass the page cache: the device reads them straight from the
// buffers, which costs neither the copy into the page cache nor the
// kernel's writeback, and leaves nothing for the final fsync but the last
// piece and the metadata. The last, partial piece is written with direct
// I/O switched off again (its length is not a multiple of the alignment).
// A file that refuses direct I/O is written through the page cache.
//
// Write errors are sticky and reported by the next Write or by Flush.
type backgroundWriter struct {
	w      io.Writer // the file as the caller sees it (its Write counts and hints)
	osFile *os.File  // for switching direct I/O, or nil

	cur       []byte
	full      chan []byte
	free      chan []byte
	done      chan struct{}
	stopped   bool
	allocated int // buffers made so far
	size      int // size of the next buffer made

	mu  sync.Mutex
	err error

	direct bool // owned by the goroutine
}

// osFileOf returns the OS file under w: an OS file of OSFS, or a FileSet
// component over one. Only those are written in the background: they accept
// writes from any goroutine and do blocking I/O worth taking off the
// caller's goroutine.
func osFileOf(w io.Writer) *os.File {
	switch f := w.(type) {
	case osFile:
		return f.File
	case *setFile:
		if of, ok := f.File.(osFile); ok {
			return of.File
		}
	}
	return nil
}

// newBackgroundWriter starts writing to w, whose OS file is f, trying
// direct I/O when direct is set.
func newBackgroundWriter(w io.Writer, f *os.File, direct bool) *backgroundWriter {
	b := &backgroundWriter{
		w:    w,
		full: make(chan []byte, backgroundBuffers),
		free: make(chan []byte, backgroundBuffers),
		done: make(chan struct{}),
	}
	if direct && setDirectIO(f, true) == nil {
		b.osFile = f
		b.direct = true
	}
	b.size = firstBackgroundBuffer
	b.cur = b.nextBuffer()
	go b.run()
	return b
}

// nextBuffer returns an empty buffer to fill: a new one while fewer than
// backgroundBuffers exist, else one the goroutine has written, replaced by
// a larger one while the sizes still grow.
func (b *backgroundWriter) nextBuffer() []byte {
	var buf []byte
	if b.allocated < backgroundBuffers {
		b.allocated++
	} else {
		buf = <-b.free
	}
	if cap(buf) < b.size {
		buf = alignedBuffer(b.size)
	}
	b.size = min(2*b.size, backgroundBufferSize)
	return buf[:0]
}

// alignedBuffer returns an empty buffer of capacity n whose first byte is
// aligned for direct I/O.
func alignedBuffer(n int) []byte {
	raw := make([]byte, n+directAlignment)
	off := int(-uintptr(unsafe.Pointer(unsafe.SliceData(raw))) & (directAlignment - 1))
	return raw[off : off : off+n]
}

func (b *backgroundWriter) Err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.err
}

func (b *backgroundWriter) fail(err error) {
	b.mu.Lock()
	if b.err == nil {
		b.err = err
	}
	b.mu.Unlock()
}

// Write buffers p, handing every full buffer to the goroutine.
func (b *backgroundWriter) Write(p []byte) (int, error) {
	if b.stopped {
		return 0, errAborted
	}
	n := len(p)
	for len(p) > 0 {
		k := copy(b.cur[len(b.cur):cap(b.cur)], p)
		b.cur = b.cur[:len(b.cur)+k]
		p = p[k:]
		if len(b.cur) == cap(b.cur) {
			b.full <- b.cur
			b.cur = b.nextBuffer()
		}
	}
	if err := b.Err(); err != nil {
		return 0, err
	}
	return n, nil
}

// Flush hands over the last bytes and waits until everything is written.
// The writer cannot be used afterwards.
func (b *backgroundWriter) Flush() error {
	if b.stopped {
		return errAborted
	}
	if len(b.cur) > 0 {
		b.full <- b.cur
	}
	b.cur = nil
	b.stop()
	return b.Err()
}

// Stop ends the goroutine after the pieces handed over, without writing
// the buffered rest.
func (b *backgroundWriter) Stop() {
	if !b.stopped {
		b.fail(errAborted)
		b.stop()
	}
}

func (b *backgroundWriter) stop() {
	b.stopped = true
	close(b.full)
	<-b.done
	if b.direct {
		setDirectIO(b.osFile, false)
	}
}

// run is the goroutine: it writes the pieces in order.
func (b *backgroundWriter) run() {
	defer close(b.done)
	for buf := range b.full {
		if b.Err() == nil {
			if err := b.write(buf); err != nil {
				b.fail(err)
			}
		}
		if len(buf) == cap(buf) {
			b.free <- buf // never blocks: the channel holds every buffer
		}
	}
}

// write writes one piece: a full buffer (with direct I/O when on) or the
// last, partial one (its aligned part direct, the rest through the page
// cache).
func (b *backgroundWriter) write(buf []byte) error {
	if b.direct && len(buf)%directAlignment != 0 {
		aligned := len(buf) &^ (directAlignment - 1)
		if aligned > 0 {
			if _, err := b.w.Write(buf[:aligned]); err != nil {
				return err
			}
			buf = buf[aligned:]
		}
		b.direct = false
		if err := setDirectIO(b.osFile, false); err != nil {
			return err
		}
	}
	_, err := b.w.Write(buf)
	if err != nil && b.direct && errors.Is(err, syscall.EINVAL) {
		// The filesystem took O_DIRECT but refuses these writes (an
		// alignment it needs beyond ours): write through the page cache.
		b.direct = false
		if err := setDirectIO(b.osFile, false); err != nil {
			return err
		}
		_, err = b.w.Write(buf)
	}
	return err
}
