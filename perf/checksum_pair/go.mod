module github.com/castable-db/castable/perf/checksum_pair

go 1.26.0

require github.com/castable-db/castable v0.0.0-00010101000000-000000000000

require (
	github.com/klauspost/crc32 v1.3.0 // indirect
	golang.org/x/sys v0.46.0 // indirect
)

replace github.com/castable-db/castable => ../..
