package sorted

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/internal/rows"
)

// Index is an index layout's part of reading an SSTable: finding a
// partition by key and a partition's row index (rows.RowIndexSource, for
// seeks inside it).
type Index interface {
	// Locate returns the Data.db position of key's partition, or -1 when
	// the SSTable does not hold it (the bloom filter, the index), and
	// where the index names that position, for errors.
	Locate(key []byte) (pos int64, at Location, err error)
	rows.RowIndexSource
	// Close releases the layout's files.
	Close() error
}

// Location is a place in an index component, for errors.
type Location struct {
	Path      string
	Component string
	Offset    int64
	// MayDiffer says the index matched only a prefix of the key (BTI's
	// Partitions.db pointing straight at Data.db): another key at the
	// position means the key is absent, not that the index is damaged.
	MayDiffer bool
}

// Corruptf returns a CorruptionError at l.
func (l Location) Corruptf(format string, args ...any) error {
	return sstables.Corruptf(l.Path, l.Component, l.Offset, format, args...)
}

// Reader reads one SSTable of the 3.x+ row format in any index layout:
// TOC.txt, Statistics.db (the partitioner, the serialization header, the
// table), the chunked Data.db, and the layout's Index. Scanners and
// lookups may be used concurrently; each Scanner is not safe for
// concurrent use.
type Reader struct {
	desc    sstables.Descriptor
	fsys    sstables.FS
	table   *schema.Table
	part    dht.Partitioner
	stats   *sstables.Statistics
	static  []*schema.Column
	regular []*schema.Column
	data    *sstables.DataReader
	toc     *sstables.TOC // nil when the SSTable has no TOC.txt
	index   Index
	// lookupStreams recycles the Data.db streams of Lookup.
	lookupStreams sync.Pool
	// maxValue is sstables.ReaderOptions.MaxValueSize, defaulted.
	maxValue int64
	// readAhead is sstables.ReaderOptions.ReadAhead.
	readAhead int
	// warn is sstables.ReaderOptions.Warn.
	warn sstables.WarnFunc
}

// Warn returns ReaderOptions.Warn (nil drops warnings), for the index
// layouts' lookups and verification.
func (r *Reader) Warn() sstables.WarnFunc { return r.warn }

// Open opens desc. table may be nil: the schema is then rebuilt from the
// serialization header. newIndex opens the index layout once the rest is
// open.
func Open(desc sstables.Descriptor, table *schema.Table, opts sstables.ReaderOptions, newIndex func(*Reader) (Index, error)) (*Reader, error) {
	fsys := opts.FS
	if fsys == nil {
		fsys = sstables.OSFS
	}
	r := &Reader{desc: desc, fsys: fsys, maxValue: opts.EffectiveMaxValueSize(), readAhead: opts.ReadAhead, warn: opts.Warn}
	toc, err := sstables.OpenTOC(fsys, desc, opts.Warn)
	if err != nil {
		return nil, err
	}
	r.toc = toc
	statsPath := desc.Path(sstables.ComponentStatistics)
	if r.stats, err = sstables.ReadStatistics(fsys, desc, opts); err != nil {
		return nil, err
	}
	if r.part, err = sstables.FilePartitioner(r.stats.Partitioner, statsPath); err != nil {
		return nil, err
	}
	h := r.stats.Header
	if table == nil {
		if table, err = rows.TableFromHeader(h); err != nil {
			return nil, &sstables.CorruptionError{Path: statsPath, Component: string(sstables.ComponentStatistics), Offset: -1, Reason: "serialization header does not describe a valid table", Err: err}
		}
	} else if err := rows.CheckTableMatchesHeader(table, h); err != nil {
		return nil, fmt.Errorf("%s: %w", statsPath, err)
	}
	r.table = sstables.WithPartitioner(table, r.part)
	if r.static, err = rows.HeaderColumns(table, h.Static, schema.Static); err != nil {
		return nil, fmt.Errorf("%s: %w", statsPath, err)
	}
	if r.regular, err = rows.HeaderColumns(table, h.Regular, schema.Regular); err != nil {
		return nil, fmt.Errorf("%s: %w", statsPath, err)
	}
	chance := opts.CRCCheckChance
	if chance == 0 {
		chance = table.Options.CRCCheckChance
	}
	r.data, err = sstables.OpenData(fsys, desc, sstables.DataReaderOptions{CRCCheckChance: chance, Warn: opts.Warn, WarnCRCMismatch: opts.WarnUncompressedCRC})
	if err != nil {
		return nil, err
	}
	if r.index, err = newIndex(r); err != nil {
		r.data.Close()
		return nil, err
	}
	return r, nil
}

// Descriptor names the SSTable.
func (r *Reader) Descriptor() sstables.Descriptor { return r.desc }

// FS is the filesystem the SSTable is read through.
func (r *Reader) FS() sstables.FS { return r.fsys }

// Table is the schema used to decode the data.
func (r *Reader) Table() *schema.Table { return r.table }

// Partitioner is the partitioner Statistics.db names.
func (r *Reader) Partitioner() dht.Partitioner { return r.part }

// Statistics returns the decoded Statistics.db.
func (r *Reader) Statistics() *sstables.Statistics { return r.stats }

// Header returns the serialization header.
func (r *Reader) Header() *sstables.SerializationHeader { return r.stats.Header }

// TOC returns the parsed TOC.txt (nil when the SSTable has none).
func (r *Reader) TOC() *sstables.TOC { return r.toc }

// Data returns the Data.db reader.
func (r *Reader) Data() *sstables.DataReader { return r.data }

// DataLength returns the uncompressed length of Data.db.
func (r *Reader) DataLength() int64 { return r.data.Length() }

// Index returns the index layout.
func (r *Reader) Index() Index { return r.index }

// NewDecoder returns a row decoder of the SSTable.
func (r *Reader) NewDecoder() *rows.Decoder {
	return rows.NewDecoder(r.desc.Version, r.stats.Header, r.static, r.regular, len(r.table.Static), len(r.table.Regular), r.maxValue)
}

// HasStatic reports whether the serialization header lists static columns
// (every partition then has a static row).
func (r *Reader) HasStatic() bool { return len(r.static) > 0 }

// NewScanner returns a scanner of the Data.db stream src from offset
// start; closer (may be nil) is closed with it.
func (r *Reader) NewScanner(src io.Reader, start int64, closer io.Closer) *rows.Scanner {
	return rows.NewScanner(r.NewDecoder(), r.desc.Path(sstables.ComponentData), r.part, src, start, r.data.Length(), closer)
}

// Scan implements sstables.Reader: a scan from the first partition that
// seeks inside partitions through the layout's row indexes.
func (r *Reader) Scan() (sstables.Scanner, error) {
	return r.seekingScanner(0), nil
}

func (r *Reader) seekingScanner(pos int64) *rows.Scanner {
	stream := r.data.NewReadAheadStream(pos, r.readAhead)
	s := r.NewScanner(stream, pos, stream)
	s.SetSeeking(r.index, r.table, stream)
	return s
}

// ScanFromPos returns a plain scanner of Data.db from offset pos (no read
// ahead, no seeking), for the layouts' walks.
func (r *Reader) ScanFromPos(pos int64) *rows.Scanner {
	return r.NewScanner(r.data.NewStream(pos), pos, nil)
}

// Get implements sstables.Reader.
func (r *Reader) Get(key []byte) (*mutation.Partition, error) {
	p, _, err := r.Lookup(key)
	return p, err
}

// Lookup implements sstables.Reader: the layout locates key's partition,
// which is read whole from Data.db (from its position on, nothing before
// it and nothing after its end but the rest of the chunk that holds it).
func (r *Reader) Lookup(key []byte) (*mutation.Partition, int64, error) {
	pos, at, err := r.locate(key)
	if err != nil || pos < 0 {
		return nil, -1, err
	}
	// A lookup borrows a Data.db stream (its decompressor and chunk
	// buffers) and a stream buffer, and gives both back: the partition is
	// copied out before.
	ds, _ := r.lookupStreams.Get().(*sstables.DataStream)
	if ds == nil {
		ds = r.data.NewStream(pos)
	} else if _, err := ds.Seek(pos, io.SeekStart); err != nil {
		return nil, -1, err
	}
	defer r.lookupStreams.Put(ds)
	sc := r.NewScanner(ds, pos, nil)
	defer sc.Release()
	p, err := sc.NextPartition()
	if err != nil {
		return nil, -1, err
	}
	if !bytes.Equal(p.Key, key) {
		if at.MayDiffer {
			return nil, -1, nil
		}
		return nil, -1, at.Corruptf("entry points to Data.db offset %d, which holds another partition", pos)
	}
	p, err = rows.ReadWholePartition(sc, p)
	if err != nil {
		return nil, -1, err
	}
	return p, pos, nil
}

// locate asks the layout for key's position, checked against Data.db's
// length.
func (r *Reader) locate(key []byte) (int64, Location, error) {
	pos, at, err := r.index.Locate(key)
	if err != nil || pos < 0 {
		return -1, at, err
	}
	if pos >= r.data.Length() {
		return -1, at, at.Corruptf("partition position %d beyond Data.db's %d bytes", pos, r.data.Length())
	}
	return pos, at, nil
}

// ScanFrom implements sstables.Reader: a scan that starts at key's
// partition, found as Lookup finds it.
func (r *Reader) ScanFrom(key []byte) (sstables.Scanner, error) {
	pos, at, err := r.locate(key)
	if err != nil || pos < 0 {
		return nil, err
	}
	if err := r.checkKeyAt(pos, key, at); err != nil {
		if at.MayDiffer && errors.Is(err, errOtherKey) {
			return nil, nil
		}
		return nil, err
	}
	return r.seekingScanner(pos), nil
}

// errOtherKey marks checkKeyAt's error for a position holding another key.
var errOtherKey = errors.New("the key differs")

// checkKeyAt checks that the partition at Data.db offset pos has key, which
// the index entry at names.
func (r *Reader) checkKeyAt(pos int64, key []byte, at Location) error {
	b := make([]byte, 2+len(key))
	if _, err := r.data.ReadAt(b, pos); err != nil {
		if err == io.EOF {
			if at.MayDiffer {
				return &sstables.CorruptionError{Path: at.Path, Component: at.Component, Offset: at.Offset, Reason: "too near Data.db's end for the key", Err: errOtherKey}
			}
			return at.Corruptf("entry points to Data.db offset %d, too near the end for its key", pos)
		}
		return err
	}
	if int(binary.BigEndian.Uint16(b)) != len(key) || !bytes.Equal(b[2:], key) {
		return &sstables.CorruptionError{Path: at.Path, Component: at.Component, Offset: at.Offset,
			Reason: fmt.Sprintf("entry points to Data.db offset %d, which holds another partition", pos), Err: errOtherKey}
	}
	return nil
}

// Close implements sstables.Reader.
func (r *Reader) Close() error {
	if r.data == nil {
		return nil
	}
	err := r.data.Close()
	r.data = nil
	if cerr := r.index.Close(); err == nil {
		err = cerr
	}
	return err
}
