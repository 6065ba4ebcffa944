package sstables

import (
	"strconv"
)

// Digest file layout (Digest.crc32 for mc, Digest.adler32 for la; older la
// files name it Digest.sha1 with the same content): the whole-file checksum
// of Data.db as stored on disk (compressed chunks with their 4-byte
// trailers included) printed as an unsigned decimal (0 … 4294967295) in
// ASCII, with no sign, no padding and no trailing newline. The algorithm
// follows the version (Adler-32 before "ma", CRC-32 after), not the name.
//
// Early pre-release la files hold the Adler-32 of the compressed payloads
// only (without the trailers); VerifySSTable accepts that variant for la.
const maxDigestFileSize = 64

// AppendDigest appends the digest file content for value v.
func AppendDigest(dst []byte, v uint32) []byte {
	return strconv.AppendUint(dst, uint64(v), 10)
}

// ParseDigest parses digest file content. Trailing ASCII whitespace is
// tolerated; anything else that is not an unsigned 32-bit decimal is
// corruption. path and c name the file in errors.
func ParseDigest(b []byte, path string, c Component) (uint32, error) {
	end := len(b)
	for end > 0 && (b[end-1] == '\n' || b[end-1] == '\r' || b[end-1] == ' ' || b[end-1] == '\t') {
		end--
	}
	if end == 0 {
		return 0, Corruptf(path, string(c), 0, "empty digest")
	}
	var v uint64
	for i := 0; i < end; i++ {
		d := b[i]
		if d < '0' || d > '9' {
			return 0, Corruptf(path, string(c), int64(i), "digest is not an unsigned decimal: byte 0x%02x", d)
		}
		v = v*10 + uint64(d-'0')
		if v > 0xFFFFFFFF {
			return 0, Corruptf(path, string(c), int64(i), "digest %q exceeds 32 bits", b[:end])
		}
	}
	return uint32(v), nil
}

// ReadDigest reads desc's digest component c.
func ReadDigest(fsys FS, desc Descriptor, c Component) (uint32, error) {
	path := desc.Path(c)
	b, err := readWholeFile(fsOrDefault(fsys), path, c, maxDigestFileSize)
	if err != nil {
		return 0, err
	}
	return ParseDigest(b, path, c)
}
