package main

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPU(t *testing.T) {
	tests := []struct {
		name    string
		line    string
		want    time.Duration
		wantErr bool
	}{
		{
			name: "typical",
			// utime 1234 and stime 567 ticks of 10 ms.
			line: "4242 (ddblocal) S 1 4242 4242 0 -1 4194560 12345 0 0 0 1234 567 0 0 20 0 12 0 98765 1234567890 4321 18446744073709551615 1 1 0 0 0 0 0 0 2143420159 0 0 0 17 1 0 0 0 0 0\n",
			want: 18010 * time.Millisecond,
		},
		{
			name: "comm with spaces and parenthesis",
			line: "7 (my (odd) proc) R 1 7 7 0 -1 0 0 0 0 0 3 4 0 0 20 0 1 0 1 1 1",
			want: 70 * time.Millisecond,
		},
		{name: "no comm", line: "7 my proc R 1", wantErr: true},
		{name: "truncated", line: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 3", wantErr: true},
		{name: "bad utime", line: "7 (x) R 1 7 7 0 -1 0 0 0 0 0 x 4 0", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatCPU(tt.line)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("cpu = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestParseStatusRSS(t *testing.T) {
	tests := []struct {
		name    string
		status  string
		want    int64
		wantErr bool
	}{
		{
			name:   "typical",
			status: "Name:\tddblocal\nUmask:\t0022\nState:\tS (sleeping)\nVmPeak:\t  812344 kB\nVmHWM:\t   40000 kB\nVmRSS:\t   31236 kB\nRssAnon:\t   20000 kB\nThreads:\t12\n",
			want:   31236 * 1024,
		},
		{name: "kernel thread has none", status: "Name:\tkthreadd\nState:\tS (sleeping)\n", wantErr: true},
		{name: "odd unit", status: "VmRSS:\t 12 MB\n", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseStatusRSS(bufio.NewScanner(strings.NewReader(tt.status)))
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("rss = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestProcSelf reads this test process's own figures where /proc exists.
func TestProcSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc")
	}
	if _, err := procCPU("self"); err != nil {
		t.Errorf("procCPU(self): %v", err)
	}
	rss, err := procRSS("self")
	if err != nil || rss <= 0 {
		t.Errorf("procRSS(self) = %d, %v; want > 0, nil", rss, err)
	}
}
