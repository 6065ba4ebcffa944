package cli

import (
	"errors"

	"github.com/castable-db/castable/jsondump"
	"github.com/castable-db/castable/sstables"
)

// unrenderable turns an encoder error about what an SSTable holds — a value
// its column type rejects (text that is not UTF-8, an int of 3 bytes), a
// partition key that does not split into the key's columns — into a
// CorruptionError naming Data.db and the partition's offset (-1 when
// unknown). The readers do not validate values against their types (that
// would cost every scan), so a flipped value byte in an SSTable without
// per-chunk checksums first shows up here. Other errors (writing stdout,
// CorruptionErrors of the reader) pass through.
func unrenderable(desc sstables.Descriptor, partitionOffset int64, err error) error {
	var je *jsondump.Error
	if err == nil || errors.Is(err, sstables.ErrCorrupt) || !errors.As(err, &je) {
		return err
	}
	return &sstables.CorruptionError{
		Path:      desc.Path(sstables.ComponentData),
		Component: string(sstables.ComponentData),
		Offset:    partitionOffset,
		Reason:    "the partition at this offset holds data its table's types reject (damaged data, or a schema that does not match it)",
		Err:       err,
	}
}
