package auth

import (
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
)

func TestParseCredentials(t *testing.T) {
	files := map[string]string{
		"creds.txt": "# team keys\nAKIDA secretA 111111111111\n\n  AKIDB secretB\nASIAC secretC 333333333333 tok\n",
	}
	readFile := func(name string) ([]byte, error) {
		if s, ok := files[name]; ok {
			return []byte(s), nil
		}
		return nil, os.ErrNotExist
	}
	for _, tc := range []struct {
		spec string
		want []Credential
		err  string
	}{
		{spec: "AKIDA:secretA", want: []Credential{{"AKIDA", "secretA", DefaultAccount, ""}}},
		{spec: "AKIDA:secretA:111111111111, AKIDB:s/B+=", want: []Credential{{"AKIDA", "secretA", "111111111111", ""}, {"AKIDB", "s/B+=", DefaultAccount, ""}}},
		{spec: "ASIAC:secretC::tok", want: []Credential{{"ASIAC", "secretC", DefaultAccount, "tok"}}},
		{spec: "@creds.txt", want: []Credential{{"AKIDA", "secretA", "111111111111", ""}, {"AKIDB", "secretB", DefaultAccount, ""},
			{"ASIAC", "secretC", "333333333333", "tok"}}},
		{spec: "", err: "credentials: no KEY:SECRET given"},
		{spec: "AKIDA", err: "credentials: entry 1: want KEY:SECRET[:ACCOUNT[:TOKEN]]"},
		{spec: "AKIDA:s:12345", err: `credentials: entry 1: account "12345" is not 12 digits`},
		{spec: "AKIDA:", err: "credentials: entry 1: empty access key or secret"},
		{spec: "AKIDA:x,AKIDA:y", err: `credentials: access key "AKIDA" given twice`},
		{spec: "@missing.txt", err: "credentials: file does not exist"},
	} {
		got, err := ParseCredentials(tc.spec, readFile)
		if tc.err != "" {
			if err == nil || err.Error() != tc.err {
				t.Errorf("ParseCredentials(%q): got %v, want error %q", tc.spec, err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "secret") && !strings.Contains(tc.err, "secret") {
				t.Errorf("ParseCredentials(%q): error %q shows a secret", tc.spec, err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("ParseCredentials(%q): got %+v, %v, want %+v", tc.spec, got, err, tc.want)
		}
	}
	if _, err := ParseCredentials("@missing.txt", readFile); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: got %v, want os.ErrNotExist wrapped", err)
	}
}
