package rows

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// memSink collects the Data.db bytes in memory.
type memSink struct{ bytes.Buffer }

func (m *memSink) Position() int64 { return int64(m.Len()) }

func (m *memSink) Submit(buf []byte) ([]byte, error) {
	m.Write(buf)
	return buf[:0], nil
}

// appendBlocks appends a partition's blocks in a form that compares equal
// exactly when the blocks are equal.
func appendBlocks(dst []byte, blocks []Block) []byte {
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(blocks)))
	for _, b := range blocks {
		dst = binary.BigEndian.AppendUint64(dst, uint64(b.Start))
		dst = binary.BigEndian.AppendUint64(dst, uint64(b.End))
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.First)))
		dst = append(dst, b.First...)
		dst = binary.BigEndian.AppendUint32(dst, uint32(len(b.Last)))
		dst = append(dst, b.Last...)
		dst = fmt.Appendf(dst, "%d@%d", b.Open.MarkedForDeleteAt, b.Open.LocalDeletionTime)
	}
	return dst
}
