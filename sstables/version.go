package sstables

import (
	"github.com/castable-db/castable/checksummer"
	"github.com/castable-db/castable/sstables/version"
)

// ChecksumAlgorithm is the checksum of v's compressed chunks, CRC.db and
// digest: Adler-32 before ma, CRC-32 from ma on.
func ChecksumAlgorithm(v version.Version) checksummer.Algorithm {
	if v.AdlerChecksums() {
		return checksummer.Adler32
	}
	return checksummer.CRC32
}
