// Package parquetcheck holds one test: the Parquet files castable export
// writes, read back by an independent Parquet implementation (DuckDB,
// through its Go bindings), equal castable's merged view of the table they
// were exported from, for a table of every CQL type. It is a module of its
// own so that the core keeps its small dependency set and its pure-Go
// build: DuckDB needs cgo.
package parquetcheck
