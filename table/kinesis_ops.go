package table

import (
	"context"
	"errors"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/kinesis"
	"github.com/ddblocal/ddblocal/store"
)

// The Kinesis streaming destination operations. A table's destinations
// live in its space (package kinesis); each operation changes them in one
// transaction and the table's deliverer (kinesis_deliver.go) finishes the
// asynchronous part: ENABLING, UPDATING and DISABLING end on their own.

// EnableKinesisStreamingDestination starts streaming a table's changes to
// a Kinesis data stream: ENABLING, then ACTIVE once the stream is found on
// the Kinesis endpoint, or ENABLE_FAILED (the stream is never checked
// while the request runs, as DynamoDB does not).
func (s *Service) EnableKinesisStreamingDestination(ctx context.Context, region string, in *ddb.KinesisStreamingDestinationInput) (*ddb.KinesisStreamingDestinationOutput, error) {
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	conf := &ddb.KinesisStreamingConfiguration{}
	if in.EnableKinesisStreamingConfiguration != nil {
		conf.ApproximateCreationDateTimePrecision = in.EnableKinesisStreamingConfiguration.ApproximateCreationDateTimePrecision
	}
	now := s.now().UnixNano()
	err = s.changeDestinations(ctx, m, func(sp *store.Space) error {
		if _, err := kinesis.Enable(sp, in.StreamArn, conf.ApproximateCreationDateTimePrecision, now); err != nil {
			return err
		}
		return sp.PutMeta(logMeta, []byte{1}) // every write from now on is logged
	})
	if err != nil {
		return nil, err
	}
	s.startDelivery(m).Notify()
	return &ddb.KinesisStreamingDestinationOutput{DestinationStatus: kinesis.Enabling, EnableKinesisStreamingConfiguration: conf,
		StreamArn: in.StreamArn, TableName: m.Name}, nil
}

// DisableKinesisStreamingDestination stops streaming to an ACTIVE
// destination: DISABLING until the changes made before it are delivered,
// then DISABLED.
func (s *Service) DisableKinesisStreamingDestination(ctx context.Context, region string, in *ddb.KinesisStreamingDestinationInput) (*ddb.KinesisStreamingDestinationOutput, error) {
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	err = s.changeDestinations(ctx, m, func(sp *store.Space) error {
		_, err := kinesis.Disable(sp, in.StreamArn, in.EnableKinesisStreamingConfiguration != nil)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.startDelivery(m).Notify()
	return &ddb.KinesisStreamingDestinationOutput{DestinationStatus: kinesis.Disabling, StreamArn: in.StreamArn, TableName: m.Name}, nil
}

// UpdateKinesisStreamingDestination changes an ACTIVE destination's
// ApproximateCreationDateTimePrecision: UPDATING, then ACTIVE; the records
// of changes delivered after it use the new precision.
func (s *Service) UpdateKinesisStreamingDestination(ctx context.Context, region string, in *ddb.UpdateKinesisStreamingDestinationInput) (*ddb.UpdateKinesisStreamingDestinationOutput, error) {
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	precision := ""
	if c := in.UpdateKinesisStreamingConfiguration; c != nil {
		precision = c.ApproximateCreationDateTimePrecision
	}
	err = s.changeDestinations(ctx, m, func(sp *store.Space) error {
		_, err := kinesis.Update(sp, in.StreamArn, precision, m.Name, m.ID)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.startDelivery(m).Notify()
	return &ddb.UpdateKinesisStreamingDestinationOutput{DestinationStatus: kinesis.Updating, StreamArn: in.StreamArn, TableName: m.Name,
		UpdateKinesisStreamingConfiguration: &ddb.KinesisStreamingConfiguration{ApproximateCreationDateTimePrecision: precision}}, nil
}

// DescribeKinesisStreamingDestination lists a table's Kinesis streaming
// destinations, the most recently enabled first; a precision never set is
// not shown.
func (s *Service) DescribeKinesisStreamingDestination(ctx context.Context, region string, in *ddb.TableNameInput) (*ddb.DescribeKinesisStreamingDestinationOutput, error) {
	m, err := s.tableForControl(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	out := &ddb.DescribeKinesisStreamingDestinationOutput{TableName: m.Name, KinesisDataStreamDestinations: []ddb.KinesisDataStreamDestination{}}
	err = s.db.View(func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return ddb.NotFound("Table: %s not found", m.Name)
		}
		st, err := kinesis.Load(sp)
		if err != nil {
			return err
		}
		for _, d := range st.Destinations {
			out.KinesisDataStreamDestinations = append(out.KinesisDataStreamDestinations, ddb.KinesisDataStreamDestination{
				StreamArn: d.StreamArn, DestinationStatus: d.Status, DestinationStatusDescription: d.Description,
				ApproximateCreationDateTimePrecision: d.Precision})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// changeDestinations runs change on table m's space in one transaction,
// turning the refusals of package kinesis into the service's errors.
func (s *Service) changeDestinations(ctx context.Context, m *tableMeta, change func(sp *store.Space) error) error {
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		sp := tx.Space(m.ID)
		if sp == nil {
			return ddb.NotFound("Table: %s not found", m.Name)
		}
		return change(sp)
	})
	var ke *kinesis.Error
	if errors.As(err, &ke) {
		return &ddb.Error{Code: ddb.Code(ke.Code), Message: ke.Message}
	}
	return err
}
