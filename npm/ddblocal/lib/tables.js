'use strict';
// Creates, resets and fills tables over DynamoDB's JSON protocol with
// Node's fetch, so the package needs no AWS SDK of its own.

/**
 * Calls DynamoDB operation op on endpoint in region. ddblocal reads the
 * region from the SigV4 credential scope (tables are per region) and, unless
 * started with --credentials, does not verify the signature.
 */
async function call(endpoint, region, op, body) {
  const day = new Date().toISOString().slice(0, 10).replaceAll('-', '');
  const res = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-amz-json-1.0',
      'x-amz-target': `DynamoDB_20120810.${op}`,
      authorization: `AWS4-HMAC-SHA256 Credential=ddblocal/${day}/${region}/dynamodb/aws4_request, SignedHeaders=host, Signature=0`,
    },
    body: JSON.stringify(body),
  });
  const out = await res.json();
  if (!res.ok) {
    const type = String(out.__type ?? res.status).split('#').pop();
    const err = new Error(`ddblocal: ${op}: ${type}: ${out.message ?? out.Message ?? ''}`);
    err.name = type;
    throw err;
  }
  return out;
}

/** marshall turns a plain JavaScript value into DynamoDB JSON. */
function marshall(v) {
  if (v === null || v === undefined) return { NULL: true };
  if (typeof v === 'string') return { S: v };
  if (typeof v === 'number' || typeof v === 'bigint') return { N: String(v) };
  if (typeof v === 'boolean') return { BOOL: v };
  if (v instanceof Uint8Array) return { B: Buffer.from(v).toString('base64') };
  if (Array.isArray(v)) return { L: v.map(marshall) };
  if (v instanceof Set) {
    const items = [...v];
    if (items.every((x) => typeof x === 'string')) return { SS: items };
    if (items.every((x) => typeof x === 'number' || typeof x === 'bigint')) return { NS: items.map(String) };
    return { BS: items.map((x) => Buffer.from(x).toString('base64')) };
  }
  return { M: marshallItem(v) };
}

function marshallItem(obj) {
  const out = {};
  for (const [k, v] of Object.entries(obj)) if (v !== undefined) out[k] = marshall(v);
  return out;
}

/**
 * A table entry of a jest-dynamodb or jest-dynalite config: a CreateTable
 * input, optionally with `data` (plain objects, as jest-dynalite takes them).
 * Returns the CreateTable request and the items in DynamoDB JSON.
 */
function splitTable(table) {
  const { data, ...def } = table;
  if (!def.TableName) throw new Error('ddblocal: a table in the config has no TableName');
  if (!def.BillingMode && !def.ProvisionedThroughput) def.BillingMode = 'PAY_PER_REQUEST';
  return { def, items: (data ?? []).map(marshallItem) };
}

/** createTables creates each table of the config and writes its data. */
async function createTables(endpoint, tables, region = 'us-east-1') {
  for (const t of tables ?? []) {
    const { def, items } = splitTable(t);
    await call(endpoint, region, 'CreateTable', def);
    for (let i = 0; i < items.length; i += 25) {
      let pending = { [def.TableName]: items.slice(i, i + 25).map((Item) => ({ PutRequest: { Item } })) };
      while (pending && Object.keys(pending).length > 0) {
        pending = (await call(endpoint, region, 'BatchWriteItem', { RequestItems: pending })).UnprocessedItems;
      }
    }
  }
}

/** resetTables deletes every table in region and creates the config's anew. */
async function resetTables(endpoint, tables, region = 'us-east-1') {
  let start;
  do {
    const page = await call(endpoint, region, 'ListTables', start ? { ExclusiveStartTableName: start } : {});
    for (const name of page.TableNames) await call(endpoint, region, 'DeleteTable', { TableName: name });
    start = page.LastEvaluatedTableName;
  } while (start);
  await createTables(endpoint, tables, region);
}

module.exports = { call, createTables, resetTables, marshall };
