package sstables

import "github.com/castable-db/castable/checksummer"

func algOf(v uint8) checksummer.Algorithm { return checksummer.Algorithm(v) }
