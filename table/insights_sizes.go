package table

import (
	"errors"
	"fmt"
	"sync"

	"github.com/ddblocal/ddblocal/insights"
	"github.com/ddblocal/ddblocal/store"
)

// The sizes an insights report shows (items and bytes per partition,
// distinct partition keys, the largest item collections, the key sample)
// are maintained, not measured per request: the first report of a table
// in this process walks each of its spaces once and follows the store's
// commits from there (store.Follow), each change of an entry updating the
// space's insights.Sizes. Writers pay for a note of each changed key of a
// followed space only, and nothing until a table's insights are first
// asked for; a report then takes a time independent of the table's size.
// After a restart the first report walks again (nothing of it is stored).
// Over etcd, where other front-ends write too, the store follows a space
// with a watch, and each report first waits until it has caught up with
// the store (Following.CatchUp); when it cannot within a request's timeout
// that report walks, and a following that has ended (a watch broken past
// etcd's compacted history) is walked and followed again.

// insightsSizes holds the Sizes this process maintains, by space ID.
type insightsSizes struct {
	mu sync.Mutex // held while a space is walked: one walk per space
	m  map[string]*followedSizes
	// unfollowable: the store cannot follow; reports walk.
	unfollowable bool
}

// followedSizes is one followed space's sizes.
type followedSizes struct {
	sizes *insights.Sizes
	f     *store.Following
}

// sizers returns the Sizers of m's spaces: maintained ones, unless walk is
// set or the store cannot follow.
func (s *Service) sizers(m *tableMeta, spaces []insightsSpace, walk bool) ([]*insights.Sizer, error) {
	if walk {
		return s.walkedSizers(m, spaces)
	}
	out := make([]*insights.Sizer, len(spaces))
	for i, sp := range spaces {
		z, err := s.maintainedSizes(m, sp)
		if errors.Is(err, store.ErrNotFollowable) {
			return s.walkedSizers(m, spaces)
		}
		if err != nil {
			return nil, err
		}
		out[i] = s.insights.SizerOf(m.ID, sp.index, z)
	}
	return out, nil
}

// maintainedSizes returns the Sizes of space sp of m, following the space
// (after walking it once) on first use or after it was dropped.
func (s *Service) maintainedSizes(m *tableMeta, sp insightsSpace) (*insights.Sizes, error) {
	s.sizes.mu.Lock()
	defer s.sizes.mu.Unlock()
	if s.sizes.unfollowable {
		return nil, store.ErrNotFollowable
	}
	if fs := s.sizes.m[sp.id]; fs != nil && !fs.f.Ended() {
		err := fs.f.CatchUp()
		switch {
		case err == nil:
			return fs.sizes, nil
		case !fs.f.Ended():
			// Lagging: this report walks instead.
			return nil, fmt.Errorf("%w: %v", store.ErrNotFollowable, err)
		}
	}
	for id, fs := range s.sizes.m {
		if fs.f.Ended() {
			delete(s.sizes.m, id) // a dropped space: its table or index is gone
		}
	}
	z := s.insights.NewSizes(m.ID, sp.index, sp.prefixLen)
	walk := func(tx *store.Tx) error {
		space := tx.Space(sp.id)
		if space == nil {
			return nil
		}
		return z.Load(func(entry func(key []byte, size int64)) error {
			return space.Ascend(nil, nil, func(k, v []byte) bool {
				entry(k, entrySize(v))
				return true
			})
		})
	}
	apply := func(changes []store.Change) {
		for _, c := range changes {
			z.Change(c.Key, c.Old, c.New)
		}
	}
	f, err := s.db.Follow(sp.id, entrySize, walk, apply)
	if errors.Is(err, store.ErrNotFollowable) {
		s.sizes.unfollowable = true
	}
	if err != nil {
		return nil, err
	}
	if s.sizes.m == nil {
		s.sizes.m = map[string]*followedSizes{}
	}
	s.sizes.m[sp.id] = &followedSizes{sizes: z, f: f}
	return z, nil
}

// stopSizes stops following every space (Close).
func (s *Service) stopSizes() {
	s.sizes.mu.Lock()
	defer s.sizes.mu.Unlock()
	for id, fs := range s.sizes.m {
		fs.f.Stop()
		delete(s.sizes.m, id)
	}
}
