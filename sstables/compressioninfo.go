package sstables

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables/version"
)

// CompressionInfo.db layout (every version; big-endian):
//
//	u16    nameLen ; nameLen bytes   compressor class simple name, Java modified UTF-8 ("LZ4Compressor")
//	i32    optionCount M
//	M × {  Java UTF key ; Java UTF value }
//	i32    chunkLength               uncompressed bytes per chunk, a power of two
//	i32    maxCompressedLength       na and later only (HasMaxCompressedLength)
//	i64    dataLength                total uncompressed length of Data.db's content
//	i32    chunkCount C              > 0
//	C × i64 chunkOffset[i]           offset in Data.db of compressed chunk i; chunkOffset[0] = 0
//	EOF                              nothing follows
//
// Chunk i holds uncompressed bytes [i·chunkLength, min((i+1)·chunkLength,
// dataLength)); on disk it spans [chunkOffset[i], chunkOffset[i+1] or the
// file size): the stored payload, then its 4-byte big-endian checksum.
// C is ceil(dataLength/chunkLength), or one more when a rewriting Cassandra
// appended an empty chunk (readers accept it, writers never write it).
//
// From na a payload of at least maxCompressedLength bytes is the chunk's
// uncompressed bytes (Cassandra stores a chunk raw when it does not
// compress below ceil(chunkLength / min_compress_ratio); the last chunk is
// padded with zeros up to maxCompressedLength, so a reader takes only the
// chunk's data length of it). maxCompressedLength is 2^31 − 1 when
// min_compress_ratio is 0, Cassandra's default: no chunk is ever raw.
const (
	// maxChunkLength bounds the chunk length a reader accepts (Cassandra
	// caps chunk_length_in_kb well below it).
	maxChunkLength = 1 << 30
	// maxCompressionInfoSize bounds the file a reader loads (8 bytes per
	// chunk: 1 GiB covers 8 TiB of 64 KiB chunks).
	maxCompressionInfoSize = 1 << 30
	// chunkTrailerLen is the length of the checksum after each chunk.
	chunkTrailerLen = 4
)

// CompressionOption is one compressor option as CompressionInfo.db stores
// it.
type CompressionOption = compress.Option

// CompressionInfo is the content of CompressionInfo.db.
type CompressionInfo struct {
	// ClassName is the compressor class as written (Cassandra writes the
	// simple name, e.g. "LZ4Compressor"; fully-qualified names are accepted
	// when reading).
	ClassName string
	// Options are the compressor options in file order.
	Options []CompressionOption
	// ChunkLength is the uncompressed length of every chunk but the last.
	ChunkLength int
	// MaxCompressedLength is the stored length from which a chunk is raw
	// (na and later); 0 for the versions without the field.
	MaxCompressedLength int
	// DataLength is the uncompressed length of Data.db's content.
	DataLength int64
	// ChunkOffsets are the file offsets of the compressed chunks.
	ChunkOffsets []int64
}

// Codec maps ClassName to its codec.
func (ci *CompressionInfo) Codec() (compress.Codec, error) {
	return compress.CodecFromClassName(ci.ClassName)
}

// Params returns the compress.Params that decode the chunks.
func (ci *CompressionInfo) Params() (compress.Params, error) {
	codec, err := ci.Codec()
	if err != nil {
		return compress.Params{}, err
	}
	p := compress.Params{Codec: codec, ChunkLength: ci.ChunkLength}
	if ci.MaxCompressedLength > 0 && ci.MaxCompressedLength < math.MaxInt32 {
		p.MinCompressRatio = ratioFor(ci.ChunkLength, ci.MaxCompressedLength)
	}
	if len(ci.Options) > 0 {
		p.Options = make(map[string]string, len(ci.Options))
		for _, o := range ci.Options {
			p.Options[o.Key] = o.Value
		}
	}
	return p, nil
}

// ratioFor returns a min_compress_ratio from which Params recomputes
// exactly maxLen for chunks of chunkLen bytes (chunkLen / maxLen, nudged
// past floating-point rounding).
func ratioFor(chunkLen, maxLen int) float64 {
	r := float64(chunkLen) / float64(maxLen)
	p := compress.Params{ChunkLength: chunkLen}
	for range 8 {
		p.MinCompressRatio = r
		switch got := p.MaxCompressedLength(); {
		case got > maxLen:
			r = math.Nextafter(r, math.Inf(1))
		case got < maxLen:
			r = math.Nextafter(r, 0)
		default:
			return r
		}
	}
	return r
}

// DataChunks returns the number of chunks that hold data:
// ceil(DataLength/ChunkLength). A trailing empty chunk is not counted.
func (ci *CompressionInfo) DataChunks() int {
	return int((ci.DataLength + int64(ci.ChunkLength) - 1) / int64(ci.ChunkLength))
}

// ChunkSpan returns the file offset and on-disk length (payload plus the
// 4-byte checksum) of chunk i of a Data.db of fileSize bytes.
func (ci *CompressionInfo) ChunkSpan(i int, fileSize int64) (off, length int64) {
	off = ci.ChunkOffsets[i]
	end := fileSize
	if i+1 < len(ci.ChunkOffsets) {
		end = ci.ChunkOffsets[i+1]
	}
	return off, end - off
}

// RawChunk reports whether a chunk whose payload (without the checksum)
// is n bytes is stored uncompressed.
func (ci *CompressionInfo) RawChunk(n int64) bool {
	return ci.MaxCompressedLength > 0 && n >= int64(ci.MaxCompressedLength)
}

// ChunkDataLength returns the uncompressed length of chunk i (0 for a
// trailing empty chunk).
func (ci *CompressionInfo) ChunkDataLength(i int) int {
	start := int64(i) * int64(ci.ChunkLength)
	if start >= ci.DataLength {
		return 0
	}
	return int(min(int64(ci.ChunkLength), ci.DataLength-start))
}

// AppendTo appends the CompressionInfo.db encoding of ci; the
// maxCompressedLength field is written when MaxCompressedLength is set.
func (ci *CompressionInfo) AppendTo(dst []byte) ([]byte, error) {
	var err error
	if dst, err = AppendJavaUTF(dst, ci.ClassName); err != nil {
		return dst, err
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(ci.Options)))
	for _, o := range ci.Options {
		if dst, err = AppendJavaUTF(dst, o.Key); err != nil {
			return dst, err
		}
		if dst, err = AppendJavaUTF(dst, o.Value); err != nil {
			return dst, err
		}
	}
	dst = binary.BigEndian.AppendUint32(dst, uint32(ci.ChunkLength))
	if ci.MaxCompressedLength > 0 {
		dst = binary.BigEndian.AppendUint32(dst, uint32(ci.MaxCompressedLength))
	}
	dst = binary.BigEndian.AppendUint64(dst, uint64(ci.DataLength))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(ci.ChunkOffsets)))
	for _, off := range ci.ChunkOffsets {
		dst = binary.BigEndian.AppendUint64(dst, uint64(off))
	}
	return dst, nil
}

// ParseCompressionInfo parses CompressionInfo.db content of version v and
// checks its internal consistency: a power-of-two chunk length, a positive
// max compressed length (na and later), a chunk count that matches the
// data length (one trailing empty chunk allowed), offsets that start at 0
// and grow by more than the 4-byte checksum. path names the file in
// errors. The compressor name is not resolved here (see Codec), so a file
// with an unknown compressor still parses.
func ParseCompressionInfo(b []byte, path string, v version.Version) (*CompressionInfo, error) {
	r := NewByteReader(b, path, ComponentCompressionInfo, 0)
	ci := &CompressionInfo{}
	ci.ClassName = r.JavaUTF()
	optOff := r.Offset()
	nopt := r.I32()
	if r.Err() == nil && (nopt < 0 || int(nopt) > r.Remaining()/4) {
		r.FailAt(optOff, "option count %d out of range", nopt)
	}
	for i := 0; i < int(nopt) && r.Err() == nil; i++ {
		k := r.JavaUTF()
		v := r.JavaUTF()
		ci.Options = append(ci.Options, CompressionOption{Key: k, Value: v})
	}
	clOff := r.Offset()
	cl := r.I32()
	if r.Err() == nil && (cl <= 0 || cl > maxChunkLength || cl&(cl-1) != 0) {
		r.FailAt(clOff, "chunk length %d is not a power of two in 1 … %d", cl, maxChunkLength)
	}
	ci.ChunkLength = int(cl)
	if v.HasMaxCompressedLength() {
		mOff := r.Offset()
		m := r.I32()
		if r.Err() == nil && m <= 0 {
			r.FailAt(mOff, "max compressed length %d (must be > 0)", m)
		}
		ci.MaxCompressedLength = int(m)
	}
	dlOff := r.Offset()
	ci.DataLength = r.I64()
	if r.Err() == nil && ci.DataLength < 0 {
		r.FailAt(dlOff, "negative data length %d", ci.DataLength)
	}
	ccOff := r.Offset()
	count := r.I32()
	if err := r.Err(); err != nil {
		return nil, err
	}
	if count <= 0 {
		return nil, Corruptf(path, string(ComponentCompressionInfo), ccOff, "chunk count %d (must be > 0)", count)
	}
	if want := ci.DataChunks(); int(count) != want && int(count) != want+1 {
		return nil, Corruptf(path, string(ComponentCompressionInfo), ccOff, "chunk count %d does not match data length %d in %d-byte chunks (want %d)", count, ci.DataLength, ci.ChunkLength, want)
	}
	if r.Remaining() != int(count)*8 {
		return nil, Corruptf(path, string(ComponentCompressionInfo), r.Offset(), "%d bytes left for %d chunk offsets (want %d)", r.Remaining(), count, int(count)*8)
	}
	ci.ChunkOffsets = make([]int64, count)
	for i := range ci.ChunkOffsets {
		off := r.Offset()
		v := r.I64()
		switch {
		case i == 0 && v != 0:
			return nil, Corruptf(path, string(ComponentCompressionInfo), off, "chunk 0 offset %d (must be 0)", v)
		case i > 0 && v <= ci.ChunkOffsets[i-1]+chunkTrailerLen:
			return nil, Corruptf(path, string(ComponentCompressionInfo), off, "chunk %d offset %d does not leave room for chunk %d at %d", i, v, i-1, ci.ChunkOffsets[i-1])
		}
		ci.ChunkOffsets[i] = v
	}
	return ci, nil
}

// CheckFileSize checks that a Data.db of fileSize bytes holds the last
// chunk: at least one payload byte and the 4-byte checksum after the last
// offset.
func (ci *CompressionInfo) CheckFileSize(fileSize int64, dataPath string) error {
	last := ci.ChunkOffsets[len(ci.ChunkOffsets)-1]
	if fileSize <= last+chunkTrailerLen {
		return Corruptf(dataPath, string(ComponentData), last, "file of %d bytes ends inside chunk %d", fileSize, len(ci.ChunkOffsets)-1)
	}
	return nil
}

// ReadCompressionInfo reads desc's CompressionInfo.db.
func ReadCompressionInfo(fsys FS, desc Descriptor) (*CompressionInfo, error) {
	path := desc.Path(ComponentCompressionInfo)
	b, err := readWholeFile(fsOrDefault(fsys), path, ComponentCompressionInfo, maxCompressionInfoSize)
	if err != nil {
		return nil, err
	}
	return ParseCompressionInfo(b, path, desc.Version)
}

// scyllaCompressionOptions returns the option list ScyllaDB writes: the
// codec's options and crc_check_chance, sorted by key (a std::map). Every
// ScyllaDB file seen has crc_check_chance "1.0", the default. The value
// read from a ScyllaDB file (in p.Options) is kept as it was written;
// another is written with one decimal at least, which no file confirms.
func scyllaCompressionOptions(p compress.Params, opts []compress.Option) []compress.Option {
	if v, ok := p.Options["crc_check_chance"]; ok {
		out := append(slices.Clone(opts), compress.Option{Key: "crc_check_chance", Value: v})
		slices.SortFunc(out, func(a, b compress.Option) int { return strings.Compare(a.Key, b.Key) })
		return out
	}
	chance := p.CRCCheckChance
	switch {
	case chance == 0:
		chance = 1
	case chance < 0:
		chance = 0
	}
	v := strconv.FormatFloat(chance, 'f', -1, 64)
	if !strings.Contains(v, ".") {
		v += ".0"
	}
	out := append(slices.Clone(opts), compress.Option{Key: "crc_check_chance", Value: v})
	slices.SortFunc(out, func(a, b compress.Option) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// compressionInfoFor starts the CompressionInfo of a writer with params p;
// withMax sets its MaxCompressedLength (na and later).
func compressionInfoFor(p compress.Params, withMax bool) (*CompressionInfo, error) {
	class := p.Codec.ClassName()
	if class == "" {
		return nil, fmt.Errorf("sstables: codec %v has no compressor class", p.Codec)
	}
	ci := &CompressionInfo{ClassName: class, ChunkLength: p.EffectiveChunkLength()}
	ci.Options = p.OptionsForCompressionInfo()
	if withMax {
		ci.MaxCompressedLength = p.MaxCompressedLength()
	} else if p.MinCompressRatio > 0 {
		return nil, fmt.Errorf("sstables: min_compress_ratio needs a version with maxCompressedLength (%s)", version.Summarize(version.Select(version.Version.HasMaxCompressedLength)))
	}
	return ci, nil
}
