package exemap

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

func TestReadOnlyMappings(t *testing.T) {
	const exe = "/usr/bin/ddb local"
	text := `00400000-01059000 r-xp 00000000 fd:01 123 /usr/bin/ddb local
01059000-01e4c000 r--p 00c59000 fd:01 123 /usr/bin/ddb local
01e4c000-01eec000 rw-p 01a4c000 fd:01 123 /usr/bin/ddb local
01eec000-03f3b000 rw-p 00000000 00:00 0
7f0000000000-7f0000001000 r--s 00000000 fd:01 456 /data/ddblocal.db
7f0000002000-7f0000003000 r--p 00000000 fd:01 789 /usr/lib/libc.so.6
7ffd1000-7ffd2000 r-xp 00000000 00:00 0                          [vdso]
zz-01 r--p 00000000 fd:01 123 /usr/bin/ddb local
02000000-01000000 r--p 00000000 fd:01 123 /usr/bin/ddb local
0300`
	got := readOnlyMappings([]byte(text), exe)
	want := []mapping{{0x400000, 0x1059000}, {0x1059000, 0x1e4c000}}
	if len(got) != len(want) {
		t.Fatalf("got %d mappings %x, want %x", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("mapping %d = %x, want %x", i, got[i], want[i])
		}
	}
}

// TestTrimDropsExecutablePages: after Trim, fewer of the test binary's
// read-only pages are resident than before (the few the test runs
// afterwards come back; most do not).
func TestTrimDropsExecutablePages(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("Trim is a no-op off Linux")
	}
	before := exeReadOnlyRSS(t)
	Trim()
	after := exeReadOnlyRSS(t)
	if before == 0 || after >= before {
		t.Errorf("resident read-only executable pages: %d kB before Trim, %d kB after; want fewer", before, after)
	}
}

// exeReadOnlyRSS sums the Rss of the executable's r--p and r-xp mappings
// in /proc/self/smaps, in kB.
func exeReadOnlyRSS(t *testing.T) int {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in, total := false, 0
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		switch {
		case len(fs) >= 6 && strings.Contains(fs[0], "-"):
			in = (fs[1] == "r--p" || fs[1] == "r-xp") && fs[len(fs)-1] == exe
		case in && len(fs) == 3 && fs[0] == "Rss:":
			n, _ := strconv.Atoi(fs[1])
			total += n
		}
	}
	return total
}
