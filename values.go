package main

// Reading settings strictly: every flag and DDBLOCAL_* variable either
// parses or stops the start with a message naming it and what it accepts.
// A value that is silently dropped (DDBLOCAL_PORT=80OO serving on 8000)
// costs a user far more than a refused start.

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// What each kind of value accepts, as the messages say it.
const (
	wantBool     = "true or false (also 1/0, yes/no, on/off)"
	wantDuration = "a duration such as 500ms, 2s or 1h"
	wantUint     = "a whole number, 0 or more"
	wantFloat    = "a number such as 0.01"
	wantEndpoint = "an http:// or https:// URL such as http://localhost:4567"
	wantOrigins  = "*, off, or comma-separated origins such as http://localhost:3000 (scheme://host[:port], nothing after it)"
)

// wantInt says which integers a setting accepts.
func wantInt(lo, hi int) string { return fmt.Sprintf("a whole number from %d to %d", lo, hi) }

// parseBool accepts strconv.ParseBool's spellings and, case-insensitively,
// yes/no and on/off, which YAML files and shell habits produce.
func parseBool(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "yes", "on":
		return true, nil
	case "no", "off":
		return false, nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return false, errors.New("want " + wantBool)
	}
	return b, nil
}

// parseInt parses a whole number within [lo, hi].
func parseInt(s string, lo, hi int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < lo || n > hi {
		return 0, errors.New("want " + wantInt(lo, hi))
	}
	return n, nil
}

// parseUint parses a whole number of 0 or more.
func parseUint(s string) (uint64, error) {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, errors.New("want " + wantUint)
	}
	return n, nil
}

// parseFloat parses a decimal number.
func parseFloat(s string) (float64, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.New("want " + wantFloat)
	}
	return f, nil
}

// parseDuration parses a Go duration; a bare number is refused (is "5"
// seconds or milliseconds?), except 0.
func parseDuration(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, errors.New("want " + wantDuration)
	}
	return d, nil
}

// checkEndpoint accepts an http or https URL that names a host, as the
// SDK clients that use it need; "localhost:4567" (no scheme) is refused
// rather than failing on first use.
func checkEndpoint(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return errors.New("want " + wantEndpoint)
	}
	return nil
}

// checkOrigins accepts --cors's values: *, off, or origins compared with a
// browser's Origin header byte for byte, so an origin that could never be
// equal to one (a space after the comma, a trailing slash, a path, upper
// case) is refused instead of silently allowing nothing.
func checkOrigins(s string) error {
	if s == "*" || s == "off" {
		return nil
	}
	for _, o := range strings.Split(s, ",") {
		if o == "*" || o == "null" {
			continue
		}
		u, err := url.Parse(o)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Scheme+"://"+u.Host != o || strings.ToLower(o) != o {
			return fmt.Errorf("%q is not an origin: want %s", o, wantOrigins)
		}
	}
	return nil
}

// envVars reads the DDBLOCAL_* variables, the defaults of the flags. A
// value that does not parse is recorded with its variable's name and what
// it accepts, and the default is used meanwhile; err returns them all.
type envVars struct {
	get  func(string) string
	errs []error
}

func newEnvVars(get func(string) string) *envVars { return &envVars{get: get} }

// bad records that DDBLOCAL_name's value v is not what it accepts.
func (e *envVars) bad(name, v string, err error) {
	e.errs = append(e.errs, fmt.Errorf("invalid DDBLOCAL_%s %q: %v", name, v, err))
}

// err returns every value that did not parse, or nil.
func (e *envVars) err() error { return errors.Join(e.errs...) }

// set reports whether DDBLOCAL_name is set (and not empty).
func (e *envVars) set(name string) bool { return e.get("DDBLOCAL_"+name) != "" }

func (e *envVars) str(name, def string) string {
	if v := e.get("DDBLOCAL_" + name); v != "" {
		return v
	}
	return def
}

// parsed returns DDBLOCAL_name parsed by parse, or def when it is unset;
// a value parse refuses is recorded and def returned.
func parsed[T any](e *envVars, name string, def T, parse func(string) (T, error)) T {
	v := e.str(name, "")
	if v == "" {
		return def
	}
	x, err := parse(v)
	if err != nil {
		e.bad(name, v, err)
		return def
	}
	return x
}

func (e *envVars) int(name string, def, lo, hi int) int {
	return parsed(e, name, def, func(s string) (int, error) { return parseInt(s, lo, hi) })
}

func (e *envVars) uint(name string, def uint64) uint64 { return parsed(e, name, def, parseUint) }

func (e *envVars) bool(name string) bool { return parsed(e, name, false, parseBool) }

func (e *envVars) float(name string, def float64) float64 { return parsed(e, name, def, parseFloat) }

func (e *envVars) duration(name string, def time.Duration) time.Duration {
	return parsed(e, name, def, parseDuration)
}

// value is a flag.Value that parses by the same rules as its variable, so
// the flag package reports "invalid value "x" for flag -port: want …".
type value[T any] struct {
	p     *T
	parse func(string) (T, error)
}

// String returns the value; the flag package calls it on a zero value too
// (p nil), to leave zero defaults out of the usage text.
func (v value[T]) String() string {
	if v.p == nil {
		var zero T
		return fmt.Sprint(zero)
	}
	return fmt.Sprint(*v.p)
}

func (v value[T]) Set(s string) error {
	x, err := v.parse(s)
	if err == nil {
		*v.p = x
	}
	return err
}

func intValue(p *int, lo, hi int) value[int] {
	return value[int]{p, func(s string) (int, error) { return parseInt(s, lo, hi) }}
}
func uintValue(p *uint64) value[uint64]    { return value[uint64]{p, parseUint} }
func floatValue(p *float64) value[float64] { return value[float64]{p, parseFloat} }
func durationValue(p *time.Duration) value[time.Duration] {
	return value[time.Duration]{p, parseDuration}
}

// boolValue is a boolean flag: -in-memory alone means true.
type boolValue struct{ value[bool] }

func (boolValue) IsBoolFlag() bool { return true }

func newBoolValue(p *bool) boolValue { return boolValue{value[bool]{p, parseBool}} }
