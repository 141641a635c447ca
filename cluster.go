package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/ddblocal/ddblocal/store"
)

// clusterFlags are the flags of cluster mode: --store etcd://... makes this
// process a stateless front-end of a store kept in etcd.
type clusterFlags struct {
	store         string
	ca, cert, key string
	user          string // user:password
}

func (f *clusterFlags) define(fs *flag.FlagSet, env envVars) {
	fs.StringVar(&f.store, "store", env.str("STORE", ""), "etcd://host1:2379,host2:2379[/prefix]: keep tables in etcd, shared with other ddblocal front-ends (cluster mode) [DDBLOCAL_STORE]")
	fs.StringVar(&f.ca, "etcd-ca", env.str("ETCD_CA", ""), "PEM CA bundle that signs etcd's certificates (TLS to etcd) [DDBLOCAL_ETCD_CA]")
	fs.StringVar(&f.cert, "etcd-cert", env.str("ETCD_CERT", ""), "PEM client certificate for etcd (with --etcd-key) [DDBLOCAL_ETCD_CERT]")
	fs.StringVar(&f.key, "etcd-key", env.str("ETCD_KEY", ""), "PEM private key of --etcd-cert [DDBLOCAL_ETCD_KEY]")
	fs.StringVar(&f.user, "etcd-user", env.str("ETCD_USER", ""), "USER:PASSWORD for etcd authentication [DDBLOCAL_ETCD_USER]")
}

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
	if o.TLS, err = f.tlsConfig(); err != nil {
		return nil, err
	}
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

// tlsConfig returns the TLS configuration of --etcd-ca/--etcd-cert/--etcd-key,
// or nil when none is given.
func (f clusterFlags) tlsConfig() (*tls.Config, error) {
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
