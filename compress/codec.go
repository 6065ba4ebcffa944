package compress

// Codec is a compression algorithm as castable names it. It is an API value;
// the names Cassandra writes to disk are mapped separately (see ClassName).
type Codec uint8

// The codecs. The zero value is None (uncompressed: Data.db is written as is
// and described by CRC.db instead of CompressionInfo.db).
const (
	None Codec = iota
	LZ4
	Snappy
	Deflate
	Zstd
)

// Params select a codec and its settings for a compressed Data.db.
type Params struct {
	// Codec is the compression algorithm; None writes Data.db uncompressed
	// with CRC.db.
	Codec Codec
	// ChunkLength is the uncompressed chunk length in bytes, a power of two;
	// 0 means 65536 (chunk_length_in_kb 64).
	ChunkLength int
	// Options are the codec-specific options written to CompressionInfo.db
	// (Cassandra writes none for its own codecs; Zstd uses
	// "compression_level").
	Options map[string]string
	// CRCCheckChance is crc_check_chance; 0 means 1.0. It is not written to
	// CompressionInfo.db.
	CRCCheckChance float64
}
