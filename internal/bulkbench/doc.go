// Package bulkbench holds the side-by-side benchmark of castable write
// --csv against Cassandra's own bulk writer, CQLSSTableWriter, run from the
// Cassandra source builds of ../shared/tools/cassandra-oracle
// (internal/oracle). It has no code of its own: the benchmark lives in its
// test files, and testdata/CQLSSTableWriterBench.java is the Java runner it
// compiles against a build's class path.
//
//	go test -tags libdeflate,zlib,liblz4 -run '^$' -bench CQLSSTableWriter -benchtime 3x ./internal/bulkbench
//
// Each b.N iteration is one round: every writer once, in an order that
// rotates from round to round, for each dataset; the figures of every round
// are logged and their medians reported (README, "Performance").
package bulkbench
