package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ddblocal/ddblocal/store"
)

// options returns the store options --store asks for, or nil when it is
// not set (single-process mode).
func (f clusterFlags) options() (*store.EtcdOptions, error) {
	if f.store == "" {
		return nil, nil
	}
	o, err := parseStoreURL(f.store)
	if err != nil {
		return nil, err
	}
	if f.user != "" {
		u, p, ok := strings.Cut(f.user, ":")
		if !ok {
			return nil, errors.New("--etcd-user must be USER:PASSWORD")
		}
		o.Username, o.Password = u, p
	}
	if o.TLS, err = f.etcdTLS(); err != nil {
		return nil, err
	}
	o.DialTimeout = f.dial
	return o, nil
}

// parseStoreURL parses etcd://host1:2379,host2:2379[/prefix] (etcds:// for
// TLS with the system's roots).
func parseStoreURL(s string) (*store.EtcdOptions, error) {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || (scheme != "etcd" && scheme != "etcds") {
		return nil, fmt.Errorf("--store %q: want etcd://host:port[,host:port...][/prefix]", s)
	}
	hosts, prefix, _ := strings.Cut(rest, "/")
	o := &store.EtcdOptions{}
	for h := range strings.SplitSeq(hosts, ",") {
		if h == "" {
			return nil, fmt.Errorf("--store %q: empty host", s)
		}
		o.Endpoints = append(o.Endpoints, h)
	}
	if prefix != "" {
		o.Prefix = strings.TrimSuffix(prefix, "/") + "/"
	}
	if scheme == "etcds" {
		o.TLS = &tls.Config{MinVersion: tls.VersionTLS12}
	}
	return o, nil
}

// etcdTLS returns the TLS configuration of --etcd-ca/--etcd-cert/--etcd-key,
// or nil when none is given.
func (f clusterFlags) etcdTLS() (*tls.Config, error) {
	if f.ca == "" && f.cert == "" && f.key == "" {
		return nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12}
	if f.ca != "" {
		pem, err := os.ReadFile(f.ca)
		if err != nil {
			return nil, fmt.Errorf("--etcd-ca: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--etcd-ca %s: no PEM certificate", f.ca)
		}
	}
	if (f.cert == "") != (f.key == "") {
		return nil, errors.New("--etcd-cert and --etcd-key go together")
	}
	if f.cert != "" {
		cert, err := tls.LoadX509KeyPair(f.cert, f.key)
		if err != nil {
			return nil, fmt.Errorf("--etcd-cert/--etcd-key: %w", err)
		}
		c.Certificates = []tls.Certificate{cert}
	}
	return c, nil
}
