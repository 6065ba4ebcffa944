// Package checksummer provides the 32-bit checksums SSTables use — CRC-32
// (IEEE, as java.util.zip.CRC32 and zlib's crc32 compute it) and Adler-32 — in
// several implementations behind one small contract, together with the
// operation that makes whole-file digests cheap: combining the checksums of
// two adjacent pieces into the checksum of their concatenation.
//
// The SSTable writers checksum every chunk once and fold the chunk values into
// the running digest with Combine, so no byte is ever checksummed twice.
package checksummer

// Checksummer is a 32-bit checksum algorithm with zlib's calling convention:
// Update continues a finished value, so Update(Update(Init, a), b) equals
// Update(Init, a‖b).
//
// Implementations are stateless and safe for concurrent use.
type Checksummer interface {
	// Name identifies the implementation (for example "crc32" or
	// "libdeflate-adler32"); it is what perf_checksum and the CLI print.
	Name() string
	// Algorithm is the checksum the implementation computes.
	Algorithm() Algorithm
	// Init is the checksum of the empty input: 0 for CRC-32, 1 for Adler-32.
	Init() uint32
	// Update returns the checksum of prev's input followed by p.
	Update(prev uint32, p []byte) uint32
	// Combine returns the checksum of A‖B given a = checksum(A),
	// b = checksum(B) and lenB = len(B). With lenB == 0 it returns a.
	Combine(a, b uint32, lenB int64) uint32
	// PreferCombine reports whether Combine is cheaper than feeding the bytes
	// of B a second time; writers fall back to Update when it is false.
	PreferCombine() bool
}

// Algorithm names a checksum function independently of its implementation.
type Algorithm uint8

const (
	// CRC32 is the IEEE 802.3 CRC-32 (reflected polynomial 0xEDB88320,
	// initial value and final xor 0xFFFFFFFF); Cassandra's mc format uses it
	// for chunk checksums, CRC.db and the digest.
	CRC32 Algorithm = iota + 1
	// Adler32 is RFC 1950 Adler-32 with initial value 1; Cassandra's la
	// format uses it for chunk checksums, CRC.db and the digest.
	Adler32
)

// String returns "crc32" or "adler32".
func (a Algorithm) String() string {
	switch a {
	case CRC32:
		return "crc32"
	case Adler32:
		return "adler32"
	}
	return "unknown"
}
