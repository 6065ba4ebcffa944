package cli

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
)

// DumpOptions configure Dump. The zero value dumps everything in
// sstabledump's default form.
type DumpOptions struct {
	// SSTable names the SSTable (a component path, its prefix, or a
	// directory holding one SSTable).
	SSTable string
	// Schema is a CQL schema file; optional for mc (the serialization
	// header carries the types), without it la values are hex blobs.
	Schema string
	// Table picks the table of a schema declaring several.
	Table string
	// RawTimestamps prints times as strings of decimal digits
	// (sstabledump -t).
	RawTimestamps bool
	// Canonical prints the canonical form (json-format.md §2.4) that
	// castable write reads back losslessly.
	Canonical bool
	// Lines prints one partition per line without the enclosing array
	// (sstabledump -l).
	Lines bool
	// KeysOnly prints only the partition keys (sstabledump -e).
	KeysOnly bool
	// Keys restricts the dump to these partition keys, in their string form
	// (components of a composite key joined by ':'); they are looked up
	// through Summary.db and Index.db, not found by a scan.
	Keys []string
	// Exclude leaves these partition keys out.
	Exclude []string
	// OpaqueUnknownTypes reads a column whose type is a marshal class
	// castable does not know (in the serialization header or a --schema
	// custom type) as opaque length-prefixed bytes, printed as hex, instead
	// of failing (sstables.ReaderOptions.OpaqueUnknownTypes).
	OpaqueUnknownTypes bool
	// SSTables are more SSTables of the same table, dumped merged with
	// SSTable (see DumpMerged); a directory argument holding several
	// SSTables of one table is merged too.
	SSTables []string
	// NoPurge shows the merged stream as it is, tombstones and expired
	// cells included; by default a merged dump shows live data only.
	// (One SSTable is always dumped as it is.)
	NoPurge bool
	// Now is the time of a merged dump (what has expired); the zero value
	// means the clock.
	Now time.Time
}

// Dump writes the content of an SSTable as sstabledump JSON to stdout;
// several SSTables of one table are dumped merged (dumpMerged).
func Dump(env *Env, opts DumpOptions) error {
	if opts.Canonical && opts.RawTimestamps {
		return Usagef("--canonical and -t exclude each other (canonical times are already raw integers)")
	}
	args := opts.SSTables
	if opts.SSTable != "" {
		args = append([]string{opts.SSTable}, args...)
	}
	switch len(args) {
	case 0:
		return Usagef("no SSTable given")
	case 1:
		// One SSTable is dumped as it is; a directory of one table's
		// SSTables merged.
		if descs, err := resolveSSTables(args); err == nil && len(descs) > 1 && len(legacyTables(descs)) <= 1 {
			return dumpMerged(env, opts, descs)
		}
		return dumpOne(env, opts, args[0])
	}
	descs, err := resolveSSTables(args)
	if err != nil {
		return err
	}
	return dumpMerged(env, opts, descs)
}

// dumpOne dumps one SSTable as it is.
func dumpOne(env *Env, opts DumpOptions, arg string) error {
	desc, err := resolveSSTable(arg)
	if err != nil {
		return err
	}
	table, err := loadTableTypes(opts.Schema, opts.Table, opts.OpaqueUnknownTypes)
	if err != nil {
		return err
	}
	// An uncompressed chunk whose CRC.db checksum does not match is dumped
	// with a warning, as Cassandra and ScyllaDB serve it (verify fails it).
	r, err := sstables.OpenAny(desc, table, sstables.ReaderOptions{ReadAhead: scanReadAhead, Warn: warnPrinter(env), WarnUncompressedCRC: true, OpaqueUnknownTypes: opts.OpaqueUnknownTypes})
	if err != nil {
		return err
	}
	defer r.Close()
	table = r.Table()

	keys, excluded, err := dumpKeys(table, opts)
	if err != nil {
		return err
	}
	enc := dumpEncoder(env, table, opts)
	if len(opts.Keys) > 0 {
		for i, key := range keys {
			if excluded[string(key)] {
				continue
			}
			p, pos, err := r.Lookup(key)
			if err != nil {
				return err
			}
			if p == nil {
				env.infof("castable dump: key %q not found in %s", opts.Keys[i], desc)
				continue
			}
			if err := enc.Encode(p, pos); err != nil {
				return unrenderable(desc, pos, err)
			}
		}
		return enc.Close()
	}

	sc, err := r.Scan()
	if err != nil {
		return err
	}
	defer sc.Close()
	for {
		p, err := sc.NextPartition()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if excluded[string(p.Key)] {
			continue
		}
		if err := dumpPartition(enc, sc, p, opts.KeysOnly); err != nil {
			return unrenderable(desc, sc.Position(), err)
		}
	}
	return enc.Close()
}

// dumpPartition streams one partition of a scan: its rows are encoded as
// they are read, so a partition is never held whole.
func dumpPartition(enc *jsondump.Encoder, sc sstables.Scanner, p *mutation.Partition, keysOnly bool) error {
	if err := enc.BeginPartition(p, sc.Position()); err != nil {
		return err
	}
	if !keysOnly {
		for {
			row, marker, err := sc.Next()
			if err != nil {
				return err
			}
			if row == nil && marker == nil {
				break
			}
			if row != nil {
				err = enc.Row(row)
			} else {
				err = enc.Marker(marker)
			}
			if err != nil {
				return err
			}
		}
	}
	return enc.EndPartition()
}

func dumpFormat(opts DumpOptions) jsondump.Format {
	switch {
	case opts.Canonical:
		return jsondump.FormatCanonical
	case opts.RawTimestamps:
		return jsondump.FormatRaw
	}
	return jsondump.FormatDump
}

func dumpLayout(opts DumpOptions) jsondump.Layout {
	if opts.Lines {
		return jsondump.LayoutLines
	}
	return jsondump.LayoutPretty
}

// dumpKeys parses the keys dump looks up (-k, in order) and the keys it
// leaves out (-x, as a set of serialized keys).
func dumpKeys(t *schema.Table, opts DumpOptions) (keys [][]byte, excluded map[string]bool, err error) {
	if keys, err = parseKeys(t, opts.Keys); err != nil {
		return nil, nil, err
	}
	exclude, err := parseKeys(t, opts.Exclude)
	if err != nil {
		return nil, nil, err
	}
	excluded = make(map[string]bool, len(exclude))
	for _, k := range exclude {
		excluded[string(k)] = true
	}
	return keys, excluded, nil
}

// dumpEncoder is the JSON encoder of a dump of table t to stdout.
func dumpEncoder(env *Env, t *schema.Table, opts DumpOptions) *jsondump.Encoder {
	return jsondump.NewEncoder(env.stdout(), t, jsondump.EncodeOptions{
		Format:   dumpFormat(opts),
		Layout:   dumpLayout(opts),
		KeysOnly: opts.KeysOnly,
	})
}

// parseKeys serializes partition keys given in string form.
func parseKeys(t *schema.Table, keys []string) ([][]byte, error) {
	out := make([][]byte, 0, len(keys))
	for _, k := range keys {
		b, err := parseKey(t, k)
		if err != nil {
			return nil, Usagef("key %q: %v", k, err)
		}
		out = append(out, b)
	}
	return out, nil
}

// parseKey serializes a partition key in string form: a single column's
// value, or the components of a composite key separated by ':' (a ':'
// inside a component written as "\:"), as sstabledump -k takes them.
func parseKey(t *schema.Table, s string) ([]byte, error) {
	var parts []string
	if len(t.PartitionKey) == 1 {
		parts = []string{s}
	} else {
		parts = splitComposite(s)
		if len(parts) != len(t.PartitionKey) {
			return nil, fmt.Errorf("%d components, the partition key (%s) has %d (separate them with ':')", len(parts), keyColumns(t), len(t.PartitionKey))
		}
	}
	comps := make([][]byte, len(parts))
	for i, p := range parts {
		v, err := t.PartitionKey[i].Type.FromString(p)
		if err != nil {
			return nil, fmt.Errorf("column %s: %w", t.PartitionKey[i].Name, err)
		}
		comps[i] = v
	}
	return t.AppendPartitionKey(nil, comps)
}

// splitComposite splits on ':' not preceded by a backslash and unescapes
// "\:" and "\\".
func splitComposite(s string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s) && (s[i+1] == ':' || s[i+1] == '\\'):
			cur.WriteByte(s[i+1])
			i++
		case c == ':':
			out = append(out, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(out, cur.String())
}

func keyColumns(t *schema.Table) string {
	names := make([]string, len(t.PartitionKey))
	for i, c := range t.PartitionKey {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

// formatKeyOrHex renders a partition key for messages.
func formatKeyOrHex(t *schema.Table, key []byte) string {
	if t == nil {
		return fmt.Sprintf("0x%x", key)
	}
	return mutation.FormatKey(t, key)
}
