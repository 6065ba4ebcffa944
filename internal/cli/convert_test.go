package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/jsondump"
)

func quietEnv() *Env { return &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}} }

// canonicalDump returns the canonical dump of an SSTable.
func canonicalDump(t *testing.T, sstable, schemaFile string) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Dump(&Env{Stdout: &out}, DumpOptions{SSTable: sstable, Schema: schemaFile, Canonical: true}); err != nil {
		t.Fatalf("dump %s: %v", sstable, err)
	}
	return out.Bytes()
}

// TestConvertRewritesMCReferences: an mc -> mc rewrite of every mc-write
// reference streams it through the reader and writer and reproduces the
// byte-exact components (the header minima and columns, and the partition
// count for the bloom filter, are carried over).
func TestConvertRewritesMCReferences(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			opts := ConvertOptions{SSTables: []string{filepath.Join(c.dir, "mc-1-big-Data.db")}, Out: out,
				Schema: filepath.Join(c.dir, "schema.cql"), Generation: 1, Jobs: 1}
			opts.ScyllaShadowable = c.name == "shadowable_deletion"
			res, err := Convert(context.Background(), quietEnv(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if len(res) != 1 {
				t.Fatalf("%d outputs", len(res))
			}
			checkSums(t, c, out)
		})
	}
}

// TestConvertFormatsAndCodecs: mc -> la -> mc and codec/chunk changes keep
// the content; every output verifies.
func TestConvertFormatsAndCodecs(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		switch c.name {
		case "shadowable_deletion", "many_deleted_partitions", "different_types":
			continue // la has no shadowable deletions (see TestConvertDegrade) nor durations; 65536 partitions are slow here
		}
		t.Run(c.name, func(t *testing.T) {
			schemaFile := filepath.Join(c.dir, "schema.cql")
			ref := filepath.Join(c.dir, "mc-1-big-Data.db")
			want := canonicalDump(t, ref, schemaFile)
			table, err := loadTable(schemaFile, "")
			if err != nil {
				t.Fatal(err)
			}
			laDir, mcDir := t.TempDir(), t.TempDir()
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{ref}, Out: laDir, To: "la", Schema: schemaFile, Compression: "snappy"}); err != nil {
				t.Fatalf("mc -> la: %v", err)
			}
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{laDir}, Out: mcDir, To: "mc", Schema: schemaFile, Compression: "zstd", ChunkLengthKB: 4}); err != nil {
				t.Fatalf("la -> mc: %v", err)
			}
			for _, dir := range []string{laDir, mcDir} {
				if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{dir}, Schema: schemaFile}); err != nil {
					t.Fatalf("verify %s: %v", dir, err)
				}
				got := canonicalDump(t, dir, schemaFile)
				if diff, err := jsondump.DiffBytes(table, want, got, jsondump.DiffOptions{}); err != nil || diff != "" {
					t.Errorf("%s: content changed: %v %s", filepath.Base(dir), err, diff)
				}
			}
			md, err := ReadMetadata(MetadataOptions{SSTable: mcDir})
			if err != nil {
				t.Fatal(err)
			}
			if md.Compression.Class != "ZstdCompressor" || md.Compression.ChunkLength != 4096 {
				t.Errorf("output compression %+v, want ZstdCompressor with 4 KiB chunks", md.Compression)
			}
		})
	}
}

// TestConvertMCToLAToMCIsByteExact: every mc-write case la can express goes
// mc -> la -> mc (uncompressed) back to the reference bytes: the la -> mc
// step takes the serialization header's minima and columns from the data,
// as a flush of that data would.
func TestConvertMCToLAToMCIsByteExact(t *testing.T) {
	for _, c := range mcWriteCases(t) {
		if c.name == "shadowable_deletion" || c.name == "different_types" {
			continue // la has no shadowable deletions (TestConvertDegrade) nor durations (TestWriteLAFromJSON)
		}
		t.Run(c.name, func(t *testing.T) {
			schemaFile := filepath.Join(c.dir, "schema.cql")
			laDir, mcDir := t.TempDir(), t.TempDir()
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{filepath.Join(c.dir, "mc-1-big-Data.db")},
				Out: laDir, To: "la", Schema: schemaFile, Compression: "none", Generation: 1}); err != nil {
				t.Fatalf("mc -> la: %v", err)
			}
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{laDir}, Out: mcDir, To: "mc",
				Schema: schemaFile, Compression: "none", Generation: 1, HeaderAllColumns: c.writeOptions("").HeaderAllColumns}); err != nil {
				t.Fatalf("la -> mc: %v", err)
			}
			checkSums(t, c, mcDir)
		})
	}
}

// TestConvertCorpusInParallel converts several real SSTables of one table
// at once (the lz4, snappy, deflate and zstd copies), and every la file of
// the corpus to mc; the content is kept.
func TestConvertCorpusInParallel(t *testing.T) {
	var inputs []string
	for _, codec := range []string{"lz4", "snappy", "deflate", "zstd"} {
		inputs = append(inputs, testdata.Path(t, "cassandra", "3.x", codec, "partition_key_with_values_of_different_types"))
	}
	out := t.TempDir()
	var stdout bytes.Buffer
	res, err := Convert(context.Background(), &Env{Stdout: &stdout, Stderr: &bytes.Buffer{}}, ConvertOptions{SSTables: inputs, Out: out, Jobs: 4, Compression: "lz4"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 4 || strings.Count(stdout.String(), "\n") != 4 {
		t.Fatalf("%d outputs, stdout %q", len(res), stdout.String())
	}
	for i, in := range inputs {
		desc, _ := resolveSSTable(in)
		r, err := openSSTable(desc, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		table := r.Table()
		r.Close()
		got := canonicalDump(t, res[i].Descriptor.Path("Data.db"), "")
		if diff, err := jsondump.DiffBytes(table, canonicalDump(t, in, ""), got, jsondump.DiffOptions{}); err != nil || diff != "" {
			t.Errorf("%s: %v %s", in, err, diff)
		}
	}

	for _, path := range corpusSSTables(t, false) {
		if !strings.Contains(filepath.Base(path), "la-") {
			continue
		}
		t.Run(relName(t, path), func(t *testing.T) {
			out := t.TempDir()
			res, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{path}, Out: out})
			if err != nil {
				t.Fatal(err)
			}
			if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{out}}); err != nil {
				t.Fatal(err)
			}
			desc, _ := resolveSSTable(path)
			r, err := openSSTable(desc, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			table := r.Table()
			r.Close()
			// The mc output's header names the inferred columns; dump both
			// with the la reader's table.
			var got bytes.Buffer
			mcDesc := res[0].Descriptor
			mr, err := openSSTable(mcDesc, table, false)
			if err != nil {
				t.Fatal(err)
			}
			enc := jsondump.NewEncoder(&got, table, jsondump.EncodeOptions{Format: jsondump.FormatCanonical})
			sc, _ := mr.Scan()
			for {
				p, err := sc.NextPartition()
				if err != nil {
					break
				}
				if err := dumpPartition(enc, sc, p, false); err != nil {
					t.Fatal(err)
				}
			}
			enc.Close()
			mr.Close()
			if diff, err := jsondump.DiffBytes(table, canonicalDump(t, path, ""), got.Bytes(), jsondump.DiffOptions{}); err != nil || diff != "" {
				t.Errorf("la -> mc changed the content: %v %s", err, diff)
			}
		})
	}
}

// TestConvertDegrade: data la cannot hold is an error naming the partition
// and leaves nothing; --shadowable-as-regular converts it.
func TestConvertDegrade(t *testing.T) {
	dir := testdata.Path(t, "mc-write", "shadowable_deletion")
	in := []string{filepath.Join(dir, "mc-1-big-Data.db")}
	schemaFile := filepath.Join(dir, "schema.cql")
	out := filepath.Join(t.TempDir(), "out")
	_, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: in, Out: out, To: "la", Schema: schemaFile})
	if err == nil || !strings.Contains(err.Error(), "partition") || ExitCode(err) != ExitData {
		t.Fatalf("error %v, want one naming the partition", err)
	}
	if names, _ := os.ReadDir(out); len(names) != 0 {
		t.Errorf("a failed conversion left %d files", len(names))
	}
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: in, Out: out, To: "la", Schema: schemaFile, ShadowableAsRegular: true}); err != nil {
		t.Fatalf("with --shadowable-as-regular: %v", err)
	}
	if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{out}, Schema: schemaFile}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []ConvertOptions{{SSTables: in}, {SSTables: in, Out: out, To: "ka"}, {SSTables: in, Out: out, ChunkLengthKB: 3}, {SSTables: in, Out: out, Compression: "brotli"}} {
		if _, err := Convert(context.Background(), quietEnv(), bad); ExitCode(err) != ExitUsage {
			t.Errorf("%+v: %v, want a usage error", bad, err)
		}
	}
}
