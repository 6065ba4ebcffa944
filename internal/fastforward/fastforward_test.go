package fastforward

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/bti"
	"github.com/castable-db/castable/sstables/la"
	"github.com/castable-db/castable/sstables/mc"
	"github.com/castable-db/castable/sstables/version"
)

func TestSummarize(t *testing.T) {
	s := Summarize([]float64{5, 1, 4, 2, 3})
	if s.Median != 3 || s.MAD != 1 || s.Min != 1 || s.Max != 5 || s.MedianIndex != 4 {
		t.Fatalf("%+v", s)
	}
	if s := Summarize([]float64{7}); s.Median != 7 || s.MAD != 0 {
		t.Fatalf("%+v", s)
	}
}

func TestExpectedSkipFrags(t *testing.T) {
	for _, c := range []struct{ n, read, skip, want int64 }{
		{10, 1, 0, 10}, {10, 1, 1, 5}, {11, 1, 1, 6}, {10, 64, 8, 10}, {100, 3, 2, 60}, {101, 3, 2, 61},
	} {
		if got := expectedSkipFrags(c.n, c.read, c.skip); got != c.want {
			t.Errorf("expectedSkipFrags(%d,%d,%d) = %d, want %d", c.n, c.read, c.skip, got, c.want)
		}
	}
}

// TestPopulateAndRead populates every dataset in both formats with a small
// flush threshold (so there are several measured flushes), checks that the
// flushed and compacted SSTables verify and hold every row, then runs every
// read group on them: each case must read exactly the fragments it should.
func TestPopulateAndRead(t *testing.T) {
	dir := t.TempDir()
	var out bytes.Buffer
	const rows = 3000
	opts := Options{
		Populate: true, Rows: rows, ValueSize: 50, FlushThreshold: 256 << 10, Jobs: 2,
		Datasets: []string{"small-part", "large-part-ds1", "sb-small-part", "sb-large-part-ds1"},
		Formats:  []sstables.Format{mc.Format, la.Format{}, bti.Format(version.MustParse("da"))},
		Codecs:   []compress.Codec{compress.LZ4, compress.None},
		DataDir:  dir, JSONOutput: filepath.Join(dir, "populate.json"),
	}
	res, err := Run(context.Background(), opts, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if want := len(opts.Datasets) * len(opts.Formats) * len(opts.Codecs); len(res.Results) != want {
		t.Fatalf("%d population results, want %d", len(res.Results), want)
	}
	for key, r := range res.Results {
		if r.Iterations < 2 || r.FragsPerS <= 0 || r.Min > r.FragsPerS || r.Max < r.FragsPerS {
			t.Errorf("%s: %+v (want several flushes)", key, r)
		}
	}
	var doc map[string]map[string]map[string]any
	b, err := os.ReadFile(opts.JSONOutput)
	if err != nil || json.Unmarshal(b, &doc) != nil {
		t.Fatalf("json output: %v %s", err, b)
	}
	if _, ok := doc["results"]["small-part/mc/lz4/flush"]["frag/s"]; !ok {
		t.Fatalf("json output lacks small-part/mc/lz4/flush frag/s: %s", b)
	}
	if !strings.Contains(out.String(), "Populating small-part (format la, compression none)") {
		t.Fatalf("text output:\n%s", out.String())
	}

	// Every flushed SSTable verifies, and together they hold every row.
	for _, name := range opts.Datasets {
		d, _ := FindDataset(name)
		for _, f := range opts.Formats {
			for _, codec := range opts.Codecs {
				tdir := TableDir(dir, d, f, codec)
				descs, err := sstables.ListSSTables(nil, tdir)
				if err != nil || len(descs) < 2 {
					t.Fatalf("%s: %d SSTables (%v)", tdir, len(descs), err)
				}
				tbl, _ := d.Table()
				var total int64
				for _, desc := range append(descs, sstables.Descriptor{Dir: filepath.Join(tdir, "compacted"), Version: f.Version(), Generation: 1}) {
					r, err := f.Open(desc, tbl, sstables.ReaderOptions{})
					if err != nil {
						t.Fatal(err)
					}
					if err := r.Verify(); err != nil {
						t.Fatalf("%s: %v", desc, err)
					}
					rd := &reader{r: r}
					n, err := rd.partitionSkips(1, 0)
					if err != nil {
						t.Fatal(err)
					}
					total += n
					r.Close()
				}
				if total != 2*rows {
					t.Fatalf("%s: %d rows in flushed+compacted SSTables, want %d", tdir, total, 2*rows)
				}
			}
		}
	}

	out.Reset()
	opts.Populate = false
	opts.JSONOutput = ""
	opts.Read.CaseDuration = 0
	res, err = Run(context.Background(), opts, &out)
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// 4 datasets × 3 formats × 2 codecs, 17 skip cases + 8 slicing cases each.
	if want := len(opts.Datasets) * len(opts.Formats) * len(opts.Codecs) * 25; len(res.Results) != want {
		t.Fatalf("%d read results, want %d\n%s", len(res.Results), want, out.String())
	}
	for key, r := range res.Results {
		if r.Error != "" {
			t.Errorf("%s: %s", key, r.Error)
		}
	}
}
