package big

import (
	"bytes"
	"encoding/binary"
	"github.com/castable-db/castable/sstables/internal/rows"
	"io"
	"os"
	"testing"

	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
)

// FuzzSeekClustering gives a scan of a real partition (written with 256-byte
// promoted index blocks and range deletions across blocks) an Index.db entry
// decoded from fuzzed bytes — blocks pointing anywhere, with any bounds and
// open markers — then seeks to a fuzzed clustering, and further, and reads
// to the partition's end. Whatever the entry says, SeekClustering and Next
// must return rows, markers or a CorruptionError, never panic or loop.
func FuzzSeekClustering(f *testing.F) {
	r := writeSeekSSTable(f, []int{300}, 256, 4096)
	f.Cleanup(func() { r.Close() })
	index, err := os.ReadFile(r.desc.Path(sstables.ComponentIndex))
	if err != nil {
		f.Fatal(err)
	}
	for _, target := range []uint32{0, 1, 37, 150, 299, 5000} {
		f.Add(index, target, uint8(target%3), target%2 == 0)
	}
	idec := &indexDecoder{v: r.desc.Version, nClust: len(r.stats.Header.ClusteringTypes), fixed: rows.ClusteringFixed(r.stats.Header.ClusteringTypes)}
	f.Fuzz(func(t *testing.T, index []byte, target uint32, ck2 uint8, short bool) {
		it := newIndexIterator(bytes.NewReader(index), int64(len(index)), 0, "fuzz/Index.db", idec, true)
		e, err := it.next()
		if err != nil {
			return // FuzzReadIndex covers the decoding itself
		}
		sc := scanTo(t, r, seekInt(0))
		defer sc.Close()
		sc.SetRowIndexSource(&entrySource{r, e})
		ck := mutation.Clustering{binary.BigEndian.AppendUint32(nil, target), seekInt(int(ck2))}
		if short {
			ck = ck[:1]
		}
		// Seek twice (the second target after the first), then read to the
		// partition's end.
		for _, c := range []mutation.Clustering{ck, append(mutation.Clustering{binary.BigEndian.AppendUint32(nil, target+7)}, ck[1:]...)} {
			if err := sc.SeekClustering(c); err != nil {
				if !acceptable(err) {
					t.Fatalf("SeekClustering: not a CorruptionError: %v", err)
				}
				return
			}
		}
		for n := 0; ; n++ {
			if n > 10_000 {
				t.Fatal("more unfiltereds than the partition holds")
			}
			row, m, err := sc.Next()
			if err != nil {
				if !acceptable(err) {
					t.Fatalf("Next: not a CorruptionError: %v", err)
				}
				return
			}
			if row == nil && m == nil {
				break
			}
		}
		if _, err := sc.NextPartition(); err != nil && err != io.EOF && !acceptable(err) {
			t.Fatalf("NextPartition: not a CorruptionError: %v", err)
		}
	})
}
