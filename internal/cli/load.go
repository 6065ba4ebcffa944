package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
)

// loadJSON feeds the partitions of an sstabledump JSON document (array or
// JSON Lines, any form the jsondump Decoder accepts) to the sink, one
// partition at a time. It returns the number of rows (static rows
// included) and range tombstone markers read.
func loadJSON(r io.Reader, name string, t *schema.Table, sink *memtableSink) (int64, error) {
	dec := jsondump.NewDecoder(r, t, jsondump.DecodeOptions{})
	var rows int64
	for {
		var p mutation.Partition
		err := dec.Decode(&p)
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return rows, fmt.Errorf("%s: %w", name, err)
		}
		n := int64(len(p.Rows) + len(p.Markers))
		if !p.Static.IsEmpty() {
			n++
		}
		rows += n
		if err := sink.apply(&p); err != nil {
			if errors.Is(err, errInputStop) {
				return rows, err
			}
			return rows, fmt.Errorf("%s: partition %s: %w", name, mutation.FormatKey(t, p.Key), err)
		}
		sink.opts.progress.addRows(n)
	}
}

// loadCQL executes a stream of INSERT, UPDATE and DELETE statements (DDL
// statements among them update the schema) and feeds the partitions they
// write to the sink. Every statement must write the chosen table. It
// returns the number of statements executed.
func loadCQL(r io.Reader, name string, sch *cql.Schema, t *schema.Table, opts cql.Options, sink *memtableSink) (int64, error) {
	b := cql.NewBuilder(sch, opts)
	sc := newStatementScanner(r)
	var n int64
	for {
		stmt, line, err := sc.next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, fmt.Errorf("%s: %w", name, err)
		}
		muts, err := b.Exec(stmt)
		if err != nil {
			return n, fmt.Errorf("%s:%s", name, shiftLine(err, line))
		}
		for _, m := range muts {
			if m.Table != t {
				return n, fmt.Errorf("%s:%d: the statement writes table %s.%s; this write is for %s.%s (choose with --table)",
					name, line, m.Table.Keyspace, m.Table.Name, t.Keyspace, t.Name)
			}
			if err := sink.apply(m.Partition); err != nil {
				if errors.Is(err, errInputStop) {
					return n, err
				}
				return n, fmt.Errorf("%s:%d: %w", name, line, err)
			}
		}
		n++
		sink.opts.progress.addRows(1)
	}
}

// shiftLine renders a statement error with its line numbers made relative
// to the whole input (the statement started on line).
func shiftLine(err error, line int) string {
	var se *cql.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%d:%d: %s", se.Line+line-1, se.Column, se.Msg)
	}
	return fmt.Sprintf("%d: %v", line, err)
}
