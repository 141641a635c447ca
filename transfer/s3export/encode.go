package s3export

import (
	"strconv"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/iontext"
)

// encoder writes records of one format, each ending in a newline.
type encoder interface {
	ext() string
	appendItem(dst []byte, it attr.Item) ([]byte, error)
	appendChange(dst []byte, c Change) ([]byte, error)
}

// newEncoder returns the encoder of format, for one Writer.
func newEncoder(format string) (encoder, bool) {
	switch format {
	case FormatJSON:
		return jsonEncoder{}, true
	case FormatIon:
		return ionEncoder{iontext.NewEncoder()}, true
	}
	return nil, false
}

type jsonEncoder struct{}

func (jsonEncoder) ext() string { return ".json.gz" }

// appendItem writes {"Item":{...}}.
func (jsonEncoder) appendItem(dst []byte, it attr.Item) ([]byte, error) {
	dst = append(dst, `{"Item":`...)
	dst = attr.AppendItemJSON(dst, it)
	return append(dst, "}\n"...), nil
}

// appendChange writes {"Metadata":{"WriteTimestampMicros":{"N":"…"}},
// "Keys":{…},"NewImage":{…},"OldImage":{…}}, images only when present.
func (jsonEncoder) appendChange(dst []byte, c Change) ([]byte, error) {
	dst = append(dst, `{"Metadata":{"WriteTimestampMicros":{"N":"`...)
	dst = strconv.AppendInt(dst, c.WriteTime.UnixMicro(), 10)
	dst = append(dst, `"}},"Keys":`...)
	dst = attr.AppendItemJSON(dst, c.Keys)
	if c.NewImage != nil {
		dst = append(dst, `,"NewImage":`...)
		dst = attr.AppendItemJSON(dst, c.NewImage)
	}
	if c.OldImage != nil {
		dst = append(dst, `,"OldImage":`...)
		dst = attr.AppendItemJSON(dst, c.OldImage)
	}
	return append(dst, "}\n"...), nil
}

// ionEncoder writes records through the Amazon Ion library's text writer.
type ionEncoder struct{ e *iontext.Encoder }

func (ionEncoder) ext() string { return ".ion.gz" }

// appendItem writes $ion_1_0 {Item:{...}}.
func (x ionEncoder) appendItem(dst []byte, it attr.Item) ([]byte, error) {
	return x.e.AppendRecord(dst, iontext.Field{Name: "Item", Item: it})
}

// appendChange writes the incremental record's structure in Ion, the
// timestamp as a decimal.
func (x ionEncoder) appendChange(dst []byte, c Change) ([]byte, error) {
	meta := attr.Item{"WriteTimestampMicros": attr.Int(c.WriteTime.UnixMicro())}
	fields := []iontext.Field{{Name: "Metadata", Item: meta}, {Name: "Keys", Item: c.Keys}}
	if c.NewImage != nil {
		fields = append(fields, iontext.Field{Name: "NewImage", Item: c.NewImage})
	}
	if c.OldImage != nil {
		fields = append(fields, iontext.Field{Name: "OldImage", Item: c.OldImage})
	}
	return x.e.AppendRecord(dst, fields...)
}
