package streams

import "strings"

// Page is ListStreams' page of all (every stream listed, in listing order)
// after the stream ExclusiveStartStreamArn start ("" for the first page),
// at most limit long. A start that is no longer listed (its stream was
// trimmed or its table deleted long ago) or never was resumes after the
// place its table name and label would have: paging goes on rather than
// ending or starting over.
func Page(all []Summary, start string, limit int) *ListStreamsOutput {
	from := 0
	if start != "" {
		from = resumeAt(all, start)
	}
	out := &ListStreamsOutput{Streams: []Summary{}}
	for _, sum := range all[from:] {
		if len(out.Streams) == limit {
			out.LastEvaluatedStreamArn = out.Streams[limit-1].StreamArn
			break
		}
		out.Streams = append(out.Streams, sum)
	}
	return out
}

// resumeAt is the index in all of the first stream after start.
func resumeAt(all []Summary, start string) int {
	for i, sum := range all {
		if sum.StreamArn == start {
			return i + 1
		}
	}
	name, label := arnParts(start)
	for i, sum := range all {
		if sum.TableName > name || (sum.TableName == name && sum.StreamLabel > label) {
			return i
		}
	}
	return len(all)
}

// arnParts returns the table name and label of a stream ARN
// (…:table/NAME/stream/LABEL); empty strings for anything else.
func arnParts(arn string) (name, label string) {
	_, res, ok := strings.Cut(arn, ":table/")
	if !ok {
		return "", ""
	}
	name, label, _ = strings.Cut(res, "/stream/")
	return name, label
}
