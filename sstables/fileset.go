package sstables

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// FileSet creates the components of one SSTable crash-safely.
//
// Every component is written under its temporary name
// (Descriptor.TempPath: "tmp-mc-1-big-Data.db"). Commit then
//
//  1. syncs and closes every file,
//  2. renames each to its final name and syncs the directory,
//  3. writes TOC.txt under its temporary name, syncs, closes and renames it
//     — last, because an SSTable is visible exactly when its TOC.txt
//     exists — and syncs the directory again.
//
// A crash at any point leaves either the complete SSTable or files that
// CleanupTemporary removes: temporary names, and final names without a
// TOC.txt. Abort removes every file the set created, temporary or final.
//
// A FileSet is not safe for concurrent use.
type FileSet struct {
	// TOCOrder is the order TOC.txt lists components in (see
	// AppendOrderedTOC); nil means the version's.
	TOCOrder  []Component
	fs        FS
	desc      Descriptor
	files     []*setFile
	renamed   []Component // components already under their final name
	committed bool
	aborted   bool
	err       error
}

// setFile is a component file of a FileSet. Close is idempotent so that
// the set can close files whatever the caller did.
type setFile struct {
	File
	c      Component
	closed bool
	cerr   error
	wb     writeback
}

// Write writes to the file and starts the writeback of every
// WritebackInterval bytes when the file supports it (see WritebackFile).
func (f *setFile) Write(p []byte) (int, error) {
	n, err := f.File.Write(p)
	f.wb.wrote(n)
	return n, err
}

// Close syncs and closes the file, so that a caller closing a component
// early loses no durability.
func (f *setFile) Close() error {
	if f.closed {
		return f.cerr
	}
	f.closed = true
	f.cerr = f.File.Sync()
	if err := f.File.Close(); f.cerr == nil {
		f.cerr = err
	}
	return f.cerr
}

// ErrGenerationExists is returned when a FileSet would overwrite an
// existing SSTable generation.
var ErrGenerationExists = errors.New("sstables: SSTable generation already exists")

// NewFileSet starts the components of desc in desc.Dir (created if
// missing). It refuses a generation for which any final-named component
// (of any version) exists.
func NewFileSet(fsys FS, desc Descriptor) (*FileSet, error) {
	fsys = fsOrDefault(fsys)
	if (desc.Generation <= 0) == (desc.UUID == "") || !desc.Version.IsValid() {
		return nil, fmt.Errorf("sstables: bad descriptor %+v", desc)
	}
	if err := fsys.MkdirAll(desc.Dir); err != nil {
		return nil, err
	}
	if err := checkGenerationFree(fsys, desc); err != nil {
		return nil, err
	}
	return &FileSet{fs: fsys, desc: desc}, nil
}

// checkGenerationFree fails when a final-named file of desc's generation
// exists.
func checkGenerationFree(fsys FS, desc Descriptor) error {
	names, err := fsys.ReadDir(desc.Dir)
	if err != nil {
		return err
	}
	for _, name := range names {
		d, _, temp, err := ParseDescriptor(name)
		if err == nil && !temp && d.SameID(desc) {
			return fmt.Errorf("%w: %s in %s", ErrGenerationExists, name, desc.Dir)
		}
	}
	return nil
}

// Descriptor returns the SSTable the set writes.
func (s *FileSet) Descriptor() Descriptor { return s.desc }

// Create creates component c under its temporary name. The set owns the
// file: it syncs and closes it at Commit (closing it earlier is allowed).
// TOC.txt cannot be created: Commit writes it.
func (s *FileSet) Create(c Component) (File, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	if c == ComponentTOC {
		return nil, fmt.Errorf("sstables: TOC.txt is written by Commit")
	}
	for _, f := range s.files {
		if f.c == c {
			return nil, fmt.Errorf("sstables: component %s created twice", c)
		}
	}
	f, err := s.fs.Create(s.desc.TempPath(c))
	if err != nil {
		return nil, s.fail(err)
	}
	sf := &setFile{File: f, c: c}
	sf.wb.file, _ = f.(WritebackFile)
	s.files = append(s.files, sf)
	return sf, nil
}

// WriteComponent creates component c with content b.
func (s *FileSet) WriteComponent(c Component, b []byte) error {
	f, err := s.Create(c)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		return s.fail(err)
	}
	return nil
}

// Components returns the components created so far.
func (s *FileSet) Components() []Component {
	out := make([]Component, len(s.files))
	for i, f := range s.files {
		out[i] = f.c
	}
	return out
}

func (s *FileSet) usable() error {
	switch {
	case s.err != nil:
		return s.err
	case s.aborted:
		return errAborted
	case s.committed:
		return fmt.Errorf("sstables: file set already committed")
	}
	return nil
}

func (s *FileSet) fail(err error) error {
	if s.err == nil {
		s.err = err
	}
	return s.err
}

// Commit makes the SSTable visible (see FileSet) and returns its
// components, TOC.txt included. On error nothing is visible: the caller
// must Abort.
func (s *FileSet) Commit() ([]Component, error) {
	if err := s.usable(); err != nil {
		return nil, err
	}
	for _, f := range s.files {
		if err := f.Close(); err != nil {
			return nil, s.fail(fmt.Errorf("sstables: sync and close %s: %w", s.desc.TempPath(f.c), err))
		}
	}
	if err := checkGenerationFree(s.fs, s.desc); err != nil {
		return nil, s.fail(err)
	}
	for _, f := range s.files {
		if err := s.fs.Rename(s.desc.TempPath(f.c), s.desc.Path(f.c)); err != nil {
			return nil, s.fail(err)
		}
		s.renamed = append(s.renamed, f.c)
	}
	if err := s.fs.SyncDir(s.desc.Dir); err != nil {
		return nil, s.fail(err)
	}
	components := append(s.Components(), ComponentTOC)
	toc := AppendOrderedTOC(nil, components, s.TOCOrder, s.desc.Version)
	tmp := s.desc.TempPath(ComponentTOC)
	f, err := s.fs.Create(tmp)
	if err != nil {
		return nil, s.fail(err)
	}
	tf := &setFile{File: f, c: ComponentTOC}
	s.files = append(s.files, tf)
	if _, err := tf.Write(toc); err != nil {
		return nil, s.fail(err)
	}
	if err := tf.Close(); err != nil {
		return nil, s.fail(err)
	}
	if err := s.fs.Rename(tmp, s.desc.Path(ComponentTOC)); err != nil {
		return nil, s.fail(err)
	}
	s.renamed = append(s.renamed, ComponentTOC)
	if err := s.fs.SyncDir(s.desc.Dir); err != nil {
		// Not durable: hide the SSTable again rather than report a
		// failure while it is visible.
		if s.fs.Remove(s.desc.Path(ComponentTOC)) == nil {
			s.renamed = s.renamed[:len(s.renamed)-1]
		}
		return nil, s.fail(err)
	}
	s.committed = true
	return SortComponents(components), nil
}

// Abort closes and removes every file the set created, under its
// temporary or final name, TOC.txt first. It is safe to call after a
// failed Commit and more than once, and returns the first removal error
// (a file already gone is not an error). After a successful Commit it does
// nothing.
func (s *FileSet) Abort() error {
	if s.committed || s.aborted {
		return nil
	}
	s.aborted = true
	var first error
	note := func(err error) {
		if err != nil && !isNotExist(err) && first == nil {
			first = err
		}
	}
	if slices.Contains(s.renamed, ComponentTOC) {
		note(s.fs.Remove(s.desc.Path(ComponentTOC)))
	}
	for _, f := range s.files {
		f.Close()
	}
	for _, f := range s.files {
		if slices.Contains(s.renamed, f.c) {
			if f.c != ComponentTOC {
				note(s.fs.Remove(s.desc.Path(f.c)))
			}
		} else {
			note(s.fs.Remove(s.desc.TempPath(f.c)))
		}
	}
	if first == nil {
		note(s.fs.SyncDir(s.desc.Dir))
	}
	return first
}

// CleanupTemporary removes what interrupted writes left in dir: every
// temporary component ("tmp-…", and 2.2's "tmplink-…"), and the
// final-named components of every generation without a TOC.txt. It
// returns the names removed.
func CleanupTemporary(fsys FS, dir string) ([]string, error) {
	fsys = fsOrDefault(fsys)
	names, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	withTOC := map[string]bool{} // by the components' name prefix
	for _, name := range names {
		d, c, temp, err := ParseDescriptor(name)
		if err == nil && !temp && c == ComponentTOC {
			withTOC[d.prefix()] = true
		}
	}
	var removed []string
	var first error
	for _, name := range names {
		remove := false
		if strings.HasPrefix(name, "tmplink-") {
			_, _, _, err := ParseDescriptor(strings.TrimPrefix(name, "tmplink-"))
			remove = err == nil
		} else if d, _, temp, err := ParseDescriptor(name); err == nil {
			remove = temp || !withTOC[d.prefix()]
		}
		if !remove {
			continue
		}
		if err := fsys.Remove(filepath.Join(dir, name)); err != nil && !isNotExist(err) {
			if first == nil {
				first = err
			}
			continue
		}
		removed = append(removed, name)
	}
	if len(removed) > 0 && first == nil {
		first = fsys.SyncDir(dir)
	}
	return removed, first
}

// ListSSTables returns the complete SSTables in dir (those whose TOC.txt
// exists), ordered by table (for the pre-2.2 names that carry one), then
// generation, then UUID-based identifier, then version.
func ListSSTables(fsys FS, dir string) ([]Descriptor, error) {
	fsys = fsOrDefault(fsys)
	names, err := fsys.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []Descriptor
	for _, name := range names {
		d, c, temp, err := ParseDescriptor(filepath.Join(dir, name))
		if err == nil && !temp && c == ComponentTOC {
			out = append(out, d)
		}
	}
	slices.SortFunc(out, func(a, b Descriptor) int {
		if c := strings.Compare(a.Keyspace+"."+a.Table, b.Keyspace+"."+b.Table); c != 0 {
			return c
		}
		if a.Generation != b.Generation {
			return a.Generation - b.Generation
		}
		if a.UUID != b.UUID {
			ua, _ := ParseUUIDID(a.UUID)
			ub, _ := ParseUUIDID(b.UUID)
			return ua.Compare(ub)
		}
		return strings.Compare(a.Version.String(), b.Version.String())
	})
	return out, nil
}

// NextGeneration returns one more than the largest generation of any
// SSTable file in dir, temporary ones included (1 for an empty or missing
// directory).
func NextGeneration(fsys FS, dir string) (int, error) {
	fsys = fsOrDefault(fsys)
	names, err := fsys.ReadDir(dir)
	if err != nil {
		if isNotExist(err) {
			return 1, nil
		}
		return 0, err
	}
	gen := 0
	for _, name := range names {
		name = strings.TrimPrefix(name, "tmplink-")
		if d, _, _, err := ParseDescriptor(name); err == nil {
			gen = max(gen, d.Generation)
		}
	}
	return gen + 1, nil
}

// Generations hands out the integer generations of one directory's new
// SSTables to everyone who writes there (an embedded node's flushes and
// compactions): safe for concurrent use, never the same number twice.
type Generations struct {
	mu   sync.Mutex
	next int
}

// NewGenerations starts after the largest generation in dir
// (NextGeneration).
func NewGenerations(fsys FS, dir string) (*Generations, error) {
	g, err := NextGeneration(fsys, dir)
	if err != nil {
		return nil, err
	}
	return &Generations{next: g}, nil
}

// Next returns a generation no one else got.
func (g *Generations) Next() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	n := g.next
	g.next++
	return n
}
