package livenode

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/node"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// TestNode311LZ4 is the end-to-end evidence for Cassandra 3.11's LZ4: a
// live 3.11.17 node flushes the same rows into a table of 4 KiB chunks
// (many chunk ends, where the LZ4 releases differ) and one of the default
// 64 KiB; every chunk of its me Data.db must be what castable's LZ4 r123
// encoder makes of the uncompressed chunk (today's LZ4_compress_fast must
// miss some, or the test proves nothing), and `castable convert --to me
// --generation <the node's> --schema …` of the flushed SSTable must give
// every component back byte for byte.
func TestNode311LZ4(t *testing.T) {
	n := node.Get(t, node.Cassandra311)
	if maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", n.PID)); err == nil {
		// lz4-java 1.3.0 unpacks its JNI library as /tmp/liblz4-java*.so.
		t.Logf("the node maps lz4-java's JNI library: %v", bytes.Contains(maps, []byte("liblz4-java")))
	}
	ks := n.Keyspace(t)
	tables := []struct{ name, compression string }{
		{"t4", "{'class': 'LZ4Compressor', 'chunk_length_in_kb': 4}"},
		{"t64", "{'class': 'LZ4Compressor'}"},
	}
	var ddl []string
	for _, tb := range tables {
		ddl = append(ddl, fmt.Sprintf("CREATE TABLE %s.%s (k int, c int, v text, n bigint, PRIMARY KEY (k, c)) WITH compression = %s", ks, tb.name, tb.compression))
	}
	if err := n.ExecInOrder(ddl...); err != nil {
		t.Fatal(err)
	}
	// t4: 12,000 short rows (about 190 chunks of 4 KiB); t64: 3,000 rows
	// of about 1.5 KB (about 70 chunks of 64 KiB).
	rng := rand.New(rand.NewPCG(311, 17))
	words := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau upsilon phi chi psi omega")
	text := func(n int) string {
		var v strings.Builder
		for v.Len() < n {
			v.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(4) == 0 {
				v.WriteString(strconv.Itoa(rng.IntN(10000)))
			}
			v.WriteByte(' ')
		}
		return v.String()
	}
	var stmts []string
	for i := range 12000 {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s.t4 (k, c, v, n) VALUES (%d, %d, '%s', %d) USING TIMESTAMP %d",
			ks, i/40, i%40, text(20+rng.IntN(60)), rng.Int64N(1<<40), 1700000000000000+int64(i)))
	}
	for i := range 3000 {
		stmts = append(stmts, fmt.Sprintf("INSERT INTO %s.t64 (k, c, v, n) VALUES (%d, %d, '%s', %d) USING TIMESTAMP %d",
			ks, i/10, i%10, text(1000+rng.IntN(1000)), rng.Int64N(1<<40), 1700000000000000+int64(i)))
	}
	if err := n.Exec(stmts...); err != nil {
		t.Fatal(err)
	}
	currentMissed := 0
	for _, tb := range tables {
		t.Run(tb.name, func(t *testing.T) {
			if err := n.Flush(ks, tb.name); err != nil {
				t.Fatal(err)
			}
			dir, err := n.TableDir(ks, tb.name)
			if err != nil {
				t.Fatal(err)
			}
			m, _ := filepath.Glob(filepath.Join(dir, "me-*-big-Data.db"))
			if len(m) != 1 {
				t.Fatalf("the node flushed %v", m)
			}
			desc, _, _, err := sstables.ParseDescriptor(m[0])
			if err != nil {
				t.Fatal(err)
			}
			same, missed, chunks := nodeChunks(t, desc)
			currentMissed += missed
			t.Logf("%s: %d chunks, castable's r123 reproduces %d, today's LZ4_compress_fast %d", filepath.Base(m[0]), chunks, same, chunks-missed)
			if same != chunks {
				t.Errorf("r123 reproduces %d of the node's %d chunks", same, chunks)
			}

			schemaFile := filepath.Join(t.TempDir(), "schema.cql")
			if err := os.WriteFile(schemaFile, []byte(fmt.Sprintf("CREATE TABLE %s.%s (k int, c int, v text, n bigint, PRIMARY KEY (k, c)) WITH compression = %s;", ks, tb.name, tb.compression)), 0o644); err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			if _, err := cli.Convert(context.Background(), quiet(), cli.ConvertOptions{SSTables: []string{m[0]}, To: "me", Generation: desc.Generation, Schema: schemaFile, Out: out}); err != nil {
				t.Fatalf("castable convert --to me: %v", err)
			}
			if d := sameComponents(t, filepath.Join(out, filepath.Base(m[0])), m[0]); len(d) > 0 {
				t.Errorf("converted back, differs in %s", strings.Join(d, ", "))
			}
		})
	}
	if currentMissed == 0 {
		t.Error("today's LZ4_compress_fast reproduces every chunk too: the data does not tell the releases apart")
	}
}

// nodeChunks recompresses every chunk of desc's Data.db with the r123 and
// today's encoders and counts the chunks each gives back byte for byte
// (today's as the number it misses).
func nodeChunks(t *testing.T, desc sstables.Descriptor) (same, currentMissed, chunks int) {
	t.Helper()
	ci, err := sstables.ReadCompressionInfo(nil, desc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(desc.Path(sstables.ComponentData))
	if err != nil {
		t.Fatal(err)
	}
	r, err := sstables.OpenData(nil, desc, sstables.DataReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	p, err := ci.Params()
	if err != nil {
		t.Fatal(err)
	}
	enc := map[compress.LZ4Encoder]compress.Compressor{}
	for _, e := range []compress.LZ4Encoder{compress.LZ4R123, compress.LZ4Current} {
		p.LZ4Encoder = e
		if enc[e], err = compress.NewCompressor(p); err != nil {
			t.Fatal(err)
		}
	}
	for i := range ci.DataChunks() {
		off, n := ci.ChunkSpan(i, int64(len(raw)))
		payload := raw[off : off+n-4]
		plain := make([]byte, ci.ChunkDataLength(i))
		if _, err := r.ReadAt(plain, int64(i)*int64(ci.ChunkLength)); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		chunks++
		if out, _ := enc[compress.LZ4R123].Compress(nil, plain); bytes.Equal(out, payload) {
			same++
		} else if chunks-same <= 3 {
			t.Logf("chunk %d (%d bytes): r123 %s", i, len(plain), testdata.FirstDiff(out, payload))
		}
		if out, _ := enc[compress.LZ4Current].Compress(nil, plain); !bytes.Equal(out, payload) {
			currentMissed++
			if currentMissed <= 3 {
				t.Logf("chunk %d (%d bytes): today's LZ4 gives %d bytes, the node's chunk has %d", i, len(plain), len(out), len(payload))
			}
		}
	}
	return same, currentMissed, chunks
}
