package compress

import (
	"errors"
	"fmt"
)

// ErrCorrupt is matched (errors.Is) by every error Decompress returns for a
// chunk that cannot be decoded: a truncated or damaged payload, a length
// prefix that disagrees with the data, or a declared size above the caller's
// bound. Readers wrap it in sstables.CorruptionError with the file and
// offset; this package knows neither.
var ErrCorrupt = errors.New("compress: corrupt chunk")

// ErrUnknownCompressor is matched (errors.Is) by the errors CodecFromClassName,
// ParseCodec and ParamsFromOptions return for a compressor they do not know.
var ErrUnknownCompressor = errors.New("compress: unknown compressor")

// ErrInvalidOptions is matched (errors.Is) by the errors ParamsFromOptions
// and NewCompressor return for a compression option map Cassandra would
// reject.
var ErrInvalidOptions = errors.New("compress: invalid compression options")

// corruptf returns an error that wraps ErrCorrupt and names the codec.
func corruptf(c Codec, format string, args ...any) error {
	return fmt.Errorf("%w: %s: %s", ErrCorrupt, c, fmt.Sprintf(format, args...))
}

// corruptWrap is corruptf with an underlying cause kept for errors.Is/As.
func corruptWrap(c Codec, cause error, what string) error {
	return fmt.Errorf("%w: %s: %s: %w", ErrCorrupt, c, what, cause)
}

// invalidOptionf returns an error that wraps ErrInvalidOptions.
func invalidOptionf(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidOptions, fmt.Sprintf(format, args...))
}

// errSnappyTooLarge reports a chunk beyond Snappy's 4 GiB block limit.
var errSnappyTooLarge = errors.New("compress: snappy: chunk too large for a Snappy block")
