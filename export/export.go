package export

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/schema"
)

// Format names an output format.
type Format string

// The output formats.
const (
	Parquet   Format = "parquet"
	CSV       Format = "csv"
	JSONLines Format = "jsonl"
)

// Extension is the usual file name extension of a format (".parquet",
// ".csv", ".jsonl").
func (f Format) Extension() string { return "." + string(f) }

// ParseFormat reads a format name (parquet, csv, jsonl; json and ndjson
// are jsonl).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "parquet":
		return Parquet, nil
	case "csv":
		return CSV, nil
	case "jsonl", "json", "ndjson":
		return JSONLines, nil
	}
	return "", fmt.Errorf("format %q: want parquet, csv or jsonl", s)
}

// Options configure Export. The zero value exports every column of every
// live row as Parquet into one file.
type Options struct {
	// Format is the output format; "" means Parquet.
	Format Format
	// Columns picks the output columns, in order: table column names
	// (case-sensitive ones as written in CQL, with or without their
	// double quotes), and "writetime(c)" or "ttl(c)". Nil means every
	// column in SELECT * order.
	Columns []string
	// WriteTime and TTL append writetime(c) and ttl(c) columns (named so,
	// as cqlsh names them): the cell's timestamp in µs (bigint) and its
	// remaining seconds at the view's moment (int), null where CQL's are.
	// Key columns, non-frozen collections and counters have none.
	WriteTime, TTL []string
	// IncludeTombstones exports an audit view (ViewOptions.Tombstones):
	// one row more per deletion still held, and the AuditColumns. The View
	// must have been made with ViewOptions.Tombstones.
	IncludeTombstones bool
	// MaxFileSize starts a new output file once one has reached this many
	// bytes (Parquet: at the end of a row group, which is then made no
	// larger than a quarter of MaxFileSize); 0 means one file.
	MaxFileSize int64
	// Parquet and CSV configure their formats.
	Parquet ParquetOptions
	CSV     CSVOptions
	// Metadata is written into each Parquet file's key/value metadata
	// (castable.cql_types, each column's CQL type as JSON, always is).
	Metadata map[string]string
	// OnRows, when set, is told every few thousand rows how many more were
	// written (for a progress display).
	OnRows func(n int64)
}

// Writer writes the rows of an export in one format into one output.
// Each row is one value per output column, in the serialized form of the
// column's Type (nil is null); the values are read before Write returns.
type Writer interface {
	Write(values [][]byte) error
	// Size is the output's size so far, counting what is buffered.
	Size() int64
	// Close writes what is buffered (and Parquet's footer); it does not
	// close the underlying io.Writer.
	Close() error
}

// NewWriter returns the Writer of opts.Format over out for the given
// columns (see Columns).
func NewWriter(out io.Writer, cols []Column, opts Options) (Writer, error) {
	switch opts.Format {
	case "", Parquet:
		p := opts.Parquet
		if opts.MaxFileSize > 0 && (p.RowGroupSize <= 0 || p.RowGroupSize > opts.MaxFileSize/4) {
			// A file ends where a row group does: four or more to a file
			// keep it within a quarter of MaxFileSize below it.
			p.RowGroupSize = max(min(opts.MaxFileSize/4, DefaultRowGroupSize), 1)
		}
		return newParquetWriter(out, cols, p, opts.Metadata)
	case CSV:
		return newCSVWriter(out, cols, opts.CSV)
	case JSONLines:
		return newJSONWriter(out, cols), nil
	}
	return nil, fmt.Errorf("unknown export format %q", opts.Format)
}

// Summary says what Export wrote.
type Summary struct {
	// Rows counts the rows written, Tombstones those of them that
	// describe a deletion.
	Rows, Tombstones int64
	// Files is the number of output files, Bytes their total size.
	Files int
	Bytes int64
}

// Export writes the rows of v into outputs: create(0) makes the first,
// create(i) the next whenever MaxFileSize is reached, and each is closed
// once its Writer is. On an error the outputs made so far are closed and
// the caller removes them. It checks ctx between rows.
func Export(ctx context.Context, v *View, opts Options, create func(i int) (io.WriteCloser, error)) (*Summary, error) {
	cols, err := Columns(v.t, opts)
	if err != nil {
		return nil, err
	}
	if opts.IncludeTombstones && !v.tombstones {
		return nil, errors.New("export: IncludeTombstones needs a View made with ViewOptions.Tombstones")
	}
	sum := &Summary{}
	rec := newRecord(cols)
	var out io.WriteCloser
	var w Writer
	finish := func() error {
		if w == nil {
			return nil
		}
		err := w.Close()
		sum.Bytes += w.Size()
		if cerr := out.Close(); err == nil {
			err = cerr
		}
		w, out = nil, nil
		return err
	}
	open := func() error {
		var err error
		if out, err = create(sum.Files); err != nil {
			return err
		}
		sum.Files++
		if w, err = NewWriter(out, cols, opts); err != nil {
			out.Close()
			w, out = nil, nil
			return err
		}
		return nil
	}
	fail := func(err error) (*Summary, error) {
		if w != nil {
			w.Close()
			out.Close()
		}
		return sum, err
	}
	if err := open(); err != nil {
		return fail(err)
	}
	var reported int64
	for {
		r, err := v.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err)
		}
		if opts.MaxFileSize > 0 && w.Size() >= opts.MaxFileSize {
			if err := finish(); err != nil {
				return fail(err)
			}
			if err := open(); err != nil {
				return fail(err)
			}
		}
		if err := w.Write(rec.fill(r)); err != nil {
			return fail(fmt.Errorf("partition %s: %w", formatKey(v.t, r.Key), err))
		}
		sum.Rows++
		if r.Tombstone != nil {
			sum.Tombstones++
		}
		if sum.Rows&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return fail(err)
			}
			if opts.OnRows != nil {
				opts.OnRows(sum.Rows - reported)
				reported = sum.Rows
			}
		}
	}
	if opts.OnRows != nil {
		opts.OnRows(sum.Rows - reported)
	}
	if err := finish(); err != nil {
		return fail(err)
	}
	return sum, nil
}

// formatKey renders a partition key for messages.
func formatKey(t *schema.Table, key []byte) string {
	comps := [][]byte{key}
	if len(t.PartitionKey) > 1 {
		var err error
		if comps, err = t.SplitPartitionKey(key); err != nil {
			return fmt.Sprintf("0x%x", key)
		}
	}
	var b []byte
	for i, c := range comps {
		if i > 0 {
			b = append(b, ':')
		}
		s, err := t.PartitionKey[i].Type.AppendString(nil, c)
		if err != nil {
			return fmt.Sprintf("0x%x", key)
		}
		b = append(b, s...)
	}
	return string(b)
}

// ParseTokenRange reads a token range as Cassandra writes one, "(a, b]"
// — the tokens t with a < t <= b, wrapping around the ring when b <= a —
// in p's token strings (Murmur3: signed 64-bit integers).
func ParseTokenRange(p dht.Partitioner, s string) (dht.Range, error) {
	t := strings.TrimSpace(s)
	if !strings.HasPrefix(t, "(") || !strings.HasSuffix(t, "]") {
		return dht.Range{}, fmt.Errorf("token range %q: want (left, right], the tokens after left up to right", s)
	}
	left, right, ok := strings.Cut(t[1:len(t)-1], ",")
	if !ok {
		return dht.Range{}, fmt.Errorf("token range %q: want (left, right]", s)
	}
	l, err := p.ParseToken(strings.TrimSpace(left))
	if err != nil {
		return dht.Range{}, fmt.Errorf("token range %q: left: %w", s, err)
	}
	r, err := p.ParseToken(strings.TrimSpace(right))
	if err != nil {
		return dht.Range{}, fmt.Errorf("token range %q: right: %w", s, err)
	}
	return dht.Range{Left: l, Right: r}, nil
}

// Keep returns a partition filter for table.ScanOptions.Keep: a partition
// is kept when its key is one of keys (serialized partition keys; any key
// when there are none) and its token is in one of ranges (any token when
// there are none). Both empty: nil, no filter.
func Keep(keys [][]byte, ranges []dht.Range) func(dht.Token, []byte) bool {
	if len(keys) == 0 && len(ranges) == 0 {
		return nil
	}
	set := make(map[string]bool, len(keys))
	for _, k := range keys {
		set[string(k)] = true
	}
	return func(tok dht.Token, key []byte) bool {
		if len(set) > 0 && !set[string(key)] {
			return false
		}
		if len(ranges) == 0 {
			return true
		}
		for _, r := range ranges {
			if r.Contains(tok) {
				return true
			}
		}
		return false
	}
}
