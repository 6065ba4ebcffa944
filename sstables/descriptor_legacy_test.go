package sstables

import (
	"testing"
)

// TestLegacyFileNames: Cassandra 2.1's "<keyspace>-<table>-ka-<gen>-<C>"
// names (Descriptor.fromFilename's old layout, with "tmp"/"tmplink" while
// being written) parse for ka and render back; other versions keep the
// 2.2 layout, and an old-layout name of a version that never had it is not
// an SSTable name.
func TestLegacyFileNames(t *testing.T) {
	for _, tc := range []struct {
		name          string
		ks, table, id string
		c             Component
		temp          bool
	}{
		{"cql_test_keyspace-table1-ka-1-Data.db", "cql_test_keyspace", "table1", "1", ComponentData, false},
		{"foo-atable-ka-12-Filter.db", "foo", "atable", "12", ComponentFilter, false},
		{"ks-t.t_idx-ka-3-Digest.sha1", "ks", "t.t_idx", "3", ComponentDigestSHA1, false},
		{"ks-t-tmp-ka-4-Index.db", "ks", "t", "4", ComponentIndex, true},
		{"ks-t-tmplink-ka-5-Data.db", "ks", "t", "5", ComponentData, true},
	} {
		d, c, temp, err := ParseDescriptor("/data/ks/t/" + tc.name)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if d.Keyspace != tc.ks || d.Table != tc.table || d.ID() != tc.id || c != tc.c || temp != tc.temp || d.Version.String() != "ka" || d.Dir != "/data/ks/t" {
			t.Errorf("%s: got %+v %s %v", tc.name, d, c, temp)
		}
		if !temp {
			if got := d.Filename(c); got != tc.name {
				t.Errorf("%s: renders as %s", tc.name, got)
			}
		}
	}
	for _, bad := range []string{"ks-t-la-1-Data.db", "ks-t-mc-1-Data.db", "ks-t-ka-x-Data.db", "ks-t-ka-0-Data.db", "-t-ka-1-Data.db", "ks-t-junk-ka-1-Data.db"} {
		if _, _, _, err := ParseDescriptor(bad); err == nil {
			t.Errorf("%s parses", bad)
		}
	}
	d, c, _, err := ParseDescriptor("ka-1-big-Data.db")
	if err != nil || d.Keyspace != "" || c != ComponentData || d.Filename(c) != "ka-1-big-Data.db" {
		t.Errorf("a renamed ka file: %+v %v", d, err)
	}
}
