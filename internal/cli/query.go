package cli

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/query"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/table"
)

// QueryOptions configure Query.
type QueryOptions struct {
	// Statement is the SELECT.
	Statement string
	// SSTables are the table's SSTables (component paths, prefixes or
	// directories), read merged.
	SSTables []string
	// Schema is a CQL schema file declaring the table the SELECT names;
	// without one the SSTables' serialization header gives the columns
	// (whose keyspace and table names then go unchecked).
	Schema string
	// Now is the moment the rows are read at (what has expired, what TTLs
	// remain); the zero value means the current time.
	Now time.Time
	// Format is "table" (the default, cqlsh's form), "csv" or "json" (JSON
	// Lines).
	Format string
	// Release is the Cassandra release whose refusals to follow: "3.11"
	// or "5.0" (the default, "").
	Release string
	// Stats prints on stderr what the query read (lookups, partitions).
	Stats bool
	// OpaqueUnknownTypes reads columns of unknown custom classes as bytes.
	OpaqueUnknownTypes bool
}

// Query answers a SELECT over SSTables and prints the rows to stdout.
func Query(env *Env, opts QueryOptions) error {
	var newWriter func(io.Writer, []query.Column) query.Writer
	switch opts.Format {
	case "", "table":
		newWriter = query.NewTableWriter
	case "csv":
		newWriter = query.NewCSVWriter
	case "json":
		newWriter = query.NewJSONWriter
	default:
		return Usagef("unknown output form %q (table, csv or json)", opts.Format)
	}
	switch opts.Release {
	case "", "5.0":
		opts.Release = ""
	case "3.11":
	default:
		return Usagef("--release %q: 3.11 or 5.0", opts.Release)
	}
	sel, err := cql.ParseSelect(opts.Statement)
	if err != nil {
		return Usagef("%v", err)
	}
	var tab *schema.Table
	if opts.Schema != "" {
		s, err := loadSchemaTypes(opts.Schema, schema.TypeOptions{OpaqueUnknownTypes: opts.OpaqueUnknownTypes})
		if err != nil {
			return err
		}
		name := sel.Table.String()
		if tab = s.Table(name); tab == nil {
			return Usagef("schema %s: no table %s (it declares %s)", opts.Schema, name, tableNames(s))
		}
	}
	descs, err := resolveSSTables(opts.SSTables)
	if err != nil {
		return err
	}
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	set, err := table.Open(descs, nil, table.Options{Table: tab, Now: now,
		Reader: sstables.ReaderOptions{OpaqueUnknownTypes: opts.OpaqueUnknownTypes}})
	if err != nil {
		return err
	}
	defer set.Close()
	q, err := query.Prepare(sel, set.Table(), query.Options{Now: now, Partitioner: set.Partitioner(), Release: opts.Release})
	if err != nil {
		var ire *query.InvalidRequestError
		var se *cql.SyntaxError
		if errors.As(err, &ire) || errors.As(err, &se) {
			return Usagef("%v", err)
		}
		return err
	}
	rows, err := q.Run(set)
	if err != nil {
		return err
	}
	defer rows.Close()
	w := newWriter(env.stdout(), rows.Columns())
	for {
		r, err := rows.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if err := w.Row(r); err != nil {
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	if opts.Stats {
		st := rows.Stats()
		if q.PointQuery() {
			fmt.Fprintf(env.stderr(), "%d partition key lookups (%d SSTable indexes consulted, %d held the key, %d skipped by timestamp), %d partitions, %d live rows read\n",
				st.Lookups, st.Lookup.Consulted, st.Lookup.Found, st.Lookup.SkippedByTimestamp, st.Partitions, st.Rows)
		} else {
			fmt.Fprintf(env.stderr(), "scan of %d SSTables: %d partitions, %d live rows read\n", len(descs), st.Partitions, st.Rows)
		}
	}
	return nil
}
