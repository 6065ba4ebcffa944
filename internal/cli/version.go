package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/castable-db/castable/compress"
	"github.com/castable-db/castable/sstables/version"
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

// Versions prints the version table (sstables/version): for each SSTable
// version the castable package family that serves it, whether castable
// writes it (or what it rewrites it as; which is the default), the
// Cassandra releases that read it, and the releases that write it.
func Versions(env *Env) error {
	tw := tabwriter.NewWriter(env.stdout(), 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "version\tfamily\tcastable\tread by Cassandra\twritten by")
	for _, v := range version.All() {
		what := "reads, writes"
		switch {
		case !v.Writable():
			what = "reads (rewrites as " + v.WriteAs().String() + ")"
		case v.String() == version.Default:
			what += " (default)"
		}
		var readers []string
		for _, r := range version.Releases() {
			if v.ReadBy(r) {
				readers = append(readers, r)
			}
		}
		by := strings.Join(readers, ", ")
		if by == "" {
			by = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", v, v.Family(), what, by, v.Release())
	}
	return tw.Flush()
}
