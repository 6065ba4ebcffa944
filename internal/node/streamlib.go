package node

import (
	"archive/zip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/castable-db/castable/internal/oracle"
)

// The 5.0 node's build takes its jars from Debian, whose libstream-java is
// stream-lib 2.9.8; Cassandra 5.0 ships stream-lib 2.5.2, as 3.11 does
// (lib/stream-2.5.2.jar; .build/parent-pom-template.xml). The two merge
// and estimate HyperLogLog++ sketches differently (2.9.8 turns a sparse
// sketch normal at 6144 entries while merging too, orders sparse entries
// by index, estimates with scalb), which changes what a compaction sizes
// its bloom filter for and the sketch of an SSTable past a few thousand
// keys. So that the node writes what a real 5.0 writes, its patch
// directory, first on its class path, gets the classes of the 3.11
// build's stream-2.5.2.jar, which then shadow Debian's.

// streamLibMarker says the patch directory holds stream-lib 2.5.2.
const streamLibMarker = ".castable-stream-lib-2.5.2"

// shadowStreamLib puts stream-lib 2.5.2's classes into patch (once, under
// a lock shared by every process of this machine).
func shadowStreamLib(patch string) error {
	marker := filepath.Join(patch, streamLibMarker)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	o, why, err := oracle.Build311()
	if err != nil {
		return fmt.Errorf("stream-lib 2.5.2 for the 5.0 node comes from the 3.11 build: %w", err)
	}
	if why != "" {
		return fmt.Errorf("stream-lib 2.5.2 for the 5.0 node comes from the 3.11 build, unavailable: %s", why)
	}
	jar := filepath.Join(o.Dir(), "src", "lib", "stream-2.5.2.jar")
	if err := os.MkdirAll(patch, 0o755); err != nil {
		return err
	}
	lock, err := os.OpenFile(patch+".stream.lock", os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return err
	}
	defer syscall.Flock(int(lock.Fd()), syscall.LOCK_UN)
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	zr, err := zip.OpenReader(jar)
	if err != nil {
		return fmt.Errorf("stream-lib 2.5.2 for the 5.0 node: %w", err)
	}
	defer zr.Close()
	n := 0
	for _, f := range zr.File {
		if !strings.HasSuffix(f.Name, ".class") || strings.Contains(f.Name, "..") {
			continue
		}
		if err := extract(f, filepath.Join(patch, filepath.FromSlash(f.Name))); err != nil {
			return fmt.Errorf("%s: %s: %w", jar, f.Name, err)
		}
		n++
	}
	if n == 0 {
		return fmt.Errorf("%s holds no classes", jar)
	}
	return os.WriteFile(marker, nil, 0o644)
}

func extract(f *zip.File, path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	r, err := f.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	tmp := path + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	if _, err := io.Copy(w, r); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
