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
// same bytes (TOC.txt: the same lines, in any order), but those in except.
func compareComponents(t testing.TB, want, got sstables.Descriptor, except ...sstables.Component) {
	t.Helper()
	toc, err := sstables.ReadTOC(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range toc.Listed {
		if slices.Contains(except, c) {
			continue
		}
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
			var absent []sstables.Component // not written at all
			for _, e := range except {
				if _, err := os.Stat(got.Path(e)); err != nil {
					absent = append(absent, e)
				}
			}
			la, lb := tocLines(a, absent), tocLines(b, nil)
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

// tocLines returns the TOC.txt lines in order, without except.
func tocLines(b []byte, except []sstables.Component) []string {
	var lines []string
	for _, l := range strings.Fields(string(b)) {
		if !slices.Contains(except, sstables.Component(l)) {
			lines = append(lines, l)
		}
	}
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

// TestRewriteScyllaFiles: every trie-indexed SSTable ScyllaDB wrote (ms,
// mt), read and written again in its own version with ScyllaDB's 64 KiB
// row index granularity and what Statistics.db carries over, is
// byte-identical in every component castable writes (Data.db,
// CompressionInfo.db, Partitions.db, Rows.db, Filter.db, Digest.crc32,
// TOC.txt), but two:
//   - Scylla.db, ScyllaDB's own metadata (sharding ranges of the node that
//     wrote it, its build id and version, a random run identifier,
//     large-data statistics), which does not follow from the data and which
//     castable does not write;
//   - in Statistics.db, the key cardinality: ScyllaDB serializes a
//     HyperLogLog++ sketch of its own (precision 4, 16 one-byte registers,
//     "normal" format) where Cassandra's is precision 13 with a sparse
//     list, and the registers it stores are not those of Cassandra's
//     hashing of the keys; castable writes Cassandra's. With the sketch
//     taken from the input, the rest of Statistics.db is identical.
func TestRewriteScyllaFiles(t *testing.T) {
	n := 0
	for _, s := range testdata.Supported(t, "scylla-bti") {
		desc, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		f, err := sstables.LookupVersion(desc.Version)
		if err != nil {
			t.Fatal(err)
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			r, err := sstables.OpenAny(desc, nil, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			parts := readAll(t, r)
			res := rewrite(t, f, r, parts, t.TempDir(), 0)
			compareComponents(t, desc, res.Descriptor, sstables.ComponentScylla, sstables.ComponentStatistics)
			want, err := os.ReadFile(desc.Path(sstables.ComponentStatistics))
			if err != nil {
				t.Fatal(err)
			}
			got, err := os.ReadFile(res.Descriptor.Path(sstables.ComponentStatistics))
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := sstables.DecodeStatistics(want, desc.Version, "")
			if err != nil {
				t.Fatal(err)
			}
			ours, err := sstables.DecodeStatistics(got, desc.Version, "")
			if err != nil {
				t.Fatal(err)
			}
			ours.Cardinality = theirs.Cardinality
			b, err := sstables.AppendStatistics(nil, ours, desc.Version)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(b, want) {
				t.Errorf("Statistics.db with ScyllaDB's cardinality sketch: %s\nours   %+v\ntheirs %+v", testdata.FirstDiff(b, want), ours.Stats, theirs.Stats)
			}
		})
	}
	if n == 0 {
		t.Fatal("no ScyllaDB-written trie-indexed SSTable found")
	}
}
