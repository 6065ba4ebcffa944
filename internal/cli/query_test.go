package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/query"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// countingFS counts the bytes read from each file.
type countingFS struct {
	sstables.FS
	mu   sync.Mutex
	read map[string]int64
}

func (c *countingFS) Open(name string) (sstables.File, error) {
	f, err := c.FS.Open(name)
	if err != nil {
		return nil, err
	}
	return &countingFile{File: f, fs: c, name: name}, nil
}

func (c *countingFS) add(name string, n int) {
	c.mu.Lock()
	c.read[name] += int64(n)
	c.mu.Unlock()
}

// dataRead is what was read of Data.db files.
func (c *countingFS) dataRead() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for name, b := range c.read {
		if strings.HasSuffix(name, "Data.db") {
			n += b
		}
	}
	return n
}

type countingFile struct {
	sstables.File
	fs   *countingFS
	name string
}

func (f *countingFile) Read(p []byte) (int, error) {
	n, err := f.File.Read(p)
	f.fs.add(f.name, n)
	return n, err
}

func (f *countingFile) ReadAt(p []byte, off int64) (int, error) {
	n, err := f.File.ReadAt(p, off)
	f.fs.add(f.name, n)
	return n, err
}

const querySchema = "CREATE TABLE ks.q (pk int, ck int, v text, s int static, PRIMARY KEY (pk, ck));\n"

// writeQueryTable writes 200 partitions of 20 rows of 200 bytes each in
// version v, in 4 KiB chunks, and returns the output directory.
func writeQueryTable(t *testing.T, v string) (dir, schemaFile string) {
	t.Helper()
	dir = t.TempDir()
	schemaFile = filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte(querySchema), 0o644); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	x := uint32(1)
	text := func() string { // incompressible enough: chunks are not all alike
		var t []byte
		for range 200 {
			x = x*1664525 + 1013904223
			t = append(t, 'a'+byte(x>>24)%26)
		}
		return string(t)
	}
	for pk := 0; pk < 200; pk++ {
		fmt.Fprintf(&b, "INSERT INTO ks.q (pk, s) VALUES (%d, %d) USING TIMESTAMP 1;\n", pk, pk*10)
		for ck := 0; ck < 20; ck++ {
			fmt.Fprintf(&b, "INSERT INTO ks.q (pk, ck, v) VALUES (%d, %d, '%s') USING TIMESTAMP 2;\n", pk, ck, text())
		}
	}
	cqlFile := filepath.Join(dir, "data.cql")
	if err := os.WriteFile(cqlFile, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if _, err := Write(context.Background(), &Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}, WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out,
		Format: v, Generation: 1, ChunkLengthKB: 4, Compression: "lz4"}); err != nil {
		t.Fatal(err)
	}
	return out, schemaFile
}

// TestQueryPointReadsOnlyThePartitionsChunks: a partition key = or IN query
// reads Data.db only where its partitions lie (through the bloom filter and
// the index), a few chunks of the whole file, where a full scan reads it
// all; a token range stops reading at its end. Big and BTI alike.
func TestQueryPointReadsOnlyThePartitionsChunks(t *testing.T) {
	for _, v := range []string{"nb", "da"} {
		t.Run(v, func(t *testing.T) {
			dir, schemaFile := writeQueryTable(t, v)
			s, err := loadSchema(schemaFile)
			if err != nil {
				t.Fatal(err)
			}
			descs, err := resolveSSTables([]string{dir})
			if err != nil {
				t.Fatal(err)
			}
			total, _ := os.Stat(descs[0].Path(sstables.ComponentData))
			run := func(stmt string) (int64, int) {
				fs := &countingFS{FS: sstables.OSFS, read: map[string]int64{}}
				set, err := table.Open(descs, nil, table.Options{Table: s.Table("ks.q"), Reader: sstables.ReaderOptions{FS: fs}})
				if err != nil {
					t.Fatal(err)
				}
				defer set.Close()
				before := fs.dataRead()
				q, err := query.Parse(stmt, set.Table(), query.Options{})
				if err != nil {
					t.Fatal(err)
				}
				rows, err := q.Run(set)
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				n := 0
				for {
					_, err := rows.Next()
					if err == io.EOF {
						break
					}
					if err != nil {
						t.Fatal(err)
					}
					n++
				}
				return fs.dataRead() - before, n
			}
			all, n := run("SELECT * FROM ks.q")
			if n != 4000 || all < total.Size() {
				t.Fatalf("full scan: %d rows, %d of %d bytes of Data.db", n, all, total.Size())
			}
			point, n := run("SELECT * FROM ks.q WHERE pk = 77")
			// A partition is ~4.4 KB uncompressed: two or three of the
			// ~200 4 KiB chunks.
			if n != 20 || point > 3*4096 {
				t.Errorf("pk = 77: %d rows, read %d bytes of Data.db's %d", n, point, total.Size())
			}
			in, n := run("SELECT * FROM ks.q WHERE pk IN (5, 150, 77) AND ck > 17")
			if n != 6 || in > 3*(3*4096+1024) {
				t.Errorf("pk IN: %d rows, read %d bytes of Data.db's %d", n, in, total.Size())
			}
			none, n := run("SELECT * FROM ks.q WHERE pk = 1000")
			if n != 0 || none > 0 {
				t.Errorf("absent key: %d rows, read %d bytes of Data.db", n, none)
			}
			t.Logf("Data.db %d bytes: full scan read %d, pk = read %d, pk IN (3) read %d", total.Size(), all, point, in)
		})
	}
}

func TestQueryCommand(t *testing.T) {
	dir, schemaFile := writeQueryTable(t, "nb")
	now := time.Unix(1_800_000_000, 0)
	for _, tc := range []struct {
		opts QueryOptions
		want string
		code int
	}{
		{QueryOptions{Statement: "SELECT pk, ck, s FROM ks.q WHERE pk = 3 AND ck < 2", Schema: schemaFile},
			"\n pk | ck |  s\n----+----+----\n  3 |  0 | 30\n  3 |  1 | 30\n\n(2 rows)\n", 0},
		{QueryOptions{Statement: "SELECT pk, writetime(s), count(*) FROM ks.q WHERE pk IN (3, 4)", Schema: schemaFile, Format: "json"},
			`{"pk":3,"writetime(s)":1,"count":40}` + "\n", 0},
		{QueryOptions{Statement: `SELECT DISTINCT "PartitionKey", s FROM ks.q WHERE "PartitionKey" = 9`, Format: "csv"}, // the header's schema, its names
			"PartitionKey,s\n9,90\n", 0},
		{QueryOptions{Statement: "SELECT * FROM ks.q WHERE v = 'x'", Schema: schemaFile}, "", ExitUsage},
		{QueryOptions{Statement: "SELEKT * FROM ks.q", Schema: schemaFile}, "", ExitUsage},
		{QueryOptions{Statement: "SELECT * FROM ks.nope", Schema: schemaFile}, "", ExitUsage},
		{QueryOptions{Statement: "SELECT * FROM ks.q", Schema: schemaFile, Format: "xml"}, "", ExitUsage},
		{QueryOptions{Statement: "SELECT * FROM ks.q", Schema: schemaFile, Release: "4.0"}, "", ExitUsage},
		{QueryOptions{Statement: "SELECT * FROM ks.q WHERE s != 3 ALLOW FILTERING", Schema: schemaFile, Release: "3.11"}, "", ExitUsage},
	} {
		var out, errb bytes.Buffer
		tc.opts.SSTables, tc.opts.Now = []string{dir}, now
		err := Query(&Env{Stdout: &out, Stderr: &errb}, tc.opts)
		if code := ExitCode(err); code != tc.code {
			t.Errorf("%s: exit %d (%v), want %d", tc.opts.Statement, code, err, tc.code)
			continue
		}
		if tc.code == 0 && out.String() != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.opts.Statement, out.String(), tc.want)
		}
	}
	// The statement's literals parse as the schema says.
	if _, err := cql.ParseSelect("SELECT * FROM ks.q WHERE pk = 1"); err != nil {
		t.Fatal(err)
	}
}

// TestQuerySliceSeeks: a clustering slice of a wide partition starts
// reading where the slice starts (the row index), in every SSTable, and
// answers what reading the whole partition and filtering answers.
func TestQuerySliceSeeks(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "schema.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.w (pk int, ck int, v text, PRIMARY KEY (pk, ck)) WITH CLUSTERING ORDER BY (ck DESC);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	x := uint32(7)
	for gen := 1; gen <= 2; gen++ {
		var b strings.Builder
		for pk := 0; pk < 3; pk++ {
			for ck := gen - 1; ck < 3000; ck += 2 {
				var v []byte
				for range 100 {
					x = x*1664525 + 1013904223
					v = append(v, 'a'+byte(x>>24)%26)
				}
				fmt.Fprintf(&b, "INSERT INTO ks.w (pk, ck, v) VALUES (%d, %d, '%s') USING TIMESTAMP %d;\n", pk, ck, v, gen)
			}
		}
		// A range deletion across the seek target in the second SSTable.
		if gen == 2 {
			fmt.Fprintf(&b, "DELETE FROM ks.w USING TIMESTAMP 9 WHERE pk = 1 AND ck > 95 AND ck <= 105;\n")
		}
		cqlFile := filepath.Join(dir, fmt.Sprintf("data%d.cql", gen))
		if err := os.WriteFile(cqlFile, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := Write(context.Background(), &Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}, WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: out,
			Format: []string{"", "nb", "da"}[gen], Generation: gen, ColumnIndexSizeKB: 4}); err != nil {
			t.Fatal(err)
		}
	}
	s, err := loadSchema(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	descs, err := resolveSSTables([]string{out})
	if err != nil {
		t.Fatal(err)
	}
	run := func(stmt string) (int64, string) {
		fs := &countingFS{FS: sstables.OSFS, read: map[string]int64{}}
		set, err := table.Open(descs, nil, table.Options{Table: s.Table("ks.w"), Reader: sstables.ReaderOptions{FS: fs}})
		if err != nil {
			t.Fatal(err)
		}
		defer set.Close()
		before := fs.dataRead()
		q, err := query.Parse(stmt, set.Table(), query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		rows, err := q.Run(set)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var buf bytes.Buffer
		w := query.NewCSVWriter(&buf, q.Columns())
		for {
			r, err := rows.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			w.Row(r)
		}
		w.Close()
		return fs.dataRead() - before, buf.String()
	}
	whole, all := run("SELECT ck, v FROM ks.w WHERE pk = 1")
	lines := strings.Split(strings.TrimSuffix(all, "\n"), "\n")
	for _, tc := range []struct {
		slice string
		keep  func(ck int) bool
	}{
		{"ck < 110", func(ck int) bool { return ck < 110 }},                          // DESC: the slice starts at 110
		{"ck <= 110 AND ck > 90", func(ck int) bool { return ck <= 110 && ck > 90 }}, // across the deletion
		{"ck <= 101", func(ck int) bool { return ck <= 101 }},                        // the seek lands inside the deletion
		{"ck IN (104, 100, 5)", func(ck int) bool { return ck == 104 || ck == 100 || ck == 5 }},
		{"ck = 7", func(ck int) bool { return ck == 7 }},
		{"ck >= 2990", func(ck int) bool { return ck >= 2990 }}, // the start: no gain
	} {
		want := lines[0] + "\n"
		for _, l := range lines[1:] {
			var ck int
			fmt.Sscanf(l, "%d,", &ck)
			if tc.keep(ck) {
				want += l + "\n"
			}
		}
		part, got := run("SELECT ck, v FROM ks.w WHERE pk = 1 AND " + tc.slice)
		if got != want {
			t.Errorf("%s: the slice answers\n%.300s\nfiltering the partition answers\n%.300s", tc.slice, got, want)
		}
		t.Logf("%s: %d rows, %d bytes of Data.db read, %d for the whole partition", tc.slice, strings.Count(got, "\n")-1, part, whole)
		if part*2 > whole && !strings.Contains(tc.slice, "2990") {
			t.Errorf("%s: read %d bytes of Data.db, %d reading the partition", tc.slice, part, whole)
		}
	}
}
