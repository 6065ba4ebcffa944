package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// btiSSTables lists the shared trie-indexed SSTables: Cassandra's da
// (cassandra-legacy) and ScyllaDB's ms/mt (scylla-bti).
func btiSSTables(t *testing.T) (da, scylla []testdata.SSTable) {
	t.Helper()
	for _, s := range testdata.Supported(t, "cassandra-legacy") {
		if s.Version == "da" {
			da = append(da, s)
		}
	}
	scylla = testdata.Supported(t, "scylla-bti")
	if len(da) < 2 || len(scylla) < 6 {
		t.Fatalf("only %d da and %d ms/mt SSTables", len(da), len(scylla))
	}
	return da, scylla
}

// btiSchema writes the schema of a shared BTI SSTable into dir: the
// legacy tables' (their README), or "" for ScyllaDB's files, whose
// serialization header carries the types.
func btiSchema(t *testing.T, dir string, s testdata.SSTable) string {
	if s.Version != "da" {
		return ""
	}
	return legacySchema(t, dir, filepath.Base(s.Dir))
}

// TestConvertDaToOwnVersion: the command line, castable convert
// --to da --generation 1 --column-index-size-kb 4 --schema S --out D,
// reproduces each da SSTable Cassandra wrote in every component (TOC.txt:
// the same lines); without --to and --column-index-size-kb (the input's
// version, the granularity its Rows.db shows) likewise.
func TestConvertDaToOwnVersion(t *testing.T) {
	da, _ := btiSSTables(t)
	for _, s := range da {
		t.Run(s.Name, func(t *testing.T) {
			schemaFile := btiSchema(t, t.TempDir(), s)
			want, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			args := []string{"convert", "--to", "da", "--generation", "1", "--column-index-size-kb", "4", "--schema", schemaFile, "--out", out, s.Path("Data.db")}
			if _, stderr, code := runCastable(t, nil, args...); code != 0 {
				t.Fatalf("castable %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			got := want
			got.Dir = out
			sameComponents(t, want, got, nil)

			inferred := t.TempDir()
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{s.Path("Data.db")}, Out: inferred, Schema: schemaFile, Generation: 1}); err != nil {
				t.Fatal(err)
			}
			got.Dir = inferred
			sameComponents(t, want, got, nil)
		})
	}
}

// TestConvertDaThroughOa: da -> oa -> da reproduces Cassandra's da files
// in every component, and the oa intermediate holds the same data and
// verifies.
func TestConvertDaThroughOa(t *testing.T) {
	da, _ := btiSSTables(t)
	for _, s := range da {
		t.Run(s.Name, func(t *testing.T) {
			schemaFile := btiSchema(t, t.TempDir(), s)
			table, err := loadTable(schemaFile, "")
			if err != nil {
				t.Fatal(err)
			}
			want, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			mid, back := t.TempDir(), t.TempDir()
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{s.Path("Data.db")}, Out: mid, To: "oa", Schema: schemaFile, Generation: 1}); err != nil {
				t.Fatal(err)
			}
			if diff, err := jsondump.DiffBytes(table, canonicalDump(t, s.Path("Data.db"), schemaFile), canonicalDump(t, mid, schemaFile), jsondump.DiffOptions{}); err != nil || diff != "" {
				t.Errorf("oa holds other data: %v %s", err, diff)
			}
			if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{mid}, Schema: schemaFile}); err != nil {
				t.Errorf("verify oa: %v", err)
			}
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{mid}, Out: back, To: "da", Schema: schemaFile, Generation: 1}); err != nil {
				t.Fatal(err)
			}
			got := want
			got.Dir = back
			sameComponents(t, want, got, nil)
		})
	}
}

// btiRoundTripComponents are the components a big SSTable converted to da
// and back reproduces (btiRoundTripComponents leaves out Statistics.db and
// TOC.txt, as roundTripComponents does).
var btiRoundTripComponents = roundTripComponents

// TestConvertAnyVersionToDaAndBack: every legacy big SSTable converted to
// da and back to its version is byte-identical in Data, Index, Summary,
// Filter, CompressionInfo and the digest; the da intermediate holds the
// same data and verifies.
func TestConvertAnyVersionToDaAndBack(t *testing.T) {
	for _, s := range legacyBig(t) {
		t.Run(s.Name, func(t *testing.T) {
			schemaFile := legacySchema(t, t.TempDir(), filepath.Base(filepath.Dir(s.Path(""))))
			table, err := loadTable(schemaFile, "")
			if err != nil {
				t.Fatal(err)
			}
			cis := 4
			if s.Version == "la" {
				cis = 1
			}
			src, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			mid, back := t.TempDir(), t.TempDir()
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{s.Path("Data.db")}, Out: mid, To: "da", Schema: schemaFile, Generation: 1, ColumnIndexSizeKB: cis}); err != nil {
				t.Fatal(err)
			}
			if diff, err := jsondump.DiffBytes(table, canonicalDump(t, s.Path("Data.db"), schemaFile), canonicalDump(t, mid, schemaFile), jsondump.DiffOptions{}); err != nil || diff != "" {
				t.Errorf("da holds other data: %v %s", err, diff)
			}
			if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{mid}, Schema: schemaFile}); err != nil {
				t.Errorf("verify da: %v", err)
			}
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{mid}, Out: back, To: s.Version, Schema: schemaFile, Generation: 1, ColumnIndexSizeKB: cis}); err != nil {
				t.Fatal(err)
			}
			got := src
			got.Dir = back
			sameComponents(t, src, got, btiRoundTripComponents)
		})
	}
}

// bigOf is the big version holding the same rows as a BTI version: oa for
// Cassandra's da, me for ScyllaDB's ms and mt (their big format).
func bigOf(v string) string {
	if v == "da" {
		return "oa"
	}
	return "me"
}

// dumpOf runs castable dump with opts and returns stdout.
func dumpOf(t *testing.T, opts DumpOptions) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := Dump(&Env{Stdout: &out, Stderr: io.Discard}, opts); err != nil {
		t.Fatalf("dump %s: %v", opts.SSTable, err)
	}
	return out.Bytes()
}

// TestBTIEqualsBig: castable dump of every da, ms and mt file (whole, and
// -k of each key) equals the dump of the same data converted into the
// big format; verify, metadata (text and JSON) and layout (with -k) work
// on each.
func TestBTIEqualsBig(t *testing.T) {
	da, scylla := btiSSTables(t)
	for _, s := range append(da, scylla...) {
		t.Run(s.Name, func(t *testing.T) {
			schemaFile := btiSchema(t, t.TempDir(), s)
			in := s.Path("Data.db")
			big := t.TempDir()
			res, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{in}, Out: big, To: bigOf(s.Version), Schema: schemaFile, Generation: 1})
			if err != nil {
				t.Fatal(err)
			}
			bigData := res[0].Descriptor.Path(sstables.ComponentData)
			for _, canonical := range []bool{false, true} {
				a := dumpOf(t, DumpOptions{SSTable: in, Schema: schemaFile, Canonical: canonical})
				b := dumpOf(t, DumpOptions{SSTable: bigData, Schema: schemaFile, Canonical: canonical})
				// The sstabledump form carries Data.db positions, which
				// the formats share.
				if !bytes.Equal(a, b) {
					t.Errorf("dump (canonical %v) of %s differs from its %s copy:\n%s\n---\n%s", canonical, s.Version, bigOf(s.Version), a, b)
				}
			}
			var keys [][]string
			if err := json.Unmarshal(dumpOf(t, DumpOptions{SSTable: in, Schema: schemaFile, KeysOnly: true}), &keys); err != nil || len(keys) == 0 {
				t.Fatalf("dump -e: %v (%d keys)", err, len(keys))
			}
			for _, k := range keys {
				key := strings.Join(k, ":")
				a := dumpOf(t, DumpOptions{SSTable: in, Schema: schemaFile, Keys: []string{key}})
				b := dumpOf(t, DumpOptions{SSTable: bigData, Schema: schemaFile, Keys: []string{key}})
				if !bytes.Equal(a, b) || !bytes.Contains(a, []byte(`"position"`)) {
					t.Errorf("dump -k %s: %s\n---\n%s", key, a, b)
				}
				if err := Layout(quietEnv(), LayoutOptions{SSTable: in, Schema: schemaFile, Key: key}); err != nil {
					t.Errorf("layout -k %s: %v", key, err)
				}
			}
			absent := dumpOf(t, DumpOptions{SSTable: in, Schema: schemaFile, Keys: []string{"424242"}})
			if strings.Contains(string(absent), "partition") {
				t.Errorf("dump -k of an absent key: %s", absent)
			}
			var out bytes.Buffer
			if err := Verify(&Env{Stdout: &out, Stderr: io.Discard}, VerifyOptions{SSTables: []string{in}, Schema: schemaFile}); err != nil || !strings.Contains(out.String(), "OK") {
				t.Errorf("verify: %v %s", err, out.String())
			}
			for _, asJSON := range []bool{false, true} {
				out.Reset()
				if err := Metadata(&Env{Stdout: &out, Stderr: io.Discard}, MetadataOptions{SSTable: in, Schema: schemaFile, JSON: asJSON}); err != nil || out.Len() == 0 {
					t.Errorf("metadata (JSON %v): %v", asJSON, err)
				}
				if !asJSON && !strings.Contains(out.String(), "Partitions.db") {
					t.Errorf("metadata does not list Partitions.db:\n%s", out.String())
				}
			}
		})
	}
}

// TestWriteFormatDa: castable write --format da (and ms) of CQL with
// every type and a partition large enough for Rows.db writes a BTI
// SSTable that verifies; converted to the big format it dumps the same,
// and converted back it is the same file in every component but
// Statistics.db and TOC.txt.
func TestWriteFormatDa(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schemaFile, []byte(allTypesSchema), 0o644); err != nil {
		t.Fatal(err)
	}
	cqlFile := filepath.Join(dir, "in.cql")
	var data strings.Builder
	data.WriteString(allTypesData)
	for i := 0; i < 300; i++ { // a partition with a row index
		fmt.Fprintf(&data, "INSERT INTO ks.all_types (pk, ck, c_text) VALUES (7, 'row %04d', '%s');\n", i, strings.Repeat("x", 100))
	}
	if err := os.WriteFile(cqlFile, []byte(data.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"da", "ms"} {
		t.Run(v, func(t *testing.T) {
			out, bigOut, back := filepath.Join(dir, v), filepath.Join(dir, v+"-"+bigOf(v)), filepath.Join(dir, v+"-back")
			args := []string{"write", "--schema", schemaFile, "--cql", cqlFile, "--format", v, "--out", out, "--column-index-size-kb", "1"}
			if _, stderr, code := runCastable(t, nil, args...); code != 0 {
				t.Fatalf("castable %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			descs, err := sstables.ListSSTables(nil, out)
			if err != nil || len(descs) != 1 || descs[0].Version != version.MustParse(v) {
				t.Fatalf("%s holds %v (%v)", out, descs, err)
			}
			if st, err := os.Stat(descs[0].Path(sstables.ComponentRows)); err != nil || st.Size() == 0 {
				t.Fatalf("Rows.db: %v, %v", st, err)
			}
			if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{out}, Schema: schemaFile}); err != nil {
				t.Fatal(err)
			}
			res, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{out}, Out: bigOut, To: bigOf(v), Schema: schemaFile, Generation: 1})
			if err != nil {
				t.Fatal(err)
			}
			if a, b := dumpOf(t, DumpOptions{SSTable: out, Schema: schemaFile}), dumpOf(t, DumpOptions{SSTable: res[0].Descriptor.Path(sstables.ComponentData), Schema: schemaFile}); !bytes.Equal(a, b) {
				t.Errorf("%s dumps other data than its %s copy:\n%s\n---\n%s", v, bigOf(v), a, b)
			}
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{bigOut}, Out: back, To: v, Schema: schemaFile, Generation: descs[0].Generation}); err != nil {
				t.Fatal(err)
			}
			got := descs[0]
			got.Dir = back
			sameComponents(t, descs[0], got, []sstables.Component{sstables.ComponentData, sstables.ComponentPartitions, sstables.ComponentRows,
				sstables.ComponentFilter, sstables.ComponentCompressionInfo, sstables.ComponentDigestCRC32})
		})
	}
}
