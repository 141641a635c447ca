package attr

import "encoding/json"

// ItemJSON is one item already written as DynamoDB JSON (a JSON object), for
// a response that needs nothing else of it: transcoded from its storage
// encoding without building an Item (AppendBinaryJSON). nil means no item.
type ItemJSON []byte

// Item decodes j; it returns nil for a nil j.
func (j ItemJSON) Item() (Item, error) {
	if j == nil {
		return nil, nil
	}
	var item Item
	if err := json.Unmarshal(j, &item); err != nil {
		return nil, err
	}
	return item, nil
}

// ItemsJSON is a list of items already written as DynamoDB JSON: the JSON
// objects separated by commas, without the enclosing brackets, so that a
// page can append items one by one. nil means no list; an empty, non-nil
// ItemsJSON is the empty list.
type ItemsJSON []byte

// Items decodes j: nil for a nil j, an empty non-nil slice for an empty one.
func (j ItemsJSON) Items() ([]Item, error) {
	if j == nil {
		return nil, nil
	}
	var items []Item
	b := append(append(append(make([]byte, 0, len(j)+2), '['), j...), ']')
	if err := json.Unmarshal(b, &items); err != nil {
		return nil, err
	}
	if items == nil {
		items = []Item{}
	}
	return items, nil
}
