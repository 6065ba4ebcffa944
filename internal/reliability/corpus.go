package reliability

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castable-db/castable/cql"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	_ "github.com/castable-db/castable/sstables/formats" // every format, for sstables.Lookup
)

// SSTable is one reference SSTable of the shared test data, loaded into
// memory.
type SSTable struct {
	// Name is the folder below the test data root plus the file prefix,
	// e.g. "cassandra/3.x/lz4/partition_key_with_values_of_different_types/mc-1".
	Name string
	// Dir is the folder on disk.
	Dir string
	// Desc is the descriptor on disk.
	Desc sstables.Descriptor
	// Files holds every component's bytes.
	Files map[sstables.Component][]byte
	// Format reads the SSTable's version.
	Format sstables.Format
	// Table is the schema the library reader is given: nil for the 3.x
	// versions (the serialization header carries it), the folder's CQL for
	// la (see laTables).
	Table *schema.Table
	// DeliberatelyCorrupt marks the integrity_check folders, whose Data.db
	// fails its checksums or digest on purpose.
	DeliberatelyCorrupt bool
	// Unread are components castable does not read (kept so that TOC.txt
	// finds them, never damaged: nothing could notice).
	Unread map[sstables.Component]bool
}

// Components returns the SSTable's components castable reads, in a
// stable order.
func (s *SSTable) Components() []sstables.Component {
	out := make([]sstables.Component, 0, len(s.Files))
	for c := range s.Files {
		if !s.Unread[c] {
			out = append(out, c)
		}
	}
	slices.Sort(out)
	return out
}

// Compressed reports whether Data.db is compressed.
func (s *SSTable) Compressed() bool {
	_, ok := s.Files[sstables.ComponentCompressionInfo]
	return ok
}

// Group is the row group of the corruption table: the version, whether the
// data is compressed, and the deliberately corrupt files apart.
func (s *SSTable) Group() string {
	g := s.Desc.Version.String()
	if s.Compressed() {
		g += ", compressed"
	} else {
		g += ", uncompressed"
	}
	if s.DeliberatelyCorrupt {
		g += ", deliberately corrupt"
	}
	return g
}

// unreadComponents are files of the corpus castable does not read, so no
// damage to them can be seen (ScyllaDB's own metadata).
var unreadComponents = map[sstables.Component]bool{"Scylla.db": true}

// laTables are the schemas of the la read corpus, per folder, as recorded in
// each folder's source.txt (where source.txt marks the schema "likely", the
// types are the ones the data's bytes fit).
var laTables = map[string]string{
	"uncompressed": `CREATE TABLE ks.uncompressed (name text PRIMARY KEY, col1 text, col2 int)
		WITH compression = {'sstable_compression': ''};`,
	"compressed": `CREATE TABLE ks.cf (name text PRIMARY KEY, col1 text, col2 int);`,
	"composite": `CREATE TABLE tests.composite (name blob, col1 blob, str1 ascii, str2 ascii,
		str3 ascii, str4 ascii, PRIMARY KEY ((name, col1)));`,
	"set":          `CREATE TABLE ks.set (key text PRIMARY KEY, favorites set<text>);`,
	"map_pk":       `CREATE TABLE tests.map_pk (ss frozen<map<blob, blob>> PRIMARY KEY, ns text);`,
	"list_pk":      `CREATE TABLE tests.list_pk (ss frozen<list<blob>> PRIMARY KEY, ns text);`,
	"ttl":          `CREATE TABLE ks.ttl (key text PRIMARY KEY, age int);`,
	"deleted_cell": `CREATE TABLE ks.deleted_cell (key text PRIMARY KEY, age int);`,
	"static_column": `CREATE TABLE ks.t (test_foo_bar_zed_baz_key text, test_foo_bar_zed_baz_val text,
		test_foo_bar_zed_baz_static text STATIC, PRIMARY KEY (test_foo_bar_zed_baz_key, test_foo_bar_zed_baz_val));`,
	"counter_test":        `CREATE TABLE ks.counter_test (pk int, ck int, c1 counter, c2 counter, PRIMARY KEY (pk, ck));`,
	"promoted_index_read": `CREATE TABLE ks.promoted_index_read (pk int, ck1 int, ck2 int, v int, PRIMARY KEY (pk, ck1, ck2));`,
}

// LoadCorpus loads every SSTable below root/cassandra and root/mc-write
// (root is the shared test data folder), ordered by name.
func LoadCorpus(root string) ([]*SSTable, error) {
	return LoadCorpusDirs(root, "cassandra", "mc-write")
}

// LoadBTICorpus loads the trie-indexed SSTables of root (Cassandra's da in
// cassandra-legacy/da, ScyllaDB's ms and mt in scylla-bti), ordered by
// name.
func LoadBTICorpus(root string) ([]*SSTable, error) {
	return LoadCorpusDirs(root, "cassandra-legacy/da", "scylla-bti")
}

// LoadCorpusDirs loads every SSTable below the folders tops of root,
// ordered by name.
func LoadCorpusDirs(root string, tops ...string) ([]*SSTable, error) {
	var out []*SSTable
	for _, top := range tops {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() {
				return nil
			}
			found, err := loadDir(root, path)
			out = append(out, found...)
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b *SSTable) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// loadDir loads the SSTables whose components lie directly in dir.
func loadDir(root, dir string) ([]*SSTable, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	rel, err := filepath.Rel(root, dir)
	if err != nil {
		return nil, err
	}
	rel = filepath.ToSlash(rel)
	byDesc := map[sstables.Descriptor]*SSTable{}
	var order []sstables.Descriptor
	for _, e := range entries {
		if e.IsDir() {
			continue
		}
		desc, comp, temp, err := sstables.ParseDescriptor(filepath.Join(dir, e.Name()))
		if err != nil || temp {
			continue
		}
		s := byDesc[desc]
		if s == nil {
			s = &SSTable{
				Name:                fmt.Sprintf("%s/%s-%d", rel, desc.Version, desc.Generation),
				Dir:                 dir,
				Desc:                desc,
				Files:               map[sstables.Component][]byte{},
				Unread:              map[sstables.Component]bool{},
				DeliberatelyCorrupt: strings.Contains(rel, "integrity_check"),
			}
			byDesc[desc] = s
			order = append(order, desc)
		}
		s.Unread[comp] = unreadComponents[comp]
		if s.Files[comp], err = os.ReadFile(filepath.Join(dir, e.Name())); err != nil {
			return nil, err
		}
	}
	var out []*SSTable
	for _, desc := range order {
		s := byDesc[desc]
		if _, ok := s.Files[sstables.ComponentData]; !ok {
			continue
		}
		if s.Format, err = sstables.LookupVersion(desc.Version); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
		if desc.Version.LegacyCells() {
			src, ok := laTables[filepath.Base(dir)]
			if !ok {
				return nil, fmt.Errorf("%s: no schema known for this %s folder", s.Name, desc.Version)
			}
			if s.Table, err = parseTable(src); err != nil {
				return nil, fmt.Errorf("%s: %w", s.Name, err)
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// parseTable parses one CREATE TABLE statement.
func parseTable(src string) (*schema.Table, error) {
	sch, err := cql.ParseSchema(src)
	if err != nil {
		return nil, err
	}
	if len(sch.Tables) != 1 {
		return nil, fmt.Errorf("%d tables in %q", len(sch.Tables), src)
	}
	return sch.Tables[0], nil
}
