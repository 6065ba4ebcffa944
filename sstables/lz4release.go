package sstables

import (
	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables/version"
)

// LZ4EncoderOf returns the LZ4 fast compressor of the release that writes
// version v (version.Profile.LZ4): LZ4 r123 for 2.2 and 3.x (lz4-java
// 1.3.0), r100 for 2.1, today's LZ4_compress_fast from 4.0 and for
// ScyllaDB.
func LZ4EncoderOf(v version.Version) compress.LZ4Encoder {
	switch v.Profile().LZ4 {
	case version.LZ4R123:
		return compress.LZ4R123
	case version.LZ4R100:
		return compress.LZ4R100
	}
	return compress.LZ4Current
}

// WithReleaseEncoder returns p with the LZ4 encoder of version v's release
// when p is LZ4 and leaves the encoder to the writer (LZ4EncoderDefault),
// so that a writer of v compresses its chunks into the bytes that release
// writes. It is the target version's, like the default chunk length: the
// releases that write one version bundle one LZ4 (the 4.0 pre-releases of
// na excepted, which Statistics.db does not tell apart), so an input's own
// release (CarryOver) adds nothing, and a conversion to another version
// writes as that version's release would.
func WithReleaseEncoder(p compress.Params, v version.Version) compress.Params {
	if p.Codec == compress.LZ4 && p.LZ4Encoder == compress.LZ4EncoderDefault {
		p.LZ4Encoder = LZ4EncoderOf(v)
	}
	return p
}
