// The JSON endpoints the console reads: the DynamoDB API (POST / with
// X-Amz-Target) and GET /_ddblocal/insights, both signed (sigv4.js), and
// /_ddblocal/replication, which is not.
import { sign } from "./sigv4.js";

// ApiError is an error answer: type is DynamoDB's __type without its
// namespace (e.g. "ResourceNotFoundException"), status the HTTP status.
export class ApiError extends Error {
  constructor(type, message, status) {
    super(message ? `${type}: ${message}` : type);
    this.type = type;
    this.status = status;
  }
}

async function answer(resp) {
  const text = await resp.text();
  let doc = {};
  try {
    doc = text ? JSON.parse(text) : {};
  } catch {
    throw new ApiError("HTTP " + resp.status, text.slice(0, 200), resp.status);
  }
  if (!resp.ok) {
    const type = String(doc.__type || "HTTP " + resp.status).split("#").pop();
    throw new ApiError(type, doc.message || doc.Message || "", resp.status);
  }
  return doc;
}

// call runs the DynamoDB operation op with the request object req.
export async function call(creds, op, req) {
  const body = JSON.stringify(req);
  const headers = { "content-type": "application/x-amz-json-1.0", "x-amz-target": "DynamoDB_20120810." + op };
  const signed = await sign({ method: "POST", path: "/", headers, body }, creds);
  const resp = await fetch("/", { method: "POST", headers: { ...headers, ...signed }, body });
  return answer(resp);
}

// insights returns GET /_ddblocal/insights?table=name.
export async function insights(creds, name) {
  const path = "/_ddblocal/insights";
  const signed = await sign({ method: "GET", path, query: { table: name } }, creds);
  const resp = await fetch(path + "?table=" + encodeURIComponent(name), { headers: signed, cache: "no-store" });
  return answer(resp);
}

// replication returns GET /_ddblocal/replication, or with op ("pause" or
// "resume") POSTs it for region and returns the report after.
export async function replication(op = "", region = "") {
  const path = "/_ddblocal/replication" + (op ? `/${op}?region=${encodeURIComponent(region)}` : "");
  const resp = await fetch(path, { method: op ? "POST" : "GET", cache: "no-store" });
  return answer(resp);
}

// units returns the capacity units of a ConsumedCapacity, or "–".
export function units(cc) {
  return cc && typeof cc.CapacityUnits === "number" ? String(+cc.CapacityUnits.toFixed(4)) : "–";
}

// show renders one attribute value compactly: scalars as themselves, sets
// in braces, lists and maps as JSON, cut at max characters.
export function show(v, max = 80) {
  const [type] = Object.keys(v);
  const x = v[type];
  let s;
  switch (type) {
    case "S": case "N": s = x; break;
    case "B": s = "b64:" + x; break;
    case "BOOL": s = String(x); break;
    case "NULL": s = "null"; break;
    case "SS": case "NS": s = "{" + x.join(", ") + "}"; break;
    case "BS": s = "{" + x.map((b) => "b64:" + b).join(", ") + "}"; break;
    default: s = JSON.stringify(v);
  }
  return s.length > max ? s.slice(0, max - 1) + "…" : s;
}

// keyOf returns the key attributes of item under the key schema ks.
export function keyOf(item, ks) {
  const key = {};
  for (const k of ks) key[k.AttributeName] = item[k.AttributeName];
  return key;
}
