package integration

import (
	"context"
	"encoding/json"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// TestBinaryBackupsSurviveRestart checks that point-in-time recovery, its
// change log, backups and resource policies survive a restart of the built
// binary in durable mode: after a SIGTERM, and again after a SIGKILL. The
// server's clock is moved forward a second through /_ddblocal/clock, since
// restores are to the second.
func TestBinaryBackupsSurviveRestart(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	args := []string{"--host", "127.0.0.1", "--port", "0", "--db-path", filepath.Join(dir, "backups.db")}
	p := startBinary(t, dir, nil, args...)
	c := p.client()
	createTable(t, c, "Keep", false)
	enablePITR(t, c, "Keep", 0)
	put := func(key, v string) {
		t.Helper()
		_, err := c.PutItem(ctx, &dynamodb.PutItemInput{TableName: aws.String("Keep"),
			Item: map[string]types.AttributeValue{"pk": s(key), "v": n(v)}})
		if err != nil {
			t.Fatal(err)
		}
	}
	put("k1", "1")
	put("k2", "2")
	then := moveClock(t, p.URL, "") // every write above committed by then
	moveClock(t, p.URL, "1s")       // and every write below in a later second
	put("k1", "10")
	if _, err := c.DeleteItem(ctx, &dynamodb.DeleteItemInput{TableName: aws.String("Keep"), Key: map[string]types.AttributeValue{"pk": s("k2")}}); err != nil {
		t.Fatal(err)
	}
	put("k3", "3")
	cb, err := c.CreateBackup(ctx, &dynamodb.CreateBackupInput{TableName: aws.String("Keep"), BackupName: aws.String("keep-bk")})
	if err != nil {
		t.Fatal(err)
	}
	arn := "arn:aws:dynamodb:us-east-1:000000000000:table/Keep"
	pol, err := c.PutResourcePolicy(ctx, &dynamodb.PutResourcePolicyInput{ResourceArn: aws.String(arn), Policy: aws.String(testPolicy)})
	if err != nil {
		t.Fatal(err)
	}
	if code, took := p.stop(); code != 0 {
		t.Fatalf("after SIGTERM: exit code %d after %s", code, took)
	}

	p = startBinary(t, dir, nil, args...)
	c = p.client()
	checkKept(t, c, "Then1", then, "k1=1 k2=2")
	if _, err := c.RestoreTableFromBackup(ctx, &dynamodb.RestoreTableFromBackupInput{BackupArn: cb.BackupDetails.BackupArn, TargetTableName: aws.String("Backup1")}); err != nil {
		t.Fatalf("RestoreTableFromBackup after restart: %v", err)
	}
	wantKeys(t, c, "Backup1", "k1=10 k3=3")
	get, err := c.GetResourcePolicy(ctx, &dynamodb.GetResourcePolicyInput{ResourceArn: aws.String(arn)})
	if err != nil || aws.ToString(get.RevisionId) != aws.ToString(pol.RevisionId) || aws.ToString(get.Policy) != testPolicy {
		t.Fatalf("policy after restart: got %+v, %v", get, err)
	}
	p.kill()

	p = startBinary(t, dir, nil, args...)
	c = p.client()
	checkKept(t, c, "Then2", then, "k1=1 k2=2")
	wantKeys(t, c, "Backup1", "k1=10 k3=3")
	p.stopOK()
}

// checkKept asserts that Keep still has point-in-time recovery and that a
// restore of it to the second of then into target holds want.
func checkKept(t *testing.T, c *dynamodb.Client, target string, then time.Time, want string) {
	t.Helper()
	ctx := context.Background()
	cb, err := c.DescribeContinuousBackups(ctx, &dynamodb.DescribeContinuousBackupsInput{TableName: aws.String("Keep")})
	if err != nil {
		t.Fatal(err)
	}
	if p := cb.ContinuousBackupsDescription.PointInTimeRecoveryDescription; p.PointInTimeRecoveryStatus != types.PointInTimeRecoveryStatusEnabled ||
		aws.ToTime(p.EarliestRestorableDateTime).After(then) {
		t.Fatalf("PITR after restart: got %s from %s, want ENABLED from before %s", p.PointInTimeRecoveryStatus, aws.ToTime(p.EarliestRestorableDateTime), then)
	}
	_, err = c.RestoreTableToPointInTime(ctx, &dynamodb.RestoreTableToPointInTimeInput{SourceTableName: aws.String("Keep"),
		TargetTableName: aws.String(target), RestoreDateTime: aws.Time(then)})
	if err != nil {
		t.Fatalf("RestoreTableToPointInTime after restart: %v", err)
	}
	wantKeys(t, c, target, want)
}

// wantKeys asserts a table's items as "pk=v" in key order.
func wantKeys(t *testing.T, c *dynamodb.Client, tableName, want string) {
	t.Helper()
	out, err := c.Scan(context.Background(), &dynamodb.ScanInput{TableName: aws.String(tableName), ConsistentRead: aws.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range out.Items {
		got = append(got, rstr(it, "pk")+"="+rnum(it, "v"))
	}
	if g := sortedJoin(got); g != want {
		t.Errorf("%s: got %q, want %q", tableName, g, want)
	}
}

// moveClock advances the server's clock by d (a Go duration; "" only reads
// it) and returns the server's time.
func moveClock(t *testing.T, url, d string) time.Time {
	t.Helper()
	var resp *http.Response
	var err error
	if d == "" {
		resp, err = http.Get(url + "/_ddblocal/clock")
	} else {
		resp, err = http.Post(url+"/_ddblocal/clock", "application/json", strings.NewReader(`{"advance":"`+d+`"}`))
	}
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out struct{ Now time.Time }
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("clock %q: status %d, %v", d, resp.StatusCode, err)
	}
	return out.Now
}
