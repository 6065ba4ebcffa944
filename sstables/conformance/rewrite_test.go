package conformance

import (
	"bytes"
	"io"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// legacyColumnIndexSize is the column_index_size of Cassandra's test
// configuration, with which the cassandra-legacy corpus was written; its la
// files (Cassandra 2.2) cut their column index every 1 KiB, which is what
// reproduces them (2 KiB or 4 KiB do not).
const (
	legacyColumnIndexSize   = 4 << 10
	legacyLAColumnIndexSize = 1 << 10
)

// readAll returns r's partitions, deep-copied.
func readAll(t testing.TB, r sstables.Reader) []*mutation.Partition {
	t.Helper()
	sc, err := r.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	var out []*mutation.Partition
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		cp := &mutation.Partition{Key: slices.Clone(p.Key), Deletion: p.Deletion, Static: rows.CloneRow(&p.Static)}
		cp.Token = r.Partitioner().Token(cp.Key)
		for {
			row, m, err := sc.Next()
			if err != nil {
				t.Fatal(err)
			}
			if row == nil && m == nil {
				break
			}
			if row != nil {
				cp.Rows = append(cp.Rows, rows.CloneRow(row))
			} else {
				cp.Markers = append(cp.Markers, rows.CloneMarker(m))
			}
		}
		out = append(out, cp)
	}
}

// rewrite writes parts through f with the options of a rewrite of r (the
// same generation, compression and carried-over metadata) into dir.
func rewrite(t testing.TB, f sstables.Format, r sstables.Reader, parts []*mutation.Partition, dir string, columnIndexSize int) *sstables.WriteResult {
	t.Helper()
	opts := sstables.WriterOptions{Dir: dir, Jobs: 1, ColumnIndexSize: columnIndexSize}
	desc := r.Descriptor()
	if desc.UUID != "" {
		opts.UUID = desc.UUID
	} else {
		opts.Generation = desc.Generation
	}
	ci, err := sstables.ReadCompressionInfo(nil, desc)
	switch {
	case err == nil:
		p, err := ci.Params()
		if err != nil {
			t.Fatal(err)
		}
		opts.Compression = &p
	case os.IsNotExist(err):
		opts.Compression = &compress.Params{Codec: compress.None}
	default:
		t.Fatal(err)
	}
	sstables.CarryOver(r, &opts)
	w, err := f.NewWriter(r.Table(), opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		if err := w.Append(p); err != nil {
			w.Abort()
			t.Fatal(err)
		}
	}
	res, err := w.Finish()
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// compareComponents requires every component of want to be in got with the
// same bytes (TOC.txt: the same lines, in any order).
func compareComponents(t testing.TB, want, got sstables.Descriptor) {
	t.Helper()
	toc, err := sstables.ReadTOC(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range toc.Listed {
		a, err := os.ReadFile(want.Path(c))
		if err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(got.Path(c))
		if err != nil {
			t.Errorf("%s: %v", c, err)
			continue
		}
		if c == sstables.ComponentTOC {
			la, lb := tocLines(a), tocLines(b)
			if !slices.Equal(la, lb) {
				t.Errorf("%s: lines %v, want %v", c, lb, la)
			}
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: %s", c, testdata.FirstDiff(b, a))
		}
	}
}

func tocLines(b []byte) []string {
	lines := strings.Fields(string(b))
	slices.Sort(lines)
	return lines
}

// TestRewriteCassandraFiles: every SSTable Cassandra itself wrote
// (cassandra-legacy), in a version castable writes, read and written again
// in its own version with the corpus's 4 KiB column index size and what
// Statistics.db carries over, is byte-identical in every component.
func TestRewriteCassandraFiles(t *testing.T) {
	n := 0
	for _, s := range testdata.Supported(t, "cassandra-legacy") {
		desc, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		if !desc.Version.Writable() || strings.Contains(s.Name, "other/") {
			continue
		}
		f, err := sstables.LookupVersion(desc.Version)
		if err != nil {
			t.Logf("skipping %s: %v", s.Name, err)
			continue
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			r, err := sstables.OpenAny(desc, nil, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			parts := readAll(t, r)
			dir := t.TempDir()
			cis := legacyColumnIndexSize
			if desc.Version.LegacyCells() {
				cis = legacyLAColumnIndexSize
			}
			res := rewrite(t, f, r, parts, dir, cis)
			compareComponents(t, desc, res.Descriptor)
		})
	}
	if n == 0 {
		t.Fatal("no Cassandra-written SSTable of a writable version found")
	}
}
