package integration

// The Dockerfile, read as BuildKit (`docker build`, `docker buildx build`)
// reads it, without a daemon: no BuildKit runs on the CI machine (podman
// builds the image with buildah), so what BuildKit alone decides is checked
// here against its documented rules: the syntax directive; instruction and
// stage-name casing; stages referenced (FROM, COPY --from) only after they
// are defined; every variable in a FROM line a global ARG or one of
// BuildKit's automatic platform ARGs, and every ARG default naming a stage
// that exists (FROM ${BINARY}); every variable in RUN and COPY declared in
// its stage; RUN --mount types; one CMD, ENTRYPOINT and HEALTHCHECK per
// stage, in JSON form; absolute WORKDIRs (BuildKit's build checks
// ConsistentInstructionCasing, FromAsCasing, StageNameCasing,
// DuplicateStageName, UndefinedArgInFrom, InvalidDefaultArgInFrom,
// UndefinedVar, MultipleInstructionsDisallowed, JSONArgsRecommended,
// WorkdirRelativePath).

import (
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// dockerInstr is one instruction of a Dockerfile, continuation lines joined.
type dockerInstr struct {
	Line int    // line of its first physical line
	Cmd  string // the instruction keyword, as written
	Args string
}

// dockerDirective matches a parser directive such as # syntax=...
var dockerDirective = regexp.MustCompile(`^#\s*([a-z]+)\s*=\s*(\S+)$`)

// parseDockerfile returns a Dockerfile's parser directives (leading
// `# key=value` comments) and its instructions.
func parseDockerfile(text string) (map[string]string, []dockerInstr, error) {
	directives := map[string]string{}
	var instrs []dockerInstr
	var cur strings.Builder
	start, inDirectives := 0, true
	for n, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimSpace(line)
		if inDirectives {
			if m := dockerDirective.FindStringSubmatch(trimmed); m != nil {
				directives[m[1]] = m[2]
				continue
			}
			inDirectives = false
		}
		if cur.Len() == 0 && (trimmed == "" || strings.HasPrefix(trimmed, "#")) {
			continue
		}
		if cur.Len() == 0 {
			start = n + 1
		} else if strings.HasPrefix(trimmed, "#") {
			continue // a comment inside a continued instruction
		}
		body, more := strings.CutSuffix(trimmed, `\`)
		cur.WriteString(body + " ")
		if more {
			continue
		}
		cmd, args, _ := strings.Cut(strings.TrimSpace(cur.String()), " ")
		instrs = append(instrs, dockerInstr{Line: start, Cmd: cmd, Args: strings.TrimSpace(args)})
		cur.Reset()
	}
	if cur.Len() > 0 {
		return nil, nil, fmt.Errorf("line %d: the last instruction ends with a continuation", start)
	}
	return directives, instrs, nil
}

// buildkitAutoArgs are the platform ARGs BuildKit defines in the global
// scope (usable in FROM without a declaration).
var buildkitAutoArgs = []string{"BUILDPLATFORM", "BUILDOS", "BUILDARCH", "BUILDVARIANT",
	"TARGETPLATFORM", "TARGETOS", "TARGETARCH", "TARGETVARIANT"}

// dockerVars matches $NAME and ${NAME} (with an optional :- or :+ part).
var dockerVars = regexp.MustCompile(`\$(?:\{([A-Za-z_][A-Za-z0-9_]*)[^}]*\}|([A-Za-z_][A-Za-z0-9_]*))`)

func varsIn(s string) []string {
	var names []string
	for _, m := range dockerVars.FindAllStringSubmatch(s, -1) {
		names = append(names, m[1]+m[2])
	}
	return names
}

// dockerStage is what the checks keep of one stage.
type dockerStage struct {
	name     string
	declared []string       // ARG and ENV names in scope
	once     map[string]int // CMD, ENTRYPOINT, HEALTHCHECK: line of the first
}

// lintDockerfile applies BuildKit's rules listed above; it returns one
// message per violation.
func lintDockerfile(text string) []string {
	directives, instrs, err := parseDockerfile(text)
	if err != nil {
		return []string{err.Error()}
	}
	var bad []string
	fail := func(line int, format string, a ...any) {
		bad = append(bad, fmt.Sprintf("line %d: ", line)+fmt.Sprintf(format, a...))
	}
	if s := directives["syntax"]; !strings.HasPrefix(s, "docker/dockerfile:1") {
		fail(1, "no `# syntax=docker/dockerfile:1` directive (RUN --mount needs the 1.x frontend): %q", s)
	}
	global := map[string]string{} // global ARG name: default
	var stages []*dockerStage
	var st *dockerStage
	for _, in := range instrs {
		if in.Cmd != strings.ToUpper(in.Cmd) {
			fail(in.Line, "instruction %q is not upper case (ConsistentInstructionCasing)", in.Cmd)
		}
		cmd := strings.ToUpper(in.Cmd)
		if st == nil && cmd != "FROM" && cmd != "ARG" {
			fail(in.Line, "%s before the first FROM", cmd)
			continue
		}
		switch cmd {
		case "ARG":
			for _, decl := range strings.Fields(in.Args) {
				name, def, _ := strings.Cut(decl, "=")
				if st == nil {
					global[name] = def
				} else {
					st.declared = append(st.declared, name)
				}
			}
		case "ENV":
			name, _, _ := strings.Cut(in.Args, "=")
			st.declared = append(st.declared, strings.Fields(name)[0])
		case "FROM":
			st = lintFrom(in, global, stages, fail)
			stages = append(stages, st)
		default:
			lintInStage(in, cmd, st, stages, fail)
		}
	}
	if len(stages) == 0 {
		fail(1, "no FROM")
	}
	return bad
}

// lintFrom checks a FROM line and returns its stage.
func lintFrom(in dockerInstr, global map[string]string, stages []*dockerStage, fail func(int, string, ...any)) *dockerStage {
	f := strings.Fields(in.Args)
	var image string
	st := &dockerStage{once: map[string]int{}}
	for i := 0; i < len(f); i++ {
		switch {
		case strings.HasPrefix(f[i], "--platform="):
		case strings.HasPrefix(f[i], "--"):
			fail(in.Line, "FROM flag %q", f[i])
		case image == "":
			image = f[i]
		case strings.EqualFold(f[i], "as") && i+1 < len(f):
			if f[i] != "AS" {
				fail(in.Line, "%q: the keyword's case differs from FROM's (FromAsCasing)", f[i])
			}
			st.name = f[i+1]
			i++
		default:
			fail(in.Line, "FROM: unexpected %q", f[i])
		}
	}
	if st.name != "" && st.name != strings.ToLower(st.name) {
		fail(in.Line, "stage name %q is not lower case (StageNameCasing)", st.name)
	}
	for _, s := range stages {
		if st.name != "" && s.name == st.name {
			fail(in.Line, "stage %q defined twice (DuplicateStageName)", st.name)
		}
	}
	for _, v := range varsIn(in.Args) {
		def, ok := global[v]
		switch {
		case slices.Contains(buildkitAutoArgs, v):
		case !ok:
			fail(in.Line, "$%s in FROM is not a global ARG (UndefinedArgInFrom)", v)
		case def == "" && strings.Contains(image, v):
			fail(in.Line, "$%s has no default: FROM names no image without --build-arg (InvalidDefaultArgInFrom)", v)
		}
	}
	// FROM ${ARG} naming a stage: its default must be a stage defined
	// before this one (BuildKit resolves stage names only backwards).
	if vs := varsIn(image); len(vs) == 1 && image == "${"+vs[0]+"}" {
		if !slices.ContainsFunc(stages, func(s *dockerStage) bool { return s.name == global[vs[0]] }) {
			fail(in.Line, "FROM %s: its default %q names no earlier stage", image, global[vs[0]])
		}
	}
	return st
}

// lintInStage checks one instruction inside a stage.
func lintInStage(in dockerInstr, cmd string, st *dockerStage, stages []*dockerStage, fail func(int, string, ...any)) {
	switch cmd {
	case "CMD", "ENTRYPOINT", "HEALTHCHECK":
		if first, ok := st.once[cmd]; ok {
			fail(in.Line, "a second %s in the stage (the first is line %d; MultipleInstructionsDisallowed)", cmd, first)
		}
		st.once[cmd] = in.Line
		args := in.Args
		if cmd == "HEALTHCHECK" {
			_, args, _ = strings.Cut(args, " CMD ")
		}
		var argv []string
		if err := json.Unmarshal([]byte(args), &argv); err != nil || len(argv) == 0 {
			fail(in.Line, "%s not in JSON form (JSONArgsRecommended): %s", cmd, args)
		}
	case "WORKDIR":
		if !strings.HasPrefix(in.Args, "/") {
			fail(in.Line, "WORKDIR %s is relative (WorkdirRelativePath)", in.Args)
		}
	case "RUN":
		for _, m := range regexp.MustCompile(`--mount=type=(\w+)`).FindAllStringSubmatch(in.Args, -1) {
			if !slices.Contains([]string{"bind", "cache", "tmpfs", "secret", "ssh"}, m[1]) {
				fail(in.Line, "RUN --mount type %q", m[1])
			}
		}
	case "COPY":
		for _, m := range regexp.MustCompile(`--from=(\S+)`).FindAllStringSubmatch(in.Args, -1) {
			if !slices.ContainsFunc(stages[:len(stages)-1], func(s *dockerStage) bool { return s.name == m[1] }) {
				fail(in.Line, "COPY --from=%s names no earlier stage", m[1])
			}
		}
	}
	if cmd == "RUN" || cmd == "COPY" || cmd == "ADD" {
		for _, v := range varsIn(in.Args) {
			if !slices.Contains(st.declared, v) {
				fail(in.Line, "$%s is not declared in stage %q (UndefinedVar)", v, st.name)
			}
		}
	}
}

func TestDockerfileBuildKit(t *testing.T) {
	text, err := os.ReadFile("../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, msg := range lintDockerfile(string(text)) {
		t.Errorf("Dockerfile: %s", msg)
	}
}

// TestLintDockerfile shows that each rule catches what it is for.
func TestLintDockerfile(t *testing.T) {
	good := "# syntax=docker/dockerfile:1\nARG BINARY=build\n" +
		"FROM --platform=$BUILDPLATFORM golang:1 AS build\nARG TARGETARCH\nWORKDIR /src\n" +
		"RUN --mount=type=cache,target=/c \\\n    GOARCH=$TARGETARCH go build\n" +
		"FROM ${BINARY} AS binary\nFROM scratch\nCOPY --from=binary /out/ /\n" +
		"HEALTHCHECK --interval=5s CMD [\"/x\", \"healthcheck\"]\nENTRYPOINT [\"/x\"]\n"
	if bad := lintDockerfile(good); len(bad) != 0 {
		t.Fatalf("a good Dockerfile: %q", bad)
	}
	for _, c := range []struct{ from, to, want string }{
		{"# syntax=docker/dockerfile:1\n", "", "no `# syntax"},
		{"FROM scratch\nCOPY", "from scratch\nCOPY", "ConsistentInstructionCasing"},
		{"golang:1 AS build", "golang:1 as build", "FromAsCasing"},
		{"golang:1 AS build", "golang:1 AS Build", "StageNameCasing"},
		{"AS binary", "AS build", "DuplicateStageName"},
		{"$BUILDPLATFORM", "$HOSTPLATFORM", "UndefinedArgInFrom"},
		{"ARG BINARY=build", "ARG BINARY=bulid", `default "bulid" names no earlier stage`},
		{"ARG BINARY=build", "ARG BINARY", "InvalidDefaultArgInFrom"},
		{"ARG TARGETARCH\n", "", "UndefinedVar"},
		{"type=cache", "type=cached", `RUN --mount type "cached"`},
		{"--from=binary", "--from=bin", "names no earlier stage"},
		{"ENTRYPOINT [\"/x\"]", "ENTRYPOINT /x", "JSONArgsRecommended"},
		{"ENTRYPOINT [\"/x\"]\n", "ENTRYPOINT [\"/x\"]\nENTRYPOINT [\"/y\"]\n", "MultipleInstructionsDisallowed"},
		{"WORKDIR /src", "WORKDIR src", "WorkdirRelativePath"},
	} {
		bad := lintDockerfile(strings.Replace(good, c.from, c.to, 1))
		if !slices.ContainsFunc(bad, func(m string) bool { return strings.Contains(m, c.want) }) {
			t.Errorf("%q -> %q: got %q, want a message with %q", c.from, c.to, bad, c.want)
		}
	}
}
