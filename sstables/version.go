package sstables

import (
	"fmt"

	"github.com/castable-db/castable/checksummer"
)

// VersionTraits are the facts about a BIG format version that the shared
// components depend on (BigFormat's version flags).
type VersionTraits struct {
	// Version is the two-letter version string.
	Version string
	// Checksum is the algorithm of the compressed chunk checksums, CRC.db
	// and the digest: Adler-32 before "ma", CRC-32 from "ma" on.
	Checksum checksummer.Algorithm
	// DigestComponent is the digest file a writer of this version creates.
	DigestComponent Component
	// OldBloomHashOrder is true before "ma": the bloom filter uses
	// base = h1, increment = h2 of the Murmur3 hash (the "old" order).
	OldBloomHashOrder bool
	// SummaryBoundaries is true before "ma": Summary.db ends with the
	// segment boundaries trailer.
	SummaryBoundaries bool
	// CompactionAncestors is true before "ma": Statistics.db's compaction
	// metadata starts with the ancestor generations.
	CompactionAncestors bool
}

// Traits returns the traits of version: "ka", "la" and "lb" (Cassandra
// 2.1/2.2) or "ma" … "me" (Cassandra 3.x). Other versions (4.0's "na" has
// a different CompressionInfo.db and Filter.db) are an error.
func Traits(version string) (VersionTraits, error) {
	t := VersionTraits{Version: version}
	switch version {
	case "ka", "la", "lb":
		t.Checksum = checksummer.Adler32
		t.DigestComponent = ComponentDigestAdler32
		if version == "ka" {
			t.DigestComponent = ComponentDigestSHA1
		}
		t.OldBloomHashOrder = true
		t.SummaryBoundaries = true
		t.CompactionAncestors = true
	case "ma", "mb", "mc", "md", "me":
		t.Checksum = checksummer.CRC32
		t.DigestComponent = ComponentDigestCRC32
	default:
		return t, fmt.Errorf("sstables: unsupported SSTable version %q (want ka, la, lb or ma … me)", version)
	}
	return t, nil
}
