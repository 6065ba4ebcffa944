package cli

import (
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressInterval is how often the bar is redrawn.
const progressInterval = 200 * time.Millisecond

// progress is the progress bar of a long command. The work loop only bumps
// atomic counters (no call per row reaches the bar); a ticker goroutine
// redraws the bar from them. When stderr is not a terminal, or the command
// is quiet, nothing is drawn and the counters are all that remains.
type progress struct {
	rows     atomic.Int64
	bytes    atomic.Int64
	sstables atomic.Int64

	what  string
	start time.Time
	mu    sync.Mutex // serializes drawing
	bar   *progressbar.ProgressBar
	stop  chan struct{}
	done  chan struct{}
}

// newProgress starts a progress bar for a command named what over total
// input bytes (-1 when unknown, e.g. standard input).
func newProgress(env *Env, what string, total int64) *progress {
	p := &progress{what: what, start: time.Now()}
	if !env.stderrTerminal() {
		return p
	}
	if total <= 0 {
		total = -1
	}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(env.stderr()),
		progressbar.OptionSetDescription(what),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(progressInterval/2),
		progressbar.OptionSetRenderBlankState(true),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSpinnerType(14),
	)
	p.stop, p.done = make(chan struct{}), make(chan struct{})
	go p.loop()
	return p
}

func (p *progress) loop() {
	defer close(p.done)
	t := time.NewTicker(progressInterval)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.draw()
		}
	}
}

// draw redraws the bar from the counters.
func (p *progress) draw() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar == nil {
		return
	}
	rows := p.rows.Load()
	secs := time.Since(p.start).Seconds()
	desc := p.what
	if rows > 0 && secs > 0 {
		desc = fmt.Sprintf("%s %s rows (%s rows/s)", p.what, groupDigits(rows), groupDigits(int64(float64(rows)/secs)))
	}
	if n := p.sstables.Load(); n > 0 {
		desc += fmt.Sprintf(", %d SSTables", n)
	}
	p.bar.Describe(desc)
	_ = p.bar.Set64(p.bytes.Load())
}

func (p *progress) addRows(n int64)     { p.rows.Add(n) }
func (p *progress) addBytes(n int64)    { p.bytes.Add(n) }
func (p *progress) setBytes(n int64)    { p.bytes.Store(n) }
func (p *progress) addSSTables(n int64) { p.sstables.Add(n) }

// clear erases the bar's line so that a message can be printed.
func (p *progress) clear() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Clear()
	}
}

// finish stops redrawing and erases the bar.
func (p *progress) finish() {
	if p.bar == nil {
		return
	}
	close(p.stop)
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	_ = p.bar.Clear()
	_ = p.bar.Exit()
	p.bar = nil
}
