// Package conformance holds the tests every sstables.Format shares, written
// once and run against each registered format and version (a row per
// version): rewriting Cassandra's own files byte for byte, converting any
// version to any other and back, and reading back what was written. It has
// no code of its own.
package conformance
