"""boto3 against a running ddblocal.

Run by integration/sdk_test.go (TestSDKPython) with Debian's python3-boto3,
against the built binary: DDBLOCAL_ENDPOINT names it, and the AWS_* variables
hold the credentials and region a fresh machine lacks.
"""

import os
import unittest
from decimal import Decimal

import boto3
from boto3.dynamodb.conditions import Attr, Key
from botocore.exceptions import ClientError

ENDPOINT = os.environ["DDBLOCAL_ENDPOINT"]


def client():
    return boto3.client("dynamodb", endpoint_url=ENDPOINT)


def resource():
    return boto3.resource("dynamodb", endpoint_url=ENDPOINT)


def create(name, sort=True, **extra):
    """Creates pk S (+ sk N) PAY_PER_REQUEST and waits for ACTIVE."""
    attrs = [{"AttributeName": "pk", "AttributeType": "S"}]
    keys = [{"AttributeName": "pk", "KeyType": "HASH"}]
    if sort:
        attrs.append({"AttributeName": "sk", "AttributeType": "N"})
        keys.append({"AttributeName": "sk", "KeyType": "RANGE"})
    c = client()
    c.create_table(TableName=name, AttributeDefinitions=attrs, KeySchema=keys,
                   BillingMode="PAY_PER_REQUEST", **extra)
    c.get_waiter("table_exists").wait(TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30})
    return resource().Table(name)


class Lifecycle(unittest.TestCase):
    def test_create_describe_update_delete(self):
        c = client()
        create("py-life")
        desc = c.describe_table(TableName="py-life")["Table"]
        self.assertEqual(desc["TableStatus"], "ACTIVE")
        self.assertEqual([k["AttributeName"] for k in desc["KeySchema"]], ["pk", "sk"])
        self.assertIn("py-life", c.list_tables()["TableNames"])
        c.update_table(
            TableName="py-life",
            AttributeDefinitions=[{"AttributeName": "g", "AttributeType": "S"}],
            GlobalSecondaryIndexUpdates=[{"Create": {
                "IndexName": "byG",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}],
                "Projection": {"ProjectionType": "ALL"}}}])
        c.get_waiter("table_exists").wait(TableName="py-life", WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        names = [g["IndexName"] for g in c.describe_table(TableName="py-life")["Table"]["GlobalSecondaryIndexes"]]
        self.assertEqual(names, ["byG"])
        c.delete_table(TableName="py-life")
        c.get_waiter("table_not_exists").wait(TableName="py-life", WaiterConfig={"Delay": 1, "MaxAttempts": 30})
        self.assertNotIn("py-life", c.list_tables()["TableNames"])


class Items(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.table = create("py-items")

    def test_conditional_put_update_delete(self):
        t = self.table
        t.put_item(Item={"pk": "a", "sk": 1, "n": Decimal("1.5"), "tags": {"x", "y"}},
                   ConditionExpression=Attr("pk").not_exists())
        with self.assertRaises(t.meta.client.exceptions.ConditionalCheckFailedException) as cm:
            t.put_item(Item={"pk": "a", "sk": 1}, ConditionExpression=Attr("pk").not_exists())
        self.assertEqual(cm.exception.response["Error"]["Message"], "The conditional request failed")
        out = t.update_item(Key={"pk": "a", "sk": 1}, UpdateExpression="SET n = n + :d",
                            ConditionExpression=Attr("n").gt(1), ExpressionAttributeValues={":d": Decimal("0.25")},
                            ReturnValues="UPDATED_NEW")
        self.assertEqual(out["Attributes"], {"n": Decimal("1.75")})
        item = t.get_item(Key={"pk": "a", "sk": 1}, ConsistentRead=True)["Item"]
        self.assertEqual(item["tags"], {"x", "y"})
        with self.assertRaises(ClientError) as cm:
            t.delete_item(Key={"pk": "a", "sk": 1}, ConditionExpression=Attr("n").eq(0))
        self.assertEqual(cm.exception.response["Error"]["Code"], "ConditionalCheckFailedException")
        t.delete_item(Key={"pk": "a", "sk": 1}, ConditionExpression=Attr("n").eq(Decimal("1.75")))
        self.assertNotIn("Item", t.get_item(Key={"pk": "a", "sk": 1}))

    def test_batch_writer_and_paginators(self):
        t = self.table
        with t.batch_writer() as w:
            for i in range(120):
                w.put_item(Item={"pk": "batch", "sk": i, "payload": "x" * 100})
        c = client()
        pages = list(c.get_paginator("query").paginate(
            TableName="py-items", KeyConditionExpression="pk = :p AND sk >= :s",
            ExpressionAttributeValues={":p": {"S": "batch"}, ":s": {"N": "20"}},
            PaginationConfig={"PageSize": 25}))
        self.assertEqual(sum(p["Count"] for p in pages), 100)
        # 25 per page: a full fourth page still carries LastEvaluatedKey, as
        # DynamoDB's does, so a fifth, empty page ends the query.
        self.assertEqual([p["Count"] for p in pages], [25, 25, 25, 25, 0])
        sks = [int(i["sk"]["N"]) for p in pages for i in p["Items"]]
        self.assertEqual(sks, list(range(20, 120)))
        scanned = sum(p["Count"] for p in c.get_paginator("scan").paginate(
            TableName="py-items", FilterExpression="pk = :p",
            ExpressionAttributeValues={":p": {"S": "batch"}}, PaginationConfig={"PageSize": 7}))
        self.assertEqual(scanned, 120)
        got = t.query(KeyConditionExpression=Key("pk").eq("batch") & Key("sk").between(5, 9))
        self.assertEqual([int(i["sk"]) for i in got["Items"]], [5, 6, 7, 8, 9])

    def test_transactions(self):
        c = client()
        c.transact_write_items(TransactItems=[
            {"Put": {"TableName": "py-items", "Item": {"pk": {"S": "tx"}, "sk": {"N": "1"}, "v": {"N": "10"}}}},
            {"Put": {"TableName": "py-items", "Item": {"pk": {"S": "tx"}, "sk": {"N": "2"}, "v": {"N": "20"}}}},
        ])
        with self.assertRaises(c.exceptions.TransactionCanceledException) as cm:
            c.transact_write_items(TransactItems=[
                {"Update": {"TableName": "py-items", "Key": {"pk": {"S": "tx"}, "sk": {"N": "1"}},
                            "UpdateExpression": "SET v = v - :d", "ExpressionAttributeValues": {":d": {"N": "5"}}}},
                {"ConditionCheck": {"TableName": "py-items", "Key": {"pk": {"S": "tx"}, "sk": {"N": "2"}},
                                    "ConditionExpression": "v > :big", "ExpressionAttributeValues": {":big": {"N": "100"}}}},
            ])
        codes = [r["Code"] for r in cm.exception.response["CancellationReasons"]]
        self.assertEqual(codes, ["None", "ConditionalCheckFailed"])
        got = c.transact_get_items(TransactItems=[
            {"Get": {"TableName": "py-items", "Key": {"pk": {"S": "tx"}, "sk": {"N": "1"}}}},
            {"Get": {"TableName": "py-items", "Key": {"pk": {"S": "tx"}, "sk": {"N": "2"}}}},
        ])
        self.assertEqual([r["Item"]["v"]["N"] for r in got["Responses"]], ["10", "20"])  # nothing applied


class Errors(unittest.TestCase):
    def test_typed_errors(self):
        c = client()
        with self.assertRaises(c.exceptions.ResourceNotFoundException):
            c.describe_table(TableName="py-missing")
        with self.assertRaises(ClientError) as cm:
            c.get_item(TableName="py-missing", Key={"pk": {"S": "a"}})
        self.assertEqual(cm.exception.response["Error"]["Code"], "ResourceNotFoundException")
        self.assertEqual(cm.exception.response["ResponseMetadata"]["HTTPStatusCode"], 400)
        create("py-errors", sort=False)
        with self.assertRaises(ClientError) as cm:
            c.put_item(TableName="py-errors", Item={"other": {"S": "x"}})
        self.assertEqual(cm.exception.response["Error"]["Code"], "ValidationException")
        self.assertEqual(cm.exception.response["Error"]["Message"],
                         "One or more parameter values were invalid: Missing the key pk in the item")
        with self.assertRaises(c.exceptions.ResourceInUseException):
            c.create_table(TableName="py-errors", AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
                           KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}], BillingMode="PAY_PER_REQUEST")


if __name__ == "__main__":
    unittest.main(verbosity=2)
