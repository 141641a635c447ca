#!/usr/bin/env bash
# The AWS CLI (v2) against a running ddblocal. Run by integration/sdk_test.go
# (TestSDKCLI) with AWS=/path/to/aws, DDBLOCAL_ENDPOINT and the AWS_*
# credentials and region a fresh machine lacks. Each check prints
# "ok - NAME" or "not ok - NAME"; the last line counts them.
set -uo pipefail
AWS=${AWS:-aws}
ddb() { "$AWS" dynamodb --endpoint-url "$DDBLOCAL_ENDPOINT" --output json --no-cli-pager "$@"; }
pass=0
fail=0
check() { # check NAME GOT WANT
	if [[ "$2" == "$3" ]]; then
		echo "ok - $1"; pass=$((pass + 1))
	else
		echo "not ok - $1: got [$2], want [$3]"; fail=$((fail + 1))
	fi
}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Table lifecycle with waiters.
ddb create-table --table-name cli-items \
	--attribute-definitions AttributeName=pk,AttributeType=S AttributeName=sk,AttributeType=N \
	--key-schema AttributeName=pk,KeyType=HASH AttributeName=sk,KeyType=RANGE \
	--billing-mode PAY_PER_REQUEST >/dev/null
ddb wait table-exists --table-name cli-items
check "create-table and wait table-exists" "$(ddb describe-table --table-name cli-items --query Table.TableStatus --output text)" ACTIVE
check "list-tables" "$(ddb list-tables --query 'TableNames[0]' --output text)" cli-items

# CRUD with conditions.
ddb put-item --table-name cli-items --item '{"pk":{"S":"a"},"sk":{"N":"1"},"n":{"N":"5"}}' \
	--condition-expression 'attribute_not_exists(pk)'
err=$(ddb put-item --table-name cli-items --item '{"pk":{"S":"a"},"sk":{"N":"1"}}' \
	--condition-expression 'attribute_not_exists(pk)' 2>&1 >/dev/null)
check "conditional put fails" "$?:$err" "254:
An error occurred (ConditionalCheckFailedException) when calling the PutItem operation: The conditional request failed"
check "update-item returns new values" "$(ddb update-item --table-name cli-items --key '{"pk":{"S":"a"},"sk":{"N":"1"}}' \
	--update-expression 'SET n = n + :d' --condition-expression 'n = :five' \
	--expression-attribute-values '{":d":{"N":"2"},":five":{"N":"5"}}' --return-values UPDATED_NEW \
	--query Attributes.n.N --output text)" 7
check "get-item" "$(ddb get-item --table-name cli-items --key '{"pk":{"S":"a"},"sk":{"N":"1"}}' --consistent-read \
	--query Item.n.N --output text)" 7
ddb delete-item --table-name cli-items --key '{"pk":{"S":"a"},"sk":{"N":"1"}}' --condition-expression 'attribute_exists(pk)'
check "delete-item" "$(ddb get-item --table-name cli-items --key '{"pk":{"S":"a"},"sk":{"N":"1"}}' --output text)" ""

# batch-write-item, then query and scan through the CLI's paginator (JSON
# output: the CLI merges the pages, summing Count).
for batch in 0 1 2 3; do
	{
		printf '{"cli-items":['
		for i in $(seq $((batch * 25)) $((batch * 25 + 24))); do
			[[ $i -gt $((batch * 25)) ]] && printf ','
			printf '{"PutRequest":{"Item":{"pk":{"S":"p"},"sk":{"N":"%d"}}}}' "$i"
		done
		printf ']}'
	} >"$tmp/batch.json"
	ddb batch-write-item --request-items "file://$tmp/batch.json" --query 'length(UnprocessedItems)' --output text >/dev/null
done
check "query paginated 7 at a time" "$(ddb query --table-name cli-items --key-condition-expression 'pk = :p AND sk >= :s' \
	--expression-attribute-values '{":p":{"S":"p"},":s":{"N":"10"}}' --page-size 7 --query Count)" 90
check "query --max-items pages with a token" "$(ddb query --table-name cli-items --key-condition-expression 'pk = :p' \
	--expression-attribute-values '{":p":{"S":"p"}}' --max-items 30 --query '[length(Items), NextToken != `null`]' | tr -d ' \n')" "[30,true]"
check "scan paginated" "$(ddb scan --table-name cli-items --page-size 11 --query Count)" 100

# Transactions.
ddb transact-write-items --transact-items '[
  {"Put":{"TableName":"cli-items","Item":{"pk":{"S":"tx"},"sk":{"N":"1"},"v":{"N":"1"}}}},
  {"Put":{"TableName":"cli-items","Item":{"pk":{"S":"tx"},"sk":{"N":"2"},"v":{"N":"2"}}}}]'
err=$(ddb transact-write-items --transact-items '[
  {"Delete":{"TableName":"cli-items","Key":{"pk":{"S":"tx"},"sk":{"N":"1"}}}},
  {"ConditionCheck":{"TableName":"cli-items","Key":{"pk":{"S":"tx"},"sk":{"N":"2"}},"ConditionExpression":"v = :x","ExpressionAttributeValues":{":x":{"N":"9"}}}}]' 2>&1 >/dev/null)
check "cancelled transaction" "$err" "
An error occurred (TransactionCanceledException) when calling the TransactWriteItems operation: Transaction cancelled, please refer cancellation reasons for specific reasons [None, ConditionalCheckFailed]"
check "transact-get-items" "$(ddb transact-get-items --transact-items '[{"Get":{"TableName":"cli-items","Key":{"pk":{"S":"tx"},"sk":{"N":"1"}}}}]' \
	--query 'Responses[0].Item.v.N' --output text)" 1

# Typed errors.
err=$(ddb describe-table --table-name cli-missing 2>&1 >/dev/null)
check "ResourceNotFoundException" "$err" "
An error occurred (ResourceNotFoundException) when calling the DescribeTable operation: Requested resource not found: Table: cli-missing not found"
err=$(ddb put-item --table-name cli-items --item '{"pk":{"S":"a"}}' 2>&1 >/dev/null)
check "ValidationException" "$err" "
An error occurred (ValidationException) when calling the PutItem operation: One or more parameter values were invalid: Missing the key sk in the item"

ddb delete-table --table-name cli-items >/dev/null
ddb wait table-not-exists --table-name cli-items
check "delete-table and wait table-not-exists" "$(ddb list-tables --query 'length(TableNames)' --output text)" 0

echo "$pass passed, $fail failed"
[[ $fail -eq 0 ]]
