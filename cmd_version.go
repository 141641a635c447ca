package main

import (
	"context"
	"fmt"
	"io"
	"runtime/debug"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3"; when
// empty, the module version or VCS revision the Go toolchain stamped is used.
var version string

// versionString describes this build: "ddblocal VERSION (go1.26.0)".
func versionString() string {
	v := version
	info, ok := debug.ReadBuildInfo()
	if v == "" && ok {
		v = info.Main.Version
		if v == "" || v == "(devel)" {
			v = "devel"
			for _, s := range info.Settings {
				switch s.Key {
				case "vcs.revision":
					v += " " + s.Value
				case "vcs.modified":
					if s.Value == "true" {
						v += "+dirty"
					}
				}
			}
		}
	}
	goVersion := "unknown"
	if ok {
		goVersion = info.GoVersion
	}
	return fmt.Sprintf("ddblocal %s (%s)", v, goVersion)
}

func runVersion(_ context.Context, args []string, _ func(string) string, stdout, _ io.Writer) error {
	if len(args) > 0 {
		return fmt.Errorf("version takes no arguments")
	}
	_, err := fmt.Fprintln(stdout, versionString())
	return err
}
