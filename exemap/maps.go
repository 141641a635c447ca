package exemap

// mapping is an address range of /proc/self/maps.
type mapping struct{ start, end uintptr }

// readOnlyMappings returns the private read-only mappings of file path in
// a /proc/PID/maps text ("start-end perms offset dev inode path" per line):
// permissions r--p or r-xp. A line it cannot parse is skipped.
func readOnlyMappings(text []byte, path string) []mapping {
	var out []mapping
	for len(text) > 0 {
		line := text
		if i := indexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if m, ok := parseLine(line, path); ok {
			out = append(out, m)
		}
	}
	return out
}

// parseLine parses one maps line, reporting whether it is a read-only
// private mapping of path.
func parseLine(line []byte, path string) (mapping, bool) {
	f := fields(line, 6)
	if len(f) < 6 || string(f[5]) != path {
		return mapping{}, false
	}
	perms := string(f[1])
	if perms != "r--p" && perms != "r-xp" {
		return mapping{}, false
	}
	dash := indexByte(f[0], '-')
	if dash < 0 {
		return mapping{}, false
	}
	start, ok1 := parseHex(f[0][:dash])
	end, ok2 := parseHex(f[0][dash+1:])
	if !ok1 || !ok2 || end <= start {
		return mapping{}, false
	}
	return mapping{start, end}, true
}

// fields splits line on spaces into at most n fields, the last holding the
// rest of the line (a path may contain spaces).
func fields(line []byte, n int) [][]byte {
	var out [][]byte
	for len(line) > 0 && len(out) < n-1 {
		for len(line) > 0 && line[0] == ' ' {
			line = line[1:]
		}
		i := indexByte(line, ' ')
		if i < 0 {
			break
		}
		out = append(out, line[:i])
		line = line[i+1:]
	}
	for len(line) > 0 && line[0] == ' ' {
		line = line[1:]
	}
	if len(line) > 0 {
		out = append(out, line)
	}
	return out
}

func indexByte(b []byte, c byte) int {
	for i, x := range b {
		if x == c {
			return i
		}
	}
	return -1
}

func parseHex(b []byte) (uintptr, bool) {
	if len(b) == 0 || len(b) > 16 {
		return 0, false
	}
	var v uintptr
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | uintptr(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | uintptr(c-'a'+10)
		default:
			return 0, false
		}
	}
	return v, true
}
