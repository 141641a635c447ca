package table

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/ddblocal/ddblocal/ddb"
	"github.com/ddblocal/ddblocal/store"
)

// On-demand backups are full copies: CreateBackup copies the table's items,
// in the transaction that reads them, into a space of the backup's own, and
// records the table's definition beside them. A backup therefore costs as
// much memory (and disk, in durable mode) as its table did, outlives the
// table, and is restored without the table.

// backupsSpace holds one record (JSON backupMeta) per backup, keyed by
// region ‖ 0 ‖ backup id, so a region's backups list in creation order.
const backupsSpace = "backups"

// systemBackupLife is how long the backup DynamoDB takes of a deleted table
// with point-in-time recovery lives.
const systemBackupLife = 35 * 24 * time.Hour

// backupMeta is one backup's record. Its member names are the stored
// format; the table's definition is stored as a catalog record (encodeMeta).
type backupMeta struct {
	ID      string `json:"ID"` // <creation epoch milliseconds, 14 digits>-<8 hex digits>
	Name    string `json:"Name"`
	Type    string `json:"Type"`             // USER or SYSTEM
	Created int64  `json:"Created"`          // Unix nanoseconds
	Expiry  int64  `json:"Expiry,omitempty"` // Unix nanoseconds, SYSTEM backups only
	Items   int64  `json:"Items"`
	Bytes   int64  `json:"Bytes"`
	// RestoringUntil is when the table last restored from this backup
	// stops CREATING: until then the backup is in use (Unix nanoseconds).
	RestoringUntil int64           `json:"RestoringUntil,omitempty"`
	TableRecord    json.RawMessage `json:"Table"`
	Table          tableMeta       `json:"-"` // the table's definition when the backup was taken
}

func (b *backupMeta) arn() string { return b.Table.arn() + "/backup/" + b.ID }

func backupKey(region, id string) []byte { return []byte(region + "\x00" + id) }

// backupDataSpace is the space holding the items of backup id.
func backupDataSpace(region, id string) string { return "backup/" + region + "/" + id }

// newBackupID returns the id of a backup created at t; system backups end
// in zeros, as DynamoDB's do.
func newBackupID(t time.Time, system bool) string {
	var r uint32
	if !system {
		var b [4]byte
		rand.Read(b[:])
		r = binary.BigEndian.Uint32(b[:])
	}
	return fmt.Sprintf("%014d-%08x", t.UnixMilli(), r)
}

// parseBackupARN returns the backup id of arn:…:table/NAME/backup/ID. The
// region is not checked: DynamoDB looks a backup up in the region of the
// request.
//
// Messages as DynamoDB words them: a backup ARN of another partition or
// service is "Invalid Request: BackupArn is not valid"; anything else that is
// not a backup ARN (a table ARN, a bare string) is "Invalid Backup ARN".
func parseBackupARN(arn string) (string, error) {
	parts := strings.SplitN(arn, ":", 6)
	if len(parts) == 6 && parts[0] == "arn" {
		if id, ok := backupResource(parts[5]); ok {
			if parts[2] != "dynamodb" || !strings.HasPrefix(parts[1], "aws") {
				return "", ddb.Errorf(ddb.ValidationException, "Invalid Request: BackupArn is not valid")
			}
			return id, nil
		}
	}
	return "", ddb.Errorf(ddb.ValidationException, "Invalid Backup ARN")
}

// backupResource returns ID from the resource part table/NAME/backup/ID.
func backupResource(res string) (string, bool) {
	rest := strings.Split(res, "/")
	if len(rest) == 4 && rest[0] == "table" && rest[1] != "" && rest[2] == "backup" && rest[3] != "" {
		return rest[3], true
	}
	return "", false
}

// readBackup returns the record of backup id in region, or nil.
func readBackup(tx *store.Tx, region, id string) (*backupMeta, error) {
	sp := tx.Space(backupsSpace)
	if sp == nil {
		return nil, nil
	}
	raw := sp.Get(backupKey(region, id))
	if raw == nil {
		return nil, nil
	}
	return decodeBackup(raw)
}

// decodeBackup decodes a stored backup record.
func decodeBackup(raw []byte) (*backupMeta, error) {
	b := new(backupMeta)
	if err := json.Unmarshal(raw, b); err != nil {
		return nil, fmt.Errorf("table: corrupt backup record: %w", err)
	}
	m, err := decodeMeta(b.TableRecord)
	if err != nil {
		return nil, err
	}
	b.Table = *m
	return b, nil
}

// writeBackup stores b's record.
func writeBackup(tx *store.Tx, b *backupMeta) error {
	sp := tx.Space(backupsSpace)
	if sp == nil {
		if err := tx.CreateSpace(backupsSpace); err != nil {
			return err
		}
		sp = tx.Space(backupsSpace)
	}
	rec, err := encodeMeta(&b.Table)
	if err != nil {
		return err
	}
	b.TableRecord = rec
	val, err := json.Marshal(b)
	if err != nil {
		return err
	}
	return sp.Put(backupKey(b.Table.Region, b.ID), val)
}

// takeBackup copies the items of table m into a new backup b, in tx, and
// records it. m must be the definition in the catalog as tx sees it.
func takeBackup(tx *store.Tx, m *tableMeta, b *backupMeta) error {
	src := tx.Space(m.ID)
	if src == nil {
		return ddb.Errorf(ddb.TableNotFoundException, "Table not found: %s", m.Name)
	}
	id := backupDataSpace(m.Region, b.ID)
	if err := tx.CreateSpace(id); err != nil {
		return err
	}
	dst := tx.Space(id)
	var err error
	src.Ascend(nil, nil, func(k, v []byte) bool {
		err = dst.Put(k, v)
		return err == nil
	})
	if err != nil {
		return err
	}
	b.Items, b.Bytes = src.Stats()
	if err := dst.AddStats(b.Items, b.Bytes); err != nil {
		return err
	}
	b.Table = *m
	return writeBackup(tx, b)
}

// currentTable returns the definition of table m as tx sees it, or
// TableNotFoundException when it was deleted or re-created since m was read.
func currentTable(tx *store.Tx, m *tableMeta) (*tableMeta, error) {
	raw := tx.CatalogGet(catalogKey(m.Region, m.Name))
	if raw == nil {
		return nil, ddb.Errorf(ddb.TableNotFoundException, "Table not found: %s", m.Name)
	}
	cur, err := decodeMeta(raw)
	if err != nil {
		return nil, err
	}
	if cur.ID != m.ID {
		return nil, ddb.Errorf(ddb.TableNotFoundException, "Table not found: %s", m.Name)
	}
	return cur, nil
}

// CreateBackup copies a table, as it is at the request, into a new backup.
func (s *Service) CreateBackup(ctx context.Context, region string, in *ddb.CreateBackupInput) (*ddb.CreateBackupOutput, error) {
	m, err := s.backupTable(ctx, region, in.TableName)
	if err != nil {
		return nil, err
	}
	if err := s.enablingBackups(m); err != nil {
		return nil, err
	}
	var b *backupMeta
	err = s.db.Update(ctx, func(tx *store.Tx) error {
		cur, err := currentTable(tx, m)
		if err != nil {
			return err
		}
		now := s.now()
		b = &backupMeta{ID: newBackupID(now, false), Name: in.BackupName, Type: "USER", Created: now.UnixNano()}
		return takeBackup(tx, cur, b)
	})
	if err != nil {
		return nil, err
	}
	d := b.details("CREATING")
	return &ddb.CreateBackupOutput{BackupDetails: d}, nil
}

// deletedTableBackup takes the SYSTEM backup DynamoDB keeps of a table with
// point-in-time recovery when it is deleted; m is the definition tx sees.
func (s *Service) deletedTableBackup(tx *store.Tx, m *tableMeta) error {
	if m.PITR == nil {
		return nil
	}
	now := s.now()
	b := &backupMeta{ID: newBackupID(now, true), Name: m.Name + "$DeletedTableBackup", Type: "SYSTEM",
		Created: now.UnixNano(), Expiry: now.Add(systemBackupLife).UnixNano()}
	// A system id has no random part: another table deleted in the same
	// millisecond took it, so take the next free millisecond (ids stay in
	// creation order for ListBackups).
	for t := now; tx.Space(backupDataSpace(m.Region, b.ID)) != nil; {
		t = t.Add(time.Millisecond)
		b.ID = newBackupID(t, true)
	}
	return takeBackup(tx, m, b)
}

// status is the backup's BackupStatus at now: CREATING within the transient
// delay, as DynamoDB reports a backup being made, then AVAILABLE.
func (s *Service) backupStatus(b *backupMeta) string {
	if d := s.opts.TransientDelay; d > 0 && s.now().UnixNano() < b.Created+d.Nanoseconds() {
		return "CREATING"
	}
	return "AVAILABLE"
}

// details is b's BackupDetails with the given status.
func (b *backupMeta) details(status string) ddb.BackupDetails {
	size := b.Bytes
	d := ddb.BackupDetails{BackupArn: b.arn(), BackupName: b.Name, BackupSizeBytes: &size, BackupStatus: status,
		BackupType: b.Type, BackupCreationDateTime: epochMillis(b.Created)}
	if b.Expiry != 0 {
		e := epochMillis(b.Expiry)
		d.BackupExpiryDateTime = &e
	}
	return d
}

// epochMillis is nanos in epoch seconds at DynamoDB's millisecond precision.
func epochMillis(nanos int64) float64 { return float64(nanos/int64(time.Millisecond)) / 1000 }

// description is b's BackupDescription with the given status.
func (b *backupMeta) description(status string) ddb.BackupDescription {
	m := &b.Table
	d := ddb.BackupDescription{BackupDetails: b.details(status)}
	d.SourceTableDetails = ddb.SourceTableDetails{TableName: m.Name, TableId: m.ID, TableArn: m.arn(),
		TableSizeBytes: b.Bytes, ItemCount: b.Items, KeySchema: m.KeySchema, TableCreationDateTime: epochSeconds(m.Created),
		ProvisionedThroughput: ddb.ProvisionedThroughputInfo{ReadCapacityUnits: m.ReadCapacity, WriteCapacityUnits: m.WriteCapacity},
		OnDemandThroughput:    m.OnDemandThroughput, BillingMode: m.BillingMode}
	if b.Type == "SYSTEM" {
		return d // DynamoDB records no features for the backup of a deleted table
	}
	f := &d.SourceTableFeatureDetails
	for _, ix := range m.LocalSecondaryIndexes {
		f.LocalSecondaryIndexes = append(f.LocalSecondaryIndexes, ddb.LocalSecondaryIndexInfo{IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: ix.Projection})
	}
	for _, ix := range m.GlobalSecondaryIndexes {
		g := ddb.GlobalSecondaryIndexInfo{IndexName: ix.Name, KeySchema: ix.KeySchema, Projection: ix.Projection}
		if m.BillingMode != "PAY_PER_REQUEST" {
			g.ProvisionedThroughput = &ddb.ProvisionedThroughputInfo{ReadCapacityUnits: ix.ReadCapacity, WriteCapacityUnits: ix.WriteCapacity}
		}
		f.GlobalSecondaryIndexes = append(f.GlobalSecondaryIndexes, g)
	}
	f.VectorIndexes = m.vectorIndexInputs()
	f.StreamDescription = m.Stream
	if m.TTLAttribute != "" {
		f.TimeToLiveDescription = &ddb.TimeToLiveDescription{TimeToLiveStatus: "ENABLED", AttributeName: m.TTLAttribute}
	}
	if m.SSE != nil && m.SSE.Enabled != nil && *m.SSE.Enabled {
		f.SSEDescription = &ddb.SSEDescription{Status: "ENABLED", SSEType: "KMS", KMSMasterKeyArn: m.kmsARN()}
	}
	return d
}

// findBackup returns the live backup an ARN names in region, or
// BackupNotFoundException. SYSTEM backups past their expiry are gone.
// Another account's backup is refused (see refuseForeign): a backup
// carries no resource-based policy to let another account in.
func (s *Service) findBackup(ctx context.Context, tx *store.Tx, region, arn string) (*backupMeta, error) {
	id, err := parseBackupARN(arn)
	if err != nil {
		return nil, err
	}
	if err := s.refuseForeign(ctx, region, arn, ddb.Errorf(ddb.BackupNotFoundException, "Backup not found: %s", arn)); err != nil {
		return nil, err
	}
	b, err := readBackup(tx, region, id)
	if err != nil {
		return nil, err
	}
	if b == nil || (b.Expiry != 0 && s.now().UnixNano() >= b.Expiry) {
		return nil, ddb.Errorf(ddb.BackupNotFoundException, "Backup not found: %s", arn)
	}
	return b, nil
}

// DescribeBackup describes one backup.
func (s *Service) DescribeBackup(ctx context.Context, region string, in *ddb.BackupArnInput) (*ddb.BackupDescriptionOutput, error) {
	var b *backupMeta
	err := s.db.View(func(tx *store.Tx) error {
		var err error
		b, err = s.findBackup(ctx, tx, region, in.BackupArn)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &ddb.BackupDescriptionOutput{BackupDescription: b.description(s.backupStatus(b))}, nil
}

// DeleteBackup deletes a USER backup and its items. SYSTEM backups cannot be
// deleted; they expire.
func (s *Service) DeleteBackup(ctx context.Context, region string, in *ddb.BackupArnInput) (*ddb.BackupDescriptionOutput, error) {
	var b *backupMeta
	err := s.db.Update(ctx, func(tx *store.Tx) error {
		var err error
		if b, err = s.findBackup(ctx, tx, region, in.BackupArn); err != nil {
			return err
		}
		if b.Type == "SYSTEM" {
			return ddb.Errorf(ddb.ValidationException, "Invalid Request: User is not allowed to delete the system backup with arn %s. It will automatically expire on %s",
				b.arn(), isoSeconds(time.Unix(0, b.Expiry)))
		}
		if s.now().UnixNano() < b.RestoringUntil {
			return ddb.Errorf(ddb.BackupInUseException, "Backup is being used to restore table: %s", b.arn())
		}
		if err := tx.DropSpace(backupDataSpace(region, b.ID)); err != nil {
			return err
		}
		return tx.Space(backupsSpace).Delete(backupKey(region, b.ID))
	})
	if err != nil {
		return nil, err
	}
	return &ddb.BackupDescriptionOutput{BackupDescription: b.description("DELETED")}, nil
}

// isoSeconds formats t as DynamoDB's messages do: 2006-01-02T15:04:05Z.
func isoSeconds(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05Z") }
