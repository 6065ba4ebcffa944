package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/export"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// ExportOptions configure Export.
type ExportOptions struct {
	// SSTables are the inputs: SSTables of one table (component paths,
	// prefixes, or directories standing for every SSTable in them), read
	// merged as Cassandra reads them.
	SSTables []string
	// Schema is the CQL schema file; optional for SSTables whose
	// serialization header carries the types. Table picks a table of a
	// schema declaring several.
	Schema, Table string
	// Now is the moment the export shows (TTLs expire and count down from
	// it); the zero value means the time the run starts.
	Now time.Time
	// To is the output format: parquet (the default), csv or jsonl.
	To string
	// Out is the output file ("-" for standard output); with MaxFileSize
	// the files are named after it with -00000, -00001, … before the
	// extension.
	Out string
	// Export holds the columns, writetime/ttl, tombstone, file size and
	// format options (export.Options).
	Export export.Options
	// Keys restricts the export to these partition keys, in their string
	// form as castable dump -k takes them (a composite key's components
	// joined by ':'); KeysFile adds one key a line from a file.
	Keys     []string
	KeysFile string
	// TokenRanges restricts the export to the partitions whose token is in
	// one of these ranges, "(left, right]".
	TokenRanges []string
	// OpaqueUnknownTypes reads columns of unknown custom types as blobs.
	OpaqueUnknownTypes bool
}

// Export writes the live rows of a table's SSTables — what SELECT * would
// return at Now — as Parquet, CSV or JSON Lines, streaming (memory bounded
// by a row group, never a partition). It prints the path of each file
// written on stdout. Files are written under a temporary name and renamed
// when complete; on failure none is left.
func Export(ctx context.Context, env *Env, opts ExportOptions) (*export.Summary, error) {
	start := time.Now()
	format := export.Parquet
	if opts.To != "" {
		f, err := export.ParseFormat(opts.To)
		if err != nil {
			return nil, Usagef("--to: %v", err)
		}
		format = f
	}
	switch {
	case opts.Out == "":
		return nil, Usagef("export needs --out FILE (- for standard output)")
	case opts.Out == "-" && opts.Export.MaxFileSize > 0:
		return nil, Usagef("--max-file-size needs --out FILE, not standard output")
	case opts.Export.MaxFileSize < 0:
		return nil, Usagef("--max-file-size must not be negative")
	}
	if format != export.Parquet && (opts.Export.Parquet != export.ParquetOptions{}) {
		return nil, Usagef("--compression and --row-group-size apply to --to parquet")
	}
	if format != export.CSV && (opts.Export.CSV != export.CSVOptions{}) {
		return nil, Usagef("--no-header, --delimiter and --null-string apply to --to csv")
	}
	descs, err := resolveSSTables(opts.SSTables)
	if err != nil {
		return nil, err
	}
	tab, err := loadTableTypes(opts.Schema, opts.Table, opts.OpaqueUnknownTypes)
	if err != nil {
		return nil, err
	}
	now := opts.Now
	if now.IsZero() {
		now = start
	}
	set, err := table.Open(descs, nil, table.Options{Table: tab, Now: now,
		Reader: sstables.ReaderOptions{ReadAhead: scanReadAhead, Warn: warnPrinter(env), OpaqueUnknownTypes: opts.OpaqueUnknownTypes}})
	if err != nil {
		return nil, err
	}
	defer set.Close()
	tab = set.Table()

	eo := opts.Export
	eo.Format = format
	if _, err := export.Columns(tab, eo); err != nil {
		return nil, Usagef("%v", err)
	}
	if eo.CSV.Delimiter != 0 && (eo.CSV.Delimiter >= 0x80 || eo.CSV.Delimiter == '"' || eo.CSV.Delimiter == '\n' || eo.CSV.Delimiter == '\r') {
		return nil, Usagef("--delimiter %q cannot separate CSV fields", eo.CSV.Delimiter)
	}
	switch eo.Parquet.Compression {
	case "", export.Snappy, export.Zstd, export.None:
	default:
		return nil, Usagef("--compression %q: want snappy, zstd or none", eo.Parquet.Compression)
	}
	keyArgs := append([]string{}, opts.Keys...)
	if opts.KeysFile != "" {
		more, err := readKeysFile(opts.KeysFile)
		if err != nil {
			return nil, err
		}
		keyArgs = append(keyArgs, more...)
	}
	keys, err := parseKeys(tab, keyArgs)
	if err != nil {
		return nil, err
	}
	var ranges []dht.Range
	for _, s := range opts.TokenRanges {
		r, err := export.ParseTokenRange(set.Partitioner(), s)
		if err != nil {
			return nil, Usagef("--token-range: %v", err)
		}
		ranges = append(ranges, r)
	}
	if (len(opts.Keys) > 0 || opts.KeysFile != "") && len(keys) == 0 {
		env.infof("castable export: the keys file names no key; nothing to export")
	}
	keep := export.Keep(keys, ranges)
	if keep == nil && (len(opts.Keys) > 0 || opts.KeysFile != "") {
		keep = func(dht.Token, []byte) bool { return false }
	}
	sc, err := set.ScanWith(table.ScanOptions{Keep: keep})
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	view := export.NewView(sc, tab, export.ViewOptions{Now: now, Tombstones: eo.IncludeTombstones})

	var total int64
	for _, d := range descs {
		if st, err := os.Stat(d.Path(sstables.ComponentData)); err == nil {
			total += st.Size()
		}
	}
	prog := newProgress(env, "export", -1)
	eo.OnRows = prog.addRows
	if eo.Metadata == nil {
		eo.Metadata = map[string]string{}
	}
	eo.Metadata["castable.table"] = tab.Keyspace + "." + tab.Name
	eo.Metadata["castable.now"] = now.UTC().Format(time.RFC3339)

	out := &exportFiles{path: opts.Out, many: eo.MaxFileSize > 0, ext: format.Extension(), stdout: env.stdout()}
	sum, err := export.Export(ctx, view, eo, out.create)
	prog.finish()
	if err != nil {
		out.abort()
		if ctx.Err() != nil {
			return sum, fmt.Errorf("interrupted; the files of this run were removed")
		}
		return sum, err
	}
	paths, err := out.commit()
	if err != nil {
		return sum, err
	}
	if opts.Out != "-" {
		for _, p := range paths {
			fmt.Fprintln(env.stdout(), p)
		}
	}
	d := time.Since(start)
	what := fmt.Sprintf("%s rows", groupDigits(sum.Rows))
	if eo.IncludeTombstones {
		what += fmt.Sprintf(" (%s of them tombstones)", groupDigits(sum.Tombstones))
	}
	env.infof("castable export: %s of %s.%s from %d SSTables (%s) -> %d %s files (%s) in %s, %s rows/s",
		what, tab.Keyspace, tab.Name, len(descs), humanBytes(total), sum.Files, format, humanBytes(sum.Bytes),
		roundDuration(d), groupDigits(perSecond(sum.Rows, d)))
	return sum, nil
}

// exportFiles makes the output files of an export under temporary names
// (path.tmp-N) and renames them when the export is complete.
type exportFiles struct {
	path   string
	many   bool
	ext    string
	stdout io.Writer
	files  []string // final names
	temps  []string
	open   *os.File
}

// name is the i-th file's final name: path, or with many files path with
// -NNNNN before its extension.
func (o *exportFiles) name(i int) string {
	if !o.many {
		return o.path
	}
	ext := filepath.Ext(o.path)
	if ext == "" {
		ext = o.ext
		return fmt.Sprintf("%s-%05d%s", o.path, i, ext)
	}
	return fmt.Sprintf("%s-%05d%s", strings.TrimSuffix(o.path, ext), i, ext)
}

func (o *exportFiles) create(i int) (io.WriteCloser, error) {
	if o.path == "-" {
		return nopCloser{o.stdout}, nil
	}
	final := o.name(i)
	if dir := filepath.Dir(final); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	}
	tmp := fmt.Sprintf("%s.tmp-%d", final, os.Getpid())
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	o.files = append(o.files, final)
	o.temps = append(o.temps, tmp)
	return &syncCloser{f}, nil
}

// commit renames the temporary files to their names.
func (o *exportFiles) commit() ([]string, error) {
	for i, tmp := range o.temps {
		if err := os.Rename(tmp, o.files[i]); err != nil {
			o.abort()
			return nil, err
		}
	}
	return o.files, nil
}

// abort removes what was written.
func (o *exportFiles) abort() {
	for _, tmp := range o.temps {
		os.Remove(tmp)
	}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// syncCloser writes a file through a buffer-free handle and syncs it on
// Close.
type syncCloser struct{ f *os.File }

func (s *syncCloser) Write(p []byte) (int, error) { return s.f.Write(p) }

func (s *syncCloser) Close() error {
	err := s.f.Sync()
	if cerr := s.f.Close(); err == nil {
		err = cerr
	}
	return err
}
