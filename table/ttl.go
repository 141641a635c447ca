package table

import (
	"context"
)

// TimeToLiveSpecification enables or disables Time to Live on one attribute.
type TimeToLiveSpecification struct {
	Enabled       *bool  `ddb:"required"`
	AttributeName string `ddb:"required;len=1..255"`
}

// UpdateTimeToLiveInput is UpdateTimeToLive's request.
type UpdateTimeToLiveInput struct {
	TableName               string                   `ddb:"required;tablename"`
	TimeToLiveSpecification *TimeToLiveSpecification `ddb:"required"`
}

// UpdateTimeToLiveOutput is UpdateTimeToLive's response.
type UpdateTimeToLiveOutput struct {
	TimeToLiveSpecification *TimeToLiveSpecification
}

// TimeToLiveDescription reports a table's Time to Live setting.
type TimeToLiveDescription struct {
	TimeToLiveStatus string
	AttributeName    string `json:",omitempty"`
}

// DescribeTimeToLiveOutput is DescribeTimeToLive's response.
type DescribeTimeToLiveOutput struct {
	TimeToLiveDescription TimeToLiveDescription
}

// DescribeTimeToLive reports whether Time to Live is enabled on a table and on
// which attribute. Infrastructure tools call it after creating a table.
func (s *Service) DescribeTimeToLive(ctx context.Context, region string, in *TableNameInput) (*DescribeTimeToLiveOutput, error) {
	m, err := s.tableForControl(region, in.TableName)
	if err != nil {
		return nil, err
	}
	out := &DescribeTimeToLiveOutput{TimeToLiveDescription: TimeToLiveDescription{TimeToLiveStatus: "DISABLED"}}
	if m.TTLAttribute != "" {
		out.TimeToLiveDescription = TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: m.TTLAttribute}
	}
	return out, nil
}

// UpdateTimeToLive enables or disables Time to Live. The setting is recorded
// and reported; ddblocal does not delete expired items (DynamoDB itself only
// does so within days, so tests cannot rely on it either).
func (s *Service) UpdateTimeToLive(ctx context.Context, region string, in *UpdateTimeToLiveInput) (*UpdateTimeToLiveOutput, error) {
	m, err := s.tableForControl(region, in.TableName)
	if err != nil {
		return nil, err
	}
	spec := in.TimeToLiveSpecification
	next := *m
	// The already-enabled/disabled messages follow DynamoDB's pattern; the
	// docs say only that such a call is a ValidationException.
	switch {
	case *spec.Enabled && m.TTLAttribute != "":
		return nil, Errorf(ValidationException, "TimeToLive is already enabled")
	case !*spec.Enabled && m.TTLAttribute == "":
		return nil, Errorf(ValidationException, "TimeToLive is already disabled")
	case *spec.Enabled:
		next.TTLAttribute = spec.AttributeName
	default:
		next.TTLAttribute = ""
	}
	notFound := errNotFound("Table", m.Name)
	if err := s.replaceTable(ctx, m, &next, notFound, nil); err != nil {
		return nil, err
	}
	return &UpdateTimeToLiveOutput{TimeToLiveSpecification: spec}, nil
}
