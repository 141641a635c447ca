package table

import (
	"encoding/json"
	"fmt"

	"github.com/ddblocal/ddblocal/ddb"
)

// catalogRecord is a table definition as the store's catalog holds it, in
// JSON. Its member names are the file format, pinned by explicit tags and
// written by these private types alone, so that renaming or retagging a wire
// shape (AttributeDefinition, Projection, ...) never changes what is stored.
// Every stored field of tableMeta has one here (TestCatalogRecordCoversMeta);
// a new one needs an omitempty member, so older files still load.
type catalogRecord struct {
	Region                 string                    `json:"Region"`
	Name                   string                    `json:"Name"`
	ID                     string                    `json:"ID"`
	Created                int64                     `json:"Created"`
	Updated                int64                     `json:"Updated"`
	AttributeDefinitions   []recordAttribute         `json:"AttributeDefinitions"`
	KeySchema              []recordKey               `json:"KeySchema"`
	LocalSecondaryIndexes  []recordIndex             `json:"LocalSecondaryIndexes,omitempty"`
	GlobalSecondaryIndexes []recordIndex             `json:"GlobalSecondaryIndexes,omitempty"`
	BillingMode            string                    `json:"BillingMode"`
	PayPerRequestSince     int64                     `json:"PayPerRequestSince,omitempty"`
	ReadCapacity           int64                     `json:"ReadCapacity,omitempty"`
	WriteCapacity          int64                     `json:"WriteCapacity,omitempty"`
	OnDemandThroughput     *recordOnDemand           `json:"OnDemandThroughput"`
	WarmRead               int64                     `json:"WarmRead,omitempty"`
	WarmWrite              int64                     `json:"WarmWrite,omitempty"`
	WarmHighRead           int64                     `json:"WarmHighRead,omitempty"`
	WarmHighWrite          int64                     `json:"WarmHighWrite,omitempty"`
	Stream                 *recordStream             `json:"Stream,omitempty"`
	StreamLabel            string                    `json:"StreamLabel,omitempty"`
	SSE                    *recordSSE                `json:"SSE,omitempty"`
	TableClass             string                    `json:"TableClass,omitempty"`
	DeletionProtection     bool                      `json:"DeletionProtection,omitempty"`
	DeletingIndexes        []recordDeletedIndex      `json:"DeletingIndexes,omitempty"`
	Tags                   []recordTag               `json:"Tags,omitempty"`
	TTLAttribute           string                    `json:"TTLAttribute,omitempty"`
	PITR                   *recordPITR               `json:"PITR,omitempty"`
	Policies               map[string]recordPolicy   `json:"Policies,omitempty"`
	Restore                *recordRestore            `json:"Restore,omitempty"`
	Importing              string                    `json:"Importing,omitempty"`
	ContributorInsights    map[string]recordInsights `json:"ContributorInsights,omitempty"`
	Replicas               []recordReplica           `json:"Replicas,omitempty"`
	Strong                 bool                      `json:"Strong,omitempty"`
	Witness                string                    `json:"Witness,omitempty"`
	WitnessSince           int64                     `json:"WitnessSince,omitempty"`
	AutoScaling            *replicaScaling           `json:"AutoScaling,omitempty"` // stored as is: it carries its tags
	Global                 *globalSettings           `json:"Global,omitempty"`      // stored as is: it carries its tags
	// The vector index types carry their own tags (vector_catalog.go).
	VectorIndexes         []vectorMeta     `json:"VectorIndexes,omitempty"`
	DeletingVectorIndexes []deletingVector `json:"DeletingVectorIndexes,omitempty"`
}

// The record's parts. Each has the fields of the wire shape it stores, in
// the same order, so that Go converts between the two; a wire shape that
// changes its fields then fails to compile here instead of changing the file.
type (
	recordAttribute struct {
		AttributeName string `json:"AttributeName"`
		AttributeType string `json:"AttributeType"`
	}
	recordKey struct {
		AttributeName string `json:"AttributeName"`
		KeyType       string `json:"KeyType"`
	}
	recordProjection struct {
		ProjectionType   string   `json:"ProjectionType,omitempty"`
		NonKeyAttributes []string `json:"NonKeyAttributes,omitempty"`
	}
	recordIndex struct {
		Name          string           `json:"Name"`
		KeySchema     []recordKey      `json:"KeySchema"`
		Projection    recordProjection `json:"Projection"`
		ReadCapacity  int64            `json:"ReadCapacity,omitempty"`
		WriteCapacity int64            `json:"WriteCapacity,omitempty"`
		OnDemand      *recordOnDemand  `json:"OnDemandThroughput,omitempty"`
		WarmRead      int64            `json:"WarmRead,omitempty"`
		WarmWrite     int64            `json:"WarmWrite,omitempty"`
		Created       int64            `json:"Created"`
	}
	recordDeletedIndex struct {
		recordIndex
		Until int64 `json:"Until"`
	}
	recordOnDemand struct {
		MaxReadRequestUnits  *int64 `json:"MaxReadRequestUnits,omitempty"`
		MaxWriteRequestUnits *int64 `json:"MaxWriteRequestUnits,omitempty"`
	}
	recordStream struct {
		StreamEnabled  *bool  `json:"StreamEnabled"`
		StreamViewType string `json:"StreamViewType,omitempty"`
	}
	recordSSE struct {
		Enabled        *bool  `json:"Enabled,omitempty"`
		SSEType        string `json:"SSEType,omitempty"`
		KMSMasterKeyId string `json:"KMSMasterKeyId,omitempty"`
	}
	recordTag struct {
		Key   string `json:"Key"`
		Value string `json:"Value"`
	}
	recordPITR struct {
		Since int64 `json:"Since"`
		Days  int32 `json:"Days"`
		Floor int64 `json:"Floor,omitempty"`
	}
	recordPolicy struct {
		Document string `json:"Document"`
		Revision string `json:"Revision"`
	}
	recordInsights struct {
		Enabled      bool   `json:"Enabled,omitempty"`
		Mode         string `json:"Mode,omitempty"`
		Changed      int64  `json:"Changed"`
		Rules        int64  `json:"Rules,omitempty"`
		IndexCreated int64  `json:"IndexCreated,omitempty"`
	}
	recordReplica struct {
		Region       string `json:"Region"`
		Account      string `json:"Account,omitempty"`
		Status       string `json:"Status"`
		Since        int64  `json:"Since"`
		CopyFrom     string `json:"CopyFrom,omitempty"`
		TableClass   string `json:"TableClass,omitempty"`
		KMSKey       string `json:"KMSKey,omitempty"`
		ReadCapacity int64  `json:"ReadCapacity,omitempty"`
		MaxRead      int64  `json:"MaxRead,omitempty"`
		// Indexes is stored as is: replicaIndexOverride carries its tags.
		Indexes []replicaIndexOverride `json:"Indexes,omitempty"`
	}
	recordRestore struct {
		SourceBackupArn string `json:"SourceBackupArn,omitempty"`
		SourceTableArn  string `json:"SourceTableArn,omitempty"`
		Time            int64  `json:"Time"`
	}
)

// convertMap returns m with f applied to each value, keeping nil as nil.
func convertMap[From, To any](m map[string]From, f func(From) To) map[string]To {
	if m == nil {
		return nil
	}
	out := make(map[string]To, len(m))
	for k, v := range m {
		out[k] = f(v)
	}
	return out
}

// convert returns xs with f applied to each element, keeping nil as nil.
func convert[From, To any](xs []From, f func(From) To) []To {
	if xs == nil {
		return nil
	}
	out := make([]To, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// encodeMeta returns m's catalog record as stored.
func encodeMeta(m *tableMeta) ([]byte, error) {
	r := catalogRecord{
		Region: m.Region, Name: m.Name, ID: m.ID, Created: m.Created, Updated: m.Updated,
		AttributeDefinitions: convert(m.AttributeDefinitions, func(a ddb.AttributeDefinition) recordAttribute {
			return recordAttribute{AttributeName: a.AttributeName, AttributeType: a.AttributeType}
		}),
		KeySchema:              convert(m.KeySchema, func(k ddb.KeySchemaElement) recordKey { return recordKey(k) }),
		LocalSecondaryIndexes:  convert(m.LocalSecondaryIndexes, indexRecord),
		GlobalSecondaryIndexes: convert(m.GlobalSecondaryIndexes, indexRecord),
		BillingMode:            m.BillingMode, ReadCapacity: m.ReadCapacity, WriteCapacity: m.WriteCapacity,
		PayPerRequestSince: m.PayPerRequestSince,
		OnDemandThroughput: (*recordOnDemand)(m.OnDemandThroughput),
		WarmRead:           m.WarmRead, WarmWrite: m.WarmWrite, WarmHighRead: m.WarmHighRead, WarmHighWrite: m.WarmHighWrite,
		Stream: (*recordStream)(m.Stream), StreamLabel: m.StreamLabel,
		SSE: (*recordSSE)(m.SSE), TableClass: m.TableClass, DeletionProtection: m.DeletionProtection,
		DeletingIndexes: convert(m.DeletingIndexes, func(d deletingIndex) recordDeletedIndex {
			return recordDeletedIndex{recordIndex: indexRecord(d.indexMeta), Until: d.Until}
		}),
		Tags:                convert(m.Tags, func(t ddb.Tag) recordTag { return recordTag{Key: t.Key, Value: t.Value} }),
		TTLAttribute:        m.TTLAttribute,
		PITR:                (*recordPITR)(m.PITR),
		Policies:            convertMap(m.Policies, func(p resourcePolicy) recordPolicy { return recordPolicy(p) }),
		Restore:             (*recordRestore)(m.Restore),
		Importing:           m.Importing,
		ContributorInsights: convertMap(m.ContributorInsights, func(s insightsState) recordInsights { return recordInsights(s) }),
		Replicas:            convert(m.Replicas, func(r replicaMeta) recordReplica { return recordReplica(r) }),
		Strong:              m.Strong, Witness: m.Witness, WitnessSince: m.WitnessSince, AutoScaling: m.AutoScaling, Global: m.Global,
		VectorIndexes: m.VectorIndexes, DeletingVectorIndexes: m.DeletingVectorIndexes,
	}
	return json.Marshal(&r)
}

// decodeMeta returns the table definition of a stored catalog record, with
// its derived fields filled in.
func decodeMeta(b []byte) (*tableMeta, error) {
	var r catalogRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("table: corrupt catalog entry: %w", err)
	}
	m := &tableMeta{
		Region: r.Region, Name: r.Name, ID: r.ID, Created: r.Created, Updated: r.Updated,
		AttributeDefinitions: convert(r.AttributeDefinitions, func(a recordAttribute) ddb.AttributeDefinition {
			return ddb.AttributeDefinition{AttributeName: a.AttributeName, AttributeType: a.AttributeType}
		}),
		KeySchema:              convert(r.KeySchema, func(k recordKey) ddb.KeySchemaElement { return ddb.KeySchemaElement(k) }),
		LocalSecondaryIndexes:  convert(r.LocalSecondaryIndexes, recordIndex.meta),
		GlobalSecondaryIndexes: convert(r.GlobalSecondaryIndexes, recordIndex.meta),
		BillingMode:            r.BillingMode, ReadCapacity: r.ReadCapacity, WriteCapacity: r.WriteCapacity,
		PayPerRequestSince: r.PayPerRequestSince,
		OnDemandThroughput: (*ddb.OnDemandThroughput)(r.OnDemandThroughput),
		WarmRead:           r.WarmRead, WarmWrite: r.WarmWrite, WarmHighRead: r.WarmHighRead, WarmHighWrite: r.WarmHighWrite,
		Stream: (*ddb.StreamSpecification)(r.Stream), StreamLabel: r.StreamLabel,
		SSE: (*ddb.SSESpecification)(r.SSE), TableClass: r.TableClass, DeletionProtection: r.DeletionProtection,
		DeletingIndexes: convert(r.DeletingIndexes, func(d recordDeletedIndex) deletingIndex {
			return deletingIndex{indexMeta: d.recordIndex.meta(), Until: d.Until}
		}),
		Tags:                convert(r.Tags, func(t recordTag) ddb.Tag { return ddb.Tag{Key: t.Key, Value: t.Value} }),
		TTLAttribute:        r.TTLAttribute,
		PITR:                (*pitrMeta)(r.PITR),
		Policies:            convertMap(r.Policies, func(p recordPolicy) resourcePolicy { return resourcePolicy(p) }),
		Restore:             (*restoreMeta)(r.Restore),
		Importing:           r.Importing,
		ContributorInsights: convertMap(r.ContributorInsights, func(s recordInsights) insightsState { return insightsState(s) }),
		Replicas:            convert(r.Replicas, func(r recordReplica) replicaMeta { return replicaMeta(r) }),
		Strong:              r.Strong, Witness: r.Witness, WitnessSince: r.WitnessSince, AutoScaling: r.AutoScaling, Global: r.Global,
		VectorIndexes: r.VectorIndexes, DeletingVectorIndexes: r.DeletingVectorIndexes,
	}
	m.derive()
	return m, nil
}

func indexRecord(ix indexMeta) recordIndex {
	return recordIndex{Name: ix.Name, KeySchema: convert(ix.KeySchema, func(k ddb.KeySchemaElement) recordKey { return recordKey(k) }),
		Projection: recordProjection(ix.Projection), ReadCapacity: ix.ReadCapacity, WriteCapacity: ix.WriteCapacity,
		OnDemand: (*recordOnDemand)(ix.OnDemand), WarmRead: ix.WarmRead, WarmWrite: ix.WarmWrite, Created: ix.Created}
}

func (r recordIndex) meta() indexMeta {
	return indexMeta{Name: r.Name, KeySchema: convert(r.KeySchema, func(k recordKey) ddb.KeySchemaElement { return ddb.KeySchemaElement(k) }),
		Projection: ddb.Projection(r.Projection), ReadCapacity: r.ReadCapacity, WriteCapacity: r.WriteCapacity,
		OnDemand: (*ddb.OnDemandThroughput)(r.OnDemand), WarmRead: r.WarmRead, WarmWrite: r.WarmWrite, Created: r.Created}
}
