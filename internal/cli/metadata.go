package cli

import (
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"strings"
	"time"

	"github.com/castable-db/castable/dht"
	"github.com/castable-db/castable/mutation"
	"github.com/castable-db/castable/schema"
	"github.com/castable-db/castable/sstables"
	"github.com/castable-db/castable/sstables/version"
)

// MetadataOptions configure Metadata.
type MetadataOptions struct {
	// SSTable names the SSTable.
	SSTable string
	// Schema and Table optionally give the table, to render clustering
	// values of la SSTables (mc takes the types from its header).
	Schema, Table string
	// JSON prints the metadata as one JSON object instead of text.
	JSON bool
	// Now is the time droppable tombstones are estimated at; zero means
	// the current time.
	Now time.Time
	// OpaqueUnknownTypes reads a column whose type is a marshal class
	// castable does not know (in the serialization header or a --schema
	// custom type) as opaque length-prefixed bytes, printed as hex, instead
	// of failing (sstables.ReaderOptions.OpaqueUnknownTypes).
	OpaqueUnknownTypes bool
}

// SSTableMetadata is what castable metadata reports: Statistics.db,
// CompressionInfo.db (or CRC.db), Summary.db and TOC.txt.
type SSTableMetadata struct {
	SSTable string `json:"sstable"`
	Version string `json:"version"`
	// WrittenBy names the releases that write the version, ReadBy the
	// Cassandra releases that read it (none for ScyllaDB's own), from the
	// version table: can a cluster load this SSTable?
	WrittenBy  string   `json:"written_by"`
	ReadBy     []string `json:"read_by"`
	Generation int      `json:"generation,omitempty"`
	// UUID is the UUID-based identifier, when the SSTable has one.
	UUID        string `json:"uuid,omitempty"`
	Partitioner string `json:"partitioner,omitempty"`
	// BloomFilterFPChance is 0 for la (which does not record it).
	BloomFilterFPChance float64 `json:"bloom_filter_fp_chance,omitempty"`

	MinTimestamp int64 `json:"min_timestamp"`
	MaxTimestamp int64 `json:"max_timestamp"`
	// MinLocalDeletionTime and MaxLocalDeletionTime are as stored
	// (2147483647, or 4294967295 from oa on, for none).
	MinLocalDeletionTime *int64 `json:"min_local_deletion_time,omitempty"`
	MaxLocalDeletionTime int64  `json:"max_local_deletion_time"`
	MinTTL               *int32 `json:"min_ttl,omitempty"`
	MaxTTL               *int32 `json:"max_ttl,omitempty"`

	Compression CompressionMetadata `json:"compression"`

	EstimatedDroppableTombstones JSONFloat                    `json:"estimated_droppable_tombstones"`
	Level                        int32                        `json:"sstable_level"`
	RepairedAt                   int64                        `json:"repaired_at"`
	CommitLogIntervals           []sstables.CommitLogInterval `json:"commit_log_intervals,omitempty"`
	ReplayPosition               *sstables.CommitLogPosition  `json:"replay_position,omitempty"`
	Ancestors                    []int32                      `json:"ancestors,omitempty"`
	OriginatingHostID            string                       `json:"originating_host_id,omitempty"`
	HasLegacyCounterShards       bool                         `json:"has_legacy_counter_shards"`
	TotalRows                    *int64                       `json:"total_rows,omitempty"`
	TotalColumnsSet              *int64                       `json:"total_columns_set,omitempty"`
	// PendingRepair and IsTransient are 4.0's (na on).
	PendingRepair string `json:"pending_repair,omitempty"`
	IsTransient   *bool  `json:"is_transient,omitempty"`
	// HasPartitionLevelDeletions, FirstKey and LastKey, CoveredClustering
	// and TokenSpaceCoverage are 5.0's (nc, oa on).
	HasPartitionLevelDeletions *bool            `json:"has_partition_level_deletions,omitempty"`
	FirstKey                   string           `json:"first_key,omitempty"`
	LastKey                    string           `json:"last_key,omitempty"`
	CoveredClustering          *ClusteringSlice `json:"covered_clustering,omitempty"`
	TokenSpaceCoverage         *JSONFloat       `json:"token_space_coverage,omitempty"` // NaN (null) for key-ordered partitioners
	// Oddities are what the Statistics.db decoder tolerated.
	Oddities []string `json:"oddities,omitempty"`

	// EstimatedPartitions is the partition count the size histogram holds.
	EstimatedPartitions int64             `json:"estimated_partitions"`
	PartitionSizes      []HistogramBucket `json:"partition_sizes"`
	CellCounts          []HistogramBucket `json:"cell_counts"`
	TombstoneDropTimes  []TombstoneBin    `json:"tombstone_drop_times"`
	MinClustering       []string          `json:"min_clustering_values"`
	MaxClustering       []string          `json:"max_clustering_values"`

	Header  *HeaderMetadata  `json:"serialization_header,omitempty"`
	Summary *SummaryMetadata `json:"summary,omitempty"`
	TOC     []string         `json:"toc,omitempty"`
}

// CompressionMetadata describes Data.db's chunking.
type CompressionMetadata struct {
	// Class is the compressor class ("" when uncompressed).
	Class       string            `json:"class,omitempty"`
	Options     map[string]string `json:"options,omitempty"`
	ChunkLength int               `json:"chunk_length"`
	Chunks      int               `json:"chunks"`
	// DataLength is the uncompressed length, DataFileSize the size on disk.
	DataLength   int64 `json:"data_length"`
	DataFileSize int64 `json:"data_file_size"`
	// Ratio is DataFileSize / DataLength as written (Statistics.db's
	// compression ratio; -1 when uncompressed; NaN in ScyllaDB's ms and mt
	// files of one chunk, null in JSON).
	Ratio JSONFloat `json:"compression_ratio"`
}

// JSONFloat is a float64 that marshals NaN and the infinities, which JSON
// cannot hold, as null.
type JSONFloat float64

// MarshalJSON implements json.Marshaler.
func (f JSONFloat) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(f)) || math.IsInf(float64(f), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(f))
}

// UnmarshalJSON implements json.Unmarshaler (null is NaN).
func (f *JSONFloat) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*f = JSONFloat(math.NaN())
		return nil
	}
	return json.Unmarshal(b, (*float64)(f))
}

// ClusteringSlice is the covered clustering slice (improved min/max).
type ClusteringSlice struct {
	Types []string `json:"types"`
	Start string   `json:"start"`
	End   string   `json:"end"`
}

// HistogramBucket counts the values in (previous Upper, Upper]; Overflow
// marks the last bucket, which counts values above every bound.
type HistogramBucket struct {
	Upper    int64 `json:"upper"`
	Count    int64 `json:"count"`
	Overflow bool  `json:"overflow,omitempty"`
}

// TombstoneBin is one bin of the tombstone drop time histogram.
type TombstoneBin struct {
	Time  float64 `json:"time"`
	Count int64   `json:"count"`
}

// HeaderMetadata is mc's serialization header.
type HeaderMetadata struct {
	MinTimestamp         int64            `json:"min_timestamp"`
	MinLocalDeletionTime int32            `json:"min_local_deletion_time"`
	MinTTL               int32            `json:"min_ttl"`
	PartitionKeyType     string           `json:"partition_key_type"`
	ClusteringTypes      []string         `json:"clustering_types"`
	Static               []HeaderColumnMD `json:"static_columns"`
	Regular              []HeaderColumnMD `json:"regular_columns"`
}

// HeaderColumnMD is a column of the serialization header.
type HeaderColumnMD struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// SummaryMetadata describes Summary.db.
type SummaryMetadata struct {
	Entries            int    `json:"entries"`
	MinIndexInterval   int    `json:"min_index_interval"`
	SamplingLevel      int    `json:"sampling_level"`
	SizeAtFullSampling int    `json:"size_at_full_sampling"`
	FirstKey           string `json:"first_key"`
	LastKey            string `json:"last_key"`
	// FirstToken and LastToken are the keys' tokens in the partitioner's
	// own form (empty when the partitioner is not known).
	FirstToken string `json:"first_token,omitempty"`
	LastToken  string `json:"last_token,omitempty"`
}

// Metadata prints an SSTable's metadata, as text like sstablemetadata or
// as JSON.
func Metadata(env *Env, opts MetadataOptions) error {
	md, err := ReadMetadata(opts)
	if err != nil {
		return err
	}
	if opts.JSON {
		enc := json.NewEncoder(env.stdout())
		enc.SetIndent("", "  ")
		return enc.Encode(md)
	}
	return md.WriteText(env.stdout())
}

// ReadMetadata gathers the metadata of an SSTable.
func ReadMetadata(opts MetadataOptions) (*SSTableMetadata, error) {
	desc, err := resolveSSTable(opts.SSTable)
	if err != nil {
		return nil, err
	}
	table, err := loadTableTypes(opts.Schema, opts.Table, opts.OpaqueUnknownTypes)
	if err != nil {
		return nil, err
	}
	r, err := openSSTable(desc, table, opts.OpaqueUnknownTypes)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	table = r.Table()
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	md := &SSTableMetadata{SSTable: strings.TrimSuffix(desc.Filename(""), "-"), Version: desc.Version.String(), Generation: desc.Generation, UUID: desc.UUID,
		WrittenBy: desc.Version.Release(), ReadBy: []string{}}
	for _, rel := range version.Releases() {
		if desc.Version.ReadBy(rel) {
			md.ReadBy = append(md.ReadBy, rel)
		}
	}
	fillStatistics(md, r.Statistics(), desc.Version, table)
	tombstones := r.Statistics().Stats.TombstoneDropTimes
	if cells := histogramMean(md.CellCounts) * histogramCount(md.CellCounts); cells > 0 && tombstones != nil {
		md.EstimatedDroppableTombstones = JSONFloat(streamingSum(tombstones, float64(now.Unix())) / float64(cells))
	}
	md.EstimatedPartitions = histogramCount(md.PartitionSizes)
	if err := fillFiles(md, desc, table); err != nil {
		return nil, err
	}
	return md, nil
}

// storedDeletionTime is a local deletion time as version v stores it.
func storedDeletionTime(ldt int64, v version.Version) int64 {
	if v.UIntDeletionTime() {
		return int64(sstables.UnsignedDeletionTime(ldt))
	}
	return int64(sstables.LegacyDeletionTime(ldt))
}

// fillStatistics copies Statistics.db into md: every field version v
// stores, by name.
func fillStatistics(md *SSTableMetadata, st *sstables.Statistics, v version.Version, t *schema.Table) {
	s := &st.Stats
	md.Partitioner = st.Partitioner
	md.BloomFilterFPChance = st.BloomFilterFPChance
	md.MinTimestamp, md.MaxTimestamp = s.MinTimestamp, s.MaxTimestamp
	md.MaxLocalDeletionTime = storedDeletionTime(s.MaxLocalDeletionTime, v)
	if !v.LegacyCells() {
		minLDT := storedDeletionTime(s.MinLocalDeletionTime, v)
		md.MinLocalDeletionTime = &minLDT
		md.MinTTL, md.MaxTTL = &s.MinTTL, &s.MaxTTL
		md.TotalRows, md.TotalColumnsSet = &s.TotalRows, &s.TotalColumnsSet
		md.CommitLogIntervals = s.CommitLogIntervals
	} else {
		rp := s.CommitLogUpperBound
		md.ReplayPosition = &rp
		md.Ancestors = st.Ancestors
	}
	md.Compression.Ratio = JSONFloat(s.CompressionRatio)
	md.Level, md.RepairedAt = s.Level, s.RepairedAt
	if len(s.OriginatingHostID) == 16 {
		md.OriginatingHostID = formatUUID(s.OriginatingHostID)
	}
	md.HasLegacyCounterShards = s.HasLegacyCounterShards
	md.PartitionSizes = laHistogram(s.PartitionSizes)
	md.CellCounts = laHistogram(s.CellsPerPartition)
	if h := s.TombstoneDropTimes; h != nil {
		points, counts := h.Bins()
		for i, p := range points {
			md.TombstoneDropTimes = append(md.TombstoneDropTimes, TombstoneBin{Time: p, Count: counts[i]})
		}
	}
	if v.HasLegacyMinMax() {
		md.MinClustering = clusteringStrings(t, s.MinClusteringValues)
		md.MaxClustering = clusteringStrings(t, s.MaxClusteringValues)
	}
	if v.HasPendingRepair() {
		if len(s.PendingRepair) == 16 {
			md.PendingRepair = formatUUID(s.PendingRepair)
		}
		md.IsTransient = &s.IsTransient
	}
	if v.HasPartitionLevelDeletionsPresenceMarker() {
		md.HasPartitionLevelDeletions = &s.HasPartitionLevelDeletions
	}
	if v.HasKeyRange() {
		md.FirstKey, md.LastKey = mutation.FormatKey(t, s.FirstKey), mutation.FormatKey(t, s.LastKey)
	}
	if cs := s.CoveredClustering; cs != nil {
		md.CoveredClustering = &ClusteringSlice{Types: cs.Types,
			Start: formatBound(t, cs.Start.Kind, cs.Start.Values), End: formatBound(t, cs.End.Kind, cs.End.Values)}
	}
	if v.HasTokenSpaceCoverage() {
		c := JSONFloat(s.TokenSpaceCoverage)
		md.TokenSpaceCoverage = &c
	}
	md.Oddities = st.Oddities
	if h := st.Header; h != nil {
		hm := &HeaderMetadata{MinTimestamp: h.Stats.MinTimestamp, MinLocalDeletionTime: h.Stats.MinLocalDeletionTime,
			MinTTL: h.Stats.MinTTL, PartitionKeyType: h.PartitionKeyType, ClusteringTypes: h.ClusteringTypeNames,
			Static: []HeaderColumnMD{}, Regular: []HeaderColumnMD{}}
		for _, c := range h.Static {
			hm.Static = append(hm.Static, HeaderColumnMD{Name: c.Name, Type: c.TypeName})
		}
		for _, c := range h.Regular {
			hm.Regular = append(hm.Regular, HeaderColumnMD{Name: c.Name, Type: c.TypeName})
		}
		md.Header = hm
	}
}

// fillFiles adds CompressionInfo.db or CRC.db, Summary.db and TOC.txt.
func fillFiles(md *SSTableMetadata, desc sstables.Descriptor, t *schema.Table) error {
	md.Compression.DataFileSize = fileSize(desc.Path(sstables.ComponentData))
	compressed := fileExists(desc.Path(sstables.ComponentCompressionInfo))
	if compressed {
		ci, err := sstables.ReadCompressionInfo(nil, desc)
		if err != nil {
			return err
		}
		md.Compression.Class = ci.ClassName
		md.Compression.ChunkLength = ci.ChunkLength
		md.Compression.Chunks = len(ci.ChunkOffsets)
		md.Compression.DataLength = ci.DataLength
		if len(ci.Options) > 0 {
			md.Compression.Options = map[string]string{}
			for _, o := range ci.Options {
				md.Compression.Options[o.Key] = o.Value
			}
		}
	} else {
		md.Compression.DataLength = md.Compression.DataFileSize
		if fileExists(desc.Path(sstables.ComponentCRC)) {
			crc, err := sstables.ReadCRC(nil, desc)
			if err != nil {
				return err
			}
			md.Compression.ChunkLength = crc.ChunkSize
			md.Compression.Chunks = len(crc.Checksums)
		}
	}
	if fileExists(desc.Path(sstables.ComponentSummary)) {
		s, err := sstables.ReadSummary(nil, desc, sstables.SummaryReadOptions{DataCompressed: compressed})
		if err != nil {
			return err
		}
		md.Summary = &SummaryMetadata{Entries: s.Len(), MinIndexInterval: s.MinIndexInterval, SamplingLevel: s.SamplingLevel,
			SizeAtFullSampling: s.SizeAtFullSampling, FirstKey: mutation.FormatKey(t, s.First), LastKey: mutation.FormatKey(t, s.Last)}
		if p, err := dht.Lookup(md.Partitioner); err == nil {
			md.Summary.FirstToken, md.Summary.LastToken = p.String(p.Token(s.First)), p.String(p.Token(s.Last))
		}
	}
	if fileExists(desc.Path(sstables.ComponentTOC)) {
		toc, err := sstables.ReadTOC(nil, desc)
		if err != nil {
			return err
		}
		for _, c := range sstables.SortComponents(toc.Listed) {
			md.TOC = append(md.TOC, string(c))
		}
	}
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// laHistogram converts an EstimatedHistogram to upper bounds.
func laHistogram(h *sstables.EstimatedHistogram) []HistogramBucket {
	if h == nil {
		return nil
	}
	offsets, counts := h.Offsets(), h.Buckets()
	out := make([]HistogramBucket, 0, len(counts))
	for i, c := range counts {
		if i < len(offsets) {
			out = append(out, HistogramBucket{Upper: offsets[i], Count: c})
		} else {
			out = append(out, HistogramBucket{Upper: offsets[len(offsets)-1], Count: c, Overflow: true})
		}
	}
	return out
}

func histogramCount(h []HistogramBucket) int64 {
	var n int64
	for _, b := range h {
		n += b.Count
	}
	return n
}

// histogramMean is EstimatedHistogram.mean: the count-weighted mean of the
// buckets' upper bounds, rounded up (the overflow bucket is left out).
func histogramMean(h []HistogramBucket) int64 {
	var n, sum int64
	for _, b := range h {
		if b.Overflow {
			continue
		}
		n += b.Count
		sum += b.Count * b.Upper
	}
	if n == 0 {
		return 0
	}
	return (sum + n - 1) / n
}

// streamingSum is StreamingHistogram.sum(b): the estimated number of points
// at or below b, interpolating inside the bin b falls in.
func streamingSum(h *sstables.StreamingHistogram, b float64) float64 {
	points, counts := h.Bins()
	next := -1
	for i, p := range points {
		if p > b {
			next = i
			break
		}
	}
	var sum float64
	if next < 0 {
		for _, c := range counts {
			sum += float64(c)
		}
		return sum
	}
	if next == 0 {
		return 0
	}
	i := next - 1
	weight := (b - points[i]) / (points[next] - points[i])
	mb := float64(counts[i]) + float64(counts[next]-counts[i])*weight
	sum += (float64(counts[i]) + mb) * weight / 2
	sum += float64(counts[i]) / 2
	for _, c := range counts[:i] {
		sum += float64(c)
	}
	return sum
}

// clusteringStrings renders min/max clustering values with the clustering
// types (hex when a value does not decode).
func clusteringStrings(t *schema.Table, vals [][]byte) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if t != nil && i < len(t.Clustering) {
			if b, err := t.Clustering[i].Type.AppendJSON(nil, v); err == nil {
				out[i] = string(b)
				continue
			}
		}
		out[i] = "0x" + hex.EncodeToString(v)
	}
	return out
}

func formatUUID(b []byte) string {
	h := hex.EncodeToString(b)
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}

// isoMicros renders a µs timestamp as an ISO-8601 instant in UTC.
func isoMicros(us int64) string {
	return time.UnixMicro(us).UTC().Format("2006-01-02T15:04:05.000000Z")
}

// isoSeconds renders a seconds time as an ISO-8601 instant in UTC.
func isoSeconds(s int64) string {
	return time.Unix(s, 0).UTC().Format("2006-01-02T15:04:05Z")
}
