package la

import (
	"bytes"
	"testing"

	"github.com/castable-db/castable/sstables"
)

// TestAtomsReencode walks every atom of every real Data.db and Index.db
// entry and checks that encoding what was decoded gives the same bytes.
func TestAtomsReencode(t *testing.T) {
	for _, f := range fixtures {
		t.Run(f.name(), func(t *testing.T) {
			d := f.desc(t)
			data := readData(t, d)
			in := newSliceInput(data, 0, d.Path(sstables.ComponentData), sstables.ComponentData)
			var arena []byte
			var a atom
			partitions, atoms := 0, 0
			for in.remaining() > 0 {
				start := in.offset()
				key, err := in.shortBytes()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := in.next(deletionTimeSize); err != nil {
					t.Fatal(err)
				}
				if len(key) == 0 {
					t.Fatalf("empty key at %d", start)
				}
				for {
					arena = arena[:0]
					off := in.offset()
					ok, err := readAtom(in, &a, &arena)
					if err != nil {
						t.Fatal(err)
					}
					if !ok {
						break
					}
					got := appendAtom(nil, &a)
					if want := data[off:in.offset()]; !bytes.Equal(got, want) {
						t.Fatalf("atom at %d re-encodes to %x, want %x", off, got, want)
					}
					if a.encodedSize() != len(got) {
						t.Fatalf("atom at %d: encodedSize %d, encoded %d", off, a.encodedSize(), len(got))
					}
					atoms++
				}
				partitions++
			}
			t.Logf("%d partitions, %d atoms", partitions, atoms)

			index := readComponent(t, d, sstables.ComponentIndex)
			in = newSliceInput(index, 0, d.Path(sstables.ComponentIndex), sstables.ComponentIndex)
			var e indexEntry
			entries := 0
			for {
				off := in.offset()
				ok, err := readIndexEntry(in, &e, &arena)
				if err != nil {
					t.Fatal(err)
				}
				if !ok {
					break
				}
				var blocks []indexInfo
				if len(e.blocks) > 0 {
					blocks = e.blocks
				}
				got := appendIndexEntry(nil, e.key, e.position, e.deletion, blocks)
				if want := index[off:in.offset()]; !bytes.Equal(got, want) {
					t.Fatalf("index entry at %d re-encodes to %x, want %x", off, got, want)
				}
				entries++
			}
			if entries != partitions {
				t.Fatalf("%d index entries for %d partitions", entries, partitions)
			}
		})
	}
}
