package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
)

// startSample is what one start of one server showed: the times from exec
// to its port accepting a connection and to its first answer, and what the
// process had used when it was killed right after that answer.
type startSample struct {
	listen, answer time.Duration
	user, sys      time.Duration // CPU, from wait4
	faults         int64         // minor page faults
	rss            int64         // VmRSS at the first answer, bytes; -1 unknown
	inits          initSummary   // from GODEBUG=inittrace=1; packages 0 without
	byPackage      map[string]float64
	startup        time.Duration // ddblocal's main to listening; 0 when it did not say
}

// starts runs the start mode: -starts rounds, each starting every server
// once (the order rotating by one each round), measuring its start and
// killing it at once; then the table of medians and ratios paired by round,
// and with -inittrace where the package initialisation went.
func (b *bench) starts(ctx context.Context) error {
	specs := slices.Clone(b.cfg.servers)
	if b.cfg.inittrace {
		for i := range specs {
			specs[i].env = append(slices.Clone(specs[i].env), "GODEBUG=inittrace=1")
		}
	}
	samples := make([][]startSample, len(specs))
	for r := range b.cfg.starts {
		for _, i := range rotation(len(specs), r) {
			s, err := measureStart(ctx, specs[i])
			if err != nil {
				return fmt.Errorf("round %d: %w", r+1, err)
			}
			writeStartLine(b.out, r+1, specs[i].name, s)
			samples[i] = append(samples[i], s)
		}
	}
	writeStartTable(b.out, b.cfg.starts, specs, samples)
	if b.cfg.inittrace {
		writeInitGroups(b.out, specs, samples)
	}
	return nil
}

// measureStart starts spec, reads its RSS as soon as it has answered, kills
// it, and reads the process's CPU time and page faults from wait4 (its
// ru_maxrss is no use: Linux carries the forking parent's over exec).
func measureStart(ctx context.Context, spec serverSpec) (startSample, error) {
	srv, err := startServer(ctx, spec)
	if err != nil {
		return startSample{}, err
	}
	rss, err := procRSS(srv.pid)
	if err != nil {
		rss = -1
	}
	srv.stop()
	s := startSample{listen: srv.listenDur, answer: srv.startDur, rss: rss, byPackage: srv.log.initsByPackage()}
	s.inits, _ = srv.log.summary()
	s.startup, _ = srv.log.startupField()
	if ru, ok := srv.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		s.user = time.Duration(ru.Utime.Nano())
		s.sys = time.Duration(ru.Stime.Nano())
		s.faults = ru.Minflt
	}
	return s, nil
}

// writeStartLine writes one start's figures, so a reader can see every value
// the medians come from.
func writeStartLine(w io.Writer, round int, name string, s startSample) {
	fmt.Fprintf(w, "round %d %-10s listen %.2fms answer %.2fms cpu %.1fms (user %.1f sys %.1f) faults %d rss %.1fMiB",
		round, name, ms64(s.listen), ms64(s.answer), ms64(s.user+s.sys), ms64(s.user), ms64(s.sys), s.faults, mib(s.rss))
	if s.inits.packages > 0 {
		fmt.Fprintf(w, " | inits %d %.1fms main at %.1fms", s.inits.packages, s.inits.clock, s.inits.mainAt)
	}
	if s.startup > 0 {
		fmt.Fprintf(w, " | startup %.2fms", ms64(s.startup))
	}
	fmt.Fprintln(w)
}

// startRow is one metric of the start table; ok false when not measured.
type startRow struct {
	label string
	value func(startSample) (float64, bool)
}

var startRows = []startRow{
	{"exec to listening ms", func(s startSample) (float64, bool) { return ms64(s.listen), s.listen > 0 }},
	{"exec to first answer ms", func(s startSample) (float64, bool) { return ms64(s.answer), s.answer > 0 }},
	{"listening to answer ms", func(s startSample) (float64, bool) { return ms64(s.answer - s.listen), s.answer > 0 }},
	{"CPU ms (user+sys)", func(s startSample) (float64, bool) { return ms64(s.user + s.sys), s.user+s.sys > 0 }},
	{"user CPU ms", func(s startSample) (float64, bool) { return ms64(s.user), s.user+s.sys > 0 }},
	{"system CPU ms", func(s startSample) (float64, bool) { return ms64(s.sys), s.user+s.sys > 0 }},
	{"minor faults", func(s startSample) (float64, bool) { return float64(s.faults), s.faults > 0 }},
	{"RSS at first answer MiB", func(s startSample) (float64, bool) { return mib(s.rss), s.rss > 0 }},
	{"packages with init work", func(s startSample) (float64, bool) { return float64(s.inits.packages), s.inits.packages > 0 }},
	{"inits' clock, summed ms", func(s startSample) (float64, bool) { return s.inits.clock, s.inits.packages > 0 }},
	{"inits allocated kB", func(s startSample) (float64, bool) { return float64(s.inits.bytes) / 1e3, s.inits.packages > 0 }},
	{"runtime start to main ms", func(s startSample) (float64, bool) { return s.inits.mainAt, s.inits.packages > 0 }},
	{"main to listening ms (log)", func(s startSample) (float64, bool) { return ms64(s.startup), s.startup > 0 }},
	{"exec to runtime start ms", func(s startSample) (float64, bool) {
		return ms64(s.listen-s.startup) - s.inits.mainAt, s.startup > 0 && s.inits.packages > 0
	}},
}

// writeStartTable writes per metric and server the median and [min–max]
// over the rounds, and each further server's ratio to the first, paired by
// round.
func writeStartTable(w io.Writer, rounds int, specs []serverSpec, samples [][]startSample) {
	fmt.Fprintf(w, "\n== starts: %d rounds, polled every %s; median [min–max] over rounds; ratios paired by round\n", rounds, startPoll)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	header := []string{"metric"}
	for _, s := range specs {
		header = append(header, s.name)
	}
	for _, s := range specs[1:] {
		header = append(header, s.name+"/"+specs[0].name)
	}
	fmt.Fprintln(tw, strings.Join(header, "\t"))
	for _, rw := range startRows {
		value := func(i, r int) (float64, bool) {
			if r >= len(samples[i]) {
				return 0, false
			}
			return rw.value(samples[i][r])
		}
		cells := []string{rw.label}
		any := false
		for i := range specs {
			vals := collect(rounds, func(r int) (float64, bool) { return value(i, r) })
			cells = append(cells, spreadCell(vals))
			any = any || len(vals) > 0
		}
		if !any {
			continue
		}
		for i := 1; i < len(specs); i++ {
			cells = append(cells, spreadCell(collect(rounds, func(r int) (float64, bool) {
				a, okA := value(i, r)
				b, okB := value(0, r)
				return a / b, okA && okB && b != 0
			})))
		}
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
}

// initTopPackages is how many single packages the init table lists.
const initTopPackages = 12

// writeInitGroups writes, per server, the median over rounds of the init
// clock of each group of packages (a module, or the standard library) and
// of the largest single packages: where the initialisation goes.
func writeInitGroups(w io.Writer, specs []serverSpec, samples [][]startSample) {
	for i, spec := range specs {
		groups := map[string][]float64{}
		pkgs := map[string][]float64{}
		for _, s := range samples[i] {
			sums := map[string]float64{}
			for pkg, ms := range s.byPackage {
				sums[initGroup(pkg)] += ms
				pkgs[pkg] = append(pkgs[pkg], ms)
			}
			for g, ms := range sums {
				groups[g] = append(groups[g], ms)
			}
		}
		if len(groups) == 0 {
			continue
		}
		fmt.Fprintf(w, "\n== %s: init clock by group, median over rounds (ms)\n", spec.name)
		writeMedians(w, groups, len(groups))
		fmt.Fprintf(w, "-- the %d largest packages\n", initTopPackages)
		writeMedians(w, pkgs, initTopPackages)
	}
}

// writeMedians writes the n keys of vals with the largest medians, largest
// first, each with its median.
func writeMedians(w io.Writer, vals map[string][]float64, n int) {
	type entry struct {
		name string
		med  float64
	}
	var es []entry
	for _, name := range slices.Sorted(maps.Keys(vals)) {
		med, _, _ := spread(vals[name])
		es = append(es, entry{name, med})
	}
	slices.SortStableFunc(es, func(a, b entry) int {
		switch {
		case a.med > b.med:
			return -1
		case a.med < b.med:
			return 1
		}
		return 0
	})
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for _, e := range es[:min(n, len(es))] {
		fmt.Fprintf(tw, "  %s\t%.2f\n", e.name, e.med)
	}
	tw.Flush()
}

// initGroup names the group of package pkg for the init table: "std" for
// the standard library (no dot in its first path element), else its module
// root as far as the path shows it: three elements on github.com and
// golang.org/x, two elsewhere (go.etcd.io/etcd, google.golang.org/grpc).
func initGroup(pkg string) string {
	parts := strings.Split(pkg, "/")
	switch {
	case !strings.Contains(parts[0], "."):
		return "std"
	case parts[0] == "github.com" || parts[0] == "golang.org" || parts[0] == "gitlab.com":
		return strings.Join(parts[:min(3, len(parts))], "/")
	}
	return strings.Join(parts[:min(2, len(parts))], "/")
}
