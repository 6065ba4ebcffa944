package bulk

import (
	"errors"
	"fmt"
	"io"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// ReadJSON feeds the partitions of an sstabledump JSON document (an array
// or JSON Lines, any form the jsondump Decoder accepts) to the sink, one
// partition at a time, as they are (the sink stores content, not
// statements: see SinkOptions.Verbatim). It returns the number of rows
// (static rows included) and range tombstone markers read. JSON that does
// not decode stops the read: the decoder cannot find the next partition
// after it.
func ReadJSON(r io.Reader, opts ReadOptions, sink Sink) (int64, error) {
	opts, err := opts.ensureDefaults()
	if err != nil {
		return 0, err
	}
	t := opts.Table
	dec := jsondump.NewDecoder(r, t, jsondump.DecodeOptions{})
	var rows int64
	for {
		var p mutation.Partition
		err := dec.Decode(&p)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, fmt.Errorf("%s: %w", opts.Name, err)
		}
		n := int64(len(p.Rows) + len(p.Markers))
		if !p.Static.IsEmpty() {
			n++
		}
		rows += n
		if err := sink.Apply(&p, 0); err != nil {
			if errors.Is(err, ErrStopped) {
				return rows, err
			}
			return rows, fmt.Errorf("%s: partition %s: %w", opts.Name, mutation.FormatKey(t, p.Key), err)
		}
		opts.OnRows(n)
	}
}

// ReadCQL executes a stream of INSERT, UPDATE and DELETE statements (DDL
// statements among them update the schema) and feeds the partitions they
// write to the sink. Every statement must write opts.Table. It returns the
// number of statements executed; a statement that fails is a BadRecord.
func ReadCQL(r io.Reader, opts ReadOptions, sink Sink) (int64, error) {
	opts, err := opts.ensureDefaults()
	if err != nil {
		return 0, err
	}
	t := opts.Table
	sch := opts.Schema
	if sch == nil {
		sch = &cql.Schema{Keyspace: t.Keyspace, Tables: []*schema.Table{t}}
	}
	b := cql.NewBuilder(sch, cql.Options{DefaultTimestamp: opts.Timestamp, Now: opts.Now})
	sc := newStatementScanner(r)
	var n int64
	for {
		stmt, line, err := sc.next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("%s: %w", opts.Name, err)
		}
		muts, err := b.Exec(stmt)
		if err != nil {
			if err := opts.bad(line, stmt, shiftLine(err, line)); err != nil {
				return n, err
			}
			continue
		}
		for _, m := range muts {
			if m.Table != t {
				err := fmt.Errorf("the statement writes table %s.%s; this write is for %s.%s (choose with --table)",
					m.Table.Keyspace, m.Table.Name, t.Keyspace, t.Name)
				if err := opts.bad(line, stmt, err); err != nil {
					return n, err
				}
				muts = nil
				break
			}
		}
		for _, m := range muts {
			if err := sink.Apply(m.Partition, line); err != nil {
				if errors.Is(err, ErrStopped) {
					return n, err
				}
				return n, fmt.Errorf("%s:%d: %w", opts.Name, line, err)
			}
		}
		n++
		opts.OnRows(1)
	}
}

// lineError is a statement's error located in the whole input. Its text is
// what follows "name:" in the message ("12:5: no viable alternative").
type lineError struct {
	line int // the line the error is on
	msg  string
	err  error
}

func (e *lineError) Error() string { return e.msg }
func (e *lineError) Unwrap() error { return e.err }

// shiftLine makes a statement error's line numbers relative to the whole
// input (the statement started on line).
func shiftLine(err error, line int) error {
	var se *cql.SyntaxError
	if errors.As(err, &se) {
		l := se.Line + line - 1
		return &lineError{line: l, msg: fmt.Sprintf("%d:%d: %s", l, se.Column, se.Msg), err: err}
	}
	return &lineError{line: line, msg: fmt.Sprintf("%d: %v", line, err), err: err}
}
