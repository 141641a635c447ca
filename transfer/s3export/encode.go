package s3export

import (
	"strconv"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/transfer/iontext"
)

// encoder writes records of one format, each ending in a newline.
type encoder struct {
	ext          string
	appendItem   func(dst []byte, it attr.Item) []byte
	appendChange func(dst []byte, c Change) []byte
}

var encoders = map[string]encoder{
	FormatJSON: {ext: ".json.gz", appendItem: appendJSONItem, appendChange: appendJSONChange},
	FormatIon:  {ext: ".ion.gz", appendItem: appendIonItem, appendChange: appendIonChange},
}

// appendJSONItem writes {"Item":{...}}.
func appendJSONItem(dst []byte, it attr.Item) []byte {
	dst = append(dst, `{"Item":`...)
	dst = attr.AppendItemJSON(dst, it)
	return append(dst, "}\n"...)
}

// appendJSONChange writes {"Metadata":{"WriteTimestampMicros":{"N":"…"}},
// "Keys":{…},"NewImage":{…},"OldImage":{…}}, images only when present.
func appendJSONChange(dst []byte, c Change) []byte {
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
	return append(dst, "}\n"...)
}

// appendIonItem writes $ion_1_0 {Item:{...}}.
func appendIonItem(dst []byte, it attr.Item) []byte {
	dst = append(dst, "$ion_1_0 {Item:"...)
	dst = iontext.AppendItem(dst, it)
	return append(dst, "}\n"...)
}

// appendIonChange writes the incremental record's structure in Ion, the
// timestamp as a decimal.
func appendIonChange(dst []byte, c Change) []byte {
	dst = append(dst, "$ion_1_0 {Metadata:{WriteTimestampMicros:"...)
	dst = iontext.AppendDecimal(dst, strconv.FormatInt(c.WriteTime.UnixMicro(), 10))
	dst = append(dst, "},Keys:"...)
	dst = iontext.AppendItem(dst, c.Keys)
	if c.NewImage != nil {
		dst = append(dst, ",NewImage:"...)
		dst = iontext.AppendItem(dst, c.NewImage)
	}
	if c.OldImage != nil {
		dst = append(dst, ",OldImage:"...)
		dst = iontext.AppendItem(dst, c.OldImage)
	}
	return append(dst, "}\n"...)
}
