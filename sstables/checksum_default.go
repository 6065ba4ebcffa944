package sstables

import (
	"fmt"

	"github.com/castable-db/castable/checksummer"
)

// defaultChecksummer returns the checksummer used when options leave it
// unset: checksummer.Default, CRC-32 for the zero Algorithm.
func defaultChecksummer(alg checksummer.Algorithm) (checksummer.Checksummer, error) {
	if alg == 0 {
		alg = checksummer.CRC32
	}
	if cs := checksummer.Default(alg); cs != nil {
		return cs, nil
	}
	return nil, fmt.Errorf("sstables: unknown checksum algorithm %v", alg)
}

// fixedCombiner returns a precomputed combine for second pieces of lenB
// bytes (four table lookups for CRC-32), or nil when cs does not prefer
// combining or no precomputed form exists (Adler-32's combine is already a
// few integer operations).
func fixedCombiner(cs checksummer.Checksummer, lenB int64) func(a, b uint32) uint32 {
	if cs.Algorithm() != checksummer.CRC32 || !cs.PreferCombine() {
		return nil
	}
	return checksummer.NewCRC32Combiner(lenB).Combine
}
