package la

import (
	"fmt"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// maxInferredColumns bounds the distinct column names InferTable accepts.
const maxInferredColumns = 1 << 16

// Names of the columns of an inferred table, as sstabledump and
// Cassandra's thrift-compatible metadata name unnamed key columns.
const (
	inferredKeyName        = "key"
	inferredClusteringName = "column" // column1, column2, …
	inferredValueName      = "value"
)

// InferTable builds a table for an la SSTable read without a schema: 2.2
// files do not record types or key column names. Every value is a blob,
// so a dump shows hex.
//
//   - The partition key is one blob column "key" (a composite key stays
//     one value).
//   - The number of clustering columns N is the length of the longest
//     min/max column names list in Statistics.db; they are blob columns
//     "column1" … "columnN".
//   - The layout comes from the names in Data.db: if every cell name and
//     bound is a well-formed composite the table is compound, sparse when
//     some cell name has more than N components (a column name follows the
//     clustering), else dense (COMPACT STORAGE with a blob column "value").
//     Otherwise the table is simple: dense (one clustering column and a
//     "value" column) when N is 1, sparse (column names as raw names) when
//     N is 0.
//   - Each distinct column name becomes a column: static when its cells
//     carry the static marker, a non-frozen map<blob, blob> when a cell
//     has an element key or a collection tombstone names it (set elements
//     then show as keys with empty values, list elements keyed by their
//     timeuuid), counter when a counter cell names it, blob otherwise.
//
// Inference reads Data.db once, names only.
func InferTable(desc sstables.Descriptor, opts sstables.ReaderOptions) (*schema.Table, error) {
	r, err := Open(desc, nil, opts)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return r.table, nil
}

// columnFacts records what the data says about one column name.
type columnFacts struct {
	name    string
	static  bool
	complex bool
	counter bool
}

// factSet collects the column facts of one layout hypothesis.
type factSet struct {
	cols  map[string]*columnFacts
	order []*columnFacts
	err   error
}

func (fs *factSet) get(name []byte) *columnFacts {
	if fs.cols == nil {
		fs.cols = map[string]*columnFacts{}
	}
	if f := fs.cols[string(name)]; f != nil {
		return f
	}
	if len(fs.cols) >= maxInferredColumns {
		if fs.err == nil {
			fs.err = fmt.Errorf("more than %d distinct column names", maxInferredColumns)
		}
		return &columnFacts{}
	}
	f := &columnFacts{name: string(name)}
	fs.cols[f.name] = f
	fs.order = append(fs.order, f)
	return f
}

func inferTable(r *Reader) (*schema.Table, error) {
	n := max(len(r.stats.Stats.MinClusteringValues), len(r.stats.Stats.MaxClusteringValues))
	in := newInput(r.data.NewStream(0), 0, r.data.Length(), r.desc.Path(sstables.ComponentData), sstables.ComponentData)
	var (
		p        nameParser
		a        atom
		arena    []byte
		compound = true // every name so far is a composite
		sparse   = false
		// Facts under each hypothesis: composite names, or raw column
		// names (only possible without clustering columns).
		cfacts, sfacts factSet
	)
	for in.remaining() > 0 {
		if _, err := in.shortBytes(); err != nil {
			return nil, err
		}
		if _, err := in.next(deletionTimeSize); err != nil {
			return nil, err
		}
		for {
			arena = arena[:0]
			ok, err := readAtom(in, &a, &arena)
			if err != nil {
				return nil, err
			}
			if !ok {
				break
			}
			rt := a.kind == atomRangeTombstone
			if n == 0 && !rt {
				f := sfacts.get(a.name)
				f.counter = f.counter || a.kind == atomCounterCell
			}
			if !compound {
				continue
			}
			if rt && len(a.end) > 0 && !p.parse(a.end) || !p.parse(a.name) {
				compound = false
				continue
			}
			switch {
			case len(p.comps) <= n:
			case rt:
				// A collection tombstone names a complex column.
				sparse = true
				f := cfacts.get(p.comps[n])
				f.complex = true
				f.static = f.static || p.static
			case len(p.comps[n]) == 0:
				sparse = true // row marker
			default:
				sparse = true
				f := cfacts.get(p.comps[n])
				f.static = f.static || p.static
				f.complex = f.complex || len(p.comps) > n+1
				f.counter = f.counter || a.kind == atomCounterCell
			}
		}
	}
	facts := &cfacts
	switch {
	case compound && n == 0:
		sparse = true
	case !compound && n == 0:
		facts = &sfacts
	case !compound && n > 1:
		return nil, r.inferenceError(fmt.Errorf("cell names are not composites but Statistics.db records %d clustering components", n))
	}
	if facts.err != nil {
		return nil, r.inferenceError(facts.err)
	}

	blob := &schema.Type{Kind: schema.KindBlob}
	defs := []schema.ColumnDef{{Name: inferredKeyName, Type: blob, Kind: schema.PartitionKey}}
	for i := range n {
		defs = append(defs, schema.ColumnDef{Name: fmt.Sprintf("%s%d", inferredClusteringName, i+1), Type: blob, Kind: schema.ClusteringKey})
	}
	if sparse || !compound && n == 0 {
		for _, f := range facts.order {
			typ := blob
			switch {
			case f.complex:
				typ = &schema.Type{Kind: schema.KindMap, Params: []*schema.Type{blob, blob}}
			case f.counter:
				typ = &schema.Type{Kind: schema.KindCounter}
			}
			kind := schema.Regular
			if f.static {
				kind = schema.Static
			}
			defs = append(defs, schema.ColumnDef{Name: f.name, Type: typ, Kind: kind})
		}
	} else {
		defs = append(defs, schema.ColumnDef{Name: inferredValueName, Type: blob, Kind: schema.Regular})
	}
	opts := schema.Options{CompactStorage: !(compound && sparse)}
	t, err := schema.NewTable("", r.desc.String(), defs, opts)
	if err != nil {
		return nil, r.inferenceError(err)
	}
	return t, nil
}

// inferenceError reports names that fit no table layout: for a reader
// without a schema that is corrupt data.
func (r *Reader) inferenceError(err error) error {
	return &sstables.CorruptionError{Path: r.desc.Path(sstables.ComponentData), Component: string(sstables.ComponentData),
		Offset: -1, Reason: "the cell names fit no table layout (reading without a schema)", Err: err}
}
