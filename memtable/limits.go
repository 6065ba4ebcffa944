package memtable

import (
	"fmt"

	"github.com/castable-db/castable/mutation"
)

// maxKeyComponent is Cassandra's limit on a partition key and on each
// clustering value (FBUtilities.MAX_UNSIGNED_SHORT): both formats store
// them with 16-bit lengths (mc in Statistics.db's min/max clustering
// values), so a larger one could be accepted here and fail only at flush.
const maxKeyComponent = 0xFFFF

// checkKeyLimits rejects a partition whose key or any clustering value of a
// row or range tombstone bound exceeds maxKeyComponent.
func checkKeyLimits(p *mutation.Partition) error {
	if len(p.Key) > maxKeyComponent {
		return fmt.Errorf("memtable: partition key of %d bytes exceeds Cassandra's 65535-byte limit", len(p.Key))
	}
	for i := range p.Rows {
		if err := checkClustering(p.Rows[i].Clustering); err != nil {
			return err
		}
	}
	for i := range p.Markers {
		if err := checkClustering(p.Markers[i].Clustering); err != nil {
			return err
		}
	}
	return nil
}

func checkClustering(c mutation.Clustering) error {
	for i, v := range c {
		if len(v) > maxKeyComponent {
			return fmt.Errorf("memtable: clustering value %d of %d bytes exceeds Cassandra's 65535-byte limit", i, len(v))
		}
	}
	return nil
}
