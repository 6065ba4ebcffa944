package fastforward

import (
	"bytes"
	"context"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/mc"
)

// TestLargeReadsSeek checks the large-partition reads that seek (mc's
// SeekClustering with the dataset's row clusterings) against the same reads
// decoding every row: a seek to row n lands on row n, and every skip and
// slicing case reads as many fragments both ways.
func TestLargeReadsSeek(t *testing.T) {
	const rows = 20000
	for _, name := range []string{"large-part-ds1", "sb-large-part-ds1"} {
		t.Run(name, func(t *testing.T) {
			d, err := FindDataset(name)
			if err != nil {
				t.Fatal(err)
			}
			table, err := d.Table()
			if err != nil {
				t.Fatal(err)
			}
			cfg := Config{Rows: rows, Format: mc.Format, Codec: compress.LZ4, Jobs: 1}
			desc, err := writeCompacted(context.Background(), d, cfg, table, make([]byte, 100), t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			r, err := mc.Format.Open(desc, table, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			gen := newGenerator(table, nil, 0)
			seeking := &reader{r: r, rowKey: func(n int64) mutation.Clustering { return gen.next(d, n).Rows[0].Clustering }}
			decoding := &reader{r: r}
			for _, off := range []int64{1, 777, 5000, rows - 1, rows} {
				sc, err := r.Scan()
				if err != nil {
					t.Fatal(err)
				}
				if _, err := sc.NextPartition(); err != nil {
					t.Fatal(err)
				}
				if seeking.seeker(sc) == nil {
					t.Fatal("the mc scanner does not seek")
				}
				want := append([][]byte(nil), seeking.rowKey(off)...)
				if err := seeking.seeker(sc).SeekClustering(want); err != nil {
					t.Fatal(err)
				}
				row, m, err := sc.Next()
				switch {
				case err != nil || m != nil:
					t.Fatalf("seek to row %d: %v %v", off, m, err)
				case off == rows && row != nil:
					t.Fatalf("seek past the last row found %x", row.Clustering)
				case off < rows && (row == nil || !bytes.Equal(row.Clustering[0], want[0])):
					t.Fatalf("seek to row %d (%x) found %v", off, want[0], row)
				}
				sc.Close()
			}
			for _, c := range append(skipCases(rows, (*reader).rowSkips), sliceCases(rows, (*reader).rowSlice)...) {
				a, err := c.run(seeking)
				if err != nil {
					t.Fatal(err)
				}
				b, err := c.run(decoding)
				if err != nil {
					t.Fatal(err)
				}
				if a != b || a != c.want {
					t.Errorf("%s: %d fragments seeking, %d decoding, want %d", c.params, a, b, c.want)
				}
			}
		})
	}
}
