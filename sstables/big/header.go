package big

import "github.com/castable-db/castable/sstables"

// Header is the serialization header (Statistics.db's one model lives in
// package sstables).
type Header = sstables.SerializationHeader
