package table

import (
	"testing"

	"github.com/ddblocal/ddblocal/ddb"
)

func TestCheckSourceDefinitions(t *testing.T) {
	hash := ddb.KeySchemaElement{AttributeName: "pk", KeyType: "HASH"}
	rng := ddb.KeySchemaElement{AttributeName: "sk", KeyType: "RANGE"}
	byN := ddb.KeySchemaElement{AttributeName: "n", KeyType: "HASH"}
	defs := []ddb.AttributeDefinition{{AttributeName: "pk", AttributeType: "S"}, {AttributeName: "sk", AttributeType: "S"}, {AttributeName: "n", AttributeType: "N"}}
	include := ddb.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"a", "b"}}
	src := &tableMeta{Name: "T", KeySchema: []ddb.KeySchemaElement{hash, rng}, AttributeDefinitions: defs,
		BillingMode: "PROVISIONED", ReadCapacity: 5, WriteCapacity: 6,
		GlobalSecondaryIndexes: []indexMeta{{Name: "g", KeySchema: []ddb.KeySchemaElement{byN}, Projection: include, ReadCapacity: 1, WriteCapacity: 2}},
		LocalSecondaryIndexes:  []indexMeta{{Name: "l", KeySchema: []ddb.KeySchemaElement{hash, {AttributeName: "n", KeyType: "RANGE"}}, Projection: ddb.Projection{ProjectionType: "ALL"}}},
	}
	on := true
	tests := []struct {
		name string
		in   ddb.CreateTableInput
		want string // the thing that differs, "" when accepted
	}{
		{"nothing given", ddb.CreateTableInput{}, ""},
		{"the same, reordered", ddb.CreateTableInput{KeySchema: []ddb.KeySchemaElement{hash, rng},
			AttributeDefinitions:   []ddb.AttributeDefinition{defs[2], defs[0], defs[1]},
			GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{{IndexName: "g", KeySchema: []ddb.KeySchemaElement{byN}, Projection: &ddb.Projection{ProjectionType: "INCLUDE", NonKeyAttributes: []string{"b", "a"}}}},
			LocalSecondaryIndexes:  []ddb.LocalSecondaryIndex{{IndexName: "l", KeySchema: []ddb.KeySchemaElement{hash, {AttributeName: "n", KeyType: "RANGE"}}, Projection: &ddb.Projection{ProjectionType: "ALL"}}},
			BillingMode:            "PROVISIONED", ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: pointer[int64](5), WriteCapacityUnits: pointer[int64](6)},
			TableClass: "STANDARD", StreamSpecification: &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "NEW_AND_OLD_IMAGES"}}, ""},
		{"key order", ddb.CreateTableInput{KeySchema: []ddb.KeySchemaElement{rng, hash}}, "key schema"},
		{"hash key only", ddb.CreateTableInput{KeySchema: []ddb.KeySchemaElement{hash}}, "key schema"},
		{"an attribute less", ddb.CreateTableInput{AttributeDefinitions: defs[:2]}, "attribute definitions"},
		{"another type", ddb.CreateTableInput{AttributeDefinitions: []ddb.AttributeDefinition{defs[0], defs[1], {AttributeName: "n", AttributeType: "S"}}}, "attribute definitions"},
		{"another projection", ddb.CreateTableInput{GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{{IndexName: "g", KeySchema: []ddb.KeySchemaElement{byN}, Projection: &ddb.Projection{ProjectionType: "ALL"}}}}, "global secondary indexes"},
		{"another index name", ddb.CreateTableInput{GlobalSecondaryIndexes: []ddb.GlobalSecondaryIndex{{IndexName: "h", KeySchema: []ddb.KeySchemaElement{byN}, Projection: &include}}}, "global secondary indexes"},
		{"no local index", ddb.CreateTableInput{LocalSecondaryIndexes: []ddb.LocalSecondaryIndex{}}, "local secondary indexes"},
		{"on demand", ddb.CreateTableInput{BillingMode: "PAY_PER_REQUEST"}, "billing mode"},
		{"other capacity", ddb.CreateTableInput{ProvisionedThroughput: &ddb.ProvisionedThroughput{ReadCapacityUnits: pointer[int64](6), WriteCapacityUnits: pointer[int64](6)}}, "provisioned throughput"},
		{"infrequent access", ddb.CreateTableInput{TableClass: "STANDARD_INFREQUENT_ACCESS"}, "table class"},
		{"no stream", ddb.CreateTableInput{StreamSpecification: &ddb.StreamSpecification{StreamEnabled: new(bool)}}, "stream specification"},
		{"keys only", ddb.CreateTableInput{StreamSpecification: &ddb.StreamSpecification{StreamEnabled: &on, StreamViewType: "KEYS_ONLY"}}, "stream specification"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkSourceDefinitions(src, &tt.in)
			want := ""
			if tt.want != "" {
				want = "The " + tt.want + " must be the source table's."
			}
			got := ""
			if err != nil {
				got = err.(*ddb.Error).Message
			}
			if got != want {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}
