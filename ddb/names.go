package ddb

import "strings"

// TableNameOrARN reports whether s may name a table in a request map's
// key: a table's name (3 to 255 of [a-zA-Z0-9_.-]) or an ARN, which the
// service checks only when it looks the table up. The request validator
// checks BatchGetItem's and BatchWriteItem's RequestItems with it.
func TableNameOrARN(s string) bool {
	if strings.HasPrefix(s, "arn:") {
		return true
	}
	if len(s) < 3 || len(s) > 255 {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-') {
			return false
		}
	}
	return true
}
