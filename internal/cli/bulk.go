package cli

import "github.com/castable-db/castable/bulk"

// CSVOptions say how the CSV input of write is read (package bulk, which
// reads it).
type CSVOptions = bulk.CSVOptions

// removeSSTables deletes finished SSTables, TOC.txt first.
var removeSSTables = bulk.RemoveSSTables
