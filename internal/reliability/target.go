package reliability

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/castable-db/castable/internal/memfs"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/big"
)

// DefaultGetKeys is the number of keys looked up per case by default:
// SSTables with more partitions get an even sample (first and last
// included).
const DefaultGetKeys = 256

// Target is an SSTable prepared for a sweep: its sound reading, the keys to
// look up, and the structural boundaries of each component.
type Target struct {
	*SSTable
	// Baseline is the probe of the undamaged SSTable.
	Baseline Probe
	// GetKeys are the keys every case looks up.
	GetKeys [][]byte
	// Boundaries are the structural offsets of each component (see
	// Plan.Damages).
	Boundaries map[sstables.Component][]int
	// tolerated are truncations that leave a valid component (see
	// toleratedTruncations).
	tolerated map[sstables.Component]map[int]bool
}

// size is the total size of the components.
func (t *Target) size() int {
	n := 0
	for _, b := range t.Files {
		n += len(b)
	}
	return n
}

// memDir is the directory of the SSTable in an in-memory FS.
const memDir = "/sst"

// memDesc is the SSTable's descriptor in an in-memory FS.
func (t *Target) memDesc() sstables.Descriptor {
	d := t.Desc
	d.Dir = memDir
	return d
}

// NewFS returns an in-memory FS holding the SSTable's components (shared, not
// copied).
func (t *Target) NewFS() *memfs.FS {
	m := memfs.New()
	d := t.memDesc()
	for c, b := range t.Files {
		m.Set(d.Path(c), b)
	}
	return m
}

// WriteDir writes the SSTable's components into dir (for the CLI, which
// reads the OS filesystem) and returns the descriptor there.
func (t *Target) WriteDir(dir string) (sstables.Descriptor, error) {
	d := t.Desc
	d.Dir = dir
	for c, b := range t.Files {
		if err := os.WriteFile(d.Path(c), b, 0o644); err != nil {
			return d, err
		}
	}
	return d, nil
}

// NewTarget reads s undamaged and prepares its sweep; every case looks up
// at most getKeys of its keys (0 means DefaultGetKeys).
func NewTarget(s *SSTable, getKeys int) (*Target, error) {
	if getKeys <= 0 {
		getKeys = DefaultGetKeys
	}
	t := &Target{SSTable: s, Boundaries: map[sstables.Component][]int{}}
	fsys := t.NewFS()
	// Every key the sound SSTable holds, read without the lookups.
	keysProbe := ProbeLibrary(s, fsys, t.memDesc(), nil)
	if keysProbe.Open != nil {
		return nil, fmt.Errorf("%s: the undamaged SSTable does not open: %w", s.Name, keysProbe.Open)
	}
	if len(keysProbe.Keys) == 0 {
		return nil, fmt.Errorf("%s: the undamaged SSTable scans to no partition (%v)", s.Name, keysProbe.Scan)
	}
	keys := keysProbe.Keys
	if len(keys) > getKeys {
		sample := make([][]byte, 0, getKeys+1)
		for k := 0; k < getKeys; k++ {
			sample = append(sample, keys[k*len(keys)/getKeys])
		}
		keys = append(sample, keys[len(keys)-1])
	}
	t.GetKeys = keys
	t.Baseline = ProbeLibrary(s, fsys, t.memDesc(), t.GetKeys)
	if !s.DeliberatelyCorrupt && t.Baseline.FirstError() != nil {
		return nil, fmt.Errorf("%s: the undamaged SSTable fails: %w", s.Name, t.Baseline.FirstError())
	}
	if err := t.findBoundaries(fsys); err != nil {
		return nil, err
	}
	t.tolerated = toleratedTruncations(s)
	return t, nil
}

// findBoundaries records the structural offsets of the larger components:
// chunk edges and partition starts of Data.db, entry offsets of Index.db,
// the metadata table of Statistics.db, the header of Filter.db.
func (t *Target) findBoundaries(fsys sstables.FS) error {
	data := t.Files[sstables.ComponentData]
	var db []int
	if b, ok := t.Files[sstables.ComponentCompressionInfo]; ok {
		ci, err := sstables.ParseCompressionInfo(b, "", t.Desc.Version)
		if err != nil {
			return fmt.Errorf("%s: %w", t.Name, err)
		}
		for i := range ci.ChunkOffsets {
			off, n := ci.ChunkSpan(i, int64(len(data)))
			db = append(db, int(off), int(off+n)-4)
		}
	} else {
		for off := 0; off < len(data); off += sstables.CRCChunkSize {
			db = append(db, off)
		}
		// Uncompressed: partition starts are file offsets.
		if err := t.partitionStarts(fsys, func(pos int64) { db = append(db, int(pos)) }); err != nil {
			return err
		}
	}
	t.Boundaries[sstables.ComponentData] = append(db, len(data))

	var ib []int
	switch {
	case t.Desc.Version.LegacyCells():
		ib = laIndexBoundaries(t.Files[sstables.ComponentIndex])
	default:
		r, err := big.Open(t.memDesc(), nil, sstables.ReaderOptions{FS: fsys})
		if err == nil {
			err = r.Index(func(e *big.IndexEntry) error {
				ib = append(ib, int(e.Offset), int(e.Offset)+2+len(e.Key))
				return nil
			})
			r.Close()
		}
		if err != nil && !t.DeliberatelyCorrupt {
			return fmt.Errorf("%s: reading Index.db: %w", t.Name, err)
		}
	}
	t.Boundaries[sstables.ComponentIndex] = ib
	t.Boundaries[sstables.ComponentStatistics] = statisticsBoundaries(t.Files[sstables.ComponentStatistics])
	t.Boundaries[sstables.ComponentFilter] = []int{0, 4, 8}
	return nil
}

// partitionStarts calls fn with the Data.db offset of every partition.
func (t *Target) partitionStarts(fsys sstables.FS, fn func(int64)) error {
	r, err := t.Format.Open(t.memDesc(), t.Table, sstables.ReaderOptions{FS: fsys, CRCCheckChance: -1})
	if err != nil {
		return err
	}
	defer r.Close()
	sc, err := r.Scan()
	if err != nil {
		return err
	}
	defer sc.Close()
	for {
		if _, err := sc.NextPartition(); err != nil {
			return nil // io.EOF, or the deliberately corrupt files' error
		}
		fn(sc.Position())
	}
}

// toleratedTruncations lists the truncations that leave a valid component
// which loses nothing: TOC.txt without its final newline; an la Summary.db
// cut exactly before its boundaries trailer (ScyllaDB writes none) or
// inside the unexplained bytes some real files carry after it
// (components.md §11.3).
func toleratedTruncations(s *SSTable) map[sstables.Component]map[int]bool {
	out := map[sstables.Component]map[int]bool{}
	if toc := s.Files[sstables.ComponentTOC]; len(toc) > 0 && toc[len(toc)-1] == '\n' {
		out[sstables.ComponentTOC] = map[int]bool{len(toc) - 1: true}
	}
	if sum, ok := s.Files[sstables.ComponentSummary]; ok && s.Format.Version().SummaryBoundaries() {
		plain, err1 := sstables.ParseSummary(sum, "", sstables.SummaryReadOptions{})
		full, err2 := sstables.ParseSummary(sum, "", sstables.SummaryReadOptions{Boundaries: true, DataCompressed: s.Compressed()})
		if err1 == nil && err2 == nil {
			m := map[int]bool{len(sum) - plain.TrailingBytes: true}
			for n := len(sum) - full.TrailingBytes; n < len(sum); n++ {
				m[n] = true
			}
			out[sstables.ComponentSummary] = m
		}
	}
	return out
}

// cliDir returns the folder name of the SSTable for a per-worker disk copy.
func cliDir(base string, worker int) string {
	return filepath.Join(base, fmt.Sprintf("w%d", worker))
}
