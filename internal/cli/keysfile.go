package cli

import (
	"bufio"
	"fmt"
	"os"
	"strings"
)

// readKeysFile reads the partition keys of a --keys-file (export, filter):
// one key a line in the string form dump -k takes, taken as it is (a key
// may start with # or hold spaces) but for a trailing CR; blank lines are
// skipped.
func readKeysFile(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var keys []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		if line := strings.TrimSuffix(sc.Text(), "\r"); line != "" {
			keys = append(keys, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return keys, nil
}
