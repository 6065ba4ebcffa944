package compress

import (
	"fmt"
	"math"
	"strings"
)

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

// numCodecs is one past the last Codec.
const numCodecs = Zstd + 1

// Compressor class names, part of the on-disk format.
//
// CompressionInfo.db starts with the compressor's Java simple class name,
// written as Java modified UTF-8 with a big-endian u16 length (Cassandra's
// CompressionParams serializer writes getSimpleName()). Cassandra resolves a
// name without a dot inside classPackage, so a reader accepts both the
// simple and the fully-qualified form. ZstdCompressor exists from
// Cassandra 4.0 (and in ScyllaDB's mc files); 2.2 and 3.x know the other
// three.
const (
	classPackage = "org.apache.cassandra.io.compress."
	classLZ4     = "LZ4Compressor"
	classSnappy  = "SnappyCompressor"
	classDeflate = "DeflateCompressor"
	classZstd    = "ZstdCompressor"
)

var codecNames = [numCodecs]string{None: "none", LZ4: "lz4", Snappy: "snappy", Deflate: "deflate", Zstd: "zstd"}

var codecClasses = [numCodecs]string{LZ4: classLZ4, Snappy: classSnappy, Deflate: classDeflate, Zstd: classZstd}

// String returns the codec's castable name: "none", "lz4", "snappy",
// "deflate" or "zstd".
func (c Codec) String() string {
	if c < numCodecs {
		return codecNames[c]
	}
	return fmt.Sprintf("Codec(%d)", uint8(c))
}

// ClassName returns the Java simple class name Cassandra writes to
// CompressionInfo.db for c ("LZ4Compressor", "SnappyCompressor",
// "DeflateCompressor", "ZstdCompressor"), or "" for None and unknown values
// (an uncompressed SSTable has no CompressionInfo.db).
func (c Codec) ClassName() string {
	if c < numCodecs {
		return codecClasses[c]
	}
	return ""
}

// ParseCodec returns the codec whose String is s (case-insensitive), e.g.
// for a command-line flag. The error wraps ErrUnknownCompressor.
func ParseCodec(s string) (Codec, error) {
	for c, name := range codecNames {
		if strings.EqualFold(s, name) {
			return Codec(c), nil
		}
	}
	return None, fmt.Errorf("%w: %q (want one of none, lz4, snappy, deflate, zstd)", ErrUnknownCompressor, s)
}

// CodecFromClassName maps a compressor class name as found in
// CompressionInfo.db or in a table's compression options to its codec. It
// accepts the simple name ("LZ4Compressor") and the fully-qualified one
// ("org.apache.cassandra.io.compress.LZ4Compressor"). Any other name,
// including the empty one, is an error that names the class and wraps
// ErrUnknownCompressor.
func CodecFromClassName(name string) (Codec, error) {
	simple := name
	if strings.Contains(name, ".") {
		simple = strings.TrimPrefix(name, classPackage)
		if len(simple) == len(name) || strings.Contains(simple, ".") {
			simple = "" // another package: not one of Cassandra's compressors
		}
	}
	for c, class := range codecClasses {
		if class != "" && simple == class {
			return Codec(c), nil
		}
	}
	return None, fmt.Errorf("%w: class %q (want LZ4Compressor, SnappyCompressor, DeflateCompressor or ZstdCompressor)", ErrUnknownCompressor, name)
}

// DefaultChunkLength is Cassandra's default uncompressed chunk length in
// bytes (chunk_length_in_kb 64).
const DefaultChunkLength = 65536

// Params select a codec and its settings for a compressed Data.db.
type Params struct {
	// Codec is the compression algorithm; None writes Data.db uncompressed
	// with CRC.db.
	Codec Codec
	// ChunkLength is the uncompressed chunk length in bytes, a power of two;
	// 0 means the default of the SSTable version written (64 KiB before
	// Cassandra 4.0, 16 KiB from 4.0; WithDefaultChunkLength), or 65536
	// where no version says (EffectiveChunkLength).
	ChunkLength int
	// Options are the codec-specific options written to CompressionInfo.db
	// (Cassandra writes none for its own codecs unless the table sets them:
	// LZ4 knows "lz4_compressor_type" and "lz4_high_compressor_level", Zstd
	// "compression_level"). NewCompressor reads the ones it knows and
	// ignores the rest, so options found in a file written by another
	// implementation (ScyllaDB writes "crc_check_chance") do not prevent
	// reading it. See OptionsForCompressionInfo for the order they are
	// written in.
	Options map[string]string
	// CRCCheckChance is crc_check_chance, the probability that a reader
	// verifies a chunk's checksum; 0 means 1.0 (always) and a negative
	// value means never (crc_check_chance 0). It is not written to
	// CompressionInfo.db.
	CRCCheckChance float64
	// MinCompressRatio is min_compress_ratio (Cassandra 4.0 on): a chunk
	// that does not compress to at most ChunkLength/MinCompressRatio bytes
	// is stored uncompressed. 0 means never (Cassandra's default).
	MinCompressRatio float64
	// LZ4Encoder is the LZ4 fast compressor whose bytes Compress
	// reproduces: the one the release that writes the SSTable bundles.
	// The zero value leaves it to the writer (the version's release;
	// LZ4Current where there is none). It is not written anywhere.
	LZ4Encoder LZ4Encoder
}

// WithDefaultChunkLength returns p with ChunkLength n when it is 0.
func (p Params) WithDefaultChunkLength(n int) Params {
	if p.ChunkLength == 0 {
		p.ChunkLength = n
	}
	return p
}

// MaxCompressedLength is the stored length from which a chunk is kept
// uncompressed (CompressionParams.calcMaxCompressedLength):
// ceil(min(chunkLength / MinCompressRatio, 2^31 − 1)), which is
// Integer.MAX_VALUE when MinCompressRatio is 0.
func (p Params) MaxCompressedLength() int {
	if p.MinCompressRatio <= 0 {
		return math.MaxInt32
	}
	return int(math.Ceil(math.Min(float64(p.EffectiveChunkLength())/p.MinCompressRatio, math.MaxInt32)))
}

// EffectiveChunkLength returns ChunkLength, or DefaultChunkLength when it
// is 0.
func (p Params) EffectiveChunkLength() int {
	if p.ChunkLength == 0 {
		return DefaultChunkLength
	}
	return p.ChunkLength
}

// EffectiveCRCCheckChance returns the verification probability in [0, 1]:
// 1.0 for the zero value, 0 for a negative CRCCheckChance.
func (p Params) EffectiveCRCCheckChance() float64 {
	switch c := p.CRCCheckChance; {
	case c == 0 || c > 1:
		return 1.0
	case c < 0:
		return 0
	default:
		return c
	}
}

// Impl selects between the pure-Go and the C implementation of a codec.
type Impl uint8

// The implementations.
const (
	// ImplAuto uses the C library when it is built in (build tags liblz4,
	// zlib, libdeflate with cgo) and pure Go otherwise. It is what
	// NewCompressor uses.
	ImplAuto Impl = iota
	// ImplGo forces the pure-Go implementation.
	ImplGo
	// ImplC requires a C implementation built in: liblz4 for LZ4; zlib
	// (compression) and/or libdeflate (decompression) for Deflate, the
	// other direction falling back to Go. Snappy, Zstd and None have none.
	ImplC
)

// String returns "auto", "go" or "c".
func (i Impl) String() string {
	switch i {
	case ImplAuto:
		return "auto"
	case ImplGo:
		return "go"
	case ImplC:
		return "c"
	}
	return fmt.Sprintf("Impl(%d)", uint8(i))
}

// HasImpl reports whether NewCompressorImpl(Params{Codec: c}, impl) can
// succeed in this build.
func HasImpl(c Codec, impl Impl) bool {
	if c >= numCodecs {
		return false
	}
	switch impl {
	case ImplAuto, ImplGo:
		return true
	case ImplC:
		switch c {
		case LZ4:
			return haveLibLZ4
		case Deflate:
			return haveZlib || haveLibDeflate
		}
	}
	return false
}

// NewCompressor returns a Compressor for p with the fastest implementation
// built in (ImplAuto). Encoder and decoder state is allocated here, once,
// and reused by every call; obtain one Compressor per goroutine. Options of
// p that the codec knows are validated (an error wraps ErrInvalidOptions);
// unknown ones are ignored.
func NewCompressor(p Params) (Compressor, error) {
	return NewCompressorImpl(p, ImplAuto)
}

// NewCompressorImpl is NewCompressor with an explicit implementation, for
// tests, benchmarks and callers that need the pure-Go path. It fails when
// impl is not built in (see HasImpl).
func NewCompressorImpl(p Params, impl Impl) (Compressor, error) {
	if !HasImpl(p.Codec, impl) {
		if p.Codec >= numCodecs {
			return nil, fmt.Errorf("%w: %s", ErrUnknownCompressor, p.Codec)
		}
		return nil, fmt.Errorf("compress: no %s implementation of %s in this build (see the build tags liblz4, zlib, libdeflate)", impl, p.Codec)
	}
	if p.ChunkLength < 0 {
		return nil, invalidOptionf("negative chunk length %d", p.ChunkLength)
	}
	switch p.Codec {
	case None:
		return noneCompressor{}, nil
	case LZ4:
		o, err := lz4SettingsFrom(p.Options)
		if err != nil {
			return nil, err
		}
		if p.LZ4Encoder > LZ4R100 {
			return nil, invalidOptionf("unknown %s", p.LZ4Encoder)
		}
		o.encoder = p.LZ4Encoder
		return newLZ4(o, impl)
	case Snappy:
		return newSnappy(), nil
	case Deflate:
		return newDeflate(impl)
	case Zstd:
		level, err := zstdLevelFrom(p.Options)
		if err != nil {
			return nil, err
		}
		return newZstd(level, p.EffectiveChunkLength())
	}
	panic("unreachable")
}
