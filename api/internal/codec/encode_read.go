package codec

import (
	"reflect"
	"strconv"

	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
)

// The read results carry their items already rendered as DynamoDB JSON
// (ddb.ReadOutput.RenderedItems, ddb.GetItemOutput.RenderedItem), which
// these plans write in the items' place. The output is what encoding/json
// writes for the struct with the items decoded.
var (
	readOutputType    = reflect.TypeFor[ddb.ReadOutput]()
	getItemOutputType = reflect.TypeFor[ddb.GetItemOutput]()
)

// pointerTo returns a pointer to v's T: v's own when it is addressable (the
// plans get a pointer's element), else a copy's.
func pointerTo[T any](v reflect.Value) *T {
	if v.CanAddr() {
		return v.Addr().Interface().(*T)
	}
	cp := v.Interface().(T)
	return &cp
}

// encodeReadOutput writes a Query or Scan page.
func encodeReadOutput(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	o := pointerTo[ddb.ReadOutput](v)
	dst = append(dst, '{')
	switch {
	case o.Items != nil:
		dst = append(dst, `"Items":`...)
		if *o.Items == nil {
			dst = append(dst, "null"...)
		} else {
			dst = appendItemList(append(dst, '['), *o.Items)
			dst = append(dst, ']')
		}
		dst = append(dst, ',')
	case o.RenderedItems != nil:
		dst = append(dst, `"Items":[`...)
		dst = append(dst, o.RenderedItems...)
		dst = append(dst, "],"...)
	}
	dst = append(dst, `"Count":`...)
	dst = strconv.AppendInt(dst, int64(o.Count), 10)
	dst = append(dst, `,"ScannedCount":`...)
	dst = strconv.AppendInt(dst, int64(o.ScannedCount), 10)
	if len(o.LastEvaluatedKey) > 0 {
		dst = attr.AppendItemJSON(append(dst, `,"LastEvaluatedKey":`...), o.LastEvaluatedKey)
	}
	if o.ConsumedCapacity != nil {
		var err error
		if dst, err = e.AppendValue(append(dst, `,"ConsumedCapacity":`...), o.ConsumedCapacity); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}

// appendItemList appends items' JSON, comma-separated.
func appendItemList(dst []byte, items []attr.Item) []byte {
	for i, it := range items {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = attr.AppendItemJSON(dst, it)
	}
	return dst
}

// encodeGetItemOutput writes GetItem's result.
func encodeGetItemOutput(e *Encoder, dst []byte, v reflect.Value) ([]byte, error) {
	o := pointerTo[ddb.GetItemOutput](v)
	dst = append(dst, '{')
	switch {
	case o.Item != nil: // {} when a projection left nothing of the item
		dst = attr.AppendItemJSON(append(dst, `"Item":`...), o.Item)
	case o.Item == nil && o.RenderedItem != nil:
		dst = append(append(dst, `"Item":`...), o.RenderedItem...)
	}
	if o.ConsumedCapacity != nil {
		if len(dst) > 1 {
			dst = append(dst, ',')
		}
		var err error
		if dst, err = e.AppendValue(append(dst, `"ConsumedCapacity":`...), o.ConsumedCapacity); err != nil {
			return dst, err
		}
	}
	return append(dst, '}'), nil
}
