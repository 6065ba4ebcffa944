package la

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// mcWriteUnrepresentable are the mc-write cases la cannot hold, with the
// error the writer must give.
var mcWriteUnrepresentable = map[string]string{
	// ScyllaDB's shadowable row deletion: 2.2 has no shadowable deletions
	// (WriterOptions.ShadowableAsRegular degrades it, tested below).
	"shadowable_deletion": "shadowable row deletion",
}

// mcWriteTypesLALacks are the mc-write cases whose table has a type
// Cassandra 2.2 does not have: the writer refuses the table.
var mcWriteTypesLALacks = map[string]string{
	"different_types": "no duration type",
}

// loadMCWriteCase parses a case's schema.cql and data.json.
func loadMCWriteCase(t testing.TB, dir string) (*schema.Table, []*mutation.Partition, []byte) {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(dir, "schema.cql"))
	if err != nil {
		t.Fatal(err)
	}
	s, err := cql.ParseSchema(string(src))
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tables[len(s.Tables)-1]
	doc, err := os.ReadFile(filepath.Join(dir, "data.json"))
	if err != nil {
		t.Fatal(err)
	}
	parts, _, err := jsondump.DecodeAll(bytes.NewReader(doc), table, jsondump.DecodeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return table, parts, doc
}

// writeLA writes parts as an la SSTable in dir and returns it, or the
// writer's error.
func writeLA(t testing.TB, shadowableAsRegular bool, table *schema.Table, parts []*mutation.Partition, dir string, params compress.Params) (sstables.Descriptor, error) {
	t.Helper()
	w, err := Format{}.NewWriter(table, sstables.WriterOptions{Dir: dir, Generation: 1, Compression: &params, Jobs: 2, ShadowableAsRegular: shadowableAsRegular})
	if err != nil {
		return sstables.Descriptor{}, err
	}
	for _, p := range parts {
		if err := w.Append(p); err != nil {
			w.Abort()
			return sstables.Descriptor{}, err
		}
	}
	res, err := w.Finish()
	if err != nil {
		w.Abort()
		return sstables.Descriptor{}, err
	}
	return res.Descriptor, nil
}

// TestMCWriteRoundTrip writes every mc-write case's data.json as an la
// SSTable (uncompressed and LZ4), verifies it and reads it back: the
// content must equal data.json (partition positions aside, as they differ
// between the formats). Cases la cannot represent must fail with a clear
// error naming the partition.
func TestMCWriteRoundTrip(t *testing.T) {
	root := testdata.Path(t, "mc-write")
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			table, parts, doc := loadMCWriteCase(t, filepath.Join(root, c.Name()))
			codecs := []compress.Params{{Codec: compress.None}, {Codec: compress.LZ4}}
			if len(parts) > 1000 {
				// many_deleted_partitions (65536 partitions): one codec
				// is enough, none with -short.
				if testing.Short() {
					t.Skip("large case skipped in -short mode")
				}
				codecs = codecs[:1]
			}
			for _, params := range codecs {
				d, err := writeLA(t, false, table, parts, t.TempDir(), params)
				if want, ok := mcWriteTypesLALacks[c.Name()]; ok {
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("writing: got error %v, want %q", err, want)
					}
					continue
				}
				if want, ok := mcWriteUnrepresentable[c.Name()]; ok {
					if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "partition ") {
						t.Fatalf("writing: got error %v, want one naming the partition and %q", err, want)
					}
					// The degradation writes the shadowable deletion as a
					// regular one.
					d, err = writeLA(t, true, table, parts, t.TempDir(), params)
					if err != nil {
						t.Fatal(err)
					}
					got, r := dumpSSTable(t, d, table)
					if err := r.Verify(); err != nil {
						t.Fatal(err)
					}
					if !strings.Contains(got, `"deletion_info"`) || strings.Contains(got, "shadowable") {
						t.Fatalf("degraded dump:\n%s", got)
					}
					continue
				}
				if err != nil {
					t.Fatal(err)
				}
				got, r := dumpSSTable(t, d, table)
				if err := r.Verify(); err != nil {
					t.Fatal(err)
				}
				diff, err := jsondump.DiffBytes(table, []byte(got), doc, jsondump.DiffOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if diff != "" {
					t.Fatalf("%v: read back differs from data.json: %s", params.Codec, diff)
				}
			}
		})
	}
}

// TestStreamingWriteEqualsAppend writes every mc-write case piece by piece
// (StartPartition, AppendRow, AppendMarker, EndPartition) with rows and
// markers passed through scratch copies that are clobbered after each call
// (the writer must not keep them), and checks that Data.db and Index.db
// equal those written with Append.
func TestStreamingWriteEqualsAppend(t *testing.T) {
	root := testdata.Path(t, "mc-write")
	cases, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		if !c.IsDir() {
			continue
		}
		if _, ok := mcWriteTypesLALacks[c.Name()]; ok {
			continue
		}
		t.Run(c.Name(), func(t *testing.T) {
			table, parts, _ := loadMCWriteCase(t, filepath.Join(root, c.Name()))
			want, err := writeLA(t, true, table, parts, t.TempDir(), compress.Params{Codec: compress.None})
			if err != nil {
				t.Fatal(err)
			}
			dir := t.TempDir()
			w, err := Format{}.NewWriter(table, sstables.WriterOptions{Dir: dir, Generation: 1, Compression: &compress.Params{}, ShadowableAsRegular: true})
			if err != nil {
				t.Fatal(err)
			}
			for _, p := range parts {
				if err := w.StartPartition(p); err != nil {
					t.Fatal(err)
				}
				err := p.Unfiltered(table, func(r *mutation.Row, m *mutation.RangeTombstoneMarker) error {
					if r != nil {
						scratch := cloneRow(r)
						err := w.AppendRow(&scratch)
						clobberRow(&scratch)
						return err
					}
					scratch := cloneMarker(m)
					err := w.AppendMarker(&scratch)
					for _, v := range scratch.Clustering {
						clear(v)
					}
					return err
				})
				if err != nil {
					t.Fatal(err)
				}
				if err := w.EndPartition(); err != nil {
					t.Fatal(err)
				}
			}
			res, err := w.Finish()
			if err != nil {
				t.Fatal(err)
			}
			for _, comp := range []sstables.Component{sstables.ComponentData, sstables.ComponentIndex, sstables.ComponentStatistics} {
				if g, w := readComponent(t, res.Descriptor, comp), readComponent(t, want, comp); !bytes.Equal(g, w) {
					t.Errorf("%s differs at byte %d", comp, firstDiff(g, w))
				}
			}
		})
	}
}

// clobberRow overwrites every byte a row refers to.
func clobberRow(r *mutation.Row) {
	for _, v := range r.Clustering {
		for i := range v {
			v[i] = 0xEE
		}
	}
	for i := range r.Cells {
		for j := range r.Cells[i].Value {
			r.Cells[i].Value[j] = 0xEE
		}
		for j := range r.Cells[i].Path {
			r.Cells[i].Path[j] = 0xEE
		}
	}
}
