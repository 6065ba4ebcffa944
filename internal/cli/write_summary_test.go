package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// TestWriteSummaryNamesRealChunkLength: the summary line of castable write
// gives the chunk length the SSTable was written with, the version's
// default when neither the schema nor --chunk-length-kb sets one (16 KiB
// for nb and oa, 64 KiB for la and mc), as CompressionInfo.db records it.
func TestWriteSummaryNamesRealChunkLength(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.t (k int PRIMARY KEY, v text);"), 0o644); err != nil {
		t.Fatal(err)
	}
	cqlFile := filepath.Join(dir, "d.cql")
	if err := os.WriteFile(cqlFile, []byte("INSERT INTO ks.t (k, v) VALUES (1, 'one');"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range version.Select(version.Version.Writable) {
		t.Run(v.String(), func(t *testing.T) {
			out := filepath.Join(dir, v.String())
			var stderr bytes.Buffer
			res, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}, WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out, Format: v.String(), Generation: 1})
			if err != nil {
				t.Fatal(err)
			}
			ci, err := sstables.ReadCompressionInfo(nil, res.Results[0].Descriptor)
			if err != nil {
				t.Fatal(err)
			}
			if want := v.Profile().DefaultChunkLength; ci.ChunkLength != want {
				t.Fatalf("CompressionInfo.db chunk length %d, want the version's default %d", ci.ChunkLength, want)
			}
			want := "(" + v.String() + ", lz4, " + strconv.Itoa(ci.ChunkLength>>10) + " KiB chunks)"
			if !strings.Contains(stderr.String(), want) {
				t.Errorf("summary %q does not say %q", stderr.String(), want)
			}
		})
	}
}
