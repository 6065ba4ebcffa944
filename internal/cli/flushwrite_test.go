package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/flush"
	"github.com/castable-db/castable/memtable"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/la"
	"github.com/castable-db/castable/sstables/mc"
)

// flushWriteSchema covers statics, clustering, collections, TTLs and
// deletions, so the comparison below exercises more than plain cells.
const flushWriteSchema = `CREATE TABLE ks.events (
	pk int, ck text, s int STATIC, v blob, tags set<text>, attrs map<int, text>,
	PRIMARY KEY (pk, ck)) WITH compression = {'class': 'LZ4Compressor'};`

// TestFlushMatchesWrite: an SSTable flushed from a memtable filled by a
// node (mutations applied directly) is byte for byte the SSTable `castable
// write` makes from that SSTable's dump — the embedded path and the tool
// write the same files — for both formats and both an LZ4 and an
// uncompressed table. (The one legitimate difference, avoided here: mc's
// serialization header minima come from every update the memtable saw, as
// in Cassandra, including values a later update superseded, which a dump
// cannot show.)
func TestFlushMatchesWrite(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(flushWriteSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := cql.ParseSchema(flushWriteSchema)
	if err != nil {
		t.Fatal(err)
	}
	table := s.Tables[0]
	now := time.Unix(1_700_000_000, 0)
	b := cql.NewBuilder(s, cql.Options{DefaultTimestamp: 1_700_000_000_000_000, Now: now})
	var stmts bytes.Buffer
	for pk := 0; pk < 300; pk++ {
		fmt.Fprintf(&stmts, "INSERT INTO ks.events (pk, ck, v, tags) VALUES (%d, 'a%d', 0x%04x, {'x', 'y%d'}) USING TIMESTAMP %d;\n", pk, pk, pk, pk, 1_700_000_000_000_000+pk)
		fmt.Fprintf(&stmts, "UPDATE ks.events USING TTL 3600 AND TIMESTAMP %d SET s = %d, attrs[%d] = 'v' WHERE pk = %d AND ck = 'b';\n", 1_700_000_000_000_100+pk, pk, pk, pk)
		if pk%7 == 0 {
			fmt.Fprintf(&stmts, "DELETE FROM ks.events USING TIMESTAMP %d WHERE pk = %d AND ck > 'c' AND ck <= 'e';\n", 1_700_000_000_000_200+pk, pk)
		}
		// Not on pk 0: the collection deletion would supersede the
		// INSERT's (at its timestamp − 1, the smallest of the run), and a
		// flush keeps the memtable's minima as Cassandra does while a dump
		// no longer holds that value.
		if pk%11 == 5 {
			fmt.Fprintf(&stmts, "DELETE tags FROM ks.events USING TIMESTAMP %d WHERE pk = %d AND ck = 'a%d';\n", 1_700_000_000_000_300+pk, pk, pk)
		}
	}
	muts, err := b.Exec(stmts.String())
	if err != nil {
		t.Fatal(err)
	}
	m := memtable.New(table, memtable.Options{Now: func() time.Time { return now }})
	for _, mu := range muts {
		if err := m.Apply(mu.Partition); err != nil {
			t.Fatal(err)
		}
	}
	frozen := m.Freeze()

	for _, f := range []sstables.Format{mc.Format, la.Format{}} {
		f := f
		for _, codec := range []string{"lz4", "none"} {
			t.Run(f.Version().String()+"/"+codec, func(t *testing.T) {
				c, _ := compress.ParseCodec(codec)
				flushed, written := t.TempDir(), t.TempDir()
				if _, err := flush.Flush(context.Background(), frozen, flush.Options{
					Format: f,
					WriterOptions: sstables.WriterOptions{
						Dir:         flushed,
						Generation:  1,
						Compression: &compress.Params{Codec: c},
					},
				}); err != nil {
					t.Fatal(err)
				}
				dump := filepath.Join(t.TempDir(), "dump.json")
				var out bytes.Buffer
				if err := Dump(&Env{Stdout: &out}, DumpOptions{SSTable: flushed, Schema: schemaFile, Canonical: true}); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(dump, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, Out: written, Input: dump,
					Format: f.Version().String(), Compression: codec, Generation: 1, Jobs: 2}); err != nil {
					t.Fatal(err)
				}
				want, got := readFiles(t, flushed), readFiles(t, written)
				if len(want) < 8 || len(want) != len(got) {
					t.Fatalf("flushed %d components, written %d", len(want), len(got))
				}
				for name, b := range want {
					if !bytes.Equal(got[name], b) {
						t.Errorf("%s differs between the flush and castable write", name)
					}
				}

			})
		}
	}
}

func readFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = b
	}
	return out
}
