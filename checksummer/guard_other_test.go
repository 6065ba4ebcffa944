//go:build !linux

package checksummer

import "testing"

// guardedBuffer returns nil: the guard-page benchmark case needs linux.
func guardedBuffer(testing.TB, int) []byte { return nil }
