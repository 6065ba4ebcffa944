// Package livenode holds the tests that run castable against live
// Cassandra servers (internal/node): Cassandra loads and SELECTs what
// castable writes, in every version each release reads, and castable
// reproduces byte for byte what the servers flush and compact. It has no
// code of its own: one package, so that one node per flavour serves every
// such test of a `go test` run.
package livenode
