package compress

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf16"
)

// Keys of a CQL table's compression map (Cassandra 3.x CompressionParams).
// "sstable_compression", "chunk_length_kb" and a crc_check_chance inside
// the map are the 2.x spellings, which 3.x still accepts.
const (
	optClass              = "class"
	optSSTableCompression = "sstable_compression"
	optChunkLengthInKB    = "chunk_length_in_kb"
	optChunkLengthKB      = "chunk_length_kb"
	optCRCCheckChance     = "crc_check_chance"
	optEnabled            = "enabled"
	optMinCompressRatio   = "min_compress_ratio"
)

// codecOptionKeys lists the options each codec accepts (Cassandra's
// ICompressor.supportedOptions).
var codecOptionKeys = [numCodecs][]string{
	LZ4:  {optLZ4Type, optLZ4HCLevel},
	Zstd: {optZstdLevel},
}

// ParamsFromOptions interprets a CQL table's compression map as Cassandra
// 3.x does (CompressionParams.fromMap), with the same validation:
//
//   - nil means the table had no compression clause: Cassandra's default,
//     LZ4 with 64 KiB chunks. A non-nil empty map means no compression, as
//     `WITH compression = {}` does in Cassandra.
//   - "class" (or the older "sstable_compression") names the compressor by
//     simple or fully-qualified class name; they are exclusive; an empty
//     sstable_compression means no compression, an empty class is an error.
//     A non-empty map without either is an error unless "enabled" is false.
//   - "enabled": anything but "true" (case-insensitive, Java's
//     Boolean.parseBoolean) disables compression, and then no other key is
//     allowed.
//   - "chunk_length_in_kb" (or the older "chunk_length_kb", exclusive with
//     it): a positive power of two; it sets ChunkLength in bytes.
//   - "crc_check_chance": a number from 0 to 1 that sets CRCCheckChance and
//     is not kept in Options. 0 ("never verify") is stored as -1, because
//     the zero value of Params.CRCCheckChance means 1.
//   - the remaining keys are the codec's own options, kept in Options and
//     written to CompressionInfo.db; LZ4 accepts lz4_compressor_type and
//     lz4_high_compressor_level, Zstd compression_level, the others none.
//     Values are validated; an unknown key is an error.
//
// Errors wrap ErrInvalidOptions or, for an unknown class, ErrUnknownCompressor.
func ParamsFromOptions(opts map[string]string) (Params, error) {
	if opts == nil {
		return Params{Codec: LZ4}, nil
	}
	rest := make(map[string]string, len(opts))
	for k, v := range opts {
		rest[k] = v
	}
	p := Params{Codec: None}

	enabled := true
	if v, ok := rest[optEnabled]; ok {
		enabled = strings.EqualFold(v, "true")
		delete(rest, optEnabled)
	}
	_, hasClass := rest[optClass]
	_, hasLegacyClass := rest[optSSTableCompression]
	if !enabled {
		if len(rest) > 0 {
			return p, invalidOptionf("compression is disabled ('%s': false) but other options are given: %s", optEnabled, sortedKeys(rest))
		}
		return p, nil
	}
	if len(opts) > 0 && !hasClass && !hasLegacyClass {
		return p, invalidOptionf("missing sub-option '%s' for the 'compression' option", optClass)
	}

	var class string
	if hasClass {
		if hasLegacyClass {
			return p, invalidOptionf("'%s' must not be used together with '%s'", optSSTableCompression, optClass)
		}
		class = rest[optClass]
		if class == "" {
			return p, invalidOptionf("'%s' must not be empty; to disable compression use 'enabled': false", optClass)
		}
		delete(rest, optClass)
	} else {
		class = rest[optSSTableCompression]
		delete(rest, optSSTableCompression)
	}

	chunk, err := chunkLengthFrom(rest)
	if err != nil {
		return p, err
	}
	if chunk != 0 {
		p.ChunkLength = chunk
	}

	if class == "" {
		// No compressor: Cassandra rejects any option left over, including
		// crc_check_chance.
		if len(rest) > 0 {
			return p, invalidOptionf("unknown compression options %s since no compression class is given", sortedKeys(rest))
		}
		return p, nil
	}
	if p.Codec, err = CodecFromClassName(class); err != nil {
		return p, err
	}

	if v, ok := rest[optMinCompressRatio]; ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || (f != 0 && f < 1) {
			return p, invalidOptionf("invalid %s %q (want 0, which disables it, or a number of at least 1.0)", optMinCompressRatio, v)
		}
		p.MinCompressRatio = f
		delete(rest, optMinCompressRatio)
	}
	if v, ok := rest[optCRCCheckChance]; ok {
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
			return p, invalidOptionf("invalid %s %q (want a number from 0.0 to 1.0)", optCRCCheckChance, v)
		}
		if f == 0 {
			f = -1
		}
		p.CRCCheckChance = f
		delete(rest, optCRCCheckChance)
	}

	for k := range rest {
		if !slices.Contains(codecOptionKeys[p.Codec], k) {
			return p, invalidOptionf("unknown compression option %q for %s", k, p.Codec.ClassName())
		}
	}
	switch p.Codec {
	case LZ4:
		_, err = lz4SettingsFrom(rest)
	case Zstd:
		_, err = zstdLevelFrom(rest)
	}
	if err != nil {
		return p, err
	}
	if len(rest) > 0 {
		p.Options = rest
	}
	return p, nil
}

// chunkLengthFrom removes and validates the chunk length keys, returning
// the length in bytes or 0 when neither is given.
func chunkLengthFrom(rest map[string]string) (int, error) {
	key := optChunkLengthInKB
	v, ok := rest[optChunkLengthInKB]
	if legacy, hasLegacy := rest[optChunkLengthKB]; hasLegacy {
		if ok {
			return 0, invalidOptionf("'%s' must not be used together with '%s'", optChunkLengthKB, optChunkLengthInKB)
		}
		key, v, ok = optChunkLengthKB, legacy, true
	}
	if !ok {
		return 0, nil
	}
	delete(rest, key)
	kb, err := strconv.ParseInt(v, 10, 32)
	if err != nil {
		return 0, invalidOptionf("invalid %s %q (want an integer number of KiB)", key, v)
	}
	if kb > math.MaxInt32/1024 {
		return 0, invalidOptionf("%s %d is too large", key, kb)
	}
	length := int(kb) * 1024
	if length <= 0 {
		return 0, invalidOptionf("%s %d must be positive", key, kb)
	}
	if length&(length-1) != 0 {
		return 0, invalidOptionf("%s %d must be a power of 2", key, kb)
	}
	return length, nil
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Option is one key/value pair of CompressionInfo.db's option list.
type Option struct {
	Key, Value string
}

// OptionsForCompressionInfo returns the options to write to
// CompressionInfo.db, in the order Cassandra writes them.
//
// Cassandra writes its table's "other options" (the codec's own options;
// never class, chunk length, enabled or crc_check_chance, which this method
// drops too) by iterating a java.util.HashMap. With fewer than 13 options
// the table has 16 buckets, and entries come out by bucket index
// (String.hashCode() ^ (hashCode >>> 16)) & 15; entries that share a bucket
// come out in insertion order, which is not recorded, so ties are broken by
// key. Every Cassandra-written file seen has no options at all, and readers
// must not depend on the order.
func (p Params) OptionsForCompressionInfo() []Option {
	if len(p.Options) == 0 {
		return nil
	}
	out := make([]Option, 0, len(p.Options))
	for k, v := range p.Options {
		switch k {
		case optClass, optSSTableCompression, optChunkLengthInKB, optChunkLengthKB, optEnabled, optCRCCheckChance, optMinCompressRatio:
			continue
		}
		out = append(out, Option{Key: k, Value: v})
	}
	buckets := javaHashMapCapacity(len(out))
	slices.SortFunc(out, func(a, b Option) int {
		ba, bb := javaHashMapBucket(a.Key, buckets), javaHashMapBucket(b.Key, buckets)
		if ba != bb {
			return int(ba) - int(bb)
		}
		return strings.Compare(a.Key, b.Key)
	})
	return out
}

// javaHashMapCapacity is the bucket count of a java.util.HashMap holding n
// entries inserted one by one from the default capacity 16, load factor
// 0.75.
func javaHashMapCapacity(n int) int {
	c := 16
	for n > c*3/4 {
		c *= 2
	}
	return c
}

// javaHashMapBucket is HashMap's bucket index for a String key.
func javaHashMapBucket(key string, capacity int) uint32 {
	h := javaStringHash(key)
	return (h ^ h>>16) & uint32(capacity-1)
}

// javaStringHash is java.lang.String.hashCode: s[0]*31^(n-1) + ... + s[n-1]
// over the UTF-16 code units, in wrapping 32-bit arithmetic.
func javaStringHash(s string) uint32 {
	var h uint32
	for _, r := range s {
		if r >= 0x10000 {
			hi, lo := utf16.EncodeRune(r)
			h = 31*h + uint32(hi)
			h = 31*h + uint32(lo)
			continue
		}
		h = 31*h + uint32(r)
	}
	return h
}
