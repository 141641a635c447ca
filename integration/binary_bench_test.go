package integration

import (
	"bufio"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// BenchmarkStartup measures exec → first successful `GET /` of an in-memory
// server, the time a CI job waits before its tests can start. It also
// reports the process's resident memory right after start-up (rss-KiB).
func BenchmarkStartup(b *testing.B) {
	bin := binaryPath(b)
	dir := b.TempDir()
	env := testEnv(b)
	// A fresh connection per poll: a refused dial returns at once, and no
	// idle connection outlives the process.
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: time.Second}
	var rssKiB float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		port := freePort(b)
		url := "http://127.0.0.1:" + port + "/"
		cmd := exec.Command(bin, "--in-memory", "--host", "127.0.0.1", "--port", port)
		cmd.Dir, cmd.Env = dir, env
		b.StartTimer()

		if err := cmd.Start(); err != nil {
			b.Fatal(err)
		}
		waitHealthy(b, hc, url)

		b.StopTimer()
		rssKiB += vmRSSKiB(b, cmd.Process.Pid)
		// SIGTERM rather than SIGKILL so the in-memory scratch file is removed.
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := cmd.Wait(); err != nil {
			b.Fatalf("ddblocal exit after SIGTERM: %v", err)
		}
		b.StartTimer()
	}
	b.ReportMetric(rssKiB/float64(b.N), "rss-KiB")
}

// freePort returns a TCP port that was free a moment ago on 127.0.0.1.
func freePort(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	return strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
}

// waitHealthy polls url until it answers 200. It sleeps 50µs between
// refused dials: tight enough not to blur the measurement, loose enough not
// to starve the starting server of a CPU on a 2-core machine.
func waitHealthy(b *testing.B, hc *http.Client, url string) {
	deadline := time.Now().Add(listenTimeout)
	for time.Now().Before(deadline) {
		resp, err := hc.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return
			}
		}
		time.Sleep(50 * time.Microsecond)
	}
	b.Fatalf("%s not healthy within %s", url, listenTimeout)
}

// vmRSSKiB reads VmRSS (in kB) from /proc/PID/status.
func vmRSSKiB(b *testing.B, pid int) float64 {
	f, err := os.Open("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 64)
			if err != nil {
				b.Fatalf("VmRSS line %q: %v", sc.Text(), err)
			}
			return kb
		}
	}
	b.Fatalf("no VmRSS in /proc/%d/status", pid)
	return 0
}
