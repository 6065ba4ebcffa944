package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/castable-db/castable/compress"
)

// Version prints castable's version: the module version, the VCS revision
// and time it was built from, the Go version, and which C libraries are
// built in.
func Version(env *Env) error {
	version, revision, modified, when := "(devel)", "", false, ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				revision = s.Value
			case "vcs.modified":
				modified = s.Value == "true"
			case "vcs.time":
				when = s.Value
			}
		}
	}
	w := env.stdout()
	fmt.Fprintf(w, "castable %s\n", version)
	if revision != "" {
		dirty := ""
		if modified {
			dirty = " (modified)"
		}
		fmt.Fprintf(w, "revision %s%s %s\n", revision, dirty, when)
	}
	fmt.Fprintf(w, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "C libraries: liblz4 %v, zlib/libdeflate %v\n",
		compress.HasImpl(compress.LZ4, compress.ImplC), compress.HasImpl(compress.Deflate, compress.ImplC))
	return nil
}
