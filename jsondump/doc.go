// Package jsondump reads and writes SSTable content as sstabledump JSON
// (json-format.md): Cassandra 3.x sstabledump's output (Part 1) and our
// loader convention with its canonical form and lossless extensions
// (Part 2).
//
// The Encoder streams partitions (or, for huge partitions, rows) to an
// io.Writer in sstabledump's layout, its -t raw-time variant, or the
// canonical form; pretty, compact or JSON Lines; or the keys only (-e).
// Every form it writes is lossless: the extensions (counter_shards,
// "ttl": 0, shadowable deletions, null clustering components, empty
// values, non-finite floats) are written whenever the data needs them.
//
// The Decoder reads any of those forms back, one partition (or one row)
// at a time from a JSON array or JSON Lines, so a dump of any size is read
// in memory bounded by one partition (one row with the row-at-a-time API).
// It validates every value against the table's column types and reports
// errors naming the partition, row and column.
//
// Normalize and Diff compare two dumps of the same table structurally
// after converting both to the canonical form.
package jsondump
