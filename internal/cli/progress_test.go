package cli

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
)

// TestProgressOnTerminalOnly: with stderr on a pseudo-terminal, write draws
// a progress bar (redrawn lines, the rows count and rate) and ends with the
// summary line; with stderr on a pipe only the summary line appears, and
// with Quiet nothing does. Stdout gets the Data.db paths in every case.
func TestProgressOnTerminalOnly(t *testing.T) {
	dir := t.TempDir()
	schemaFile := writeBenchSchema(t, dir, "")
	in := generateCSV(t, dir, 300_000, 100)

	run := func(t *testing.T, stderr io.Writer, quiet bool) string {
		t.Helper()
		var stdout bytes.Buffer
		out := filepath.Join(t.TempDir(), "out")
		if _, err := Write(context.Background(), &Env{Stdout: &stdout, Stderr: stderr, Quiet: quiet},
			WriteOptions{Schema: schemaFile, CSV: in, Out: out}); err != nil {
			t.Fatal(err)
		}
		if got := stdout.String(); !strings.HasSuffix(got, "-big-Data.db\n") || strings.Contains(got, "rows") {
			t.Errorf("stdout holds more than the Data.db paths: %q", got)
		}
		return out
	}

	t.Run("terminal", func(t *testing.T) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		defer ptmx.Close()
		if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 120}); err != nil {
			t.Fatal(err)
		}
		var screen bytes.Buffer
		done := make(chan struct{})
		go func() {
			defer close(done)
			io.Copy(&screen, ptmx)
		}()
		// A bar is drawn when created, then every progressInterval.
		run(t, tty, false)
		tty.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatal("pseudo-terminal output did not end")
		}
		got := screen.String()
		if !strings.Contains(got, "write") || !strings.Contains(got, "\r") {
			t.Errorf("no progress bar on the terminal: %q", got)
		}
		if !strings.Contains(got, "castable write: 300,000 rows") {
			t.Errorf("no summary line on the terminal: %q", got)
		}
	})

	t.Run("pipe", func(t *testing.T) {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		var got bytes.Buffer
		done := make(chan struct{})
		go func() {
			defer close(done)
			io.Copy(&got, r)
		}()
		run(t, w, false)
		w.Close()
		<-done
		r.Close()
		if strings.Contains(got.String(), "\r") || strings.Count(got.String(), "\n") != 1 {
			t.Errorf("stderr on a pipe has more than the summary line: %q", got.String())
		}
		if !strings.HasPrefix(got.String(), "castable write: 300,000 rows") {
			t.Errorf("no summary line: %q", got.String())
		}
	})

	t.Run("quiet", func(t *testing.T) {
		ptmx, tty, err := pty.Open()
		if err != nil {
			t.Skipf("no pseudo-terminal: %v", err)
		}
		defer ptmx.Close()
		var screen bytes.Buffer
		done := make(chan struct{})
		go func() {
			defer close(done)
			io.Copy(&screen, ptmx)
		}()
		run(t, tty, true)
		tty.Close()
		<-done
		if screen.Len() != 0 {
			t.Errorf("quiet run wrote to the terminal: %q", screen.String())
		}
	})
}

// TestProgressCounters: the rows and SSTables counted while writing show
// in the bar's description.
func TestProgressCounters(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	defer ptmx.Close()
	defer tty.Close()
	go io.Copy(io.Discard, ptmx)
	p := newProgress(&Env{Stderr: tty}, "write", 1000)
	if p.bar == nil {
		t.Fatal("no bar on a terminal")
	}
	p.addRows(1234567)
	p.addSSTables(2)
	p.setBytes(500)
	p.draw()
	st := p.bar.State()
	if !strings.Contains(st.Description, "1,234,567 rows") || !strings.Contains(st.Description, "2 SSTables") {
		t.Errorf("bar description %q lacks the counters", st.Description)
	}
	if st.CurrentNum != 500 {
		t.Errorf("bar at %d bytes, want 500", st.CurrentNum)
	}
	p.finish()
	if p := newProgress(&Env{Stderr: &bytes.Buffer{}}, "write", 1000); p.bar != nil {
		t.Error("a bar on a buffer")
	}
}
