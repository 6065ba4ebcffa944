package sstables

import "errors"

// ErrValueTooLarge is wrapped by the CorruptionError of a value whose length
// exceeds ReaderOptions.MaxValueSize.
var ErrValueTooLarge = errors.New("value larger than the reader's limit (ReaderOptions.MaxValueSize)")

// EffectiveMaxValueSize returns o.MaxValueSize, or DefaultMaxValueSize when
// it is not set.
func (o ReaderOptions) EffectiveMaxValueSize() int64 {
	if o.MaxValueSize <= 0 {
		return DefaultMaxValueSize
	}
	return o.MaxValueSize
}

// ErrShortValues reports bytes that end inside an encoded value.
var ErrShortValues = errors.New("unexpected end of input")
