package table

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/ddblocal/ddblocal/store"
)

// UpdateTable changes a table's billing mode, throughput, stream, encryption,
// class or deletion protection. Changes to global secondary indexes arrive with
// index maintenance and are refused until then.
func (s *Service) UpdateTable(ctx context.Context, region string, in *UpdateTableInput) (*TableOutput, error) {
	m, err := s.tableForControl(region, in.TableName)
	if err != nil {
		return nil, err
	}
	if len(in.GlobalSecondaryIndexUpdates) > 0 {
		return nil, Errorf(ValidationException, "GlobalSecondaryIndexUpdates are not supported by ddblocal yet")
	}
	if in.BillingMode == "" && in.ProvisionedThroughput == nil && in.StreamSpecification == nil &&
		in.SSESpecification == nil && in.TableClass == "" && in.DeletionProtectionEnabled == nil && in.OnDemandThroughput == nil {
		return nil, Errorf(ValidationException, "At least one of ProvisionedThroughput, BillingMode, UpdateStreamEnabled, GlobalSecondaryIndexUpdates or SSESpecification or ReplicaUpdates is required")
	}
	next := *m
	next.Updated = s.now().UnixNano()
	if err := next.applyUpdate(in); err != nil {
		return nil, err
	}
	next.derive()
	val, err := json.Marshal(&next)
	if err != nil {
		return nil, err
	}
	key := catalogKey(region, m.Name)
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		cur := tx.CatalogGet(key)
		if cur == nil {
			return Errorf(ResourceNotFoundException, "Requested resource not found: Table: %s not found", m.Name)
		}
		if now, err := decodeMeta(cur); err != nil || now.ID != m.ID {
			return Errorf(ResourceNotFoundException, "Requested resource not found: Table: %s not found", m.Name)
		}
		return tx.CatalogPut(key, val)
	})
	if err != nil {
		return nil, err
	}
	s.catalog.set(region, m.Name, &next)
	d := s.describe(&next, s.stats(&next))
	if s.opts.TransientDelay > 0 {
		d.TableStatus = "UPDATING"
	}
	return &TableOutput{TableDescription: d}, nil
}

// applyUpdate validates and applies an UpdateTable request to a copy of the
// table's definition.
func (m *tableMeta) applyUpdate(in *UpdateTableInput) error {
	if in.BillingMode != "" || in.ProvisionedThroughput != nil {
		mode := in.BillingMode
		if mode == "" {
			mode = m.BillingMode
		}
		if mode == "PROVISIONED" && m.BillingMode == "PROVISIONED" && in.ProvisionedThroughput != nil {
			pt := in.ProvisionedThroughput
			if pt.ReadCapacityUnits != nil && pt.WriteCapacityUnits != nil &&
				*pt.ReadCapacityUnits == m.ReadCapacity && *pt.WriteCapacityUnits == m.WriteCapacity {
				return Errorf(ValidationException, "The provisioned throughput for the table will not change. The requested value equals the current value. Current ReadCapacityUnits provisioned for the table: %d. Requested ReadCapacityUnits: %d. Current WriteCapacityUnits provisioned for the table: %d. Requested WriteCapacityUnits: %d. Refer to the Amazon DynamoDB Developer Guide for current limits and how to request higher limits.",
					m.ReadCapacity, *pt.ReadCapacityUnits, m.WriteCapacity, *pt.WriteCapacityUnits)
			}
		}
		if err := m.setBilling(mode, in.ProvisionedThroughput); err != nil {
			return err
		}
		// Indexes follow the table's billing mode; switching to provisioned
		// gives them the table's throughput, as the console does.
		for i := range m.GlobalSecondaryIndexes {
			ix := &m.GlobalSecondaryIndexes[i]
			ix.ReadCapacity, ix.WriteCapacity = m.ReadCapacity, m.WriteCapacity
		}
	}
	if in.OnDemandThroughput != nil {
		m.OnDemandThroughput = in.OnDemandThroughput
	}
	if in.StreamSpecification != nil {
		enabled := in.StreamSpecification.StreamEnabled != nil && *in.StreamSpecification.StreamEnabled
		if enabled && m.Stream != nil {
			return Errorf(ValidationException, "Table already has an enabled stream: %s", m.arn()+"/stream/"+m.StreamLabel)
		}
		if err := m.setStream(in.StreamSpecification); err != nil {
			return err
		}
	}
	if in.SSESpecification != nil {
		m.SSE = in.SSESpecification
	}
	if in.TableClass != "" {
		m.TableClass = in.TableClass
	}
	if in.DeletionProtectionEnabled != nil {
		m.DeletionProtection = *in.DeletionProtectionEnabled
	}
	if len(in.AttributeDefinitions) > 0 {
		for _, d := range in.AttributeDefinitions {
			if t := m.attrType(d.AttributeName); t != 0 && !strings.EqualFold(t.String(), d.AttributeType) {
				return invalid("Cannot change the type of attribute %s", d.AttributeName)
			}
		}
	}
	return nil
}
