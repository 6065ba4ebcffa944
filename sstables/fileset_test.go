package sstables

import (
	"errors"
	"fmt"
	"github.com/castable-db/castable/sstables/version"
	"os"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/castable-db/castable/compress"
)

// faultFS wraps the OS filesystem and fails the failAt-th counted
// operation (create, write, sync, close, rename, sync-dir). With enospc
// the failing write stores half of its bytes first, like a full disk.
type faultFS struct {
	FS
	failAt int
	ops    int
	enospc bool
	failed bool
}

var errInjected = errors.New("injected fault")

func (f *faultFS) step(op string) error {
	f.ops++
	if f.ops == f.failAt {
		f.failed = true
		if f.enospc && op == "write" {
			return syscall.ENOSPC
		}
		return fmt.Errorf("%w: %s #%d", errInjected, op, f.ops)
	}
	return nil
}

func (f *faultFS) Create(name string) (File, error) {
	if err := f.step("create"); err != nil {
		return nil, err
	}
	file, err := f.FS.Create(name)
	if err != nil {
		return nil, err
	}
	return &faultFile{File: file, fs: f}, nil
}

func (f *faultFS) Rename(a, b string) error {
	if err := f.step("rename"); err != nil {
		return err
	}
	return f.FS.Rename(a, b)
}

func (f *faultFS) SyncDir(dir string) error {
	if err := f.step("syncdir"); err != nil {
		return err
	}
	return f.FS.SyncDir(dir)
}

type faultFile struct {
	File
	fs *faultFS
}

func (f *faultFile) Write(p []byte) (int, error) {
	if err := f.fs.step("write"); err != nil {
		if errors.Is(err, syscall.ENOSPC) {
			n, _ := f.File.Write(p[:len(p)/2])
			return n, err
		}
		return 0, err
	}
	return f.File.Write(p)
}

func (f *faultFile) Sync() error {
	if err := f.fs.step("sync"); err != nil {
		return err
	}
	return f.File.Sync()
}

func (f *faultFile) Close() error {
	err := f.fs.step("close")
	if cerr := f.File.Close(); err == nil {
		err = cerr
	}
	return err
}

// writeTestSSTable writes a small compressed SSTable's shared components
// through a FileSet.
func writeTestSSTable(fsys FS, desc Descriptor, data []byte) ([]Component, error) {
	set, err := NewFileSet(fsys, desc)
	if err != nil {
		return nil, err
	}
	comps, err := func() ([]Component, error) {
		f, err := set.Create(ComponentData)
		if err != nil {
			return nil, err
		}
		w, err := NewDataWriter(f, DataWriterOptions{Compression: compress.Params{Codec: compress.LZ4, ChunkLength: 4096}, Jobs: 2, BufferSize: 8192})
		if err != nil {
			return nil, err
		}
		if _, err := w.Write(data); err != nil {
			w.Abort()
			return nil, err
		}
		res, err := w.Finish()
		if err != nil {
			return nil, err
		}
		ci, _ := res.CompressionInfo.AppendTo(nil)
		if err := set.WriteComponent(ComponentCompressionInfo, ci); err != nil {
			return nil, err
		}
		if err := set.WriteComponent(ComponentDigestCRC32, AppendDigest(nil, res.Digest)); err != nil {
			return nil, err
		}
		if err := set.WriteComponent(ComponentIndex, []byte("index")); err != nil {
			return nil, err
		}
		return set.Commit()
	}()
	if err != nil {
		if aerr := set.Abort(); aerr != nil {
			return nil, fmt.Errorf("%w (abort: %v)", err, aerr)
		}
		return nil, err
	}
	return comps, nil
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	names, err := OSFS.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	return names
}

func TestFileSetFaults(t *testing.T) {
	data := rowBytes(40_000, 8)
	for _, enospc := range []bool{false, true} {
		succeeded := false
		for n := 1; n < 500 && !succeeded; n++ {
			dir := t.TempDir()
			desc := Descriptor{Dir: dir, Version: version.MustParse("mc"), Generation: 3}
			ffs := &faultFS{FS: OSFS, failAt: n, enospc: enospc}
			comps, err := writeTestSSTable(ffs, desc, data)
			if !ffs.failed {
				if err != nil {
					t.Fatalf("no fault injected, but: %v", err)
				}
				succeeded = true
				want := []Component{ComponentData, ComponentCompressionInfo, ComponentDigestCRC32, ComponentIndex, ComponentTOC}
				if !slices.Equal(comps, SortComponents(want)) {
					t.Fatalf("components %v", comps)
				}
				names := dirNames(t, dir)
				if len(names) != 5 || slices.ContainsFunc(names, func(s string) bool { return strings.HasPrefix(s, TempPrefix) }) {
					t.Fatalf("files after commit: %v", names)
				}
				if list, _ := ListSSTables(nil, dir); len(list) != 1 || list[0].Generation != 3 {
					t.Fatalf("ListSSTables %v", list)
				}
				if _, err := VerifySSTable(desc, VerifyOptions{}); err != nil {
					t.Fatal(err)
				}
				t.Logf("enospc=%v: commit succeeds once the fault index passes %d operations", enospc, n-1)
				continue
			}
			if err == nil {
				t.Fatalf("fault %d injected but the write succeeded", n)
			}
			if !errors.Is(err, errInjected) && !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("fault %d: unexpected error %v", n, err)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Fatalf("fault %d (%v): files left after Abort: %v", n, err, names)
			}
		}
		if !succeeded {
			t.Fatal("never succeeded")
		}
	}
}

func TestFileSetRefusesExistingGeneration(t *testing.T) {
	dir := t.TempDir()
	desc := Descriptor{Dir: dir, Version: version.MustParse("mc"), Generation: 1}
	if _, err := writeTestSSTable(nil, desc, rowBytes(100, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := NewFileSet(nil, Descriptor{Dir: dir, Version: version.MustParse("la"), Generation: 1}); !errors.Is(err, ErrGenerationExists) {
		t.Fatalf("overwrite allowed: %v", err)
	}
	// A set started before another writer took the generation refuses at
	// Commit.
	set, err := NewFileSet(nil, Descriptor{Dir: dir, Version: version.MustParse("mc"), Generation: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := set.WriteComponent(ComponentData, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if _, err := writeTestSSTable(nil, Descriptor{Dir: dir, Version: version.MustParse("mc"), Generation: 2}, rowBytes(100, 1)); err != nil {
		t.Fatal(err)
	}
	if _, err := set.Commit(); !errors.Is(err, ErrGenerationExists) {
		t.Fatalf("commit over an existing generation: %v", err)
	}
	if err := set.Abort(); err != nil {
		t.Fatal(err)
	}
	if _, err := VerifySSTable(Descriptor{Dir: dir, Version: version.MustParse("mc"), Generation: 2}, VerifyOptions{}); err != nil {
		t.Fatalf("the other writer's SSTable was damaged: %v", err)
	}
	if g, _ := NextGeneration(nil, dir); g != 3 {
		t.Fatalf("next generation %d", g)
	}
}

func TestCleanupTemporary(t *testing.T) {
	dir := t.TempDir()
	if _, err := writeTestSSTable(nil, Descriptor{Dir: dir, Version: version.MustParse("mc"), Generation: 1}, rowBytes(100, 1)); err != nil {
		t.Fatal(err)
	}
	leftovers := []string{"tmp-mc-2-big-Data.db", "tmp-mc-2-big-Index.db", "mc-3-big-Data.db", "mc-3-big-Index.db", "tmplink-la-4-big-Data.db"}
	for _, name := range leftovers {
		if err := os.WriteFile(dir+"/"+name, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile(dir+"/unrelated.txt", nil, 0o644)
	if g, _ := NextGeneration(nil, dir); g != 5 {
		t.Fatalf("next generation %d", g)
	}
	removed, err := CleanupTemporary(nil, dir)
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(removed)
	want := slices.Clone(leftovers)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Fatalf("removed %v, want %v", removed, want)
	}
	names := dirNames(t, dir)
	if len(names) != 6 || !slices.Contains(names, "unrelated.txt") {
		t.Fatalf("left %v", names)
	}
	if list, _ := ListSSTables(nil, dir); len(list) != 1 {
		t.Fatalf("ListSSTables %v", list)
	}
	if g, _ := NextGeneration(nil, dir+"/missing"); g != 1 {
		t.Fatalf("missing dir: generation %d", g)
	}
}
