package store

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Ambiguous commits. An etcd commit whose answer is lost (a timeout, a
// connection or leader lost while it was in flight) may or may not have
// applied, and may still apply later. Each commit therefore also creates a
// fresh marker key, and only if that key is absent. To resolve a lost
// answer, resolve creates the marker itself, again only if absent: if it
// could, the commit never applied and now never will (its own compare
// fails), so the batch runs again; if the marker was there, the commit
// applied. Markers expire with a lease, long after any resolution ends.

// ErrUnknownOutcome is returned by Update when a commit's answer was lost
// and etcd did not answer again in time to say whether it applied: the
// write may or may not have happened, as with DynamoDB's own
// InternalServerError.
var ErrUnknownOutcome = errors.New("store: etcd commit outcome unknown")

// markerTTL is how long a commit marker outlives its commit, at least:
// far longer than resolve tries for.
const markerTTL = 30 * time.Second

// resolveFor bounds how long resolve tries to reach etcd, in requests'
// timeouts.
const resolveFor = 2

// Marker values: a commit's own, and the one resolve writes to void it.
const (
	markerCommitted = ""
	markerVoid      = "void"
)

// txn runs one commit's etcd transaction.
func (e *etcdEngine) txn(ctx context.Context, cmps []clientv3.Cmp, ops []clientv3.Op) (*clientv3.TxnResponse, error) {
	if e.commitHook != nil {
		return e.commitHook(ctx, cmps, ops)
	}
	return e.cli.Txn(ctx).If(cmps...).Then(ops...).Commit()
}

// definite reports whether a failed etcd transaction certainly did not
// apply: etcd refused it before proposing it.
func definite(err error) bool {
	if tooLarge(err) || errors.Is(err, rpctypes.ErrCompacted) || errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return true
	}
	switch status.Code(err) {
	case codes.InvalidArgument, codes.FailedPrecondition, codes.PermissionDenied, codes.Unauthenticated, codes.OutOfRange:
		return true
	}
	return false
}

// resolve decides whether the commit with marker, whose answer was lost
// with cause, applied: nil if it did, errConflict if it did not (and now
// never will: run it again), ErrUnknownOutcome if etcd did not answer
// within resolveFor.
func (e *etcdEngine) resolve(marker string, lease clientv3.LeaseID, cause error) error {
	deadline := time.Now().Add(resolveFor * e.timeout)
	for {
		ctx, cancel := context.WithTimeout(e.ctx, e.timeout)
		resp, err := e.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(marker), "=", 0)).
			Then(clientv3.OpPut(marker, markerVoid, clientv3.WithLease(lease))).
			Else(clientv3.OpGet(marker)).Commit()
		cancel()
		if err == nil {
			if resp.Succeeded {
				return errConflict
			}
			// Voided by an earlier attempt whose answer was lost too?
			kvs := resp.Responses[0].GetResponseRange().GetKvs()
			if len(kvs) == 1 && string(kvs[0].Value) == markerVoid {
				return errConflict
			}
			return nil
		}
		if e.ctx.Err() != nil || time.Now().After(deadline) {
			return fmt.Errorf("%w: %v; resolving it: %v", ErrUnknownOutcome, cause, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// randomID returns 16 random hex digits.
func randomID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}
