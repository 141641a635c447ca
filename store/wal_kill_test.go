package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
)

// killChildEnv names the database a TestKillChild process writes to, and
// killModeEnv its sync mode.
const (
	killChildEnv = "DDBLOCAL_STORE_KILL_CHILD"
	killModeEnv  = "DDBLOCAL_STORE_KILL_MODE"
)

// TestKillChild is the writer that TestKilledProcessKeepsAckedWrites kills;
// run on its own it does nothing. Eight goroutines put distinct keys and
// print each key once its Update has returned.
func TestKillChild(t *testing.T) {
	path := os.Getenv(killChildEnv)
	if path == "" {
		t.Skip("only runs as TestKilledProcessKeepsAckedWrites's child")
	}
	mode, err := ParseSyncMode(os.Getenv(killModeEnv))
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	db, err := Open(Options{Path: path, Sync: mode})
	if err != nil {
		fmt.Println("open:", err)
		os.Exit(1)
	}
	mustUpdate(t, db, func(tx *Tx) error { return tx.CreateSpace("t") })
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; ; i += 8 {
				key := []byte(strconv.Itoa(i))
				if err := db.Update(context.Background(), func(tx *Tx) error {
					return tx.Space("t").Put(key, key)
				}); err != nil {
					return
				}
				mu.Lock()
				fmt.Fprintln(out, i)
				out.Flush()
				mu.Unlock()
			}
		})
	}
	wg.Wait()
}

// TestKilledProcessKeepsAckedWrites kills (SIGKILL) a process in the middle
// of concurrent durable writes: every write whose Update had returned must
// be there when the database is opened again, in both sync modes (with
// SyncBackground most of them were never fdatasynced).
func TestKilledProcessKeepsAckedWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	for _, mode := range []SyncMode{SyncBackground, SyncAlways} {
		t.Run(mode.String(), func(t *testing.T) { killAndReopen(t, mode) })
	}
}

func killAndReopen(t *testing.T, mode SyncMode) {
	path := filepath.Join(t.TempDir(), "db")
	acked := runKillChild(t, "^TestKillChild$", []string{killChildEnv + "=" + path, killModeEnv + "=" + mode.String()},
		func(line string) { t.Fatalf("child said %q", line) },
		func(acked map[int]bool) bool { return len(acked) >= 2000 })
	if len(acked) < 2000 {
		t.Fatalf("child acknowledged only %d writes", len(acked))
	}
	checkAcked(t, path, acked, func(n int) []byte { return []byte(strconv.Itoa(n)) })
}

// runKillChild runs this test binary's child test run with env added,
// reads the numbers it prints (writes whose Update returned) into acked
// and hands every other line to other, until enough says so or the child
// stops; then it kills the child (SIGKILL) and returns acked.
func runKillChild(t *testing.T, run string, env []string, other func(line string), enough func(acked map[int]bool) bool) map[int]bool {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run", run)
	cmd.Env = append(os.Environ(), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := map[int]bool{}
	sc := bufio.NewScanner(stdout)
	for !enough(acked) && sc.Scan() {
		if n, err := strconv.Atoi(sc.Text()); err == nil {
			acked[n] = true
		} else {
			other(sc.Text())
		}
	}
	_ = cmd.Process.Kill()
	_ = cmd.Wait()
	return acked
}

// checkAcked opens the database at path and checks that every acknowledged
// write n is there: key(n) holding n in decimal.
func checkAcked(t *testing.T, path string, acked map[int]bool, key func(n int) []byte) {
	t.Helper()
	db, err := Open(Options{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustView(t, db, func(tx *Tx) error {
		sp := tx.Space("t")
		if sp == nil {
			t.Fatal("space lost")
		}
		for n := range acked {
			if got, want := sp.Get(key(n)), strconv.Itoa(n); string(got) != want {
				t.Errorf("acknowledged write %d lost (got %q)", n, got)
			}
		}
		return nil
	})
}
