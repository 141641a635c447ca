package auth

import (
	"errors"
	"fmt"
	"strings"
)

// DefaultAccount is the account of a credential that names none, and of
// every request when verification is off (DynamoDB Local's account).
const DefaultAccount = "000000000000"

// Credential is one access key the server accepts.
type Credential struct {
	AccessKey string
	Secret    string
	// Account is the 12-digit account the key belongs to; tables and ARNs
	// are scoped by it.
	Account string
	// Token, when set, is the session token requests signed with this key
	// must carry (X-Amz-Security-Token), as temporary credentials do. A
	// key without one rejects requests that carry any.
	Token string
}

// ParseCredentials parses the --credentials value: either
// "KEY:SECRET[:ACCOUNT[:TOKEN]][,KEY:SECRET…]" or "@FILE", where FILE holds
// one "KEY SECRET [ACCOUNT [TOKEN]]" per line (blank lines and lines
// starting with '#' are skipped) and is read with readFile. An empty
// ACCOUNT means DefaultAccount. It fails on a malformed entry, an account
// that is not 12 digits, a repeated key, or no credential at all; the error
// names the entry but never the secret.
func ParseCredentials(spec string, readFile func(string) ([]byte, error)) ([]Credential, error) {
	var entries [][]string
	if name, ok := strings.CutPrefix(spec, "@"); ok {
		b, err := readFile(name)
		if err != nil {
			return nil, fmt.Errorf("credentials: %w", err)
		}
		for line := range strings.Lines(string(b)) {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			entries = append(entries, strings.Fields(line))
		}
	} else {
		for e := range strings.SplitSeq(spec, ",") {
			if e = strings.TrimSpace(e); e != "" {
				entries = append(entries, strings.Split(e, ":"))
			}
		}
	}
	if len(entries) == 0 {
		return nil, errors.New("credentials: no KEY:SECRET given")
	}
	creds := make([]Credential, 0, len(entries))
	seen := make(map[string]bool, len(entries))
	for i, f := range entries {
		c, err := credentialOf(f)
		if err != nil {
			return nil, fmt.Errorf("credentials: entry %d: %w", i+1, err)
		}
		if seen[c.AccessKey] {
			return nil, fmt.Errorf("credentials: access key %q given twice", c.AccessKey)
		}
		seen[c.AccessKey] = true
		creds = append(creds, c)
	}
	return creds, nil
}

// credentialOf builds a Credential from KEY, SECRET[, ACCOUNT[, TOKEN]].
func credentialOf(f []string) (Credential, error) {
	if len(f) < 2 || len(f) > 4 {
		return Credential{}, errors.New("want KEY:SECRET[:ACCOUNT[:TOKEN]]")
	}
	c := Credential{AccessKey: f[0], Secret: f[1], Account: DefaultAccount}
	if c.AccessKey == "" || c.Secret == "" {
		return Credential{}, errors.New("empty access key or secret")
	}
	if strings.ContainsAny(c.AccessKey, "/ \t") {
		return Credential{}, fmt.Errorf("access key %q contains '/' or white space", c.AccessKey)
	}
	if len(f) > 2 && f[2] != "" {
		if !isAccountID(f[2]) {
			return Credential{}, fmt.Errorf("account %q is not 12 digits", f[2])
		}
		c.Account = f[2]
	}
	if len(f) > 3 {
		c.Token = f[3]
	}
	return c, nil
}

func isAccountID(s string) bool {
	if len(s) != 12 {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
