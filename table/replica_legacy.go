package table

import (
	"context"
	"slices"

	"github.com/ddblocal/ddblocal/ddb"
)

// Global tables version 2017.11.29 (legacy). DynamoDB no longer creates
// them: CreateGlobalTable, and UpdateGlobalTable adding a Region, are
// refused in every Region, and as no such table can exist the other legacy
// operations find none (a 2019.11.21 global table is not one either). These
// are the answers DynamoDB gives today, as recorded against the service.

// legacyRefused is DynamoDB's refusal of a version 2017.11.29 global table.
func legacyRefused() error {
	return invalid("DynamoDB global tables version 2017.11.29 is not supported. We recommend using DynamoDB global tables version 2019.11.21, instead of version 2017.11.29 (Legacy).")
}

// CreateGlobalTable refuses, as DynamoDB does.
func (s *Service) CreateGlobalTable(_ context.Context, _ string, _ *ddb.CreateGlobalTableInput) (*ddb.Empty, error) {
	return nil, legacyRefused()
}

// UpdateGlobalTable refuses to add a Region; any other update finds no
// global table.
func (s *Service) UpdateGlobalTable(_ context.Context, _ string, in *ddb.UpdateGlobalTableInput) (*ddb.Empty, error) {
	if len(in.ReplicaUpdates) == 0 {
		return nil, ddb.Errorf(ddb.ValidationException, "One or more parameter values were invalid")
	}
	if slices.ContainsFunc(in.ReplicaUpdates, func(u ddb.LegacyReplicaUpdate) bool { return u.Create != nil }) {
		return nil, legacyRefused()
	}
	return nil, ddb.Errorf(ddb.GlobalTableNotFoundException, "Global table not found: Global table with name: '%s' does not exist.", in.GlobalTableName)
}

// DescribeGlobalTable finds no global table.
func (s *Service) DescribeGlobalTable(_ context.Context, _ string, in *ddb.GlobalTableNameInput) (*ddb.Empty, error) {
	return nil, ddb.Errorf(ddb.GlobalTableNotFoundException, "Global table not found: Global table with name: '%s' does not exist.", in.GlobalTableName)
}

// DescribeGlobalTableSettings finds no global table.
func (s *Service) DescribeGlobalTableSettings(_ context.Context, _ string, in *ddb.GlobalTableNameInput) (*ddb.Empty, error) {
	return nil, ddb.Errorf(ddb.GlobalTableNotFoundException, "Global table with name: '%s' does not exist.", in.GlobalTableName)
}

// UpdateGlobalTableSettings finds no global table.
func (s *Service) UpdateGlobalTableSettings(_ context.Context, _ string, in *ddb.GlobalTableNameInput) (*ddb.Empty, error) {
	return nil, ddb.Errorf(ddb.GlobalTableNotFoundException, "Global table with name: '%s' does not exist.", in.GlobalTableName)
}

// ListGlobalTables lists none.
func (s *Service) ListGlobalTables(_ context.Context, _ string, _ *ddb.ListGlobalTablesInput) (*ddb.ListGlobalTablesOutput, error) {
	return &ddb.ListGlobalTablesOutput{GlobalTables: []ddb.LegacyGlobalTable{}}, nil
}

// DescribeTableReplicaAutoScaling describes a version 2019.11.21 global
// table's replicas, its own included, by Region name, with the auto scaling
// settings UpdateTableReplicaAutoScaling stored. A regional table is no
// global table, as DynamoDB answers.
func (s *Service) DescribeTableReplicaAutoScaling(ctx context.Context, region string, in *ddb.TableNameInput) (*ddb.DescribeTableReplicaAutoScalingOutput, error) {
	name := tableName(in.TableName)
	notGlobal := ddb.Errorf(ddb.ResourceNotFoundException, "Global table with name: '%s' does not exist.", name)
	m, err := s.lookup(ctx, region, in.TableName, "", notGlobal)
	if err != nil {
		return nil, err
	}
	now := s.now().UnixNano()
	d := s.describe(m, nil)
	if len(d.Replicas) == 0 {
		return nil, notGlobal
	}
	out := &ddb.TableAutoScalingDescription{TableName: m.Name, TableStatus: s.tableStatus(m, now),
		Replicas: []ddb.ReplicaAutoScalingDescription{describeReplicaScaling(m, regionOf(m), replicaActive)}}
	for _, r := range d.Replicas { // replica_autoscaling.go
		t, _ := s.catalog.get(s.db, memberScope(m, r.RegionName), m.Name)
		out.Replicas = append(out.Replicas, describeReplicaScaling(t, r.RegionName, r.ReplicaStatus))
	}
	sortReplicaScaling(out.Replicas)
	return &ddb.DescribeTableReplicaAutoScalingOutput{TableAutoScalingDescription: out}, nil
}
