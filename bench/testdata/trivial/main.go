// Command trivial is the floor a Go HTTP server's start can be compared
// with: it listens on -port of 127.0.0.1 and answers every request with {}
// and DynamoDB's content type, and links nothing but the standard library's
// HTTP server (the bench command itself, which serves the same handler for
// -ceiling, links the SDK and an etcd member, whose initialisation a start
// would measure). Build it with `go build -o /tmp/trivial
// ./bench/testdata/trivial` and give it to `go run ./bench -starts N` as a
// -server.
package main

import (
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
)

func main() {
	port := flag.Int("port", 8000, "port of 127.0.0.1 to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", *port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "trivial:", err)
		os.Exit(1)
	}
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/x-amz-json-1.0")
		_, _ = io.WriteString(w, "{}")
	}))
	fmt.Fprintln(os.Stderr, "trivial:", err)
	os.Exit(1)
}
