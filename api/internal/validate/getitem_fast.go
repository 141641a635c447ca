package validate

import (
	"bytes"
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
)

// validGetItem reports whether GetItem's request in, decoded from body,
// certainly passes its struct tags' rules, without walking it by
// reflection: a table name (not an ARN) of 3 to 255 of [a-zA-Z0-9_.-], a
// Key, a ReturnConsumedCapacity of the enum or not sent, and no
// AttributesToGet (its length rule is left to the walk). False decides
// nothing: ValidateBody then walks in as for any request.
// TestValidGetItemMatchesWalk holds it to the walk.
func validGetItem(in *ddb.GetItemInput, body []byte) bool {
	n := len(in.TableName)
	if n < 3 || n > 255 || strings.HasPrefix(in.TableName, "arn:") || !isName(in.TableName) || in.Key == nil || in.AttributesToGet != nil {
		return false
	}
	switch in.ReturnConsumedCapacity {
	case "INDEXES", "TOTAL", "NONE":
		return true
	case "":
		// Sent as "", it breaks the enum; a body without "" did not send it.
		return !bytes.Contains(body, []byte(`""`))
	}
	return false
}
