package cli

import (
	"bufio"
	"strconv"
)

// BenchmarkSchema is the table GenerateCSV's rows are for.
const BenchmarkSchema = "CREATE TABLE ks.bench (pk int, ck int, v text, PRIMARY KEY (pk, ck));\n"

// GenerateCSV writes rows CSV records "pk,ck,v" for BenchmarkSchema to
// stdout: rowsPerPartition clustering rows per partition key and a text
// value of 24 to 40 characters that varies from row to row (compressible
// like real text, not a repeated constant).
func GenerateCSV(env *Env, rows int64, rowsPerPartition int) error {
	if rows < 0 || rowsPerPartition <= 0 {
		return Usagef("gen-csv: want rows >= 0 and rows per partition > 0")
	}
	w := bufio.NewWriterSize(env.stdout(), 256<<10)
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliett", "kilo", "lima"}
	var line []byte
	for i := int64(0); i < rows; i++ {
		pk, ck := i/int64(rowsPerPartition), i%int64(rowsPerPartition)
		line = strconv.AppendInt(line[:0], pk, 10)
		line = append(line, ',')
		line = strconv.AppendInt(line, ck, 10)
		line = append(line, ',')
		x := uint64(i)*0x9E3779B97F4A7C15 + 1
		for j := 0; j < 3; j++ {
			line = append(line, words[x%uint64(len(words))]...)
			line = append(line, '-')
			x = x>>7 ^ x*31
		}
		line = strconv.AppendUint(line, x%1000000, 10)
		line = append(line, '\n')
		if _, err := w.Write(line); err != nil {
			return err
		}
	}
	return w.Flush()
}
