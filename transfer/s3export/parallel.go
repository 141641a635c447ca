package s3export

import (
	"github.com/ddblocal/ddblocal/transfer/iontext"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// Decoding each stored item and writing it in Ion costs about as much as
// compressing the line (more, when the Amazon Ion library's writer writes
// it). So AddStored in Ion gathers the stored items in runs (ionRun),
// encodes each run on a goroutine of its own, several runs at once, and
// writes the runs' lines through write, in the order the items came, on
// the caller's goroutine: the data files, their item counts and the billed
// size are those of its plain twin, Add of each decoded item, line for
// line (TestParallelIonIsPlain). DYNAMODB_JSON is transcoded without
// decoding and needs no help (AddStored).
//
// The runs' encoding and the writing of their lines compute within the
// CPU budget the process's imports share (Options.CPU, every core with
// spare processors while it computes: s3import.NewCoresBudget), each
// holding a unit for one run and yielding every 128 items, so that a
// foreground request finds a processor free and does not queue behind
// the export (a parallel export on every core held a probe GetItem's p99
// at 18-30 ms).

// A run is closed after runItems items or runBytes bytes of stored items,
// whichever comes first, so the runs in flight hold a bounded amount of
// memory whatever the items' sizes; one core encodes 128 small items in
// well under a millisecond, so a request's goroutine never queues long
// behind a run. One run more than the budget's units may be in flight:
// enough to keep every unit of the budget busy beside the goroutine that
// compresses, no more.
const (
	runItems = 128
	runBytes = 1 << 20
)

// ionRun is a run of stored items and, once done is closed, their lines.
type ionRun struct {
	src  []byte // the stored items, one after another
	ends []int  // where each stored item ends in src
	enc  *iontext.Encoder
	dec  storedDecoder
	done chan struct{}
	// Set by the goroutine that encodes the run: the lines of the items
	// that encoded (lines[lineEnds[i-1]:lineEnds[i]]), their billed size,
	// and the error that stopped it, if one did.
	lines    []byte
	lineEnds []int
	billed   int64
	err      error
}

// ionPipe is the Writer's runs: the one being gathered, those being
// encoded, oldest first, and those written, kept for reuse with their
// buffers and encoders.
type ionPipe struct {
	cur    *ionRun
	flight []*ionRun
	spare  []*ionRun
	inAir  int // how many runs may be in flight at once
}

// addStoredIon adds one stored item to the current run, starting the run
// when it is full and writing the oldest runs' lines when too many are in
// flight.
func (w *Writer) addStoredIon(b []byte) error {
	p := w.pipe
	if p == nil {
		p = &ionPipe{inAir: w.o.CPU.Units() + 1}
		w.pipe = p
	}
	if p.cur == nil {
		if n := len(p.spare); n > 0 {
			p.cur, p.spare = p.spare[n-1], p.spare[:n-1]
		} else {
			p.cur = &ionRun{enc: iontext.NewEncoder()}
		}
	}
	r := p.cur
	r.src = append(r.src, b...)
	r.ends = append(r.ends, len(r.src))
	if len(r.ends) < runItems && len(r.src) < runBytes {
		return nil
	}
	p.cur = nil
	w.launch(r)
	for len(p.flight) > p.inAir {
		if err := w.writeRun(); err != nil {
			return err
		}
	}
	return nil
}

// launch starts encoding r on a goroutine of its own.
func (w *Writer) launch(r *ionRun) {
	p := w.pipe
	r.done = make(chan struct{})
	p.flight = append(p.flight, r)
	go r.encode(w.o.CPU)
}

// encode writes the run's lines, within a unit of the CPU budget,
// yielding as it goes; it stops at the first item that fails.
func (r *ionRun) encode(cpu *s3import.Budget) {
	defer close(r.done)
	cpu.Acquire()
	defer cpu.Release()
	start := 0
	for i, end := range r.ends {
		cpu.Pause(i)
		it, size, err := r.dec.decode(r.src[start:end])
		if err == nil {
			r.lines, err = r.enc.AppendRecord(r.lines, iontext.Field{Name: "Item", Item: it})
		}
		if err != nil {
			r.err = err
			return
		}
		r.lineEnds = append(r.lineEnds, len(r.lines))
		r.billed += int64(size)
		start = end
	}
}

// writeRun waits for the oldest run in flight and writes its lines,
// within a unit of the CPU budget, yielding as it goes.
func (w *Writer) writeRun() error {
	p := w.pipe
	r := p.flight[0]
	p.flight[0] = nil
	p.flight = p.flight[1:]
	<-r.done
	w.billed += r.billed
	w.o.CPU.Acquire()
	w.holding = true
	err := w.writeLines(r)
	w.holding = false
	w.o.CPU.Release()
	if err != nil {
		return err
	}
	r.src, r.ends, r.lines, r.lineEnds, r.billed = r.src[:0], r.ends[:0], r.lines[:0], r.lineEnds[:0], 0
	p.spare = append(p.spare, r)
	return nil
}

// writeLines writes the lines of r, then the error that stopped it.
func (w *Writer) writeLines(r *ionRun) error {
	start := 0
	for i, end := range r.lineEnds {
		w.o.CPU.Pause(i)
		w.line = r.lines[start:end]
		if err := w.write(); err != nil {
			return err
		}
		start = end
	}
	w.line = nil
	return r.err
}

// flush encodes and writes every item AddStored has gathered. An error
// sticks: the Writer's later calls return it.
func (w *Writer) flush() error {
	if w.err != nil || w.pipe == nil {
		return w.err
	}
	p := w.pipe
	if p.cur != nil {
		w.launch(p.cur)
		p.cur = nil
	}
	for len(p.flight) > 0 {
		if err := w.writeRun(); err != nil {
			w.err = err
			w.dropRuns()
			return err
		}
	}
	return nil
}

// dropRuns forgets the runs in flight; their goroutines end by themselves.
func (w *Writer) dropRuns() {
	if w.pipe != nil {
		w.pipe.cur, w.pipe.flight = nil, nil
	}
}
