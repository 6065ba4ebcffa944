//go:build cgo

package parquetcheck

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/internal/cli"
	"github.com/castable-db/castable/internal/workload"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// openDuckDB opens an in-memory DuckDB, skipping the test (failing it
// under CASTABLE_REQUIRE_TESTDATA=1, as in CI) when the driver cannot run:
// a build without cgo, where the bindings are a stub.
func openDuckDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("duckdb", "")
	if err == nil {
		err = db.Ping()
	}
	if err != nil {
		msg := fmt.Sprintf("DuckDB is unavailable here (it needs cgo and the duckdb-go-bindings library): %v", err)
		if os.Getenv("CASTABLE_REQUIRE_TESTDATA") == "1" {
			t.Fatal(msg)
		}
		t.Skip("skipping: " + msg)
	}
	return db
}

var now = time.Unix(1700000500, 0)

// TestDuckDBReadsWhatExportWrites: castable writes a random workload of
// every CQL type (collections and UDTs frozen and not, tuples, statics,
// vectors, every kind of deletion and TTL) into several overlapping
// SSTables, exports them as Parquet (snappy, zstd, none; several row
// groups), and DuckDB's read_parquet gives, row by row and value by value,
// castable's merged view of the SSTables (export.View), with each column of
// the Parquet logical type the README's table gives. A counter table too.
func TestDuckDBReadsWhatExportWrites(t *testing.T) {
	db := openDuckDB(t)
	defer db.Close()
	cases := []struct {
		name string
		o    workload.Options
	}{
		{"every-type", workload.Options{Seed: 7, Statements: 1500, Vectors: true, Partitions: 30}},
		{"every-type-2", workload.Options{Seed: 8, Statements: 1500, Vectors: true, Partitions: 30}},
		{"counters", workload.Options{Seed: 9, Statements: 600, Counters: true}},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := workload.Generate("ks", c.o)
			base := t.TempDir()
			schemaFile := filepath.Join(base, "schema.cql")
			cqlFile := filepath.Join(base, "data.cql")
			os.WriteFile(schemaFile, []byte(w.Schema()), 0o644)
			os.WriteFile(cqlFile, []byte(w.CQL()), 0o644)
			dir := filepath.Join(base, "sstables")
			env := &cli.Env{Stdout: io.Discard, Stderr: io.Discard, Quiet: true}
			if _, err := cli.Write(context.Background(), env, cli.WriteOptions{Schema: schemaFile, CQL: cqlFile, Out: dir, Now: now, MemtableSize: 64 << 10}); err != nil {
				t.Fatal(err)
			}
			codec := []string{export.Snappy, export.Zstd, export.None}[i%3]
			out := filepath.Join(base, "t.parquet")
			if _, err := cli.Export(context.Background(), env, cli.ExportOptions{SSTables: []string{dir}, Schema: schemaFile, Out: out, Now: now,
				Export: export.Options{Parquet: export.ParquetOptions{Compression: codec, RowGroupSize: 16 << 10}}}); err != nil {
				t.Fatal(err)
			}
			tab, want := view(t, w, schemaFile, dir)
			cols := export.SelectStarColumns(tab)
			checkTypes(t, db, out, cols)
			var sel []string
			for _, col := range cols {
				q := `"` + col.Name + `"`
				if col.Type.Kind == schema.KindTime {
					q = "CAST(" + q + " AS VARCHAR)" // the Go driver has no TIME_NS
				}
				sel = append(sel, q)
			}
			rows, err := db.Query(fmt.Sprintf("SELECT %s FROM read_parquet('%s')", strings.Join(sel, ", "), out))
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			n := 0
			for rows.Next() {
				vals := make([]any, len(cols))
				ptrs := make([]any, len(cols))
				for j := range vals {
					ptrs[j] = &vals[j]
				}
				if err := rows.Scan(ptrs...); err != nil {
					t.Fatal(err)
				}
				if n >= len(want) {
					n++
					continue
				}
				for j, col := range cols {
					exp := render(col.Type, want[n][j])
					got := renderDuck(col.Type, vals[j])
					if exp != got {
						t.Errorf("row %d column %s (%s): DuckDB read %s, castable's view has %s", n, col.Name, col.Type, got, exp)
					}
				}
				n++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			if n != len(want) || n < 100 {
				t.Errorf("DuckDB read %d rows, the view has %d", n, len(want))
			}
			t.Logf("%s: %d rows of %d columns, %s pages, compared", c.name, n, len(cols), codec)
		})
	}
}

// view is castable's merged view of the SSTables in dir.
func view(t *testing.T, w *workload.Workload, schemaFile, dir string) (*schema.Table, [][][]byte) {
	src, _ := os.ReadFile(schemaFile)
	sch, err := cql.ParseSchema(string(src))
	if err != nil {
		t.Fatal(err)
	}
	descs, err := sstables.ListSSTables(nil, dir)
	if err != nil || len(descs) < 2 {
		t.Fatalf("%d SSTables: %v", len(descs), err)
	}
	set, err := table.Open(descs, nil, table.Options{Table: sch.Table(w.Keyspace + "." + w.Table), Now: now})
	if err != nil {
		t.Fatal(err)
	}
	defer set.Close()
	sc, err := set.Scan()
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	v := export.NewView(sc, set.Table(), export.ViewOptions{Now: now})
	var rows [][][]byte
	for {
		r, err := v.Next()
		if err == io.EOF {
			return set.Table(), rows
		}
		if err != nil {
			t.Fatal(err)
		}
		row := make([][]byte, len(r.Values))
		for i, x := range r.Values {
			if x != nil {
				row[i] = bytes.Clone(x)
				if row[i] == nil {
					row[i] = []byte{}
				}
			}
		}
		rows = append(rows, row)
	}
}

// duckType is the DuckDB type read_parquet gives a column of CQL type t
// (the README's mapping as DuckDB sees it).
func duckType(t *schema.Type) string {
	t = t.Unreversed()
	switch t.Kind {
	case schema.KindInt:
		return "INTEGER"
	case schema.KindBigint, schema.KindCounter:
		return "BIGINT"
	case schema.KindSmallint:
		return "SMALLINT"
	case schema.KindTinyint:
		return "TINYINT"
	case schema.KindFloat:
		return "FLOAT"
	case schema.KindDouble:
		return "DOUBLE"
	case schema.KindBoolean:
		return "BOOLEAN"
	case schema.KindText, schema.KindAscii, schema.KindDecimal, schema.KindVarint, schema.KindInet:
		return "VARCHAR"
	case schema.KindBlob:
		return "BLOB"
	case schema.KindUUID, schema.KindTimeuuid:
		return "UUID"
	case schema.KindTimestamp:
		return "TIMESTAMP WITH TIME ZONE"
	case schema.KindDate:
		return "DATE"
	case schema.KindTime:
		return "TIME_NS"
	case schema.KindDuration:
		return `STRUCT("months" INTEGER, "days" INTEGER, nanoseconds BIGINT)`
	case schema.KindList, schema.KindSet, schema.KindVector:
		return duckType(t.Params[0]) + "[]"
	case schema.KindMap:
		return "MAP(" + duckType(t.Params[0]) + ", " + duckType(t.Params[1]) + ")"
	case schema.KindTuple, schema.KindUDT:
		var fs []string
		for i, ft := range t.Params {
			name := "_" + strconv.Itoa(i+1)
			if t.Kind == schema.KindUDT {
				name = t.FieldNames[i]
			}
			fs = append(fs, name+" "+duckType(ft))
		}
		return "STRUCT(" + strings.Join(fs, ", ") + ")"
	}
	return "?"
}

func checkTypes(t *testing.T, db *sql.DB, path string, cols []*schema.Column) {
	t.Helper()
	rows, err := db.Query(fmt.Sprintf("SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM read_parquet('%s'))", path))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	i := 0
	for rows.Next() {
		var name, typ string
		if err := rows.Scan(&name, &typ); err != nil {
			t.Fatal(err)
		}
		if i >= len(cols) {
			t.Errorf("an extra column %s %s", name, typ)
			continue
		}
		if name != cols[i].Name || typ != duckType(cols[i].Type) {
			t.Errorf("column %d: DuckDB sees %s %s, want %s %s", i, name, typ, cols[i].Name, duckType(cols[i].Type))
		}
		i++
	}
	if i != len(cols) {
		t.Errorf("DuckDB sees %d columns, want %d", i, len(cols))
	}
}

// render is the canonical text of a serialized CQL value as the Parquet
// mapping carries it: nil and empty values of types without an empty form
// are null.
func render(t *schema.Type, v []byte) string {
	t = t.Unreversed()
	if v == nil {
		return "null"
	}
	switch t.Kind {
	case schema.KindText, schema.KindAscii:
		return strconv.Quote(string(v))
	case schema.KindBlob:
		return "0x" + hex.EncodeToString(v)
	}
	if len(v) == 0 {
		return "null"
	}
	switch t.Kind {
	case schema.KindInt, schema.KindSmallint, schema.KindTinyint, schema.KindBigint, schema.KindCounter:
		return new(big.Int).SetBytes(v).String() + "/" + strconv.FormatInt(signed(v), 10)
	case schema.KindFloat:
		return fmtFloat(float64(math.Float32frombits(binary.BigEndian.Uint32(v))), 32)
	case schema.KindDouble:
		return fmtFloat(math.Float64frombits(binary.BigEndian.Uint64(v)), 64)
	case schema.KindBoolean:
		return strconv.FormatBool(v[0] != 0)
	case schema.KindUUID, schema.KindTimeuuid:
		return hex.EncodeToString(v)
	case schema.KindTimestamp:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10) + "ms"
	case schema.KindDate:
		return strconv.FormatInt(int64(binary.BigEndian.Uint32(v))-1<<31, 10) + "d"
	case schema.KindTime:
		return strconv.FormatInt(int64(binary.BigEndian.Uint64(v)), 10) + "ns"
	case schema.KindDecimal, schema.KindVarint, schema.KindInet:
		s, err := t.AppendString(nil, v)
		if err != nil {
			return "invalid " + err.Error()
		}
		return strconv.Quote(string(s))
	case schema.KindDuration:
		return durationText(v)
	case schema.KindList, schema.KindSet, schema.KindMap:
		n := int(binary.BigEndian.Uint32(v))
		rest := v[4:]
		next := func() []byte {
			l := int(binary.BigEndian.Uint32(rest))
			e := rest[4 : 4+l]
			rest = rest[4+l:]
			if e == nil {
				e = []byte{}
			}
			return e
		}
		var parts []string
		for i := 0; i < n; i++ {
			e := render(t.Params[0], next())
			if t.Kind == schema.KindMap {
				e += ": " + render(t.Params[1], next())
			}
			parts = append(parts, e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case schema.KindVector:
		elems, err := t.VectorElements(v)
		if err != nil {
			return "invalid"
		}
		var parts []string
		for _, e := range elems {
			parts = append(parts, render(t.Params[0], e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case schema.KindTuple, schema.KindUDT:
		var parts []string
		rest := v
		for _, ft := range t.Params {
			if len(rest) == 0 {
				parts = append(parts, "null")
				continue
			}
			l := int32(binary.BigEndian.Uint32(rest))
			rest = rest[4:]
			if l < 0 {
				parts = append(parts, "null")
				continue
			}
			f := rest[:l:l]
			if f == nil {
				f = []byte{}
			}
			parts = append(parts, render(ft, f))
			rest = rest[l:]
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return "?" + t.String()
}

func signed(v []byte) int64 {
	var x int64
	for i, b := range v {
		if i == 0 {
			x = int64(int8(b))
			continue
		}
		x = x<<8 | int64(b)
	}
	return x
}

func fmtFloat(f float64, bits int) string {
	if math.IsNaN(f) {
		return "NaN"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// durationText renders a duration value: three zigzag VInts.
func durationText(v []byte) string {
	var m, d, n int64
	rest := v
	for _, dst := range []*int64{&m, &d, &n} {
		x, k := uvarintVInt(rest)
		*dst = int64(x>>1) ^ -int64(x&1)
		rest = rest[k:]
	}
	return fmt.Sprintf("%dmo%dd%dns", m, d, n)
}

// uvarintVInt decodes Cassandra's VInt (length in the first byte's leading
// ones).
func uvarintVInt(b []byte) (uint64, int) {
	first := b[0]
	extra := 0
	for mask := byte(0x80); first&mask != 0 && extra < 8; mask >>= 1 {
		extra++
	}
	x := uint64(first) & (0xff >> extra)
	if extra == 8 {
		x = 0
	}
	for i := 1; i <= extra; i++ {
		x = x<<8 | uint64(b[i])
	}
	return x, 1 + extra
}

// renderDuck is render's text of what DuckDB's Go driver returned.
func renderDuck(t *schema.Type, v any) string {
	t = t.Unreversed()
	if v == nil {
		return "null"
	}
	switch t.Kind {
	case schema.KindText, schema.KindAscii:
		return strconv.Quote(v.(string))
	case schema.KindBlob:
		return "0x" + hex.EncodeToString(v.([]byte))
	case schema.KindInt, schema.KindSmallint, schema.KindTinyint, schema.KindBigint, schema.KindCounter:
		var x int64
		var width int
		switch n := v.(type) {
		case int8:
			x, width = int64(n), 1
		case int16:
			x, width = int64(n), 2
		case int32:
			x, width = int64(n), 4
		case int64:
			x, width = n, 8
		default:
			return fmt.Sprintf("%T %v", v, v)
		}
		b := binary.BigEndian.AppendUint64(nil, uint64(x))[8-width:]
		return new(big.Int).SetBytes(b).String() + "/" + strconv.FormatInt(x, 10)
	case schema.KindFloat:
		return fmtFloat(float64(v.(float32)), 32)
	case schema.KindDouble:
		return fmtFloat(v.(float64), 64)
	case schema.KindBoolean:
		return strconv.FormatBool(v.(bool))
	case schema.KindUUID, schema.KindTimeuuid:
		switch u := v.(type) {
		case duckdb.UUID:
			return hex.EncodeToString(u[:])
		case []byte:
			return hex.EncodeToString(u)
		case string:
			return strings.ReplaceAll(u, "-", "")
		}
		return fmt.Sprintf("%T %v", v, v)
	case schema.KindTimestamp:
		return strconv.FormatInt(v.(time.Time).UnixMilli(), 10) + "ms"
	case schema.KindDate:
		return strconv.FormatInt(int64(math.Floor(float64(v.(time.Time).Unix())/86400)), 10) + "d"
	case schema.KindTime:
		// TIME_NS read as text (the Go driver has no TIME_NS): hh:mm:ss[.f…]
		var h, m int64
		str := v.(string)
		fmt.Sscanf(str, "%d:%d:", &h, &m)
		whole, frac, _ := strings.Cut(str[6:], ".")
		s, _ := strconv.ParseInt(whole, 10, 64)
		frac = (frac + "000000000")[:9]
		ns, _ := strconv.ParseInt(frac, 10, 64)
		return strconv.FormatInt(((h*60+m)*60+s)*1e9+ns, 10) + "ns"
	case schema.KindDecimal, schema.KindVarint, schema.KindInet:
		return strconv.Quote(v.(string))
	case schema.KindDuration:
		m := v.(map[string]any)
		return fmt.Sprintf("%dmo%dd%dns", m["months"], m["days"], m["nanoseconds"])
	case schema.KindList, schema.KindSet, schema.KindVector:
		var parts []string
		for _, e := range v.([]any) {
			parts = append(parts, renderDuck(t.Params[0], e))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case schema.KindMap:
		om, ok := v.(duckdb.OrderedMap)
		if !ok {
			return fmt.Sprintf("%T %v", v, v)
		}
		keys, values := om.Keys(), om.Values()
		var parts []string
		for i := range keys {
			parts = append(parts, renderDuck(t.Params[0], keys[i])+": "+renderDuck(t.Params[1], values[i]))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case schema.KindTuple, schema.KindUDT:
		m := v.(map[string]any)
		var parts []string
		for i, ft := range t.Params {
			name := "_" + strconv.Itoa(i+1)
			if t.Kind == schema.KindUDT {
				name = t.FieldNames[i]
			}
			parts = append(parts, renderDuck(ft, m[name]))
		}
		return "(" + strings.Join(parts, ", ") + ")"
	}
	return fmt.Sprintf("?%T", v)
}
