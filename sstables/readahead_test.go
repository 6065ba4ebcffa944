package sstables

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/castable-db/castable/compress"
)

// streamOp applies one random operation to s and describes what it saw,
// so that two streams over the same content can be compared step by step.
func streamOp(s *DataStream, op, arg int) string {
	switch op {
	case 0: // Read
		buf := make([]byte, arg)
		n, err := io.ReadFull(s, buf)
		return fmt.Sprintf("read %d %x %v @%d", n, buf[:n], err, s.Position())
	case 1: // ReadByte
		b, err := s.ReadByte()
		return fmt.Sprintf("byte %d %v @%d", b, err, s.Position())
	case 2: // Seek from the start
		p, err := s.Seek(int64(arg), io.SeekStart)
		return fmt.Sprintf("seek %d %v", p, err)
	case 3: // Seek relative, backwards or forwards
		p, err := s.Seek(int64(arg)-20_000, io.SeekCurrent)
		return fmt.Sprintf("seekcur %d %v", p, err)
	default: // Seek from the end
		p, err := s.Seek(-int64(arg), io.SeekEnd)
		return fmt.Sprintf("seekend %d %v", p, err)
	}
}

// TestReadAheadStreamMatchesStream cross-checks the read-ahead stream
// against the plain one: whole reads, random reads, bytes and seeks in
// every direction give the same bytes, positions and errors.
func TestReadAheadStreamMatchesStream(t *testing.T) {
	data := rowBytes(300_000, 5)
	for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
		file, res := writeData(t, data, DataWriterOptions{Compression: compress.Params{Codec: codec, ChunkLength: 4096}}, 3)
		r, err := NewDataReader(bytes.NewReader(file), int64(len(file)), "Data.db", res.CompressionInfo, res.CRC, DataReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, depth := range []int{1, 2, 4} {
			t.Run(fmt.Sprintf("codec=%s/depth=%d", codec, depth), func(t *testing.T) {
				s := r.NewReadAheadStream(0, depth)
				got, err := io.ReadAll(s)
				if err != nil || !bytes.Equal(got, data) {
					t.Fatalf("ReadAll: %d bytes, %v; want the %d written", len(got), err, len(data))
				}
				s.Close()
				rng := rand.New(rand.NewPCG(uint64(depth), 9))
				plain, ahead := r.NewStream(0), r.NewReadAheadStream(0, depth)
				defer ahead.Close()
				for i := 0; i < 3000; i++ {
					op := rng.IntN(10)
					if op > 4 {
						op = 0 // mostly reads, as a scan does
					}
					arg := rng.IntN(40_000)
					if want, got := streamOp(plain, op, arg), streamOp(ahead, op, arg); got != want {
						t.Fatalf("step %d: read-ahead stream gave %.200s, plain stream %.200s", i, got, want)
					}
				}
			})
		}
	}
}

// TestReadAheadStreamCorruption: a damaged chunk gives the read-ahead
// stream the same CorruptionError as the plain one, and again when asked
// for the same bytes.
func TestReadAheadStreamCorruption(t *testing.T) {
	data := rowBytes(100_000, 6)
	for _, codec := range []compress.Codec{compress.None, compress.LZ4} {
		file, res := writeData(t, data, DataWriterOptions{Compression: compress.Params{Codec: codec, ChunkLength: 4096}}, 4)
		bad := bytes.Clone(file)
		bad[len(bad)*2/3] ^= 0x10
		r, err := NewDataReader(bytes.NewReader(bad), int64(len(bad)), "Data.db", res.CompressionInfo, res.CRC, DataReaderOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_, want := io.ReadAll(r.NewStream(0))
		var wce *CorruptionError
		if !errors.As(want, &wce) {
			t.Fatalf("%v: plain stream: %v, want a CorruptionError", codec, want)
		}
		s := r.NewReadAheadStream(0, 2)
		got, err := io.ReadAll(s)
		var gce *CorruptionError
		if !errors.As(err, &gce) || gce.Offset != wce.Offset || gce.Reason != wce.Reason {
			t.Fatalf("%v: read-ahead stream: %v, want %v", codec, err, want)
		}
		if !bytes.Equal(got, data[:len(got)]) {
			t.Fatalf("%v: the bytes before the damage differ", codec)
		}
		if _, err := io.ReadAll(s); !errors.As(err, &gce) || gce.Offset != wce.Offset {
			t.Fatalf("%v: reading again: %v, want %v", codec, err, want)
		}
		s.Close()
	}
}

// readAheadGoroutines counts the read-ahead goroutines alive, waiting up
// to 5 s (and collecting garbage, for the cleanups) for there to be at
// most n.
func readAheadGoroutines(n int) int {
	deadline := time.Now().Add(5 * time.Second)
	buf := make([]byte, 1<<20)
	for {
		runtime.GC()
		got := bytes.Count(buf[:runtime.Stack(buf, true)], []byte("(*readAhead).run"))
		if got <= n || time.Now().After(deadline) {
			return got
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReadAheadStreamStops: Close stops the goroutine (the stream still
// reads, synchronously), and so does dropping a stream without Close.
func TestReadAheadStreamStops(t *testing.T) {
	data := rowBytes(200_000, 7)
	file, res := writeData(t, data, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 4096}}, 5)
	r, err := NewDataReader(bytes.NewReader(file), int64(len(file)), "Data.db", res.CompressionInfo, res.CRC, DataReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := readAheadGoroutines(0); n != 0 {
		t.Fatalf("%d read-ahead goroutines before the test", n)
	}
	s := r.NewReadAheadStream(0, 3)
	buf := make([]byte, 10_000)
	if _, err := io.ReadFull(s, buf); err != nil {
		t.Fatal(err)
	}
	if n := readAheadGoroutines(1); n != 1 {
		t.Fatalf("%d read-ahead goroutines while reading, want 1", n)
	}
	s.Close()
	if n := readAheadGoroutines(0); n != 0 {
		t.Errorf("%d read-ahead goroutines after Close", n)
	}
	rest, err := io.ReadAll(s)
	if err != nil || !bytes.Equal(rest, data[10_000:]) {
		t.Fatalf("reading after Close: %d bytes, %v", len(rest), err)
	}
	func() {
		s := r.NewReadAheadStream(0, 3)
		if _, err := io.ReadFull(s, buf); err != nil {
			t.Fatal(err)
		}
	}()
	if n := readAheadGoroutines(0); n != 0 {
		t.Errorf("%d read-ahead goroutines after dropping a stream without Close", n)
	}
}

// TestCheckPartitionKeyAt: the key at a position is checked by its length
// and bytes; a mismatch or a position too near the end is a corruption of
// Index.db at the entry's offset.
func TestCheckPartitionKeyAt(t *testing.T) {
	content := append([]byte{0, 3, 'k', 'e', 'y', 9, 9}, 0, 2, 'k', 'e')
	file, res := writeData(t, content, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 4096}}, 1)
	r, err := NewDataReader(bytes.NewReader(file), int64(len(file)), "Data.db", res.CompressionInfo, res.CRC, DataReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := CheckPartitionKeyAt(r, 0, []byte("key"), "Index.db", 5); err != nil {
		t.Fatalf("the right key: %v", err)
	}
	for _, c := range []struct {
		pos int64
		key string
	}{{0, "kez"}, {0, "ke"}, {7, "key"}, {7, "kex"}} {
		err := CheckPartitionKeyAt(r, c.pos, []byte(c.key), "Index.db", 5)
		var ce *CorruptionError
		if !errors.As(err, &ce) || ce.Component != string(ComponentIndex) || ce.Offset != 5 {
			t.Errorf("key %q at %d: %v, want an Index.db CorruptionError at offset 5", c.key, c.pos, err)
		}
	}
}
