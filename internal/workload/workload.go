// Package workload generates seeded random CQL workloads for the tests that
// compare castable with a live Cassandra (internal/node): a schema of every
// CQL type — collections frozen and not, UDTs frozen and not, tuples,
// statics, a composite clustering key with a descending column — and
// statements over it (INSERT, UPDATE of cells, collection elements and UDT
// fields, TTLs, and every kind of deletion: cell, collection, element, row,
// clustering range, partition), or a counter table with counter updates.
//
// Every write carries USING TIMESTAMP, so the same statements give the
// same data whoever applies them, in any order: castable (`write --cql`)
// or the node over CQL. Some writes share a timestamp on purpose, so that
// reconciliation's tie rules are exercised.
package workload

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Options configure a workload. The zero value of each field means the
// default its comment gives.
type Options struct {
	// Seed seeds the generator.
	Seed uint64
	// Table is the table's name; "" means "t".
	Table string
	// Partitions is the number of partition keys drawn from; 0 means 20.
	Partitions int
	// Statements is the number of statements; 0 means 200.
	Statements int
	// Clusterings is the number of clustering keys per partition drawn
	// from; 0 means 8.
	Clusterings int
	// Timestamp is the first write timestamp (µs); 0 means 1700000000000000.
	Timestamp int64
	// Counters makes a counter table (counter columns only) instead.
	Counters bool
	// Legacy leaves out what Cassandra 2.2 cannot store (duration,
	// non-frozen UDTs), for la.
	Legacy bool
	// Vectors adds vector columns (Cassandra 5.0).
	Vectors bool
	// NoDeletions leaves deletions out.
	NoDeletions bool
	// TTL is the TTL (s) of the expiring writes; 0 means 86400 (nothing
	// expires during a test). A negative value writes no TTLs.
	TTL int
	// TTLSpread is how many seconds TTLs vary above TTL; 0 means 100.
	TTLSpread int
}

// Workload is a generated schema and its statements.
type Workload struct {
	Keyspace, Table string
	// Types are the CREATE TYPE statements, Create the CREATE TABLE
	// statement (keyspace-qualified, without ';').
	Types  []string
	Create string
	// Statements are the writes, without ';'.
	Statements []string
}

// Schema returns the CREATE TYPE and CREATE TABLE statements as one
// schema file (castable's --schema).
func (w *Workload) Schema() string {
	var b strings.Builder
	for _, t := range w.Types {
		b.WriteString(t + ";\n")
	}
	b.WriteString(w.Create + ";\n")
	return b.String()
}

// CQL returns the statements as a file of statements (castable's --cql).
func (w *Workload) CQL() string {
	var b strings.Builder
	for _, s := range w.Statements {
		b.WriteString(s + ";\n")
	}
	return b.String()
}

// DDL returns the statements that create the schema on a node, with the
// table named table instead of w.Table (a second table for comparing).
func (w *Workload) DDL(table string) []string {
	out := append([]string(nil), w.Types...)
	if table == w.Table {
		return append(out, w.Create)
	}
	return append(out, strings.Replace(w.Create, w.Keyspace+"."+w.Table+" ", w.Keyspace+"."+table+" ", 1))
}

// For returns the statements for a copy of the table named table.
func (w *Workload) For(table string) []string {
	out := make([]string, len(w.Statements))
	for i, s := range w.Statements {
		out[i] = strings.Replace(s, " "+w.Keyspace+"."+w.Table+" ", " "+w.Keyspace+"."+table+" ", 1)
	}
	return out
}

type column struct {
	name   string
	typ    string
	gen    func(r *rand.Rand) string
	static bool
	// kind of non-frozen collection or UDT for element updates: "list",
	// "set", "map", "udt" or "".
	multi string
}

type gen struct {
	r    *rand.Rand
	o    Options
	ks   string
	cols []column
	ts   int64
}

// Generate returns a workload for keyspace ks.
func Generate(ks string, o Options) *Workload {
	if o.Table == "" {
		o.Table = "t"
	}
	if o.Partitions == 0 {
		o.Partitions = 20
	}
	if o.Statements == 0 {
		o.Statements = 200
	}
	if o.Clusterings == 0 {
		o.Clusterings = 8
	}
	if o.Timestamp == 0 {
		o.Timestamp = 1700000000000000
	}
	if o.TTL == 0 {
		o.TTL = 86400
	}
	if o.TTLSpread <= 0 {
		o.TTLSpread = 100
	}
	g := &gen{r: rand.New(rand.NewPCG(o.Seed, o.Seed^0x9e3779b97f4a7c15)), o: o, ks: ks, ts: o.Timestamp}
	w := &Workload{Keyspace: ks, Table: o.Table}
	if o.Counters {
		w.Create = fmt.Sprintf("CREATE TABLE %s.%s (pk int, ck int, c1 counter, c2 counter, PRIMARY KEY (pk, ck))", ks, o.Table)
		for i := 0; i < o.Statements; i++ {
			w.Statements = append(w.Statements, g.counterStatement())
		}
		return w
	}
	udt := ks + ".addr"
	w.Types = []string{fmt.Sprintf("CREATE TYPE %s (street text, num int, tags frozen<set<text>>)", udt)}
	g.cols = []column{
		{name: "st", typ: "text", gen: genText, static: true},
		{name: "st_set", typ: "set<int>", gen: genSet(genInt), static: true, multi: "set"},
		{name: "c_ascii", typ: "ascii", gen: genASCII},
		{name: "c_bigint", typ: "bigint", gen: genBigint},
		{name: "c_blob", typ: "blob", gen: genBlob},
		{name: "c_boolean", typ: "boolean", gen: genBool},
		{name: "c_date", typ: "date", gen: genDate},
		{name: "c_decimal", typ: "decimal", gen: genDecimal},
		{name: "c_double", typ: "double", gen: genDouble},
		{name: "c_float", typ: "float", gen: genFloat},
		{name: "c_inet", typ: "inet", gen: genInet},
		{name: "c_int", typ: "int", gen: genInt},
		{name: "c_smallint", typ: "smallint", gen: genSmallint},
		{name: "c_text", typ: "text", gen: genText},
		{name: "c_time", typ: "time", gen: genTime},
		{name: "c_timestamp", typ: "timestamp", gen: genTimestamp},
		{name: "c_timeuuid", typ: "timeuuid", gen: genTimeuuid},
		{name: "c_tinyint", typ: "tinyint", gen: genTinyint},
		{name: "c_uuid", typ: "uuid", gen: genUUID},
		{name: "c_varint", typ: "varint", gen: genVarint},
		{name: "c_list", typ: "list<int>", gen: genList(genInt), multi: "list"},
		{name: "c_set", typ: "set<text>", gen: genSet(genText), multi: "set"},
		{name: "c_map", typ: "map<text, int>", gen: genMap(genText, genInt), multi: "map"},
		{name: "c_flist", typ: "frozen<list<text>>", gen: genList(genText)},
		{name: "c_fmap", typ: "frozen<map<int, frozen<set<int>>>>", gen: genMap(genInt, genSet(genInt))},
		{name: "c_tuple", typ: "tuple<int, text, frozen<list<int>>>", gen: genTuple},
		{name: "c_fudt", typ: "frozen<addr>", gen: genUDT},
	}
	if !o.Legacy {
		g.cols = append(g.cols,
			column{name: "c_duration", typ: "duration", gen: genDuration},
			column{name: "c_udt", typ: "addr", gen: genUDT, multi: "udt"})
	}
	if o.Vectors {
		g.cols = append(g.cols,
			column{name: "c_vec", typ: "vector<float, 3>", gen: genVector(3, genFloatFinite)},
			column{name: "c_vtext", typ: "vector<text, 2>", gen: genVector(2, genText)})
	}
	var defs []string
	for _, c := range g.cols {
		d := c.name + " " + c.typ
		if c.static {
			d += " static"
		}
		defs = append(defs, d)
	}
	w.Create = fmt.Sprintf("CREATE TABLE %s.%s (pk int, ck1 int, ck2 text, %s, PRIMARY KEY (pk, ck1, ck2)) WITH CLUSTERING ORDER BY (ck1 ASC, ck2 DESC)",
		ks, o.Table, strings.Join(defs, ", "))
	for i := 0; i < o.Statements; i++ {
		w.Statements = append(w.Statements, g.statement())
	}
	return w
}

// timestamp returns the next write's timestamp: usually increasing, now
// and then the previous one again (a tie) or an older one.
func (g *gen) timestamp() int64 {
	switch x := g.r.IntN(10); {
	case x == 0:
		return g.ts // a tie with the last write
	case x == 1:
		return g.ts - int64(g.r.IntN(50)) - 1 // an older write
	}
	g.ts += int64(g.r.IntN(1000)) + 1
	return g.ts
}

func (g *gen) using(ttl bool) string {
	s := fmt.Sprintf(" USING TIMESTAMP %d", g.timestamp())
	if ttl && g.o.TTL > 0 && g.r.IntN(5) == 0 {
		s += fmt.Sprintf(" AND TTL %d", g.o.TTL+g.r.IntN(g.o.TTLSpread))
	}
	return s
}

func (g *gen) table() string { return g.ks + "." + g.o.Table }
func (g *gen) pk() int       { return g.r.IntN(g.o.Partitions) }
func (g *gen) ck() (int, string) {
	i := g.r.IntN(g.o.Clusterings)
	return i / 2, fmt.Sprintf("c%d", i%3)
}
func (g *gen) where() string {
	ck1, ck2 := g.ck()
	return fmt.Sprintf("pk = %d AND ck1 = %d AND ck2 = '%s'", g.pk(), ck1, ck2)
}

func (g *gen) someColumns(static bool) []column {
	var out []column
	for _, c := range g.cols {
		if c.static == static && g.r.IntN(3) == 0 {
			out = append(out, c)
		}
	}
	return out
}

func (g *gen) value(c column) string {
	if g.r.IntN(12) == 0 {
		return "null"
	}
	return c.gen(g.r)
}

func (g *gen) statement() string {
	x := g.r.IntN(100)
	if g.o.NoDeletions {
		x %= 70
	}
	switch {
	case x < 35: // INSERT of a row (a row marker), some columns, statics sometimes
		ck1, ck2 := g.ck()
		names := []string{"pk", "ck1", "ck2"}
		vals := []string{fmt.Sprint(g.pk()), fmt.Sprint(ck1), "'" + ck2 + "'"}
		cols := g.someColumns(false)
		if g.r.IntN(4) == 0 {
			cols = append(cols, g.someColumns(true)...)
		}
		for _, c := range cols {
			names = append(names, c.name)
			vals = append(vals, g.value(c))
		}
		return fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)%s", g.table(), strings.Join(names, ", "), strings.Join(vals, ", "), g.using(true))
	case x < 55: // UPDATE of cells (no row marker)
		cols := g.someColumns(false)
		if len(cols) == 0 {
			cols = []column{g.cols[2+g.r.IntN(len(g.cols)-2)]}
		}
		var sets []string
		for _, c := range cols {
			sets = append(sets, c.name+" = "+g.value(c))
		}
		return fmt.Sprintf("UPDATE %s%s SET %s WHERE %s", g.table(), g.using(true), strings.Join(sets, ", "), g.where())
	case x < 60: // static update
		var sets []string
		for _, c := range g.cols {
			if c.static {
				sets = append(sets, c.name+" = "+g.value(c))
			}
		}
		return fmt.Sprintf("UPDATE %s%s SET %s WHERE pk = %d", g.table(), g.using(true), strings.Join(sets, ", "), g.pk())
	case x < 70: // element updates of non-frozen collections and UDTs
		var multi []column
		for _, c := range g.cols {
			if c.multi != "" && !c.static {
				multi = append(multi, c)
			}
		}
		c := multi[g.r.IntN(len(multi))]
		var set string
		switch c.multi {
		case "list":
			// Appends and removals are left out: their element ids come
			// from the coordinator's clock, removals read before writing.
			set = fmt.Sprintf("%s = %s", c.name, genList(genInt)(g.r))
		case "set":
			set = fmt.Sprintf("%s = %s + {%s}", c.name, c.name, genText(g.r))
			if g.r.IntN(2) == 0 {
				set = fmt.Sprintf("%s = %s - {%s}", c.name, c.name, genText(g.r))
			}
		case "map":
			set = fmt.Sprintf("%s[%s] = %s", c.name, genText(g.r), genInt(g.r))
		case "udt":
			set = fmt.Sprintf("%s.num = %s", c.name, genInt(g.r))
		}
		return fmt.Sprintf("UPDATE %s%s SET %s WHERE %s", g.table(), g.using(true), set, g.where())
	case x < 76: // cell deletion
		c := g.cols[2+g.r.IntN(len(g.cols)-2)]
		return fmt.Sprintf("DELETE %s FROM %s%s WHERE %s", c.name, g.table(), g.using(false), g.where())
	case x < 80: // element deletion (not of a list: by index it reads first)
		if g.r.IntN(2) == 0 {
			return fmt.Sprintf("DELETE c_map[%s] FROM %s%s WHERE %s", genText(g.r), g.table(), g.using(false), g.where())
		}
		return fmt.Sprintf("DELETE c_set[%s] FROM %s%s WHERE %s", genText(g.r), g.table(), g.using(false), g.where())
	case x < 88: // row deletion
		return fmt.Sprintf("DELETE FROM %s%s WHERE %s", g.table(), g.using(false), g.where())
	case x < 96: // range deletions: on ck1, and on ck2 within a ck1
		pk := g.pk()
		a, b := g.r.IntN(g.o.Clusterings/2+1), g.r.IntN(g.o.Clusterings/2+1)
		a, b = min(a, b), max(a, b)
		ops := [][2]string{{">", "<"}, {">=", "<="}, {">", "<="}, {">=", "<"}}[g.r.IntN(4)]
		switch g.r.IntN(4) {
		case 0:
			return fmt.Sprintf("DELETE FROM %s%s WHERE pk = %d AND ck1 %s %d", g.table(), g.using(false), pk, ops[0], a)
		case 1:
			return fmt.Sprintf("DELETE FROM %s%s WHERE pk = %d AND ck1 %s %d", g.table(), g.using(false), pk, ops[1], b)
		case 2:
			return fmt.Sprintf("DELETE FROM %s%s WHERE pk = %d AND ck1 = %d AND ck2 %s 'c1'", g.table(), g.using(false), pk, a, ops[g.r.IntN(2)])
		}
		if a == b {
			b++
		}
		return fmt.Sprintf("DELETE FROM %s%s WHERE pk = %d AND ck1 %s %d AND ck1 %s %d", g.table(), g.using(false), pk, ops[0], a, ops[1], b)
	default: // partition deletion
		return fmt.Sprintf("DELETE FROM %s%s WHERE pk = %d", g.table(), g.using(false), g.pk())
	}
}

// counterStatement returns a counter update. Counter updates take no
// USING TIMESTAMP (Cassandra refuses one) and commute, so they are
// applied in any order; counter deletions do not commute with updates and
// are left out.
func (g *gen) counterStatement() string {
	return fmt.Sprintf("UPDATE %s SET c1 = c1 + %d, c2 = c2 - %d WHERE pk = %d AND ck = %d",
		g.table(), g.r.IntN(100)-30, g.r.IntN(5), g.pk(), g.r.IntN(g.o.Clusterings))
}

func genInt(r *rand.Rand) string {
	switch r.IntN(8) {
	case 0:
		return "-2147483648"
	case 1:
		return "2147483647"
	case 2:
		return "0"
	}
	return fmt.Sprint(r.Int32N(2000000) - 1000000)
}

func genBigint(r *rand.Rand) string {
	if r.IntN(6) == 0 {
		return "-9223372036854775808"
	}
	return fmt.Sprint(r.Int64() - r.Int64())
}

func genSmallint(r *rand.Rand) string { return fmt.Sprint(r.IntN(65536) - 32768) }
func genTinyint(r *rand.Rand) string  { return fmt.Sprint(r.IntN(256) - 128) }
func genBool(r *rand.Rand) string     { return []string{"true", "false"}[r.IntN(2)] }

func genVarint(r *rand.Rand) string {
	var b strings.Builder
	if r.IntN(2) == 0 {
		b.WriteByte('-')
	}
	b.WriteByte(byte('1' + r.IntN(9)))
	for n := r.IntN(40); n > 0; n-- {
		b.WriteByte(byte('0' + r.IntN(10)))
	}
	return b.String()
}

func genDecimal(r *rand.Rand) string {
	switch r.IntN(5) {
	case 0:
		return "0.0"
	case 1:
		return fmt.Sprintf("%d", r.IntN(1000))
	}
	return fmt.Sprintf("%s.%03d", genVarint(r), r.IntN(1000))
}

func genDouble(r *rand.Rand) string {
	switch r.IntN(10) {
	case 0:
		return "NaN"
	case 1:
		return "-Infinity"
	case 2:
		return "0.0"
	}
	return fmt.Sprintf("%g", (r.Float64()-0.5)*1e6)
}

func genFloat(r *rand.Rand) string {
	if r.IntN(10) == 0 {
		return "Infinity"
	}
	return genFloatFinite(r)
}

func genFloatFinite(r *rand.Rand) string { return fmt.Sprintf("%.3f", (r.Float32()-0.5)*1000) }

const letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 _-"

func genASCII(r *rand.Rand) string {
	n := r.IntN(12)
	b := make([]byte, n)
	for i := range b {
		b[i] = letters[r.IntN(len(letters))]
	}
	return "'" + string(b) + "'"
}

func genText(r *rand.Rand) string {
	parts := []string{"a", "b", "zz", "ü", "日本", "it''s", "", " ", "x y", "€"}
	var b strings.Builder
	for n := r.IntN(4); n > 0; n-- {
		b.WriteString(parts[r.IntN(len(parts))])
	}
	return "'" + b.String() + "'"
}

func genBlob(r *rand.Rand) string {
	n := r.IntN(20)
	var b strings.Builder
	b.WriteString("0x")
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "%02x", r.IntN(256))
	}
	return b.String()
}

func genDate(r *rand.Rand) string {
	return fmt.Sprintf("'%04d-%02d-%02d'", 1900+r.IntN(200), 1+r.IntN(12), 1+r.IntN(28))
}

func genTime(r *rand.Rand) string {
	return fmt.Sprintf("'%02d:%02d:%02d.%09d'", r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000000000))
}

func genTimestamp(r *rand.Rand) string {
	if r.IntN(2) == 0 {
		return fmt.Sprint(r.Int64N(4000000000000) - 1000000000000)
	}
	return fmt.Sprintf("'%04d-%02d-%02dT%02d:%02d:%02d.%03dZ'", 1970+r.IntN(80), 1+r.IntN(12), 1+r.IntN(28), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000))
}

func hexDigits(r *rand.Rand, n int) string {
	const h = "0123456789abcdef"
	b := make([]byte, n)
	for i := range b {
		b[i] = h[r.IntN(16)]
	}
	return string(b)
}

func genUUID(r *rand.Rand) string {
	return fmt.Sprintf("%s-%s-4%s-%c%s-%s", hexDigits(r, 8), hexDigits(r, 4), hexDigits(r, 3), "89ab"[r.IntN(4)], hexDigits(r, 3), hexDigits(r, 12))
}

func genTimeuuid(r *rand.Rand) string {
	return fmt.Sprintf("%s-%s-1%s-%c%s-%s", hexDigits(r, 8), hexDigits(r, 4), hexDigits(r, 3), "89ab"[r.IntN(4)], hexDigits(r, 3), hexDigits(r, 12))
}

func genInet(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return fmt.Sprintf("'2001:db8::%x'", r.IntN(65536))
	}
	return fmt.Sprintf("'%d.%d.%d.%d'", r.IntN(256), r.IntN(256), r.IntN(256), r.IntN(256))
}

func genDuration(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return fmt.Sprintf("-%dd%dh", r.IntN(30), r.IntN(24))
	}
	return fmt.Sprintf("%dmo%dd%dh%dm%ds%dms%dus%dns", r.IntN(20), r.IntN(30), r.IntN(24), r.IntN(60), r.IntN(60), r.IntN(1000), r.IntN(1000), r.IntN(1000))
}

func genList(elem func(*rand.Rand) string) func(*rand.Rand) string {
	return func(r *rand.Rand) string {
		var parts []string
		for n := r.IntN(4); n > 0; n-- {
			parts = append(parts, elem(r))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
}

func genSet(elem func(*rand.Rand) string) func(*rand.Rand) string {
	return func(r *rand.Rand) string {
		var parts []string
		for n := r.IntN(4); n > 0; n-- {
			parts = append(parts, elem(r))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
}

// genMap makes map literals without a repeated key: which of two equal
// keys a Cassandra node keeps is left to a Java HashMap of the literal's
// terms (Maps.Literal), so it varies from run to run.
func genMap(key, val func(*rand.Rand) string) func(*rand.Rand) string {
	return func(r *rand.Rand) string {
		var parts []string
		seen := map[string]bool{}
		for n := r.IntN(4); n > 0; n-- {
			k := key(r)
			if seen[k] {
				continue
			}
			seen[k] = true
			parts = append(parts, k+": "+val(r))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
}

func genTuple(r *rand.Rand) string {
	return "(" + genInt(r) + ", " + genText(r) + ", " + genList(genInt)(r) + ")"
}

func genUDT(r *rand.Rand) string {
	return "{street: " + genText(r) + ", num: " + genInt(r) + ", tags: " + genSet(genText)(r) + "}"
}

func genVector(n int, elem func(*rand.Rand) string) func(*rand.Rand) string {
	return func(r *rand.Rand) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = elem(r)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
}
