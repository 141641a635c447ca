package main

import (
	"io"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ddblocal/ddblocal/store"
)

func TestParseStoreURL(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    *store.EtcdOptions
		wantErr bool
	}{
		{in: "etcd://h1:2379", want: &store.EtcdOptions{Endpoints: []string{"h1:2379"}}},
		{in: "etcd://h1:2379,h2:2379/team-a", want: &store.EtcdOptions{Endpoints: []string{"h1:2379", "h2:2379"}, Prefix: "team-a/"}},
		{in: "etcd://h1:2379/a/b/", want: &store.EtcdOptions{Endpoints: []string{"h1:2379"}, Prefix: "a/b/"}},
		{in: "http://h1:2379", wantErr: true},
		{in: "etcd://", wantErr: true},
		{in: "etcd://h1:2379,,h2:2379", wantErr: true},
	} {
		got, err := parseStoreURL(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("parseStoreURL(%q) error = %v, want error %v", tc.in, err, tc.wantErr)
			continue
		}
		if !tc.wantErr && !reflect.DeepEqual(got, tc.want) {
			t.Errorf("parseStoreURL(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestClusterFlags(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"DDBLOCAL_STORE": "etcd://e:2379/p", "DDBLOCAL_ETCD_USER": "root:pw", "DDBLOCAL_ETCD_TIMEOUT": "1m"}[k]
	}
	c, err := parseConfig(nil, env, nil)
	if err != nil {
		t.Fatal(err)
	}
	o, err := c.cluster.options()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := *o, (store.EtcdOptions{Endpoints: []string{"e:2379"}, Prefix: "p/", Username: "root", Password: "pw", DialTimeout: time.Minute}); !reflect.DeepEqual(got, want) {
		t.Errorf("options = %+v, want %+v", got, want)
	}
	c, _ = parseConfig([]string{"--store", "etcd://e:2379", "--etcd-timeout", "250ms"}, func(string) string { return "" }, nil)
	if o, err := c.cluster.options(); err != nil || o.DialTimeout != 250*time.Millisecond {
		t.Errorf("--etcd-timeout 250ms: %+v %v", o, err)
	}
	if _, err := parseConfig([]string{"--etcd-timeout", "soon"}, func(string) string { return "" }, io.Discard); err == nil || !strings.Contains(err.Error(), "etcd-timeout") {
		t.Errorf("--etcd-timeout soon: %v, want an error naming the flag", err)
	}
	c, _ = parseConfig([]string{"--store", "etcd://e:2379", "--etcd-user", "nocolon"}, func(string) string { return "" }, nil)
	if _, err := c.cluster.options(); err == nil {
		t.Errorf("--etcd-user without a colon: no error")
	}
	c, _ = parseConfig([]string{"--store", "etcd://e:2379", "--etcd-cert", "c.pem"}, func(string) string { return "" }, nil)
	if _, err := c.cluster.options(); err == nil {
		t.Errorf("--etcd-cert without --etcd-key: no error")
	}
}
