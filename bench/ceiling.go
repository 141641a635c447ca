package main

import (
	"io"
	"net"
	"net/http"
)

// ceilingHandler is the cheapest possible "DynamoDB": it reads the request
// body and answers {} with DynamoDB's content type. Running the get workload
// against it measures what this client, HTTP stack and machine can do at
// best, which bounds every real server measured from the same machine.
func ceilingHandler(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/x-amz-json-1.0")
	_, _ = io.WriteString(w, "{}")
}

// startCeiling serves ceilingHandler on a free port of 127.0.0.1 and returns
// its URL and a function that stops it.
func startCeiling() (url string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: http.HandlerFunc(ceilingHandler)}
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Serve returns ErrServerClosed on stop; any other failure shows up
		// as connection errors in the client's report.
		_ = srv.Serve(ln)
	}()
	stop = func() {
		_ = srv.Close()
		<-done
	}
	return "http://" + ln.Addr().String(), stop, nil
}
