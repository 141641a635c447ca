package table

import (
	"bytes"
	"encoding/json"
	"runtime"
	"sync"
	"time"

	"github.com/ddblocal/ddblocal/store"
	"github.com/ddblocal/ddblocal/transfer/s3import"
)

// Transfer jobs (exports, imports, bulk loads) run where this process owns
// the transfers: one claim, store.Ownership "transfers". Alone, a process
// always owns them; in cluster mode the front-ends sharing the store elect
// one owner on an etcd session lease, and when it dies the next one
// elected takes its jobs over. A request only records its job IN_PROGRESS
// and wakes the runner; the owner's runner starts every job recorded
// IN_PROGRESS (or CANCELLING) that it is not already running, so the same
// path starts a new job, resumes the jobs a killed server left, and hands
// a dead front-end's jobs to another. Every write of a job's progress and
// its end is fenced by the ownership: a deposed owner's job stops without
// recording anything, and its successor resumes it from the last
// checkpoint (imports and bulk loads) or from the start (exports, whose
// data files have names derived from the export id, so a second attempt
// overwrites the first's).

// transferPoll is how often the owner looks for jobs in cluster mode,
// where another front-end may have recorded one.
const transferPoll = 250 * time.Millisecond

// transferRunner is this process's part: which jobs it runs now, and the
// wake-up a new job's request sends.
type transferRunner struct {
	wake    chan struct{}
	mu      sync.Mutex
	running map[string]bool // by job key
	// cpu bounds the imports', bulk loads' and Ion exports' computing goroutines
	// together to the cores, with spare processors for foreground requests
	// to find free (s3import.NewCoresBudget).
	cpu *s3import.Budget
}

// startTransfers starts the runner on s.background.
func (s *Service) startTransfers() {
	s.transfers = &transferRunner{wake: make(chan struct{}, 1), running: map[string]bool{},
		cpu: s3import.NewCoresBudget(runtime.GOMAXPROCS(0))}
	// The store's checkpointer computes within the same budget: a bulk
	// load's log is checkpointed while the load runs.
	s.db.SetPacer(s.transfers.cpu)
	s.background.Go(s.runTransfers)
}

// wakeTransfers tells the runner a job was recorded.
func (s *Service) wakeTransfers() {
	select {
	case s.transfers.wake <- struct{}{}:
	default:
	}
}

// runTransfers claims the transfers and, while it holds them, starts the
// jobs waiting, until the Service closes.
func (s *Service) runTransfers() {
	o := s.db.Own("transfers")
	defer o.Close()
	var tick <-chan time.Time
	if s.db.Shared() {
		t := time.NewTicker(transferPoll)
		defer t.Stop()
		tick = t.C
	}
	for {
		if o.Held() {
			if err := s.startPending(o); err != nil && s.bg.Err() == nil {
				s.logError("transfer: looking for jobs", "err", err)
			}
		}
		select {
		case <-s.bg.Done():
			return
		case <-s.transfers.wake:
		case <-tick:
		}
	}
}

// pendingJob is a job recorded as running.
type pendingJob struct {
	ref jobRef
	raw []byte
}

// startPending starts each job recorded IN_PROGRESS or CANCELLING that
// this process does not run yet.
func (s *Service) startPending(o *store.Ownership) error {
	var pending []pendingJob
	// Locked before the view begins: a job that ends records its end before
	// it leaves running (jobDone), so the view sees either the job running
	// here or its end, never neither.
	s.transfers.mu.Lock()
	defer s.transfers.mu.Unlock()
	err := s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(transfersSpace)
		if sp == nil {
			return nil
		}
		sp.Ascend(nil, nil, func(k, v []byte) bool {
			ref, ok := parseJobKey(k)
			if ok && !s.transfers.running[string(k)] && activeJob(v) {
				s.transfers.running[string(k)] = true
				pending = append(pending, pendingJob{ref, bytes.Clone(v)})
			}
			return true
		})
		return nil
	})
	for _, p := range pending {
		s.background.Go(func() {
			defer s.jobDone(p.ref)
			s.runJob(o, p)
		})
	}
	return err
}

// jobDone forgets a job this process ran, which a later pass may start
// again if it is still recorded running (it was interrupted).
func (s *Service) jobDone(ref jobRef) {
	s.transfers.mu.Lock()
	delete(s.transfers.running, string(jobKey(ref.region, ref.kind, ref.id)))
	s.transfers.mu.Unlock()
}

// activeJob reports whether a job record says the job is running.
func activeJob(raw []byte) bool {
	var j struct {
		Desc struct{ ExportStatus, ImportStatus, BulkOperationStatus string }
	}
	if json.Unmarshal(raw, &j) != nil {
		return false
	}
	d := j.Desc
	return d.ExportStatus == "IN_PROGRESS" || d.ImportStatus == "IN_PROGRESS" ||
		d.BulkOperationStatus == "IN_PROGRESS" || d.BulkOperationStatus == "CANCELLING"
}

// runJob runs (or resumes) one job from its record.
func (s *Service) runJob(o *store.Ownership, p pendingJob) {
	region, id := p.ref.region, p.ref.id
	var err error
	switch p.ref.kind {
	case kindExport:
		var j exportJob
		if err = json.Unmarshal(p.raw, &j); err == nil {
			s.runExport(o, region, id, &j)
		}
	case kindImport:
		var j importJob
		if err = json.Unmarshal(p.raw, &j); err == nil {
			s.runImport(o, region, id, &j)
		}
	case kindBulk:
		var j bulkJob
		if err = json.Unmarshal(p.raw, &j); err == nil {
			s.runBulk(o, region, id, &j)
		}
	}
	if err != nil {
		s.logError("transfer: corrupt job record", "kind", p.ref.kind, "id", id, "err", err)
	}
}
