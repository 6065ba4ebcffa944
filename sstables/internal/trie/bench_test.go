package trie

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand"
	"testing"
)

// sequentialKeys returns n sorted keys shaped like Murmur3 partition keys:
// 40, 8 token bytes, 40, a short escaped key, 38.
func sequentialKeys(n int) [][]byte {
	r := rand.New(rand.NewSource(1))
	toks := make([]uint64, n)
	for i := range toks {
		toks[i] = r.Uint64()
	}
	sortU64(toks)
	keys := make([][]byte, n)
	for i, t := range toks {
		k := []byte{0x40}
		k = binary.BigEndian.AppendUint64(k, t)
		k = append(k, 0x40)
		k = fmt.Appendf(k, "key%d", i)
		k = append(k, 0x00, 0x38)
		keys[i] = k
	}
	return keys
}

func sortU64(a []uint64) {
	// simple radix-free sort via sort.Slice equivalent
	quick(a, 0, len(a)-1)
}

func quick(a []uint64, lo, hi int) {
	for lo < hi {
		p := a[(lo+hi)/2]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		if j-lo < hi-i {
			quick(a, lo, j)
			lo = i
		} else {
			quick(a, i, hi)
			hi = j
		}
	}
}

func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{10_000, 1_000_000} {
		keys := sequentialKeys(n)
		total := 0
		for _, k := range keys {
			total += len(k)
		}
		payload := []byte{0x12, 0xff, 0x34, 0x56}
		b.Run(fmt.Sprintf("impl=trie/size=%d", n), func(b *testing.B) {
			b.SetBytes(int64(total))
			b.ReportAllocs()
			w := NewWriter(io.Discard, 0)
			for i := 0; i < b.N; i++ {
				w.Reset()
				for _, k := range keys {
					if err := w.Add(k, 11, payload); err != nil {
						b.Fatal(err)
					}
				}
				if _, err := w.Complete(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N*n)/b.Elapsed().Seconds(), "keys/s")
		})
	}
}

func BenchmarkLookup(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		keys := sequentialKeys(n)
		var buf bytes.Buffer
		w := NewWriter(&buf, 0)
		for _, k := range keys {
			w.Add(k, 11, []byte{1, 2, 3, 4})
		}
		root, _ := w.Complete()
		w.Flush()
		tr := New(buf.Bytes())
		r := rand.New(rand.NewSource(2))
		b.Run(fmt.Sprintf("impl=exact/size=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, ok, err := tr.Exact(root, keys[r.Intn(n)]); !ok || err != nil {
					b.Fatal("miss")
				}
			}
		})
		b.Run(fmt.Sprintf("impl=floor/size=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				k := keys[r.Intn(n)]
				if _, _, err := tr.Floor(root, k[:len(k)-3]); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
