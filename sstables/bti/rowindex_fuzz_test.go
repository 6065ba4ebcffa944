package bti

import (
	"encoding/binary"
	"testing"

	"github.com/castable-db/castable/schema"
)

func FuzzRowIndex(f *testing.F) {
	seedIndexFiles(f, "Rows.db")
	f.Fuzz(func(t *testing.T, data []byte, ck []byte) {
		ri := OpenRowIndex(data, "Rows.db")
		key := AppendClustering(nil, []*schema.Type{schema.Text}, [][]byte{ck}, 4)
		// Try the entry at every plausible offset: every u16-length-prefixed
		// key position, bounded.
		for pos := 0; pos+2 <= len(data) && pos < 600; pos++ {
			if int(binary.BigEndian.Uint16(data[pos:]))+pos+2 > len(data) {
				continue
			}
			e, err := ri.Entry(int64(pos))
			checkCorrupt(t, err, ComponentRows, len(data))
			if err != nil {
				continue
			}
			_, err = ri.Verify(e)
			checkCorrupt(t, err, ComponentRows, len(data))
			_, err = ri.Floor(e.Root, key)
			checkCorrupt(t, err, ComponentRows, len(data))
			n := 0
			err = ri.Iterate(e.Root, func(sep []byte, info RowIndexInfo) error {
				n++
				if n > len(data) {
					t.Fatalf("%d entries from %d bytes", n, len(data))
				}
				return nil
			})
			checkCorrupt(t, err, ComponentRows, len(data))
		}
	})
}
