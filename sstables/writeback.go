package sstables

// WritebackFile is a File that can start writing a range of its content to
// the device without waiting for the write to finish (Linux
// sync_file_range with SYNC_FILE_RANGE_WRITE, RocksDB's bytes_per_sync).
//
// The files of a FileSet call it every WritebackInterval bytes, so that the
// dirty pages of a large component stream to the disk while the SSTable is
// still being written: the final Sync then has little left to do, and the
// writer is not throttled by the kernel for holding too many dirty pages.
// It is only a hint: durability still comes from Sync, and a file that does
// not implement it is simply synced at the end.
type WritebackFile interface {
	File
	// StartWriteback starts the device write of the n bytes at off and
	// returns without waiting for it.
	StartWriteback(off, n int64) error
}

// WritebackInterval is how many bytes a FileSet component accumulates
// before it starts their writeback.
const WritebackInterval = 4 << 20

// writeback starts the writeback of what a component wrote since the last
// call, once that reaches WritebackInterval bytes.
type writeback struct {
	file    WritebackFile // nil when the file cannot, or stopped
	written int64
	started int64
}

// wrote records n more bytes written and starts their writeback when due.
// An error of the hint disables it for the file: the final Sync reports
// real I/O errors.
func (w *writeback) wrote(n int) {
	w.written += int64(n)
	if w.file == nil || w.written-w.started < WritebackInterval {
		return
	}
	if err := w.file.StartWriteback(w.started, w.written-w.started); err != nil {
		w.file = nil
		return
	}
	w.started = w.written
}
