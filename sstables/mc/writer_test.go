package mc

import (
	"bytes"
	"os"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// writeDecoded writes decoded partitions with the Writer, using the
// reference header's EncodingStats and columns.
func writeDecoded(t *testing.T, table *schema.Table, st *Statistics, parts []decodedPartition, opts sstables.WriterOptions) (*sstables.WriteResult, sstables.Descriptor) {
	t.Helper()
	h := st.Header
	static, _ := headerColumns(table, h.Static, schema.Static)
	regular, _ := headerColumns(table, h.Regular, schema.Regular)
	cols := append(append([]*schema.Column{}, static...), regular...)
	if cols == nil {
		cols = []*schema.Column{}
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	opts.Generation = 1
	opts.Stats = sstables.DataStats{Known: true, MinTimestamp: h.Stats.MinTimestamp,
		MinLocalDeletionTime: h.Stats.MinLocalDeletionTime, MinTTL: h.Stats.MinTTL, Columns: cols}
	opts.ScyllaShadowable = true
	if opts.Compression == nil {
		opts.Compression = &compress.Params{}
	}
	w, err := NewWriter(table, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, dp := range parts {
		if err := w.Append(dp.p); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		w.Abort()
		t.Fatal(err)
	}
	return res, res.Descriptor
}

// TestWriterReproducesReferenceContent writes the decoded content of every
// uncompressed reference SSTable through the Writer (Append, uncompressed)
// and compares Data.db, Index.db, Digest.crc32 and CRC.db with the
// reference files.
func TestWriterReproducesReferenceContent(t *testing.T) {
	for _, ref := range refSSTables(t, false) {
		if ref.has("CompressionInfo.db") {
			continue
		}
		t.Run(ref.name, func(t *testing.T) {
			data := ref.read(t, "Data.db")
			st, table, parts := decodeReference(t, ref, data)
			_, desc := writeDecoded(t, table, st, parts, sstables.WriterOptions{})
			for _, c := range []string{"Data.db", "Index.db", "Digest.crc32", "CRC.db"} {
				if !ref.has(c) {
					continue
				}
				got, err := os.ReadFile(desc.Path(sstables.Component(c)))
				if err != nil {
					t.Fatal(err)
				}
				if want := ref.read(t, c); !bytes.Equal(got, want) {
					t.Errorf("%s: %s", c, firstDiff(got, want))
				}
			}
		})
	}
}
