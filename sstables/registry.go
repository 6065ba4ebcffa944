package sstables

import (
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables/version"
)

// The format registry: every Format by version. The format packages
// register theirs when they are initialized — importing sstables/mc (or
// sstables/big) brings the 3.x-5.0 BIG versions, sstables/la the 2.x ones,
// sstables/bti the trie-indexed ones; sstables/formats imports them all.
var registry struct {
	mu      sync.RWMutex
	formats map[string]Format
}

// Register makes f the Format of its version. A second registration of a
// version panics: one package owns each.
func Register(f Format) {
	registry.mu.Lock()
	defer registry.mu.Unlock()
	if registry.formats == nil {
		registry.formats = map[string]Format{}
	}
	name := f.Version().String()
	if _, dup := registry.formats[name]; dup {
		panic("sstables: format " + name + " registered twice")
	}
	registry.formats[name] = f
}

// Lookup returns the Format of a version ("nb"). An unknown version, or one
// whose package is not linked in, is an error that lists what is.
func Lookup(name string) (Format, error) {
	v, err := version.Parse(name)
	if err != nil {
		return nil, fmt.Errorf("sstables: %w", err)
	}
	return LookupVersion(v)
}

// LookupVersion is Lookup for a parsed version.
func LookupVersion(v version.Version) (Format, error) {
	registry.mu.RLock()
	f, ok := registry.formats[v.String()]
	registry.mu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("sstables: no format registered for version %s (%s); registered: %s", v, v.Release(), strings.Join(registeredNames(false), ", "))
	}
	return f, nil
}

// Formats returns the registered formats in version order; writable ones
// only when writable is set.
func Formats(writable bool) []Format {
	var out []Format
	for _, name := range registeredNames(writable) {
		f, _ := Lookup(name)
		out = append(out, f)
	}
	return out
}

func registeredNames(writable bool) []string {
	registry.mu.RLock()
	defer registry.mu.RUnlock()
	order := map[string]int{}
	for i, n := range version.Names() {
		order[n] = i
	}
	var names []string
	for n, f := range registry.formats {
		if !writable || f.Version().Writable() {
			names = append(names, n)
		}
	}
	sort.Slice(names, func(i, j int) bool { return order[names[i]] < order[names[j]] })
	return names
}

// OpenAny opens the SSTable desc with the Format of its version.
func OpenAny(desc Descriptor, table *schema.Table, opts ReaderOptions) (Reader, error) {
	f, err := LookupVersion(desc.Version)
	if err != nil {
		return nil, err
	}
	return f.Open(desc, table, opts)
}
