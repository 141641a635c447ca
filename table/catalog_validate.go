package table

import (
	"strings"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/throttle"
)

// The checks of a table definition that CreateTable (and UpdateTable's
// index creation) make beyond the member constraints, in DynamoDB's words.
// Sources for the texts: the ack-api-quirks catalogue of ValidationException
// messages recorded from the service (DDB-TABLE-442, verified 2026-10-09);
// the AWS CLI answers quoted in aws-cloudformation/cfn-lint#1037; the
// nubo-db/dynamodb-conformance suite's CreateTable error-message tests, run
// against DynamoDB.

// checkAttributeDefinitions checks that a CreateTable request defines each
// attribute once and exactly the attributes its key schemas (and vector
// search schemas) use, then the table's key schema. DynamoDB compares the
// two lists by size first: without any index, against the table's key
// schema element by element (so a key schema naming one attribute twice
// is "Some index key attribute have no definition" when only that
// attribute is defined); with indexes, against the distinct key
// attributes. Its lists are printed as Java prints a list, "[a, b]". The
// order of "Some AttributeDefinitions are not used" follows three answers
// recorded from the service (aws/aws-cli#1884, aws/aws-sdk-java#335,
// cfn-lint#1037): the keys used are the indexes' keys before the table's,
// and the definitions list the keys used first, then the unused ones in
// request order; a fourth recorded answer (a CloudFormation event quoted
// in a public project's notes) lists the definitions otherwise, so the
// order is not certain.
func checkAttributeDefinitions(in *ddb.CreateTableInput) error {
	defined := map[string]bool{}
	var defs []string
	for _, d := range in.AttributeDefinitions {
		if defined[d.AttributeName] {
			return ddb.Errorf(ddb.ValidationException, "Attribute Name is duplicated: %s", d.AttributeName)
		}
		defined[d.AttributeName] = true
		defs = append(defs, d.AttributeName)
	}
	search := searchSchemaAttributes(in.VectorIndexes)
	for _, a := range search {
		if !defined[a] {
			return invalid("One element in SearchSchema is not defined in attribute definitions")
		}
	}
	if len(in.LocalSecondaryIndexes)+len(in.GlobalSecondaryIndexes)+len(in.VectorIndexes) == 0 {
		if err := checkTableDefinitions(in.KeySchema, defs, defined); err != nil {
			return err
		}
		return checkTableKeySchema(in.KeySchema)
	}
	used := keysUsed(in, search)
	var missing []string
	inUse := map[string]bool{}
	for _, n := range used {
		inUse[n] = true
		if !defined[n] {
			missing = append(missing, n)
		}
	}
	switch {
	case len(defs) > len(used):
		listed := append([]string(nil), used...)
		for _, d := range defs {
			if !inUse[d] {
				listed = append(listed, d)
			}
		}
		return invalid("Some AttributeDefinitions are not used. AttributeDefinitions: %s, keys used: %s", javaList(listed), javaList(used))
	case len(missing) > 0:
		return invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: %s, AttributeDefinitions: %s", javaList(missing), javaList(defs))
	}
	return checkTableKeySchema(in.KeySchema)
}

// keysUsed lists, once each, the attributes a CreateTable request's key
// schemas use: its global indexes', its local indexes', the table's, then
// the vector search schemas' (search).
func keysUsed(in *ddb.CreateTableInput, search []string) []string {
	var used []string
	seen := map[string]bool{}
	use := func(n string) {
		if !seen[n] {
			seen[n] = true
			used = append(used, n)
		}
	}
	for _, g := range in.GlobalSecondaryIndexes {
		for _, k := range g.KeySchema {
			use(k.AttributeName)
		}
	}
	for _, l := range in.LocalSecondaryIndexes {
		for _, k := range l.KeySchema {
			use(k.AttributeName)
		}
	}
	for _, k := range in.KeySchema {
		use(k.AttributeName)
	}
	for _, a := range search {
		use(a)
	}
	return used
}

// checkTableDefinitions compares the definitions of a table without
// indexes with its key schema, element by element.
func checkTableDefinitions(ks []ddb.KeySchemaElement, defs []string, defined map[string]bool) error {
	switch {
	case len(defs) < len(ks):
		return ddb.Errorf(ddb.ValidationException, "Invalid KeySchema: Some index key attribute have no definition")
	case len(defs) > len(ks):
		return invalid("Number of attributes in KeySchema does not exactly match number of attributes defined in AttributeDefinitions")
	}
	var keys []string
	undefined := false
	for _, k := range ks {
		keys = append(keys, k.AttributeName)
		undefined = undefined || !defined[k.AttributeName]
	}
	if undefined {
		return invalid("Some index key attributes are not defined in AttributeDefinitions. Keys: %s, AttributeDefinitions: %s", javaList(keys), javaList(defs))
	}
	return nil
}

// javaList prints names as DynamoDB's messages print a list: "[a, b]".
func javaList(names []string) string {
	return "[" + strings.Join(names, ", ") + "]"
}

func checkTableKeySchema(ks []ddb.KeySchemaElement) error {
	if len(ks) == 0 || ks[0].KeyType != "HASH" {
		return ddb.Errorf(ddb.ValidationException, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 {
		if ks[1].KeyType != "RANGE" {
			return ddb.Errorf(ddb.ValidationException, "Invalid KeySchema: The second KeySchemaElement is not a RANGE key type")
		}
		if ks[0].AttributeName == ks[1].AttributeName {
			return ddb.Errorf(ddb.ValidationException, "Both the Hash Key and the Range Key element in the KeySchema have the same name")
		}
	}
	return nil
}

// checkGlobalKeySchema checks a global index's key schema: a classic
// HASH [RANGE] pair, or a multi-attribute key of up to four HASH
// attributes followed by up to four RANGE attributes. A pair naming one
// attribute twice is refused as for a table; a multi-attribute key naming
// one twice in DynamoDB's newer words.
func checkGlobalKeySchema(ks []ddb.KeySchemaElement) error {
	if ks[0].KeyType != "HASH" {
		return ddb.Errorf(ddb.ValidationException, "Invalid KeySchema: The first KeySchemaElement is not a HASH key type")
	}
	if len(ks) == 2 && ks[1].KeyType == "RANGE" && ks[0].AttributeName == ks[1].AttributeName {
		return ddb.Errorf(ddb.ValidationException, "Both the Hash Key and the Range Key element in the KeySchema have the same name")
	}
	var hashes, ranges int
	seen := map[string]bool{}
	for _, k := range ks {
		if seen[k.AttributeName] {
			return ddb.Errorf(ddb.ValidationException, "The KeySchema contains multiple key attributes with the same name")
		}
		seen[k.AttributeName] = true
		switch {
		case k.KeyType == "HASH" && ranges > 0:
			return invalid("All HASH key attributes must precede RANGE key attributes in the KeySchema")
		case k.KeyType == "HASH":
			hashes++
		default:
			ranges++
		}
	}
	switch {
	case hashes > maxGSIKeyAttributes:
		return invalid("The KeySchema exceeds the maximum allowed number of HASH key attributes")
	case ranges > maxGSIKeyAttributes:
		return invalid("The KeySchema exceeds the maximum allowed number of RANGE key attributes")
	}
	return nil
}

// checkProjection checks an index's projection: NonKeyAttributes only
// with INCLUDE, and there required, each named once.
func checkProjection(p *ddb.Projection) error {
	switch p.ProjectionType {
	case "INCLUDE":
		if len(p.NonKeyAttributes) == 0 {
			return invalid("ProjectionType is INCLUDE, but NonKeyAttributes is not specified")
		}
	case "", "ALL", "KEYS_ONLY":
		if len(p.NonKeyAttributes) > 0 {
			t := p.ProjectionType
			if t == "" {
				t = "null"
			}
			return invalid("ProjectionType is %s, but NonKeyAttributes is specified", t)
		}
	}
	if p.ProjectionType == "" {
		return invalid("Unknown ProjectionType: null")
	}
	seen := map[string]bool{}
	for _, a := range p.NonKeyAttributes {
		if seen[a] {
			return invalid("Duplicate element in NonKeyAttributes: %s", a)
		}
		seen[a] = true
	}
	return nil
}

// checkTableClass refuses a TableClass DynamoDB does not know, in its own
// words rather than the member constraint's.
func checkTableClass(c string) error {
	if c == "" || c == "STANDARD" || c == "STANDARD_INFREQUENT_ACCESS" {
		return nil
	}
	return ddb.Errorf(ddb.ValidationException, "Invalid table-class parameter provided. Please try again with a valid table-class value: [STANDARD, STANDARD_INFREQUENT_ACCESS].")
}

// checkSSE checks an SSESpecification's members against each other: with
// encryption off neither a type nor a key, AES256 never, a key only with
// the KMS type.
func checkSSE(s *ddb.SSESpecification) error {
	if s == nil {
		return nil
	}
	off := s.Enabled != nil && !*s.Enabled
	switch {
	case off && s.SSEType != "":
		return invalid("SSEType can not be specified if Enabled is false")
	case off && s.KMSMasterKeyId != "":
		return invalid("KMSMasterKeyId can not be specified if Enabled is false")
	case s.SSEType == "AES256":
		return invalid("SSEType AES256 is not supported")
	case s.KMSMasterKeyId != "" && s.SSEType != "KMS":
		return invalid("SSEType KMS is required if KMSMasterKeyId is specified")
	}
	return nil
}

// checkIndexLists refuses an index list that is given but empty.
func checkIndexLists(in *ddb.CreateTableInput) error {
	switch {
	case in.GlobalSecondaryIndexes != nil && len(in.GlobalSecondaryIndexes) == 0:
		return invalid("List of GlobalSecondaryIndexes is empty")
	case in.LocalSecondaryIndexes != nil && len(in.LocalSecondaryIndexes) == 0:
		return invalid("List of LocalSecondaryIndexes is empty")
	}
	return nil
}

// checkOnDemand refuses a table's OnDemandThroughput as DynamoDB does
// (ack-api-quirks DDB-TABLE-039, -051, -059 and -153, recorded from the
// service): on a table that is (or becomes) PROVISIONED a member may not
// be given at all; otherwise each given member must be at least 1, or -1
// (no maximum) where clearable (UpdateTable; CreateTable refuses -1). The
// read member is named first.
func checkOnDemand(od *ddb.OnDemandThroughput, mode string, clearable bool) error {
	if od == nil {
		return nil
	}
	members := []struct {
		name string
		v    *int64
	}{{"MaxReadRequestUnits", od.MaxReadRequestUnits}, {"MaxWriteRequestUnits", od.MaxWriteRequestUnits}}
	for _, mb := range members {
		if mb.v != nil && mode == "PROVISIONED" {
			return invalid("%s for OnDemandThroughput cannot be specified when the table BillingMode is PROVISIONED", mb.name)
		}
	}
	for _, mb := range members {
		if mb.v != nil && (*mb.v == 0 || *mb.v < -1 || (*mb.v == -1 && !clearable)) {
			return invalid("Requested %s for OnDemandThroughput for table is outside of valid range", mb.name)
		}
	}
	return nil
}

// onDemandInitialDoc is the page CreateTable's refusal of a warm
// throughput below a new on-demand table's points to.
const onDemandInitialDoc = "https://docs.aws.amazon.com/amazondynamodb/latest/developerguide/on-demand-capacity-mode.html#on-demand-capacity-mode-initial"

// checkCreateWarm refuses a CreateTable WarmThroughput below what the new
// table serves anyway, as DynamoDB does (ack-api-quirks DDB-TABLE-039,
// recorded from the service for the read member; the write member's
// words follow it): an on-demand table's initial 12000 reads and 4000
// writes per second, a provisioned table's capacity. m's billing is set.
func (m *tableMeta) checkCreateWarm(w *ddb.WarmThroughput) error {
	if w == nil {
		return nil
	}
	type member struct {
		name      string
		asked     *int64
		floor     int64
		provision string
	}
	members := []member{{"ReadUnitsPerSecond", w.ReadUnitsPerSecond, throttle.OnDemandReadUnits, "ReadCapacityUnits"},
		{"WriteUnitsPerSecond", w.WriteUnitsPerSecond, throttle.OnDemandWriteUnits, "WriteCapacityUnits"}}
	if m.BillingMode == "PROVISIONED" {
		members[0].floor, members[1].floor = m.ReadCapacity, m.WriteCapacity
	}
	for _, mb := range members {
		switch {
		case mb.asked == nil || *mb.asked >= mb.floor:
		case m.BillingMode == "PROVISIONED":
			return invalid("Requested %s for WarmThroughput for table is lower than %s of ProvisionedThroughput", mb.name, mb.provision)
		default:
			return invalid("Requested %s for WarmThroughput for table is lower than initial throughput for OnDemand. See: %s", mb.name, onDemandInitialDoc)
		}
	}
	return nil
}
