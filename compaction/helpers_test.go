package compaction

import "github.com/castable-db/castable/sstables/version"

func mustVersion(s string) version.Version {
	v, err := version.Parse(s)
	if err != nil {
		panic(err)
	}
	return v
}
