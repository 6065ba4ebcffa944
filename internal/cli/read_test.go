package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// corpusSSTables lists the Data.db files under testdata/cassandra, by
// path relative to it; corrupt ones (integrity_check) only when asked.
func corpusSSTables(t *testing.T, corrupt bool) []string {
	t.Helper()
	root := testdata.Path(t, "cassandra")
	var out []string
	err := filepath.Walk(root, func(path string, info os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		if info.IsDir() || !strings.HasSuffix(path, "-big-Data.db") {
			return nil
		}
		if strings.Contains(path, "integrity_check") != corrupt {
			return nil
		}
		out = append(out, path)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	if len(out) == 0 {
		t.Fatal("no SSTables in the corpus")
	}
	return out
}

func relName(t *testing.T, path string) string {
	rel, err := filepath.Rel(testdata.Path(t, "cassandra"), path)
	if err != nil {
		return path
	}
	return rel
}

// tableCQL renders a table as a CREATE TABLE statement (for the dump ->
// write -> dump round trip of files without a schema file).
func tableCQL(t *schema.Table) string {
	var b strings.Builder
	ks, name := t.Keyspace, t.Name
	if ks == "" || name == "" { // a table rebuilt from an mc header has no names
		ks, name = "ks", "t"
	}
	b.WriteString("CREATE TABLE " + schema.QuoteIdentifier(ks) + "." + schema.QuoteIdentifier(name) + " (")
	var pk, ck, order []string
	for _, c := range t.PartitionKey {
		b.WriteString(schema.QuoteIdentifier(c.Name) + " " + c.Type.String() + ", ")
		pk = append(pk, schema.QuoteIdentifier(c.Name))
	}
	for _, c := range t.Clustering {
		b.WriteString(schema.QuoteIdentifier(c.Name) + " " + c.Type.Unreversed().String() + ", ")
		ck = append(ck, schema.QuoteIdentifier(c.Name))
		dir := " ASC"
		if c.Type.Reversed {
			dir = " DESC"
		}
		order = append(order, schema.QuoteIdentifier(c.Name)+dir)
	}
	for _, c := range t.Static {
		b.WriteString(schema.QuoteIdentifier(c.Name) + " " + c.Type.String() + " static, ")
	}
	for _, c := range t.Regular {
		if !c.Hidden {
			b.WriteString(schema.QuoteIdentifier(c.Name) + " " + c.Type.String() + ", ")
		}
	}
	b.WriteString("PRIMARY KEY ((" + strings.Join(pk, ", ") + ")")
	for _, c := range ck {
		b.WriteString(", " + c)
	}
	b.WriteString("))")
	if len(order) > 0 {
		b.WriteString(" WITH CLUSTERING ORDER BY (" + strings.Join(order, ", ") + ")")
	}
	return b.String() + ";\n"
}

// TestDumpCorpus dumps every sound SSTable of the corpus in every mode;
// where the folder has expected.json, the canonical dump equals it; and for
// mc/me files, dump -> write -> dump gives the same content.
func TestDumpCorpus(t *testing.T) {
	for _, path := range corpusSSTables(t, false) {
		t.Run(relName(t, path), func(t *testing.T) {
			for _, opts := range []DumpOptions{{}, {RawTimestamps: true}, {Lines: true}, {KeysOnly: true}} {
				opts.SSTable = path
				var out bytes.Buffer
				if err := Dump(&Env{Stdout: &out, Stderr: &out}, opts); err != nil {
					t.Fatalf("dump %+v: %v", opts, err)
				}
				if out.Len() == 0 {
					t.Fatalf("dump %+v printed nothing", opts)
				}
			}
			var canon bytes.Buffer
			if err := Dump(&Env{Stdout: &canon}, DumpOptions{SSTable: path, Canonical: true}); err != nil {
				t.Fatal(err)
			}
			desc, err := resolveSSTable(path)
			if err != nil {
				t.Fatal(err)
			}
			r, err := openSSTable(desc, nil, false)
			if err != nil {
				t.Fatal(err)
			}
			table := r.Table()
			r.Close()
			if want, err := os.ReadFile(filepath.Join(filepath.Dir(path), "expected.json")); err == nil {
				diff, err := jsondump.DiffBytes(table, want, canon.Bytes(), jsondump.DiffOptions{ComparePositions: true})
				if err != nil {
					t.Fatal(err)
				}
				if diff != "" {
					t.Errorf("canonical dump differs from expected.json: %s", diff)
				}
			}
			if desc.Version.LegacyCells() {
				return // without a schema la values are blobs; round trips are covered by the la package
			}
			// dump -> write -> dump.
			dir := t.TempDir()
			schemaFile := filepath.Join(dir, "schema.cql")
			if err := os.WriteFile(schemaFile, []byte(tableCQL(table)), 0o644); err != nil {
				t.Fatal(err)
			}
			dumpFile := filepath.Join(dir, "dump.json")
			if err := os.WriteFile(dumpFile, canon.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			out := filepath.Join(dir, "out")
			var stderr bytes.Buffer
			if _, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &stderr}, WriteOptions{Schema: schemaFile, Input: dumpFile, Out: out}); err != nil {
				t.Fatalf("write of the dump: %v\n%s\nschema: %s", err, stderr.String(), tableCQL(table))
			}
			var again bytes.Buffer
			if err := Dump(&Env{Stdout: &again}, DumpOptions{SSTable: out, Schema: schemaFile, Canonical: true}); err != nil {
				t.Fatal(err)
			}
			diff, err := jsondump.DiffBytes(table, canon.Bytes(), again.Bytes(), jsondump.DiffOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if diff != "" {
				t.Errorf("dump -> write -> dump changed the content: %s", diff)
			}
		})
	}
}

// TestDumpKeys: -k finds partitions through the index (in the order given,
// missing keys reported on stderr), -x leaves them out of a scan.
func TestDumpKeys(t *testing.T) {
	path := testdata.Path(t, "cassandra", "3.x", "uncompressed", "simple", "mc-1-big-Data.db")
	var out, errs bytes.Buffer
	if err := Dump(&Env{Stdout: &out, Stderr: &errs}, DumpOptions{SSTable: path, KeysOnly: true, Lines: true, Keys: []string{"3", "1", "77"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "[\"3\"]\n[\"1\"]\n"; got != want {
		t.Errorf("-k 3 -k 1 -k 77 -e -l printed %q, want %q", got, want)
	}
	if !strings.Contains(errs.String(), `key "77" not found`) {
		t.Errorf("missing key not reported: %q", errs.String())
	}
	out.Reset()
	if err := Dump(&Env{Stdout: &out}, DumpOptions{SSTable: path, KeysOnly: true, Lines: true, Exclude: []string{"1", "2", "3"}}); err != nil {
		t.Fatal(err)
	}
	if got, want := out.String(), "[\"5\"]\n[\"4\"]\n"; got != want {
		t.Errorf("-x 1 -x 2 -x 3 printed %q, want %q", got, want)
	}
	err := Dump(&Env{Stdout: &out}, DumpOptions{SSTable: path, Keys: []string{"not-an-int"}})
	if ExitCode(err) != ExitUsage {
		t.Errorf("a key that does not parse: %v (exit %d), want a usage error", err, ExitCode(err))
	}
}

// TestVerifyCorpus: every sound SSTable verifies; every integrity_check one
// fails with exit 1 and a message naming the file and the chunk or digest;
// usage errors exit 2.
func TestVerifyCorpus(t *testing.T) {
	sound := corpusSSTables(t, false)
	var out, errs bytes.Buffer
	if err := Verify(&Env{Stdout: &out, Stderr: &errs}, VerifyOptions{SSTables: sound}); err != nil {
		t.Fatalf("verify of the sound corpus: %v\n%s", err, errs.String())
	}
	if n := strings.Count(out.String(), "OK "); n != len(sound) {
		t.Errorf("%d OK lines for %d SSTables:\n%s", n, len(sound), out.String())
	}
	for _, path := range corpusSSTables(t, true) {
		t.Run(relName(t, path), func(t *testing.T) {
			var out, errs bytes.Buffer
			err := Verify(&Env{Stdout: &out, Stderr: &errs}, VerifyOptions{SSTables: []string{path}})
			if ExitCode(err) != ExitData {
				t.Fatalf("verify of a corrupt SSTable: %v (exit %d), want exit 1", err, ExitCode(err))
			}
			msg := errs.String()
			if !strings.Contains(msg, "FAILED") || !strings.Contains(msg, filepath.Dir(path)) {
				t.Errorf("message does not name the file: %q", msg)
			}
			switch {
			case strings.Contains(path, "invalid_digest"):
				if !strings.Contains(msg, "Digest.crc32") || !strings.Contains(msg, "digest mismatch") {
					t.Errorf("message does not name the digest: %q", msg)
				}
			case strings.Contains(path, "invalid_checksums"):
				if !strings.Contains(msg, "chunk") || !strings.Contains(msg, "offset") {
					t.Errorf("message does not name the chunk and offset: %q", msg)
				}
			}
			if out.Len() != 0 {
				t.Errorf("stdout has %q for a corrupt SSTable", out.String())
			}
		})
	}
	for _, args := range [][]string{nil, {filepath.Join(t.TempDir(), "mc-1-big-Data.db")}, {"not-an-sstable.txt"}} {
		err := Verify(&Env{Stdout: &out, Stderr: &errs}, VerifyOptions{SSTables: args})
		if ExitCode(err) != ExitUsage {
			t.Errorf("verify %v: %v (exit %d), want a usage error", args, err, ExitCode(err))
		}
	}
}

// TestVerifyWrittenSSTable: what write produces verifies, and flipping a
// byte of its Data.db makes verify fail naming the component.
func TestVerifyWrittenSSTable(t *testing.T) {
	c := mcWriteCases(t)[0]
	out := t.TempDir()
	opts := c.writeOptions(out)
	opts.Input = filepath.Join(c.dir, "data.json")
	opts.Compression = "lz4"
	if _, err := Write(context.Background(), &Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, opts); err != nil {
		t.Fatal(err)
	}
	if err := Verify(&Env{Stdout: &bytes.Buffer{}, Stderr: &bytes.Buffer{}}, VerifyOptions{SSTables: []string{out}}); err != nil {
		t.Fatalf("verify of a written SSTable: %v", err)
	}
	data := filepath.Join(out, "mc-1-big-"+string(sstables.ComponentData))
	b, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	b[len(b)/2] ^= 0x40
	if err := os.WriteFile(data, b, 0o644); err != nil {
		t.Fatal(err)
	}
	var errs bytes.Buffer
	err = Verify(&Env{Stdout: &bytes.Buffer{}, Stderr: &errs}, VerifyOptions{SSTables: []string{data}})
	if ExitCode(err) != ExitData || !strings.Contains(errs.String(), "Data.db") {
		t.Errorf("verify after a flipped byte: %v, stderr %q", err, errs.String())
	}
}

// TestLookupPositionMatchesScan: for every sound real SSTable, Lookup of a
// key the scan returned finds that partition at the position the scan
// reported, so that `dump -k` prints the same "position" as a full dump;
// ScanFrom of a key continues as the full scan does from there.
func TestLookupPositionMatchesScan(t *testing.T) {
	for _, path := range corpusSSTables(t, false) {
		t.Run(relName(t, path), func(t *testing.T) {
			descs, err := resolveSSTables([]string{path})
			if err != nil {
				t.Fatal(err)
			}
			r, err := openSSTable(descs[0], nil, false)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			sc, err := r.Scan()
			if err != nil {
				t.Fatal(err)
			}
			type entry struct {
				key []byte
				pos int64
			}
			var seen []entry
			for len(seen) < 2000 {
				p, err := sc.NextPartition()
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				seen = append(seen, entry{bytes.Clone(p.Key), sc.Position()})
			}
			sc.Close()
			for _, e := range seen {
				p, pos, err := r.Lookup(e.key)
				if err != nil {
					t.Fatalf("Lookup(%x): %v", e.key, err)
				}
				if p == nil || !bytes.Equal(p.Key, e.key) || pos != e.pos {
					t.Fatalf("Lookup(%x) found %v at %d, the scan had it at %d", e.key, p != nil, pos, e.pos)
				}
			}
			if p, pos, err := r.Lookup([]byte("\xff\xfeno such key")); err != nil || p != nil || pos != -1 {
				t.Errorf("Lookup of an absent key: %v, %d, %v", p != nil, pos, err)
			}
			// ScanFrom starts at the key's partition and goes on in order.
			for i := 0; i < len(seen); i += 7 {
				sc, err := r.ScanFrom(seen[i].key)
				if err != nil || sc == nil {
					t.Fatalf("ScanFrom(%x): %v, %v", seen[i].key, sc, err)
				}
				for j := i; j < min(i+3, len(seen)); j++ {
					p, err := sc.NextPartition()
					if err != nil {
						t.Fatalf("ScanFrom(%x), partition %d: %v", seen[i].key, j-i, err)
					}
					if !bytes.Equal(p.Key, seen[j].key) || sc.Position() != seen[j].pos {
						t.Fatalf("ScanFrom(%x), partition %d: key %x at %d, the scan had %x at %d", seen[i].key, j-i, p.Key, sc.Position(), seen[j].key, seen[j].pos)
					}
				}
				sc.Close()
			}
			if sc, err := r.ScanFrom([]byte("\xff\xfeno such key")); err != nil || sc != nil {
				t.Errorf("ScanFrom of an absent key: %v, %v", sc, err)
			}
		})
	}
}
