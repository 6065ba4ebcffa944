package sstables

import "strings"

// siblingPath returns the path of component c of the SSTable whose Data.db
// is dataPath ("dir/mc-1-big-Data.db" → "dir/mc-1-big-CompressionInfo.db"),
// so that a problem found while reading Data.db but lying in another
// component names that component's file. A dataPath that is not a Data.db
// name is returned unchanged.
func siblingPath(dataPath string, c Component) string {
	if prefix, ok := strings.CutSuffix(dataPath, string(ComponentData)); ok && strings.HasSuffix(prefix, "-") {
		return prefix + string(c)
	}
	return dataPath
}
