package schema

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"sort"
)

// ColumnDef declares a column for NewTable.
type ColumnDef struct {
	Name string
	Type *Type
	Kind ColumnKind
}

// String returns the name of a column kind.
func (k ColumnKind) String() string {
	switch k {
	case PartitionKey:
		return "partition key"
	case ClusteringKey:
		return "clustering"
	case Static:
		return "static"
	case Regular:
		return "regular"
	}
	return "invalid"
}

// Names of the hidden columns Cassandra 3.x gives COMPACT STORAGE tables
// (CompactTables' default names).
const (
	CompactValueColumn      = "value"
	CompactClusteringColumn = "column1"
)

// NewTable builds a table from its columns. Partition key and clustering
// columns keep the order they have in cols; static and regular columns are
// put in canonical order and every Column.Index is set.
//
// COMPACT STORAGE (opts.CompactStorage) is mapped the way Cassandra 3.x
// stores such tables:
//   - a dense table (with clustering columns) may have at most one regular
//     column; without one it gets the hidden regular column "value" of
//     EmptyType;
//   - a static compact table (no clustering column) stores its declared
//     non-key columns as static columns, with a hidden clustering column
//     "column1" (text) and a hidden regular column "value" (blob, or counter
//     when the table has counters). This mapping follows Cassandra's source;
//     no reference sstable exercises it.
func NewTable(keyspace, name string, cols []ColumnDef, opts Options) (*Table, error) {
	t := &Table{Keyspace: keyspace, Name: name, Options: opts, byName: make(map[string]*Column, len(cols))}
	errorf := func(format string, args ...any) error {
		return fmt.Errorf("schema: table %s.%s: %s", keyspace, name, fmt.Sprintf(format, args...))
	}
	hasCounter, hasNonCounter := false, false
	for _, d := range cols {
		if d.Name == "" {
			return nil, errorf("column with an empty name")
		}
		if d.Type == nil {
			return nil, errorf("column %s has no type", d.Name)
		}
		if _, dup := t.byName[d.Name]; dup {
			return nil, errorf("column %s declared twice", d.Name)
		}
		c := &Column{Name: d.Name, Type: d.Type, Kind: d.Kind}
		switch d.Kind {
		case PartitionKey, ClusteringKey:
			if d.Type.IsComplex() {
				return nil, errorf("primary key column %s cannot have the non-frozen type %s", d.Name, d.Type)
			}
			if d.Type.Kind == KindCounter {
				return nil, errorf("primary key column %s cannot be a counter", d.Name)
			}
			if d.Type.Kind == KindDuration {
				return nil, errorf("primary key column %s cannot be a duration", d.Name)
			}
			if d.Kind == PartitionKey {
				c.Index = len(t.PartitionKey)
				t.PartitionKey = append(t.PartitionKey, c)
			} else {
				c.Index = len(t.Clustering)
				t.Clustering = append(t.Clustering, c)
			}
		case Static, Regular:
			if d.Type.Reversed {
				return nil, errorf("column %s: only clustering columns can be reversed", d.Name)
			}
			if d.Type.Kind == KindCounter {
				hasCounter = true
			} else {
				hasNonCounter = true
			}
			if d.Kind == Static {
				t.Static = append(t.Static, c)
			} else {
				t.Regular = append(t.Regular, c)
			}
		default:
			return nil, errorf("column %s has an invalid kind %d", d.Name, d.Kind)
		}
		t.byName[d.Name] = c
	}
	if len(t.PartitionKey) == 0 {
		return nil, errorf("no partition key column")
	}
	if hasCounter && hasNonCounter {
		return nil, errorf("cannot mix counter and non-counter columns")
	}
	for _, c := range t.Clustering {
		if c.Type.Unreversed().Kind == KindEmpty {
			return nil, errorf("clustering column %s cannot be empty-typed", c.Name)
		}
	}
	if opts.CompactStorage {
		if err := t.applyCompactStorage(hasCounter, errorf); err != nil {
			return nil, err
		}
	} else if len(t.Static) > 0 && len(t.Clustering) == 0 {
		return nil, errorf("static columns need at least one clustering column")
	}
	sortCanonical(t.Static)
	sortCanonical(t.Regular)
	return t, nil
}

func (t *Table) applyCompactStorage(hasCounter bool, errorf func(string, ...any) error) error {
	for _, c := range append(append([]*Column(nil), t.Static...), t.Regular...) {
		if c.Type.IsComplex() {
			return errorf("COMPACT STORAGE tables cannot have the non-frozen column %s", c.Name)
		}
	}
	if len(t.Static) > 0 {
		return errorf("COMPACT STORAGE tables cannot declare static columns")
	}
	if len(t.Clustering) > 0 {
		if len(t.Regular) > 1 {
			return errorf("COMPACT STORAGE with clustering columns allows at most one regular column")
		}
		if len(t.Regular) == 0 {
			t.addHidden(CompactValueColumn, Empty, Regular)
		}
		return nil
	}
	// Static compact table: declared columns are static in 3.x.
	for _, c := range t.Regular {
		c.Kind = Static
	}
	t.Static, t.Regular = t.Regular, nil
	if _, taken := t.byName[CompactClusteringColumn]; !taken {
		t.addHidden(CompactClusteringColumn, Text, ClusteringKey)
	}
	valueType := Blob
	if hasCounter {
		valueType = Counter
	}
	if _, taken := t.byName[CompactValueColumn]; !taken {
		t.addHidden(CompactValueColumn, valueType, Regular)
	}
	return nil
}

func (t *Table) addHidden(name string, typ *Type, kind ColumnKind) {
	c := &Column{Name: name, Type: typ, Kind: kind, Hidden: true}
	switch kind {
	case ClusteringKey:
		c.Index = len(t.Clustering)
		t.Clustering = append(t.Clustering, c)
	case Regular:
		t.Regular = append(t.Regular, c)
	}
	t.byName[name] = c
}

// sortCanonical sorts static or regular columns in Cassandra's order and
// sets their Index.
func sortCanonical(cols []*Column) {
	sort.SliceStable(cols, func(i, j int) bool { return CompareColumnOrder(cols[i], cols[j]) < 0 })
	for i, c := range cols {
		c.Index = i
	}
}

// CompareColumnOrder orders two columns of the same kind as Cassandra's
// ColumnDefinition.compareTo does: simple before complex, then by a 48-bit
// key made of the first 6 name bytes (zero padded) with the top bit of the
// first byte inverted, compared unsigned, then by the full name bytes
// unsigned.
func CompareColumnOrder(a, b *Column) int {
	ca, cb := a.Type.IsComplex(), b.Type.IsComplex()
	if ca != cb {
		if cb {
			return -1
		}
		return 1
	}
	pa, pb := namePrefix(a.Name), namePrefix(b.Name)
	if pa != pb {
		if pa < pb {
			return -1
		}
		return 1
	}
	return bytes.Compare([]byte(a.Name), []byte(b.Name))
}

// namePrefix is ColumnIdentifier.prefixComparison >>> 16: the first 6
// bytes of the name, zero padded, with the top bit inverted.
func namePrefix(name string) uint64 {
	var p uint64
	for i := 0; i < 6; i++ {
		p <<= 8
		if i < len(name) {
			p |= uint64(name[i])
		}
	}
	return p ^ 1<<47
}

// Column returns the column with the given (unquoted, case-exact) name, or
// nil.
func (t *Table) Column(name string) *Column {
	if t.byName != nil {
		return t.byName[name]
	}
	for _, group := range [][]*Column{t.PartitionKey, t.Clustering, t.Static, t.Regular} {
		for _, c := range group {
			if c.Name == name {
				return c
			}
		}
	}
	return nil
}

// Columns returns every column: partition key, clustering, static, then
// regular, each group in its order.
func (t *Table) Columns() []*Column {
	all := make([]*Column, 0, len(t.PartitionKey)+len(t.Clustering)+len(t.Static)+len(t.Regular))
	all = append(all, t.PartitionKey...)
	all = append(all, t.Clustering...)
	all = append(all, t.Static...)
	return append(all, t.Regular...)
}

// IsCounter reports whether the table's non-key columns are counters.
func (t *Table) IsCounter() bool {
	for _, g := range [][]*Column{t.Regular, t.Static} {
		for _, c := range g {
			if c.Type.Kind == KindCounter {
				return true
			}
		}
	}
	return false
}

// IsCompound reports whether the la format writes the table's cell names as
// composites (la-format.md §3.3): every CQL table, and COMPACT STORAGE
// tables with two or more clustering columns.
func (t *Table) IsCompound() bool {
	if !t.Options.CompactStorage {
		return true
	}
	return t.declaredClustering() >= 2
}

// IsDense reports whether the table is dense in the la sense: a COMPACT
// STORAGE table with at least one (declared) clustering column.
func (t *Table) IsDense() bool {
	return t.Options.CompactStorage && t.declaredClustering() >= 1
}

func (t *Table) declaredClustering() int {
	n := 0
	for _, c := range t.Clustering {
		if !c.Hidden {
			n++
		}
	}
	return n
}

// PartitionKeyTypes returns the types of the partition key columns.
func (t *Table) PartitionKeyTypes() []*Type {
	ts := make([]*Type, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		ts[i] = c.Type
	}
	return ts
}

// ClusteringTypes returns the types of the clustering columns.
func (t *Table) ClusteringTypes() []*Type {
	ts := make([]*Type, len(t.Clustering))
	for i, c := range t.Clustering {
		ts[i] = c.Type
	}
	return ts
}

// PartitionKeyMarshalName is the marshal name of the partition key type as
// the mc serialization header writes it (CompositeType(...) for several
// columns).
func (t *Table) PartitionKeyMarshalName() string {
	return t.PartitionKeyMarshalNameStyle(MarshalCassandra)
}

// PartitionKeyMarshalNameStyle is PartitionKeyMarshalName in the given
// spelling.
func (t *Table) PartitionKeyMarshalNameStyle(style MarshalStyle) string {
	if len(t.PartitionKey) == 1 {
		return t.PartitionKey[0].Type.MarshalNameStyle(style)
	}
	return CompositeMarshalNameStyle(t.PartitionKeyTypes(), style)
}

// Partition key encoding: a single-column key is the column's serialized
// value. A multi-column key uses Cassandra's CompositeType encoding, per
// component:
//
//	u16 length (big-endian) | value bytes | u8 end-of-component (0x00)
const (
	compositeEOC        = 0x00
	maxCompositeElement = 0xFFFF
)

// MakePartitionKey serializes partition key component values (the
// CompositeType encoding when there are several). It returns nil when the
// number of components does not match the table or a component of a
// multi-column key is longer than 65535 bytes; AppendPartitionKey reports
// why.
func (t *Table) MakePartitionKey(components [][]byte) []byte {
	k, err := t.AppendPartitionKey(nil, components)
	if err != nil {
		return nil
	}
	if k == nil {
		k = []byte{}
	}
	return k
}

// AppendPartitionKey appends the serialized partition key to dst.
func (t *Table) AppendPartitionKey(dst []byte, components [][]byte) ([]byte, error) {
	if len(components) != len(t.PartitionKey) {
		return dst, fmt.Errorf("schema: table %s.%s: partition key has %d components, got %d",
			t.Keyspace, t.Name, len(t.PartitionKey), len(components))
	}
	if len(components) == 1 {
		return append(dst, components[0]...), nil
	}
	for i, c := range components {
		if len(c) > maxCompositeElement {
			return dst, fmt.Errorf("schema: table %s.%s: partition key column %s: value of %d bytes exceeds 65535",
				t.Keyspace, t.Name, t.PartitionKey[i].Name, len(c))
		}
		dst = binary.BigEndian.AppendUint16(dst, uint16(len(c)))
		dst = append(dst, c...)
		dst = append(dst, compositeEOC)
	}
	return dst, nil
}

// SplitPartitionKey splits a serialized partition key into its components.
// The components alias key.
func (t *Table) SplitPartitionKey(key []byte) ([][]byte, error) {
	n := len(t.PartitionKey)
	if n == 1 {
		return [][]byte{key}, nil
	}
	out := make([][]byte, 0, n)
	rest := key
	for i := 0; i < n; i++ {
		off := len(key) - len(rest)
		if len(rest) < 2 {
			return nil, fmt.Errorf("schema: partition key 0x%x: component %d truncated at offset %d (want a 2-byte length)", key, i, off)
		}
		l := int(binary.BigEndian.Uint16(rest))
		if len(rest) < 2+l+1 {
			return nil, fmt.Errorf("schema: partition key 0x%x: component %d at offset %d claims %d bytes, %d left", key, i, off, l, len(rest)-3)
		}
		out = append(out, rest[2:2+l:2+l])
		if eoc := rest[2+l]; eoc != compositeEOC {
			return nil, fmt.Errorf("schema: partition key 0x%x: component %d has end-of-component byte 0x%02x, want 0x00", key, i, eoc)
		}
		rest = rest[2+l+1:]
	}
	if len(rest) != 0 {
		return nil, fmt.Errorf("schema: partition key 0x%x: %d trailing bytes after %d components", key, len(rest), n)
	}
	return out, nil
}

// CompareClustering compares two clustering prefixes component by component
// with the clustering columns' comparators, over their common length; it
// returns 0 when one is a prefix of the other (bound kinds decide then; see
// mutation.ComparePrefix). A nil (null) component sorts before any value.
func (t *Table) CompareClustering(a, b [][]byte) int {
	n := min(len(a), len(b), len(t.Clustering))
	for i := 0; i < n; i++ {
		x, y := a[i], b[i]
		if x == nil || y == nil {
			if x == nil && y == nil {
				continue
			}
			if x == nil {
				return -1
			}
			return 1
		}
		// The common kinds without the calls of Type.Compare (the same
		// order: compareBase's for the class).
		typ := t.Clustering[i].Type
		var c int
		switch compareClasses[typ.Kind] {
		case compareAsSigned:
			switch {
			case len(x) == 4 && len(y) == 4:
				c = cmp.Compare(int32(binary.BigEndian.Uint32(x)), int32(binary.BigEndian.Uint32(y)))
			case len(x) == 8 && len(y) == 8:
				c = cmp.Compare(int64(binary.BigEndian.Uint64(x)), int64(binary.BigEndian.Uint64(y)))
			default:
				c = compareSignedBytes(x, y)
			}
		case compareAsBytes:
			c = bytes.Compare(x, y)
		default:
			c = typ.compareBase(x, y)
		}
		if c != 0 {
			if typ.Reversed {
				return -c
			}
			return c
		}
	}
	return 0
}

// WithDefaults returns a copy of o with every zero field set to Cassandra's
// default (Compression stays nil: the compress package maps nil to LZ4 with
// 64 KiB chunks).
func (o Options) WithDefaults() Options {
	if o.BloomFilterFPChance == 0 {
		o.BloomFilterFPChance = DefaultBloomFilterFPChance
	}
	if o.MinIndexInterval == 0 {
		o.MinIndexInterval = DefaultMinIndexInterval
	}
	if o.MaxIndexInterval == 0 {
		o.MaxIndexInterval = DefaultMaxIndexInterval
	}
	if o.CRCCheckChance == 0 {
		o.CRCCheckChance = DefaultCRCCheckChance
	}
	return o
}

// GCGrace returns the table's gc_grace_seconds: GCGraceSeconds when set,
// else DefaultGCGraceSeconds.
func (o Options) GCGrace() int64 {
	if o.GCGraceSet {
		return int64(o.GCGraceSeconds)
	}
	return DefaultGCGraceSeconds
}

// DefaultGCGraceSeconds is Cassandra's gc_grace_seconds default (ten days).
const DefaultGCGraceSeconds = 864000

// CRCCheckNever is the CRCCheckChance of a table declared with
// crc_check_chance = 0 (a probability below every draw: never verify).
const CRCCheckNever = -1.0

// Cassandra's defaults for the table options.
const (
	DefaultBloomFilterFPChance = 0.01
	DefaultMinIndexInterval    = 128
	DefaultMaxIndexInterval    = 2048
	DefaultCRCCheckChance      = 1.0
)
