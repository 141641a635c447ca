package store

import "encoding/json"

// GetMetaJSON decodes the metadata value stored under name, which
// PutMetaJSON wrote, into v. It leaves v as it was when there is none.
func (s *Space) GetMetaJSON(name string, v any) error {
	b := s.GetMeta(name)
	if len(b) == 0 {
		return nil
	}
	return json.Unmarshal(b, v)
}

// PutMetaJSON stores v, encoded as JSON, under name, as PutMeta does.
func (s *Space) PutMetaJSON(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return s.PutMeta(name, b)
}
