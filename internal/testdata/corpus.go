package testdata

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/castable-db/castable/sstables/version"
)

// SSTable is one real SSTable of the shared test data: a directory and the
// prefix its component files share ("dir/mc-1-big-").
type SSTable struct {
	// Name is the SSTable's path below Root without the component
	// ("cassandra-legacy/oa/legacy_oa_clust/oa-1-big").
	Name string
	// Dir is the absolute directory of the components.
	Dir string
	// Prefix is the file name prefix shared by the components
	// ("oa-1-big-").
	Prefix string
	// Version is the two-letter format version, Kind "big" or "bti".
	Version, Kind string
	// Partitioner is the partitioner class name Statistics.db names
	// ("org.apache.cassandra.dht.ByteOrderedPartitioner"); empty when it
	// could not be found.
	Partitioner string
	// Corrupt is "checksums" or "digest" for the deliberately broken
	// integrity_check files, empty otherwise.
	Corrupt string
	// Scylla marks SSTables written by ScyllaDB (they have a Scylla.db).
	Scylla bool
}

// Path returns the path of component c ("Data.db") of s.
func (s SSTable) Path(c string) string { return filepath.Join(s.Dir, s.Prefix+c) }

// Has reports whether component c of s exists.
func (s SSTable) Has(c string) bool {
	_, err := os.Stat(s.Path(c))
	return err == nil
}

// Murmur3 is the class name of the partitioner most real clusters use.
const Murmur3 = "org.apache.cassandra.dht.Murmur3Partitioner"

// The index kinds and partitioners castable reads today; the versions are
// those of the version table (sstables/version), which castable reads
// all of. A test that walks the corpus skips, naming it, every SSTable
// outside these (Unsupported); each entry is added when the code to read it
// lands, so that the walkers then cover it.
var (
	readKinds        = map[string]bool{"big": true, "bti": true}
	readPartitioners = map[string]bool{Murmur3: true, "org.apache.cassandra.dht.ByteOrderedPartitioner": true}
)

// Unsupported says why castable cannot read s yet — a version, index kind
// or partitioner it does not support — or returns "" when it can.
func (s SSTable) Unsupported() string {
	switch {
	case !readKinds[s.Kind]:
		return "the " + s.Kind + " index format (" + s.Version + ") is not read yet"
	case !knownVersion(s.Version):
		return "version " + s.Version + " is not read yet"
	case s.Partitioner != "" && !readPartitioners[s.Partitioner]:
		return "partitioner " + strings.TrimPrefix(s.Partitioner, "org.apache.cassandra.dht.") + " is not supported yet"
	}
	return ""
}

// knownVersion reports whether the version table has the version name.
func knownVersion(name string) bool {
	_, err := version.Parse(name)
	return err == nil
}

// SSTables lists every SSTable below the given folders of Root (all of it
// when none is given), one per Data.db, ordered by Name. It skips (or, in
// CI, fails) tb like Dir when the test data is absent.
func SSTables(tb testing.TB, folders ...string) []SSTable {
	tb.Helper()
	root := Dir(tb)
	if len(folders) == 0 {
		folders = []string{"."}
	}
	var out []SSTable
	for _, f := range folders {
		err := filepath.WalkDir(filepath.Join(root, f), func(path string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			name := d.Name()
			if d.IsDir() || !strings.HasSuffix(name, "-Data.db") {
				return nil
			}
			parts := strings.Split(name, "-")
			if len(parts) != 4 {
				return nil // not a "<version>-<id>-<kind>-Data.db" name
			}
			dir := filepath.Dir(path)
			rel, _ := filepath.Rel(root, path)
			s := SSTable{
				Name:    strings.TrimSuffix(filepath.ToSlash(rel), "-Data.db"),
				Dir:     dir,
				Prefix:  strings.TrimSuffix(name, "Data.db"),
				Version: parts[0],
				Kind:    parts[2],
			}
			switch {
			case strings.Contains(rel, "integrity_check/invalid_checksums"):
				s.Corrupt = "checksums"
			case strings.Contains(rel, "integrity_check/invalid_digest"):
				s.Corrupt = "digest"
			}
			s.Scylla = s.Has("Scylla.db")
			if b, err := os.ReadFile(s.Path("Statistics.db")); err == nil {
				s.Partitioner = partitionerName(b)
			}
			out = append(out, s)
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Supported is SSTables without the ones castable cannot read yet; it logs
// each of those with the reason, so that a run names what it skipped.
func Supported(tb testing.TB, folders ...string) []SSTable {
	tb.Helper()
	var out []SSTable
	for _, s := range SSTables(tb, folders...) {
		if why := s.Unsupported(); why != "" {
			tb.Logf("skipping %s: %s", s.Name, why)
			continue
		}
		out = append(out, s)
	}
	return out
}

// partitionerName finds the partitioner class name in Statistics.db bytes:
// the validation metadata holds it as a Java modified-UTF-8 string (u16
// length, then the bytes), the only string of the file in the
// org.apache.cassandra.dht package.
func partitionerName(stats []byte) string {
	const pkg = "org.apache.cassandra.dht."
	i := bytes.Index(stats, []byte(pkg))
	if i < 2 {
		return ""
	}
	n := int(binary.BigEndian.Uint16(stats[i-2:]))
	if i+n > len(stats) {
		return ""
	}
	return string(stats[i : i+n])
}
