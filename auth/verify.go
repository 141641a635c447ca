package auth

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"hash"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Service is the SigV4 service name DynamoDB (and DynamoDB Streams) expect.
const Service = "dynamodb"

// MaxSkew is how far a request's signing time may lie behind or ahead of
// the server's clock.
const MaxSkew = 15 * time.Minute

// unsignedPayload in x-amz-content-sha256 leaves the body out of the signature.
const unsignedPayload = "UNSIGNED-PAYLOAD"

// basicFormat is ISO 8601's basic format, X-Amz-Date's.
const basicFormat = "20060102T150405Z"

// Identity is who signed a verified request.
type Identity struct {
	AccessKey string
	Account   string
	Region    string // from the credential scope
}

// Verifier checks SigV4 signatures against a fixed set of credentials. It
// is safe for concurrent use.
type Verifier struct {
	creds map[string]Credential
	now   func() time.Time
	keys  keyCache
	bufs  sync.Pool // *[]byte canonical-request scratch
}

// NewVerifier returns a Verifier accepting creds, judging signing times by
// now (nil means time.Now).
func NewVerifier(creds []Credential, now func() time.Time) *Verifier {
	if now == nil {
		now = time.Now
	}
	m := make(map[string]Credential, len(creds))
	for _, c := range creds {
		m[c.AccessKey] = c
	}
	return &Verifier{creds: m, now: now}
}

// Verify checks that r, whose raw body (as sent, before any
// Content-Encoding is undone) is body, carries a valid Signature Version 4
// by one of v's credentials, and returns who signed it. It fails with
// MissingAuthenticationToken (no Authorization header), IncompleteSignature
// (malformed header, credential or date), UnrecognizedClient (unknown
// access key, or a session token other than the key's), or
// InvalidSignature (a signing time more than MaxSkew away, then a wrong
// scope, or a signature that does not match; that message shows the
// canonical request and string to sign the server computed, as DynamoDB's
// does). An expired signature is reported before the scope and the key.
//
// A request without an Authorization header may be presigned instead: its
// query then carries the signature (X-Amz-Algorithm, X-Amz-Credential,
// X-Amz-Date, X-Amz-SignedHeaders, X-Amz-Signature, optionally
// X-Amz-Expires and X-Amz-Security-Token; see readPresigned).
func (v *Verifier) Verify(r *http.Request, body []byte) (Identity, error) {
	var c claim
	var err error
	if h := headerValue(r.Header, "Authorization"); h != "" {
		c, err = readHeader(r, h)
	} else if presigned(r) {
		c, err = readPresigned(r)
	} else {
		err = errorf(MissingAuthenticationToken, msgMissingAuth)
	}
	if err != nil {
		return Identity{}, err
	}
	return v.check(r, body, c)
}

// claim is what a request says about its signature, from its
// Authorization header or its presigned query.
type claim struct {
	a       Authorization
	t       time.Time // the signing time
	stamp   string    // the signing time as the string to sign holds it
	token   string    // the session token sent
	expires time.Duration
	// presigned: the signature is in the query and is valid for expires
	// after t (when expires is not 0).
	presigned bool
}

// readHeader reads the claim of a request signed in its Authorization
// header h.
func readHeader(r *http.Request, h string) (claim, error) {
	a, err := ParseAuthorization(h)
	if err != nil {
		return claim{}, withDateMissing(err, r.Header, h)
	}
	t, stamp, err := signingTime(r.Header, h)
	if err != nil {
		return claim{}, err
	}
	if a.Algorithm != Algorithm {
		return claim{}, errorf(IncompleteSignature, "Unsupported AWS 'algorithm': '"+a.Algorithm+"'")
	}
	return claim{a: a, t: t, stamp: stamp, token: headerValue(r.Header, "X-Amz-Security-Token")}, nil
}

// check verifies claim c of r against v's credentials.
func (v *Verifier) check(r *http.Request, body []byte, c claim) (Identity, error) {
	s, err := ParseCredential(c.a.Credential)
	if err != nil {
		return Identity{}, err
	}
	// The signing time is judged before the scope and the key: DynamoDB
	// reports an expired signature ahead of a credential scope that does not
	// match (issue 32). The open-source validator scratchstack-aws-signature
	// checks in the same order: expiry, then scope, then the key.
	if err := checkTime(c, v.now()); err != nil {
		return Identity{}, err
	}
	if err := checkScope(s, c.stamp); err != nil {
		return Identity{}, err
	}
	cred, ok := v.creds[s.AccessKey]
	if !ok || subtle.ConstantTimeCompare([]byte(cred.Token), []byte(c.token)) != 1 {
		return Identity{}, errorf(UnrecognizedClient, msgInvalidToken)
	}
	if !hasHost(c.a.SignedHeaders) {
		return Identity{}, errorf(InvalidSignature, "'Host' or ':authority' must be a 'SignedHeader' in the AWS Authorization.")
	}
	if err := v.checkSignature(r, body, c, s, cred.Secret); err != nil {
		return Identity{}, err
	}
	return Identity{AccessKey: cred.AccessKey, Account: cred.Account, Region: s.Region}, nil
}

// checkSignature recomputes the signature over r and compares it with a's.
func (v *Verifier) checkSignature(r *http.Request, body []byte, c claim, s Scope, secret string) error {
	bp, _ := v.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer v.bufs.Put(bp)
	canon := appendCanonicalRequest((*bp)[:0], r, c.a.SignedHeaders, body, c.presigned)
	// The string to sign follows the canonical request in the same buffer.
	buf := appendStringToSign(canon, c.stamp, s, canon)
	*bp = buf
	sts := buf[len(canon):]
	k := v.keys.get(s, secret)
	mac, _ := k.macs.Get().(hash.Hash)
	if mac == nil {
		mac = hmac.New(sha256.New, k.key[:])
	}
	mac.Reset()
	mac.Write(sts)
	var sum [sha256.Size]byte
	var want [2 * sha256.Size]byte
	hex.Encode(want[:], mac.Sum(sum[:0]))
	k.macs.Put(mac)
	if equalConstantTime(want[:], c.a.Signature) {
		return nil
	}
	return errorf(InvalidSignature, msgSignatureDiffer+
		"\n\nThe Canonical String for this request should have been\n'"+string(canon)+
		"'\n\nThe String-to-Sign should have been\n'"+string(sts)+"'\n")
}

// equalConstantTime reports whether b and s hold the same bytes, in time
// that depends only on their lengths.
func equalConstantTime(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	var d byte
	for i := range b {
		d |= b[i] ^ s[i]
	}
	return d == 0
}

// signingTime returns the request's X-Amz-Date (or, without one, its
// Date), which must be in ISO 8601 basic format (Date may also be an HTTP
// date), and the time in basic format, as the string to sign holds it.
func signingTime(hdr http.Header, authz string) (time.Time, string, error) {
	d := headerValue(hdr, "X-Amz-Date")
	if d == "" {
		d = headerValue(hdr, "Date")
		if t, err := http.ParseTime(d); err == nil {
			return t.UTC(), t.UTC().Format(basicFormat), nil
		}
	}
	if d == "" {
		return time.Time{}, "", errorf(IncompleteSignature, msgNoDate+" Authorization="+authz)
	}
	t, ok := parseBasic(d)
	if !ok {
		return time.Time{}, "", errorf(IncompleteSignature,
			"Date must be in ISO-8601 'basic format'. Got '"+d+"'. See http://en.wikipedia.org/wiki/ISO_8601")
	}
	return t, d, nil
}

// withDateMissing adds to err, ParseAuthorization's complaint about
// missing parameters of header h, the complaint about a missing date when
// hdr has neither X-Amz-Date nor Date: Coral lists every missing part in
// one message, ending with the header.
func withDateMissing(err error, hdr http.Header, h string) error {
	var e *Error
	if headerValue(hdr, "X-Amz-Date") != "" || headerValue(hdr, "Date") != "" ||
		!errors.As(err, &e) || !strings.HasPrefix(e.Message, "Authorization header requires '") {
		return err
	}
	msg, _ := strings.CutSuffix(e.Message, "Authorization="+h)
	return errorf(IncompleteSignature, msg+msgNoDate+" Authorization="+h)
}

// parseBasic parses "YYYYMMDDTHHMMSSZ" without time.Parse's generality.
func parseBasic(d string) (time.Time, bool) {
	if len(d) != len(basicFormat) || d[8] != 'T' || d[15] != 'Z' {
		return time.Time{}, false
	}
	var n [6]int
	for i, span := range [6][2]int{{0, 4}, {4, 6}, {6, 8}, {9, 11}, {11, 13}, {13, 15}} {
		for _, c := range []byte(d[span[0]:span[1]]) {
			if c < '0' || c > '9' {
				return time.Time{}, false
			}
			n[i] = n[i]*10 + int(c-'0')
		}
	}
	if n[1] < 1 || n[1] > 12 || n[2] < 1 || n[2] > 31 || n[3] > 23 || n[4] > 59 || n[5] > 59 {
		return time.Time{}, false
	}
	t := time.Date(n[0], time.Month(n[1]), n[2], n[3], n[4], n[5], 0, time.UTC)
	if t.Day() != n[2] { // 31 February and the like
		return time.Time{}, false
	}
	return t, true
}

// checkScope checks the credential scope's date, region, service and
// terminator against the signing time (stamp, in basic format) and DynamoDB.
func checkScope(s Scope, stamp string) error {
	if day := stamp[:8]; s.Date != day {
		return errorf(InvalidSignature, "Date in Credential scope does not match YYYYMMDD from ISO-8601 version of date from HTTP: '"+
			s.Date+"' != '"+day+"', from '"+stamp+"'.")
	}
	if s.Region == "" {
		return errorf(InvalidSignature, "Credential should be scoped to a valid region, not '"+s.Region+"'. ")
	}
	if s.Service != Service {
		return errorf(InvalidSignature, "Credential should be scoped to correct service: '"+Service+"'. ")
	}
	if s.Terminator != "aws4_request" {
		return errorf(InvalidSignature, "Credential should be scoped with a valid terminator: 'aws4_request', not '"+s.Terminator+"'. ")
	}
	return nil
}

// checkTime fails unless c's signing time t is within MaxSkew of now
// (for a presigned request with X-Amz-Expires: no later than MaxSkew ahead
// and no more than expires behind), naming the signing time, the limit it
// passed and the server's time, as DynamoDB does.
func checkTime(c claim, now time.Time) error {
	t := c.t
	now = now.UTC()
	f := func(t time.Time) string { return t.Format(basicFormat) }
	age, window := MaxSkew, "15 min."
	if c.presigned && c.expires > 0 {
		age = c.expires
		window = strconv.FormatInt(int64(age/time.Second), 10) + " sec."
	}
	if early := now.Add(-age); t.Before(early) {
		return errorf(InvalidSignature, "Signature expired: "+f(t)+" is now earlier than "+f(early)+" ("+f(now)+" - "+window+")")
	}
	if late := now.Add(MaxSkew); t.After(late) {
		return errorf(InvalidSignature, "Signature not yet current: "+f(t)+" is still later than "+f(late)+" ("+f(now)+" + 15 min.)")
	}
	return nil
}

// hasHost reports whether the ';'-separated list names host.
func hasHost(signed string) bool {
	for name := range strings.SplitSeq(signed, ";") {
		if name == "host" {
			return true
		}
	}
	return false
}

// headerValue is http.Header.Get for a canonical key, without
// canonicalising it.
func headerValue(h http.Header, key string) string {
	if v := h[key]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// appendStringToSign appends SigV4's string to sign for canon.
func appendStringToSign(b []byte, stamp string, s Scope, canon []byte) []byte {
	sum := sha256.Sum256(canon)
	b = append(b, Algorithm+"\n"...)
	b = append(b, stamp...)
	b = append(b, '\n')
	b = append(b, s.Date...)
	b = append(b, '/')
	b = append(b, s.Region...)
	b = append(b, '/')
	b = append(b, s.Service...)
	b = append(b, "/aws4_request\n"...)
	return hex.AppendEncode(b, sum[:])
}

// keyCache remembers derived signing keys by access key, date, region and
// service: deriving one costs four HMACs, and a client uses one a day.
type keyCache struct {
	mu   sync.RWMutex
	keys map[Scope]*signingKey
}

// signingKey is a derived key and a pool of HMACs keyed with it, so that
// a request neither allocates one nor recomputes its padded key.
type signingKey struct {
	key  [sha256.Size]byte
	macs sync.Pool // hash.Hash
}

// maxCachedKeys bounds the cache; past it the cache starts over.
const maxCachedKeys = 4096

// get returns the signing key of s's scope for secret.
func (kc *keyCache) get(s Scope, secret string) *signingKey {
	s.Terminator = ""
	kc.mu.RLock()
	k, ok := kc.keys[s]
	kc.mu.RUnlock()
	if ok {
		return k
	}
	k = &signingKey{key: deriveKey(secret, s.Date, s.Region, s.Service)}
	kc.mu.Lock()
	if kc.keys == nil || len(kc.keys) >= maxCachedKeys {
		kc.keys = make(map[Scope]*signingKey)
	}
	// Clone so the map does not pin the request's header.
	s = Scope{AccessKey: strings.Clone(s.AccessKey), Date: strings.Clone(s.Date),
		Region: strings.Clone(s.Region), Service: strings.Clone(s.Service)}
	kc.keys[s] = k
	kc.mu.Unlock()
	return k
}

// deriveKey is SigV4's kSigning = HMAC(HMAC(HMAC(HMAC("AWS4"+secret, date), region), service), "aws4_request").
func deriveKey(secret, date, region, service string) [sha256.Size]byte {
	k := hmacSum([]byte("AWS4"+secret), date)
	k = hmacSum(k, region)
	k = hmacSum(k, service)
	k = hmacSum(k, "aws4_request")
	return [sha256.Size]byte(k)
}

func hmacSum(key []byte, data string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(data))
	return m.Sum(nil)
}
