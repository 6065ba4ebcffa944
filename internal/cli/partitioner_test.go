package cli

import (
	"bufio"
	"bytes"
	"context"
	"crypto/md5"
	"fmt"
	"io"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf16"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/internal/oracle"
	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/sstables"
)

// referenceOrder orders two text partition keys as Cassandra's partitioner
// of that name does, from tokens computed here rather than by package dht
// (Murmur3 shares only the hash function, whose golden vectors dht's tests
// pin): token, then key bytes.
func referenceOrder(partitioner string, a, b []byte) int {
	var c int
	switch partitioner {
	case dht.Murmur3Name:
		tok := func(k []byte) int64 {
			h1, _ := dht.Murmur3Hash(k)
			if v := int64(h1); v != -1<<63 {
				return v
			}
			return 1<<63 - 1
		}
		ta, tb := tok(a), tok(b)
		c = map[bool]int{true: -1, false: 1}[ta < tb]
		if ta == tb {
			c = 0
		}
	case dht.RandomName:
		tok := func(k []byte) *big.Int {
			s := md5.Sum(k)
			v := new(big.Int).SetBytes(s[:])
			if s[0]&0x80 != 0 {
				v.Sub(v, new(big.Int).Lsh(big.NewInt(1), 128))
			}
			return v.Abs(v)
		}
		c = tok(a).Cmp(tok(b))
	case dht.ByteOrderedName:
		c = bytes.Compare(a, b)
	case dht.OrderPreservingName:
		c = slices.Compare(utf16.Encode([]rune(string(a))), utf16.Encode([]rune(string(b))))
	}
	if c != 0 {
		return c
	}
	return bytes.Compare(a, b)
}

// TestWritePartitioners writes 100,000 partitions with each partitioner in
// mc and la: the partitions come out in the partitioner's order, the
// SSTables verify, their metadata names the partitioner, every key is
// found by Get (and a sample by dump -k) and absent keys are absent.
func TestWritePartitioners(t *testing.T) {
	const n = 100_000
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.t (pk text PRIMARY KEY, v int) WITH compression = {'class': 'LZ4Compressor', 'chunk_length_in_kb': '4'};"), 0o644); err != nil {
		t.Fatal(err)
	}
	csvFile := filepath.Join(dir, "rows.csv")
	var csv bytes.Buffer
	keys := make([]string, n)
	for i := range keys {
		// Short and long keys, shared prefixes, and characters on both
		// sides of the surrogates (OrderPreserving compares UTF-16).
		switch i % 4 {
		case 0:
			keys[i] = fmt.Sprintf("k%d", i)
		case 1:
			keys[i] = fmt.Sprintf("key-with-a-long-shared-prefix-%07d", i)
		case 2:
			keys[i] = fmt.Sprintf("\uffe0%d", i)
		default:
			keys[i] = fmt.Sprintf("𝄞%d", i)
		}
		fmt.Fprintf(&csv, "%s,%d\n", keys[i], i)
	}
	if err := os.WriteFile(csvFile, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, part := range []dht.Partitioner{dht.Murmur3, dht.Random, dht.ByteOrdered, dht.OrderPreserving} {
		for _, format := range []string{"mc", "la"} {
			short := strings.TrimPrefix(part.Name(), "org.apache.cassandra.dht.")
			t.Run(short+"/"+format, func(t *testing.T) {
				t.Parallel()
				out := filepath.Join(dir, short, format)
				env := quietEnv()
				if _, err := Write(context.Background(), env, WriteOptions{Schema: schemaFile, CSV: csvFile, Out: out,
					Format: format, Partitioner: short, Generation: 1, MemtableSize: 1 << 30}); err != nil {
					t.Fatal(err)
				}
				if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{out}}); err != nil {
					t.Fatalf("verify: %v", err)
				}
				md, err := ReadMetadata(MetadataOptions{SSTable: out})
				if err != nil {
					t.Fatal(err)
				}
				if md.Partitioner != part.Name() {
					t.Errorf("metadata names %q, want %q", md.Partitioner, part.Name())
				}
				desc, err := resolveSSTable(out)
				if err != nil {
					t.Fatal(err)
				}
				r, err := openSSTable(desc, nil, false)
				if err != nil {
					t.Fatal(err)
				}
				defer r.Close()
				if r.Partitioner() != part {
					t.Fatalf("reader's partitioner %s", r.Partitioner().Name())
				}
				sc, err := r.Scan()
				if err != nil {
					t.Fatal(err)
				}
				var got [][]byte
				for {
					p, err := sc.NextPartition()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					got = append(got, bytes.Clone(p.Key))
				}
				sc.Close()
				if len(got) != n {
					t.Fatalf("%d partitions, want %d", len(got), n)
				}
				for i := 1; i < len(got); i++ {
					if referenceOrder(part.Name(), got[i-1], got[i]) >= 0 {
						t.Fatalf("partition %d (%q) does not sort after %q under %s", i, got[i], got[i-1], short)
					}
				}
				for _, k := range got {
					p, err := r.Get(k)
					if err != nil || p == nil || !bytes.Equal(p.Key, k) {
						t.Fatalf("Get(%q) = %v, %v", k, p, err)
					}
				}
				for i := range 2000 {
					k := fmt.Sprintf("absent-%d", i)
					if p, err := r.Get([]byte(k)); err != nil || p != nil {
						t.Fatalf("Get(absent %q) = %v, %v", k, p, err)
					}
				}
				// dump -k through the command, keys in the order given.
				sample := []string{keys[0], keys[n-1], keys[n/2+1], keys[n/3+2], keys[7], "absent"}
				var dumped, errs bytes.Buffer
				if err := Dump(&Env{Stdout: &dumped, Stderr: &errs}, DumpOptions{SSTable: out, Schema: schemaFile, KeysOnly: true, Lines: true, Keys: sample}); err != nil {
					t.Fatal(err)
				}
				var lines []string
				for s := bufio.NewScanner(&dumped); s.Scan(); {
					lines = append(lines, s.Text())
				}
				if len(lines) != len(sample)-1 {
					t.Fatalf("dump -k printed %d partitions, want %d: %q", len(lines), len(sample)-1, dumped.String())
				}
				for i, l := range lines {
					if want := fmt.Sprintf("[%q]", sample[i]); l != want {
						t.Errorf("dump -k line %d = %s, want %s", i, l, want)
					}
				}
				if !strings.Contains(errs.String(), `key "absent" not found`) {
					t.Errorf("absent key not reported: %q", errs.String())
				}
			})
		}
	}
}

// TestByteOrderedLegacyFiles: every ByteOrderedPartitioner SSTable of the
// shared corpus that castable reads verifies and dumps, its reader uses
// that partitioner, and convert keeps it.
func TestByteOrderedLegacyFiles(t *testing.T) {
	n := 0
	for _, s := range testdata.Supported(t, "cassandra-legacy") {
		if s.Partitioner != dht.ByteOrderedName {
			continue
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			path := s.Path("Data.db")
			if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{path}}); err != nil {
				t.Fatalf("verify: %v", err)
			}
			var out bytes.Buffer
			if err := Dump(&Env{Stdout: &out, Stderr: io.Discard}, DumpOptions{SSTable: path, Lines: true}); err != nil {
				t.Fatalf("dump: %v", err)
			}
			if strings.Count(out.String(), "\n") != 5 {
				t.Errorf("dump printed %d partitions, want 5", strings.Count(out.String(), "\n"))
			}
			dest := t.TempDir()
			to := "mc"
			if s.Version == "la" {
				to = "la"
			}
			// The LegacySSTableTest schemas (cassandra-legacy/README.md).
			schemaFile := filepath.Join(t.TempDir(), "s.cql")
			ddl := "CREATE TABLE legacy_tables.t (pk text PRIMARY KEY, val text);"
			if strings.Contains(s.Name, "_clust") {
				ddl = "CREATE TABLE legacy_tables.t (pk text, ck text, val text, PRIMARY KEY (pk, ck));"
			}
			if err := os.WriteFile(schemaFile, []byte(ddl), 0o644); err != nil {
				t.Fatal(err)
			}
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{path}, Out: dest, To: to, Schema: schemaFile}); err != nil {
				t.Fatalf("convert: %v", err)
			}
			md, err := ReadMetadata(MetadataOptions{SSTable: dest})
			if err != nil {
				t.Fatal(err)
			}
			if md.Partitioner != dht.ByteOrderedName {
				t.Errorf("convert relabelled the partitioner as %q", md.Partitioner)
			}
			if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{dest}}); err != nil {
				t.Fatalf("verify of the conversion: %v", err)
			}
		})
	}
	if n == 0 {
		t.Fatal("no ByteOrdered SSTable found")
	}
}

// TestCassandraReadsPartitioners: Cassandra 5.0's own reader opens mc
// SSTables castable wrote with each partitioner and sees the partitions
// castable's dump shows, in the same order.
func TestCassandraReadsPartitioners(t *testing.T) {
	o := oracle.Cassandra50(t)
	dir := t.TempDir()
	ddl := "CREATE TABLE ks.t (pk text PRIMARY KEY, v int);"
	schemaFile := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schemaFile, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	for i := range 300 {
		fmt.Fprintf(&csv, "%s,%d\n", []string{"k", "a-longer-key-", "\uffe0", "𝄞", "0"}[i%5]+fmt.Sprint(i), i)
	}
	csvFile := filepath.Join(dir, "rows.csv")
	if err := os.WriteFile(csvFile, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, part := range []dht.Partitioner{dht.Murmur3, dht.Random, dht.ByteOrdered, dht.OrderPreserving} {
		short := strings.TrimPrefix(part.Name(), "org.apache.cassandra.dht.")
		t.Run(short, func(t *testing.T) {
			out := filepath.Join(dir, short)
			if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CSV: csvFile, Out: out,
				Partitioner: short, Generation: 1, Timestamp: 1700000000000000}); err != nil {
				t.Fatal(err)
			}
			var ours bytes.Buffer
			if err := Dump(&Env{Stdout: &ours, Stderr: io.Discard}, DumpOptions{SSTable: out, Schema: schemaFile, RawTimestamps: true}); err != nil {
				t.Fatal(err)
			}
			res, err := o.Read(out, ddl, oracle.Options{JSON: true})
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Contains(res.Stderr, []byte("partitioner="+part.Name())) {
				t.Errorf("Cassandra did not open it with %s: %s", short, res.Stderr)
			}
			diff, err := oracle.DiffDumps(ours.Bytes(), res.Stdout)
			if err != nil {
				t.Fatal(err)
			}
			if diff != "" {
				t.Fatal(diff)
			}
		})
	}
}

// TestUnknownPartitionerInStatistics: an SSTable whose Statistics.db names a
// partitioner castable does not know (a copy of a real mc and la file,
// edited) is a data error naming Statistics.db and the class, from dump and
// verify alike — never read in Murmur3 order.
func TestUnknownPartitionerInStatistics(t *testing.T) {
	for _, src := range [][]string{{"cassandra", "3.x", "uncompressed", "simple"}, {"cassandra", "uncompressed"}} {
		dir := copySSTable(t, testdata.Path(t, src...))
		descs, err := resolveSSTables([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		desc := descs[0]
		path := desc.Path(sstables.ComponentStatistics)
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		st, err := sstables.DecodeStatistics(b, desc.Version, path)
		if err != nil {
			t.Fatal(err)
		}
		st.Partitioner = "org.example.FancyPartitioner"
		if b, err = sstables.AppendStatistics(nil, st, desc.Version); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, cmd := range []string{"dump", "verify"} {
			_, stderr, code := runCastable(t, nil, cmd, desc.Path(sstables.ComponentData))
			if code != 1 || !strings.Contains(stderr, path+": corrupt Statistics.db") || !strings.Contains(stderr, "org.example.FancyPartitioner") {
				t.Errorf("%s %s: exit %d, stderr:\n%s\nwant exit 1 naming %s and the partitioner", cmd, desc.Version, code, stderr, path)
			}
		}
	}
}
