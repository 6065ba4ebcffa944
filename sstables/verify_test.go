package sstables

import (
	"errors"
	"strings"
	"testing"
)

func TestRealVerify(t *testing.T) {
	payloadOnly := 0
	for _, s := range realSSTables(t) {
		rep, err := VerifySSTable(s.desc, VerifyOptions{})
		switch s.corrupt {
		case "checksums":
			var ce *CorruptionError
			if !errors.As(err, &ce) || ce.Component != string(ComponentData) || !strings.Contains(ce.Reason, "chunk") || ce.Offset < 0 {
				t.Errorf("%s: want a Data.db chunk error, got %v", s.name, err)
			} else {
				t.Logf("%s: %v", s.name, err)
			}
			continue
		case "digest":
			var ce *CorruptionError
			if !errors.As(err, &ce) || !strings.HasPrefix(ce.Component, "Digest.") || !strings.Contains(ce.Reason, "digest mismatch") {
				t.Errorf("%s: want a digest error, got %v", s.name, err)
			} else {
				t.Logf("%s: %v", s.name, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		if rep.DigestComponent == "" {
			t.Errorf("%s: no digest checked", s.name)
		}
		if rep.PayloadOnlyDigest {
			payloadOnly++
			t.Logf("%s: early-la payload-only digest", s.name)
		}
		if s.has(ComponentSummary) && rep.Summary == nil {
			t.Errorf("%s: summary not parsed", s.name)
		}
		if s.has(ComponentFilter) && rep.Filter == nil {
			t.Errorf("%s: filter not parsed", s.name)
		}
	}
	if payloadOnly == 0 {
		t.Errorf("no early-la payload-only digest met (compressed/la-1 has one)")
	}
}
