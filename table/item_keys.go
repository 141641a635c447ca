package table

import (
	"github.com/ddblocal/ddblocal/attr"
	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/index"
)

// storageKey is an item's key in its table's space: hash(pk) ‖ pk ‖ sk, with
// the order-preserving, self-delimiting encodings from attr, so a partition's
// items are contiguous and sorted by sort key, and partitions are spread over
// the hash space (Scan order, parallel scan segments).
func storageKey(ks keySchema, pk attr.Value, sk *attr.Value) []byte {
	b := attr.AppendHashPrefix(make([]byte, 0, attr.HashPrefixLen+len(pk.S)+len(pk.B)+24), attr.PartitionHash(pk))
	b = attr.AppendKey(b, pk)
	if sk != nil {
		b = attr.AppendKey(b, *sk)
	}
	return b
}

// partitionPrefix is the storage-key prefix shared by every item of partition pk.
func partitionPrefix(pk attr.Value) []byte {
	return storageKey(keySchema{}, pk, nil)
}

// checkKeyValue validates one key attribute's value in an item being written:
// present, of the declared type, not empty, within the size limit.
func checkKeyValue(name string, want attr.Type, v attr.Value, ok bool, isPartition bool) error {
	if !ok {
		return schemaErr(invalid("Missing the key %s in the item", name))
	}
	if v.T != want {
		return schemaErr(invalid("Type mismatch for key %s expected: %s actual: %s", name, want, v.T))
	}
	return checkKeySize(name, v, isPartition)
}

func checkKeySize(name string, v attr.Value, isPartition bool) error {
	n := len(v.S) + len(v.B)
	if (v.T == attr.TypeS || v.T == attr.TypeB) && n == 0 {
		return ddb.Errorf(ddb.ValidationException, "One or more parameter values are not valid. The AttributeValue for a key attribute cannot contain an empty %s value. Key: %s",
			map[attr.Type]string{attr.TypeS: "string", attr.TypeB: "binary"}[v.T], name)
	}
	if isPartition && n > attr.MaxPartitionKeySize {
		// "of2048", without a space, is DynamoDB's own text.
		return invalid("Size of hashkey has exceeded the maximum size limit of%d bytes", attr.MaxPartitionKeySize)
	}
	if !isPartition && n > attr.MaxSortKeySize {
		return invalid("Aggregated size of all range keys has exceeded the size limit of %d bytes", attr.MaxSortKeySize)
	}
	return nil
}

// schemaErr marks e as a key that does not fit the key schema (Error.KeySchema).
func schemaErr(e *ddb.Error) *ddb.Error {
	e.KeySchema = true
	return e
}

// itemKey validates the key attributes of an item being written (PutItem,
// BatchWriteItem puts) and returns its storage key.
func (m *tableMeta) itemKey(item attr.Item) ([]byte, error) {
	return m.itemKeyFrom(itemLookup(item))
}

// lookup returns an item's top-level attribute by name, and whether the
// item has it: items are attr.Item maps or attr.Encoded encodings.
type lookup func(name string) (attr.Value, bool)

// itemLookup returns the lookup of an attr.Item.
func itemLookup(item attr.Item) lookup {
	return func(name string) (attr.Value, bool) {
		v, ok := item[name]
		return v, ok
	}
}

// itemKeyFrom is itemKey for an item seen through get.
func (m *tableMeta) itemKeyFrom(get lookup) ([]byte, error) {
	ks := m.schema
	pk, ok := get(ks.PK)
	if err := checkKeyValue(ks.PK, ks.PKType, pk, ok, true); err != nil {
		return nil, err
	}
	if ks.SK == "" {
		return storageKey(ks, pk, nil), nil
	}
	sk, ok := get(ks.SK)
	if err := checkKeyValue(ks.SK, ks.SKType, sk, ok, false); err != nil {
		return nil, err
	}
	return storageKey(ks, pk, &sk), nil
}

// lookupKey validates a Key member (GetItem, DeleteItem, UpdateItem, batch and
// transaction keys): exactly the key attributes, of the declared types.
func (m *tableMeta) lookupKey(key attr.Item) ([]byte, error) {
	ks := m.schema
	want := 1
	if ks.SK != "" {
		want = 2
	}
	pk, ok := key[ks.PK]
	if !ok || len(key) != want || pk.T != ks.PKType {
		return nil, schemaErr(ddb.Errorf(ddb.ValidationException, "The provided key element does not match the schema"))
	}
	if err := checkKeySize(ks.PK, pk, true); err != nil {
		return nil, err
	}
	if ks.SK == "" {
		return storageKey(ks, pk, nil), nil
	}
	sk, ok := key[ks.SK]
	if !ok || sk.T != ks.SKType {
		return nil, schemaErr(ddb.Errorf(ddb.ValidationException, "The provided key element does not match the schema"))
	}
	if err := checkKeySize(ks.SK, sk, false); err != nil {
		return nil, err
	}
	return storageKey(ks, pk, &sk), nil
}

// keyNames returns the names of the key attributes.
func (m *tableMeta) keyNames() []string {
	if m.schema.SK == "" {
		return []string{m.schema.PK}
	}
	return []string{m.schema.PK, m.schema.SK}
}

// keyOf returns the key attributes of item.
func (m *tableMeta) keyOf(item attr.Item) attr.Item {
	k := attr.Item{m.schema.PK: item[m.schema.PK]}
	if m.schema.SK != "" {
		k[m.schema.SK] = item[m.schema.SK]
	}
	return k
}

// checkIndexKeys validates the index key attributes an item carries: an item
// may lack them (it is then absent from that index), but present ones must
// pass index.CheckKeyValue, whose violations are worded here as DynamoDB words
// them for a write.
func (m *tableMeta) checkIndexKeys(get lookup) error {
	if err := m.checkVectorValues(get); err != nil {
		return err
	}
	// The local indexes, then the global ones (m.indexes()'s order, without
	// its allocation on every write).
	for _, ixs := range [2][]indexMeta{m.LocalSecondaryIndexes, m.GlobalSecondaryIndexes} {
		for i := range ixs {
			if err := m.checkIndexKey(&ixs[i], get); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkIndexKey is checkIndexKeys for index ix.
func (m *tableMeta) checkIndexKey(ix *indexMeta, get lookup) error {
	for i, k := range ix.KeySchema {
		v, ok := get(k.AttributeName)
		if !ok || k.AttributeName == m.schema.PK || k.AttributeName == m.schema.SK {
			continue
		}
		if err := indexKeyError(ix.Name, index.KeyAttr{Name: k.AttributeName, Type: m.attrType(k.AttributeName)}, v, i == 0 || k.KeyType == "HASH"); err != nil {
			return err
		}
	}
	return nil
}

// indexKeyError words, for a write, why v cannot be the value of key
// attribute k of index ix (nil when it can).
func indexKeyError(ix string, k index.KeyAttr, v attr.Value, partition bool) error {
	switch index.CheckKeyValue(v, k.Type, partition) {
	case index.KeyWrongType:
		return invalid("Type mismatch for Index Key %s Expected: %s Actual: %s IndexName: %s", k.Name, k.Type, v.T, ix)
	case index.KeyEmpty:
		return ddb.Errorf(ddb.ValidationException, "One or more parameter values are not valid. A value specified for a secondary index key is not supported. The AttributeValue for a key attribute cannot contain an empty %s value. IndexName: %s, IndexKey: %s",
			map[attr.Type]string{attr.TypeS: "string", attr.TypeB: "binary"}[v.T], ix, k.Name)
	case index.KeyTooLarge:
		return invalid("Size limit exceeded for Index Key %s Actual Size: %d bytes Max Size: %d bytes IndexName: %s",
			k.Name, len(v.S)+len(v.B), index.MaxKeySize(partition), ix)
	}
	return nil
}
