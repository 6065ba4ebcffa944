package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castable-db/castable/internal/testdata"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// legacySchema writes the CREATE TABLE of a cassandra-legacy table
// (legacy_<v>_simple or legacy_<v>_clust, as the corpus README gives them)
// into dir and returns its path.
func legacySchema(t *testing.T, dir, table string) string {
	t.Helper()
	ddl := fmt.Sprintf("CREATE TABLE legacy_tables.%s (pk text PRIMARY KEY, val text);", table)
	if strings.HasSuffix(table, "_clust") {
		ddl = fmt.Sprintf("CREATE TABLE legacy_tables.%s (pk text, ck text, val text, PRIMARY KEY (pk, ck));", table)
	}
	path := filepath.Join(dir, table+".cql")
	if err := os.WriteFile(path, []byte(ddl), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// legacyBig lists the cassandra-legacy SSTables of the big versions
// castable writes, with their table names.
func legacyBig(t *testing.T) []testdata.SSTable {
	t.Helper()
	var out []testdata.SSTable
	for _, s := range testdata.Supported(t, "cassandra-legacy") {
		v, err := version.Parse(s.Version)
		if err != nil || !v.Writable() || v.Tries() || strings.Contains(s.Name, "other/") {
			continue
		}
		out = append(out, s)
	}
	if len(out) < 16 {
		t.Fatalf("only %d legacy SSTables", len(out))
	}
	return out
}

// sameComponents requires every component TOC.txt lists in want to be in
// got with the same bytes (TOC.txt: the same lines).
func sameComponents(t *testing.T, want, got sstables.Descriptor, only []sstables.Component) {
	t.Helper()
	toc, err := sstables.ReadTOC(nil, want)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range toc.Listed {
		if only != nil && !slices.Contains(only, c) {
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
			la, lb := strings.Fields(string(a)), strings.Fields(string(b))
			slices.Sort(la)
			slices.Sort(lb)
			if !slices.Equal(la, lb) {
				t.Errorf("TOC.txt lists %v, want %v", lb, la)
			}
			continue
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%s: %s", c, testdata.FirstDiff(b, a))
		}
	}
}

// TestConvertLegacyToOwnVersion: every SSTable Cassandra wrote in a big
// version castable writes, converted to its own version with the command
// line of the issue (--generation 1 --column-index-size-kb 4 --schema),
// is byte-identical in every component; the la corpus needs 1 KiB (with
// 4 KiB its column index has a quarter of the blocks Cassandra 2.2 wrote).
func TestConvertLegacyToOwnVersion(t *testing.T) {
	for _, s := range legacyBig(t) {
		t.Run(s.Name, func(t *testing.T) {
			schemaFile := legacySchema(t, t.TempDir(), filepath.Base(filepath.Dir(s.Path(""))))
			out := t.TempDir()
			args := []string{"convert", "--to", s.Version, "--generation", "1", "--schema", schemaFile, "--out", out}
			if s.Version != "la" {
				args = append(args, "--column-index-size-kb", "4")
			} else {
				args = append(args, "--column-index-size-kb", "1")
			}
			if _, stderr, code := runCastable(t, nil, append(args, s.Path("Data.db"))...); code != 0 {
				t.Fatalf("castable %s: exit %d: %s", strings.Join(args, " "), code, stderr)
			}
			want, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			got := want
			got.Dir = out
			sameComponents(t, want, got, nil)
		})
	}
}

// TestConvertInfersColumnIndexSize: without --column-index-size-kb, the
// granularity the legacy clust files' promoted indexes show (4 KiB; 1 KiB
// for la, whose 2.x cells are counted atom by atom) is found and the
// rewrite is byte-identical.
func TestConvertInfersColumnIndexSize(t *testing.T) {
	for _, s := range legacyBig(t) {
		if !strings.Contains(s.Name, "_clust") {
			continue
		}
		want := 4 << 10
		if version.MustParse(s.Version).LegacyCells() {
			want = 1 << 10
		}
		t.Run(s.Name, func(t *testing.T) {
			desc, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			r, err := sstables.OpenAny(desc, nil, sstables.ReaderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			ci, ok := r.(columnIndexInferrer)
			if !ok {
				r.Close()
				t.Fatalf("the %s reader does not infer the column index size", s.Version)
			}
			size, exact, err := ci.InferColumnIndexSize(64 << 10)
			r.Close()
			if err != nil || !exact || size != want {
				t.Fatalf("inferred %d (exact %v, %v), want %d", size, exact, err, want)
			}
			out := t.TempDir()
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{s.Path("Data.db")}, Out: out, Generation: 1}); err != nil {
				t.Fatal(err)
			}
			got := desc
			got.Dir = out
			sameComponents(t, desc, got, nil)
		})
	}
}

// TestConvertInfersLAColumnIndexSize: every la SSTable of the corpus
// rewritten by convert without --column-index-size-kb or a schema keeps
// its promoted index: Index.db byte for byte (promoted_index_read was
// written with column_index_size_in_kb 0, the legacy clust table with 1
// KiB; before, la inputs got the target's 64 KiB).
func TestConvertInfersLAColumnIndexSize(t *testing.T) {
	n := 0
	for _, s := range testdata.Supported(t) {
		if v := version.MustParse(s.Version); !v.LegacyCells() || !v.Writable() {
			continue
		}
		n++
		t.Run(s.Name, func(t *testing.T) {
			desc, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
			if err != nil {
				t.Fatal(err)
			}
			out := t.TempDir()
			if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{s.Path("Data.db")}, Out: out, Generation: desc.Generation}); err != nil {
				t.Fatal(err)
			}
			got := desc
			got.Dir = out
			sameComponents(t, desc, got, []sstables.Component{sstables.ComponentIndex})
		})
	}
	if n < 10 {
		t.Fatalf("only %d la SSTables", n)
	}
}

// roundTripComponents are the components any version to any other and
// back reproduces; Statistics.db and TOC.txt carry what the intermediate
// version's writer could not keep (its histogram habits, its TOC order).
var roundTripComponents = []sstables.Component{sstables.ComponentData, sstables.ComponentIndex, sstables.ComponentSummary,
	sstables.ComponentFilter, sstables.ComponentCompressionInfo, sstables.ComponentDigestCRC32, sstables.ComponentDigestAdler32}

// TestConvertAnyVersionToAnyAndBack: every legacy SSTable converted to
// every writable big version and back is byte-identical in Data.db,
// Index.db, Summary.db, Filter.db, CompressionInfo.db and the digest, and
// every intermediate dumps the same data.
func TestConvertAnyVersionToAnyAndBack(t *testing.T) {
	var targets []string
	for _, f := range sstables.Formats(true) {
		if v := f.Version(); !v.Tries() {
			targets = append(targets, v.String())
		}
	}
	for _, s := range legacyBig(t) {
		schemaFile := legacySchema(t, t.TempDir(), filepath.Base(filepath.Dir(s.Path(""))))
		table, err := loadTable(schemaFile, "")
		if err != nil {
			t.Fatal(err)
		}
		want := canonicalDump(t, s.Path("Data.db"), schemaFile)
		src, _, _, err := sstables.ParseDescriptor(s.Path("Data.db"))
		if err != nil {
			t.Fatal(err)
		}
		cis := 4
		if s.Version == "la" {
			cis = 1
		}
		for _, to := range targets {
			if to == s.Version {
				continue
			}
			t.Run(s.Name+"/to="+to, func(t *testing.T) {
				mid, back := t.TempDir(), t.TempDir()
				if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{s.Path("Data.db")}, Out: mid,
					To: to, Schema: schemaFile, Generation: 1, ColumnIndexSizeKB: cis}); err != nil {
					t.Fatalf("%s -> %s: %v", s.Version, to, err)
				}
				if diff, err := jsondump.DiffBytes(table, want, canonicalDump(t, mid, schemaFile), jsondump.DiffOptions{}); err != nil || diff != "" {
					t.Errorf("%s holds other data: %v %s", to, err, diff)
				}
				if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{mid}, Schema: schemaFile}); err != nil {
					t.Errorf("verify %s: %v", to, err)
				}
				if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{mid}, Out: back,
					To: s.Version, Schema: schemaFile, Generation: 1, ColumnIndexSizeKB: cis}); err != nil {
					t.Fatalf("%s -> %s: %v", to, s.Version, err)
				}
				got := src
				got.Dir = back
				sameComponents(t, src, got, roundTripComponents)
			})
		}
	}
}

// TestConvertUUIDIdentifiers: --uuid-identifiers names the output with a
// 4.1-style identifier that every reader parses.
func TestConvertUUIDIdentifiers(t *testing.T) {
	s := legacyBig(t)[0]
	out := t.TempDir()
	res, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{s.Path("Data.db")}, Out: out, To: "nb", UUIDIdentifiers: true})
	if err != nil {
		t.Fatal(err)
	}
	d := res[0].Descriptor
	if d.UUID == "" || d.Generation != 0 {
		t.Fatalf("descriptor %+v, want a UUID identifier", d)
	}
	back, _, _, err := sstables.ParseDescriptor(d.Path(sstables.ComponentData))
	if err != nil || back.UUID != d.UUID {
		t.Fatalf("%s parses as %+v (%v)", d.Path(sstables.ComponentData), back, err)
	}
	if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{out}}); err != nil {
		t.Fatal(err)
	}
}

// TestConvertDeletionTimesPast2038: an oa SSTable with an expiration past
// 2038 cannot go into mc: the error names the partition; with the cap
// policy it is written with 2038-01-19T03:14:06Z, as Cassandra's CAP does.
func TestConvertDeletionTimesPast2038(t *testing.T) {
	dir := t.TempDir()
	schemaFile := filepath.Join(dir, "s.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.t (k int PRIMARY KEY, v int);"), 0o644); err != nil {
		t.Fatal(err)
	}
	cqlFile := filepath.Join(dir, "in.cql")
	if err := os.WriteFile(cqlFile, []byte("INSERT INTO ks.t (k, v) VALUES (1, 1) USING TTL 630720000;\nINSERT INTO ks.t (k, v) VALUES (2, 2);\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	oa := filepath.Join(dir, "oa")
	now := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC) // + 20 years: 2050
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: oa, Format: "oa", Generation: 1, Now: now, Timestamp: now.UnixMicro()}); err != nil {
		t.Fatal(err)
	}
	// The same into mc directly is refused too.
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: filepath.Join(dir, "mcw"), Format: "mc", Generation: 1, Now: now, Timestamp: now.UnixMicro()}); err == nil || !strings.Contains(err.Error(), "2038") {
		t.Errorf("write mc of an expiration in 2050: %v", err)
	}
	_, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{oa}, Out: filepath.Join(dir, "mc"), To: "mc", Schema: schemaFile, Generation: 1})
	if err == nil || !strings.Contains(err.Error(), `partition ["1"]`) || !strings.Contains(err.Error(), "2038") {
		t.Fatalf("oa -> mc with an expiration in 2050: %v, want an error naming partition 1 and 2038", err)
	}
	var ue *UsageError
	if errors.As(err, &ue) {
		t.Fatalf("a data error reported as a usage error: %v", err)
	}
	capped := filepath.Join(dir, "capped")
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{oa}, Out: capped, To: "mc", Schema: schemaFile, Generation: 1, CapDeletionTimes: true}); err != nil {
		t.Fatal(err)
	}
	dump := string(canonicalDump(t, capped, schemaFile))
	if !strings.Contains(dump, `"expires_at": 2147483646`) { // 2038-01-19T03:14:06Z
		t.Errorf("capped dump does not expire on 2038-01-19T03:14:06Z:\n%s", dump)
	}
	if err := Verify(quietEnv(), VerifyOptions{SSTables: []string{capped}, Schema: schemaFile}); err != nil {
		t.Fatal(err)
	}
}

// TestConvert311LZ4: the mc file of negative-local-expiration-test/table2
// (Cassandra 3.11) has a chunk that only lz4-java 1.3.0's LZ4 r123 makes;
// converted to mc it comes back byte for byte in Data.db, CompressionInfo.db
// and the digest, and so it does after a detour through nb, which Cassandra
// 4.0's LZ4 writes.
func TestConvert311LZ4(t *testing.T) {
	dir := testdata.Path(t, "cassandra-legacy", "other", "negative-local-expiration-test", "table2")
	src, _, _, err := sstables.ParseDescriptor(filepath.Join(dir, "mc-1-big-Data.db"))
	if err != nil {
		t.Fatal(err)
	}
	schemaFile := filepath.Join(t.TempDir(), "table2.cql")
	if err := os.WriteFile(schemaFile, []byte("CREATE TABLE ks.table2 (k int, a int, b int, PRIMARY KEY (k, a));"), 0o644); err != nil {
		t.Fatal(err)
	}
	only := []sstables.Component{sstables.ComponentData, sstables.ComponentCompressionInfo, sstables.ComponentDigestCRC32}
	out := t.TempDir()
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{src.Path(sstables.ComponentData)}, Out: out, To: "mc", Schema: schemaFile, Generation: 1}); err != nil {
		t.Fatal(err)
	}
	got := src
	got.Dir = out
	sameComponents(t, src, got, only)

	mid, back := t.TempDir(), t.TempDir()
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{src.Path(sstables.ComponentData)}, Out: mid, To: "nb", Schema: schemaFile, Generation: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{mid}, Out: back, To: "mc", Schema: schemaFile, Generation: 1}); err != nil {
		t.Fatal(err)
	}
	got.Dir = back
	sameComponents(t, src, got, only)
}

// liveCellBin returns the count of the tombstone histogram's bin at
// Integer.MAX_VALUE (live cells and, with the habit, row livenesses) of
// the SSTable with Data.db path, or -1 without such a bin.
func liveCellBin(t *testing.T, path string) int64 {
	t.Helper()
	desc, _, _, err := sstables.ParseDescriptor(path)
	if err != nil {
		t.Fatal(err)
	}
	st, err := sstables.ReadStatistics(nil, desc, sstables.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if h := st.Stats.TombstoneDropTimes; h != nil {
		points, counts := h.Bins()
		if n := len(points); n > 0 && points[n-1] == 2147483647 {
			return counts[n-1]
		}
	}
	return -1
}

// TestMBCountsLivenessInLiveCellBin: Cassandra 3.0.7–3.8's writers of mb
// count each live row liveness in the tombstone histogram's
// Integer.MAX_VALUE bin beside the live cells, as the early mc writer of
// the legacy corpus does (its clust table: 250 rows of one cell, a bin of
// 500; ma's writer counts the cells only, 250). A fresh mb write of that
// data has the bin of 500, and an mb SSTable with that habit (the legacy mc
// file converted to mb, which carries the mc writer's habits) rewrites
// byte for byte in every component: carry-over, which sees the bin but not
// what it counted, takes the liveness habit from mb's profile.
func TestMBCountsLivenessInLiveCellBin(t *testing.T) {
	src := testdata.Path(t, "cassandra-legacy", "mc", "legacy_mc_clust", "mc-1-big-Data.db")
	if got := liveCellBin(t, src); got != 500 {
		t.Fatalf("the legacy mc file's live-cell bin is %d, want 500", got)
	}
	dir := t.TempDir()
	schemaFile := legacySchema(t, dir, "legacy_mc_clust")
	dump := filepath.Join(dir, "dump.json")
	if err := os.WriteFile(dump, canonicalDump(t, src, schemaFile), 0o644); err != nil {
		t.Fatal(err)
	}
	fresh := filepath.Join(dir, "fresh")
	res, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, Input: dump, Out: fresh, Format: "mb", Generation: 1})
	if err != nil {
		t.Fatal(err)
	}
	if got := liveCellBin(t, res.Results[0].Descriptor.Path(sstables.ComponentData)); got != 500 {
		t.Errorf("a fresh mb write's live-cell bin is %d, want 500 (250 cells and 250 row livenesses)", got)
	}

	mid, back := filepath.Join(dir, "mid"), filepath.Join(dir, "back")
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{src}, Out: mid, To: "mb", Schema: schemaFile, Generation: 1, ColumnIndexSizeKB: 4}); err != nil {
		t.Fatal(err)
	}
	mbFile := filepath.Join(mid, "mb-1-big-Data.db")
	if got := liveCellBin(t, mbFile); got != 500 {
		t.Fatalf("mc -> mb live-cell bin %d, want the mc writer's 500", got)
	}
	if _, err := Convert(context.Background(), quietEnv(), ConvertOptions{SSTables: []string{mbFile}, Out: back, Schema: schemaFile, Generation: 1, ColumnIndexSizeKB: 4}); err != nil {
		t.Fatal(err)
	}
	want, _, _, err := sstables.ParseDescriptor(mbFile)
	if err != nil {
		t.Fatal(err)
	}
	got := want
	got.Dir = back
	sameComponents(t, want, got, nil)
}
