package mc

import (
	"errors"
	"fmt"

	"github.com/castable-db/castable/sstables"
)

// fileSet creates an SSTable's components under temporary names and makes
// them visible at commit: every file synced and closed, renamed to its final
// name, the directory synced, then TOC.txt written the same way last.
type fileSet struct {
	fsys    sstables.FS
	desc    sstables.Descriptor
	files   []sstables.File
	comps   []sstables.Component
	renamed []sstables.Component
	sizes   int64
	done    bool
}

func newFileSet(fsys sstables.FS, desc sstables.Descriptor) (*fileSet, error) {
	if err := fsys.MkdirAll(desc.Dir); err != nil {
		return nil, err
	}
	if f, err := fsys.Open(desc.Path(sstables.ComponentTOC)); err == nil {
		f.Close()
		return nil, fmt.Errorf("mc: SSTable %s already exists", desc)
	}
	return &fileSet{fsys: fsys, desc: desc}, nil
}

func (fs *fileSet) create(c sstables.Component) (sstables.File, error) {
	f, err := fs.fsys.Create(fs.desc.TempPath(c))
	if err != nil {
		return nil, err
	}
	fs.files = append(fs.files, f)
	fs.comps = append(fs.comps, c)
	return f, nil
}

func (fs *fileSet) writeWhole(c sstables.Component, b []byte) error {
	f, err := fs.create(c)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	return err
}

// commit makes the SSTable visible; it returns the total size and the
// components written (TOC.txt included).
func (fs *fileSet) commit() (int64, []sstables.Component, error) {
	var total int64
	for i, f := range fs.files {
		size, err := f.Size()
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		fs.files[i] = nil
		if err != nil {
			return 0, nil, err
		}
		total += size
	}
	for _, c := range fs.comps {
		if err := fs.fsys.Rename(fs.desc.TempPath(c), fs.desc.Path(c)); err != nil {
			return 0, nil, err
		}
		fs.renamed = append(fs.renamed, c)
	}
	if err := fs.fsys.SyncDir(fs.desc.Dir); err != nil {
		return 0, nil, err
	}
	comps := append(append([]sstables.Component(nil), fs.comps...), sstables.ComponentTOC)
	toc := sstables.AppendTOC(nil, sstables.SortComponents(comps))
	f, err := fs.fsys.Create(fs.desc.TempPath(sstables.ComponentTOC))
	if err != nil {
		return 0, nil, err
	}
	fs.comps = append(fs.comps, sstables.ComponentTOC)
	_, err = f.Write(toc)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fs.fsys.Rename(fs.desc.TempPath(sstables.ComponentTOC), fs.desc.Path(sstables.ComponentTOC))
	}
	if err != nil {
		return 0, nil, err
	}
	fs.renamed = append(fs.renamed, sstables.ComponentTOC)
	if err := fs.fsys.SyncDir(fs.desc.Dir); err != nil {
		return 0, nil, err
	}
	fs.done = true
	return total + int64(len(toc)), comps, nil
}

// abort closes and removes everything created.
func (fs *fileSet) abort() error {
	if fs.done {
		return errors.New("mc: abort after a successful commit")
	}
	var first error
	keep := func(err error) {
		if err != nil && first == nil {
			first = err
		}
	}
	for _, f := range fs.files {
		if f != nil {
			f.Close()
		}
	}
	fs.files = nil
	renamed := map[sstables.Component]bool{}
	for _, c := range fs.renamed {
		renamed[c] = true
	}
	// The TOC goes first so that a crash mid-abort leaves no visible SSTable.
	if renamed[sstables.ComponentTOC] {
		keep(fs.fsys.Remove(fs.desc.Path(sstables.ComponentTOC)))
	}
	for _, c := range fs.comps {
		if renamed[c] {
			if c != sstables.ComponentTOC {
				keep(fs.fsys.Remove(fs.desc.Path(c)))
			}
		} else {
			keep(fs.fsys.Remove(fs.desc.TempPath(c)))
		}
	}
	fs.comps, fs.renamed = nil, nil
	return first
}
