package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWriteCQLErrorsNameTheLine: a bad statement is reported with its line
// in the whole input, and writes nothing.
func TestWriteCQLErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	in := filepath.Join(dir, "in.cql")
	os.WriteFile(in, []byte("INSERT INTO bench (pk, ck, v) VALUES (1, 1, 'a');\n\nINSERT INTO bench (pk, ck, v)\n  VALUES (1, 'two', 'b');\n"), 0o644)
	out := filepath.Join(dir, "out")
	_, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: in, Out: out})
	if err == nil || !strings.Contains(err.Error(), "in.cql:4:") {
		t.Fatalf("error %v, want one at in.cql:4", err)
	}
	if ExitCode(err) != ExitData {
		t.Errorf("exit %d, want 1", ExitCode(err))
	}
	os.WriteFile(in, []byte("INSERT INTO other (pk) VALUES (1);\n"), 0o644)
	if _, err := Write(context.Background(), quietEnv(), WriteOptions{Schema: schemaFile, CQL: in, Out: out}); err == nil {
		t.Error("a statement on an unknown table was accepted")
	}
	// Standard input.
	var stdout bytes.Buffer
	env := &Env{Stdin: strings.NewReader("INSERT INTO bench (pk, ck, v) VALUES (1, 1, 'a') USING TTL 60;"), Stdout: &stdout, Stderr: &bytes.Buffer{}}
	if _, err := Write(context.Background(), env, WriteOptions{Schema: schemaFile, CQL: "-", Out: out}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(stdout.String(), "-big-Data.db\n") {
		t.Errorf("stdout %q", stdout.String())
	}
}
