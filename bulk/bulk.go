// Package bulk is what bulk writers of SSTables share: readers that turn
// input records — sstabledump JSON, CQL statements, CSV rows — into
// partition updates whose errors name the input and the line, and a sink
// that gathers partition updates in a memtable and flushes it into sorted,
// sized SSTables of any format whenever it fills. `castable write` is one
// reader feeding one MemtableSink; the Beam pipeline (module beam/) runs
// the readers on its workers, groups their output by token range and feeds
// one MemtableSink per range.
//
// A reader calls Sink.Apply once per partition update, in input order; a
// reader never keeps what it gave the sink, and the sink never keeps what
// it was given (it copies).
package bulk

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// Sink receives the partition updates a reader produces.
type Sink interface {
	// Apply takes one partition update read from line of the input (0
	// when the input has no line numbers: JSON). p and the memory it
	// refers to are valid only during the call; a sink that keeps them
	// copies them. An error stops the reader, which returns it located
	// in the input (ErrStopped unchanged).
	Apply(p *mutation.Partition, line int) error
}

// ErrStopped is what a sink returns once it cannot take more input because
// its own work failed (a flush); the sink reports the cause itself
// (MemtableSink.Close). Readers return it unchanged.
var ErrStopped = errors.New("bulk: the sink stopped")

// Kind is the kind of an input.
type Kind int

// The input kinds.
const (
	// JSON is sstabledump JSON: an array of partitions or JSON Lines, in
	// any of the forms jsondump decodes.
	JSON Kind = iota + 1
	// CQL is a stream of INSERT, UPDATE, DELETE and BATCH statements (DDL
	// statements among them update the schema).
	CQL
	// CSV is records of columns, each written as an INSERT (CSVOptions).
	CSV
)

// String returns "json", "cql" or "csv".
func (k Kind) String() string {
	switch k {
	case JSON:
		return "json"
	case CQL:
		return "cql"
	case CSV:
		return "csv"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ReadOptions say how an input is read. Table is required; the zero value
// of every other field means the default given in its comment.
type ReadOptions struct {
	// Name names the input in errors ("rows.csv:12: ..."); "" means
	// "input".
	Name string
	// Table is the table the input writes.
	Table *schema.Table
	// Schema is the schema CQL statements run against (DDL statements in
	// the input change it); nil means a schema holding Table alone. Only
	// CQL input uses it.
	Schema *cql.Schema
	// CSV says how CSV input is read.
	CSV CSVOptions
	// Timestamp is the write time in µs of CQL statements and CSV records
	// that carry none (USING TIMESTAMP); 0 means the time the read starts.
	// JSON input carries its own timestamps.
	Timestamp int64
	// Now is the clock of local deletion times and TTL expiry times; the
	// zero value means the instant of Timestamp.
	Now time.Time
	// OnRows, when set, is told how many input rows (JSON rows and
	// markers, CQL statements, CSV records) were read, in increments, for
	// progress reports.
	OnRows func(n int64)
	// OnBadRecord, when set, is called for each record that does not
	// match the schema (a CSV record with a wrong field count or a value
	// that does not parse, a CQL statement that fails); when it returns
	// nil the record is skipped and reading goes on, otherwise reading
	// stops with its error. Nil means the first bad record is the error.
	// Input that cannot be cut into records (a CSV quote left open, JSON
	// that does not parse) always stops the read.
	OnBadRecord func(*BadRecord) error
}

// BadRecord is an input record that does not match the schema.
type BadRecord struct {
	// Name is the input's name, Line the line the record starts on (0 for
	// JSON input).
	Name string
	Line int
	// Record is the record's text: the CQL statement, or the CSV fields
	// quoted again as one CSV record.
	Record string
	// Err says what is wrong.
	Err error
}

// Error renders the record's location and fault as the readers report
// errors: "name:line: fault".
func (b *BadRecord) Error() string {
	var le *lineError
	if errors.As(b.Err, &le) { // a CQL error located within the input
		return b.Name + ":" + le.msg
	}
	if b.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", b.Name, b.Line, b.Err)
	}
	return fmt.Sprintf("%s: %v", b.Name, b.Err)
}

// Unwrap returns the fault.
func (b *BadRecord) Unwrap() error { return b.Err }

// OptionError reports options that cannot work whatever the input: a
// column list that does not fit the table, a delimiter that cannot
// separate fields, an unknown codec. Commands report it as a usage error.
type OptionError struct{ Msg string }

// Error implements error.
func (e *OptionError) Error() string { return e.Msg }

func optionErrorf(format string, args ...any) error {
	return &OptionError{Msg: fmt.Sprintf(format, args...)}
}

// Read reads an input of kind k (see ReadJSON, ReadCQL and ReadCSV) and
// returns the number of input rows read.
func Read(k Kind, r io.Reader, opts ReadOptions, sink Sink) (int64, error) {
	switch k {
	case JSON:
		return ReadJSON(r, opts, sink)
	case CQL:
		return ReadCQL(r, opts, sink)
	case CSV:
		return ReadCSV(r, opts, sink)
	}
	return 0, fmt.Errorf("bulk: unknown input kind %d", int(k))
}

// ensureDefaults returns a copy of o with the defaults filled in.
func (o ReadOptions) ensureDefaults() (ReadOptions, error) {
	if o.Table == nil {
		return o, errors.New("bulk: ReadOptions.Table is required")
	}
	if o.Name == "" {
		o.Name = "input"
	}
	if o.Timestamp == 0 {
		o.Timestamp = time.Now().UnixMicro()
	}
	if o.Now.IsZero() {
		o.Now = time.UnixMicro(o.Timestamp)
	}
	if o.OnRows == nil {
		o.OnRows = func(int64) {}
	}
	return o, nil
}

// bad hands a bad record to OnBadRecord, or returns it as the error.
func (o *ReadOptions) bad(line int, record string, err error) error {
	b := &BadRecord{Name: o.Name, Line: line, Record: record, Err: err}
	if o.OnBadRecord == nil {
		return b
	}
	return o.OnBadRecord(b)
}

// CompressionParams resolves the codec and chunk length of the SSTables of
// t: codecName ("lz4", "snappy", "deflate", "zstd", "none"; "" keeps the
// table's) and chunkKB (a power of two; 0 keeps the table's) over the
// table's WITH compression over Cassandra's defaults. Bad flags are an
// OptionError.
func CompressionParams(t *schema.Table, codecName string, chunkKB int) (compress.Params, error) {
	p, err := compress.ParamsFromOptions(t.Options.Compression)
	if err != nil {
		return p, fmt.Errorf("table %s.%s: %w", t.Keyspace, t.Name, err)
	}
	if codecName != "" {
		c, err := compress.ParseCodec(codecName)
		if err != nil {
			return p, optionErrorf("--compression: %v", err)
		}
		if c != p.Codec {
			p.Codec, p.Options = c, nil
		}
	}
	if chunkKB != 0 {
		if chunkKB < 0 || chunkKB&(chunkKB-1) != 0 || chunkKB > 1<<20 {
			return p, optionErrorf("--chunk-length-kb %d: want a power of two between 1 and 1048576", chunkKB)
		}
		p.ChunkLength = chunkKB << 10
	}
	return p, nil
}
