package main

import (
	"context"
	"crypto/tls"
	"flag"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// runHealthcheck exits 0 when GET ENDPOINT/_ddblocal/health answers 200.
// It is the Dockerfile's HEALTHCHECK: the image (FROM scratch) has no curl.
func runHealthcheck(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("ddblocal healthcheck", flag.ContinueOnError)
	fs.SetOutput(stderr)
	// The server's own reading of these variables, so that the check
	// follows exactly the port and scheme the server chose.
	env := newEnvVars(getenv)
	port := strconv.Itoa(env.int("PORT", 8000, 0, 65535))
	scheme := "http"
	if env.str("TLS_CERT", "") != "" || env.bool("TLS_SELF_SIGNED") {
		scheme = "https"
	}
	if err := env.err(); err != nil {
		return err
	}
	endpoint := fs.String("endpoint", scheme+"://localhost:"+port, "server to check [default from DDBLOCAL_PORT and DDBLOCAL_TLS_*]")
	timeout := fs.Duration("timeout", 3*time.Second, "give up after this long")
	if err := parseSubcommand(fs, args); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, *timeout)
	defer cancel()
	url := strings.TrimSuffix(*endpoint, "/") + "/_ddblocal/health"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	// A liveness probe of this machine's own server: its certificate may be
	// self-signed, and who answers matters less than that it answers.
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("healthcheck: %w", err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("healthcheck: %s answered %s: %s", url, resp.Status, strings.TrimSpace(string(body)))
	}
	fmt.Fprintf(stdout, "healthy: %s\n", *endpoint)
	return nil
}
