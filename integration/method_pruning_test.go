package integration

import (
	"os"
	"strings"
	"testing"
)

// TestMethodPruning: the shipped binary keeps the linker's method pruning.
// One reachable call of reflect.Value.Method, or of MethodByName with a
// computed name, makes the linker keep every exported method of every
// reachable type: protobuf 1.36.11's did (+4.9 MB, 29.7 MB against the
// image's 30 MB limit), as text/template's does (+5.6 MB) in a build
// without -tags grpcnotrace. The build the process tests run anyway lists the
// culprits (buildBinary's -dumpdep), so this costs no build of its own.
func TestMethodPruning(t *testing.T) {
	if os.Getenv(builtBinaryEnv) != "" {
		t.Skip("the binary was built by the parent of this pass, which checks it")
	}
	binaryPath(t)
	b, err := shippedBuild()
	if err != nil {
		t.Fatal(err)
	}
	if len(b.reflectMethods) > 0 {
		t.Errorf("the linker's method pruning is off: reachable functions look methods up by reflection with names it cannot see "+
			"(reflect.Value.Method, MethodByName with a computed name):\n\t%s", strings.Join(b.reflectMethods, "\n\t"))
	}
}
