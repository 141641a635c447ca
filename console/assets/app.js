// The console page: tables, the item browser and editor, the live
// partition view (insights.js) and a global table's replicas (replicas.js). Everything it shows comes from the DynamoDB
// API and /_ddblocal/insights; every value is inserted as text, never HTML.
import { call, keyOf, show, units } from "./ddb.js";
import { canSign } from "./sigv4.js";
import { watchInsights } from "./insights.js";
import { watchReplicas } from "./replicas.js";
import { $, h } from "./dom.js";

const state = {
  creds: loadCreds(),
  tables: new Map(), // name -> DescribeTable's Table
  table: null, // the selected table's description
  pages: [], // ExclusiveStartKey of each page shown so far (page 1: undefined)
  seq: 0, // counts runQuery calls
  stopInsights: () => {},
  stopReplicas: () => {},
};

function loadCreds() {
  return {
    region: localStorage.getItem("ddblocal.region") || "us-east-1",
    key: localStorage.getItem("ddblocal.key") || "local",
    secret: sessionStorage.getItem("ddblocal.secret") || "local",
    token: sessionStorage.getItem("ddblocal.token") || "",
  };
}

function status(msg, isError = false) {
  $("status").textContent = msg;
  $("status").className = isError ? "error" : "";
}

// api calls op, reporting a failure in the status line before rethrowing.
async function api(op, req) {
  try {
    return await call(state.creds, op, req);
  } catch (e) {
    status(`${op}: ${e.message}`, true);
    if (["MissingAuthenticationTokenException", "UnrecognizedClientException", "InvalidSignatureException",
      "IncompleteSignatureException"].includes(e.type)) {
      $("creds").open = true;
      status(`${op}: ${e.message}\nThis server verifies signatures (--credentials): enter a key and secret it accepts.` +
        (canSign() ? "" : "\nThis page cannot sign: WebCrypto needs https or http://localhost."), true);
    }
    throw e;
  }
}

function showCreds() {
  const c = state.creds;
  $("region").value = c.region;
  $("access-key").value = c.key;
  $("secret-key").value = c.secret;
  $("session-token").value = c.token;
  $("creds-region").textContent = c.region;
  $("creds-key").textContent = c.key;
}

$("creds-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  state.creds = { region: $("region").value.trim(), key: $("access-key").value.trim(),
    secret: $("secret-key").value, token: $("session-token").value.trim() };
  localStorage.setItem("ddblocal.region", state.creds.region);
  localStorage.setItem("ddblocal.key", state.creds.key);
  sessionStorage.setItem("ddblocal.secret", state.creds.secret);
  sessionStorage.setItem("ddblocal.token", state.creds.token);
  showCreds();
  $("creds").open = false;
  loadTables();
});

// ---- tables ----

function keyText(ks, defs) {
  const type = (n) => (defs.find((d) => d.AttributeName === n) || {}).AttributeType || "?";
  return ks.map((k) => `${k.AttributeName} (${type(k.AttributeName)}${k.KeyType === "RANGE" ? ", sort" : ""})`).join(" · ");
}

// indexesOf returns the table's indexes as {name, kind, keys}.
function indexesOf(t) {
  return [...(t.GlobalSecondaryIndexes || []).map((i) => ({ ...i, kind: "GSI" })),
    ...(t.LocalSecondaryIndexes || []).map((i) => ({ ...i, kind: "LSI" }))];
}

// vectorText describes a vector index (searched with SearchVectors, so it
// is not among the item browser's indexes).
function vectorText(v) {
  const schema = (v.SearchSchema || []).map((e) => `${e.AttributeName} (${e.SearchSchemaElementType === "HASH" ? "hash" : "filter"})`);
  return `VECTOR ${v.IndexName}: ${v.VectorAttribute.AttributeName} (${v.Dimensions} dims, ${v.DistanceFunction})` +
    (schema.length ? ` · ${schema.join(" · ")}` : "") + (v.IndexStatus === "ACTIVE" ? "" : ` · ${v.IndexStatus}`);
}

async function loadTables() {
  let names = [];
  let start;
  try {
    do {
      const out = await api("ListTables", start ? { ExclusiveStartTableName: start } : {});
      names = names.concat(out.TableNames || []);
      start = out.LastEvaluatedTableName;
    } while (start);
  } catch {
    $("tables").replaceChildren();
    return;
  }
  const descs = await Promise.all(names.map((n) => api("DescribeTable", { TableName: n }).then((o) => o.Table, () => null)));
  state.tables = new Map(descs.filter(Boolean).map((t) => [t.TableName, t]));
  $("tables").replaceChildren(...[...state.tables.values()].map(tableEntry));
  if (!names.length) $("tables").append(h("li", { className: "hint" }, `No tables in ${state.creds.region}.`));
  status(`${names.length} table${names.length === 1 ? "" : "s"} in ${state.creds.region}`);
  // The selected table is kept in the address (#Orders), so a reload or a
  // link opens it again.
  const want = state.table ? state.table.TableName : decodeURIComponent(location.hash.slice(1));
  if (state.tables.has(want)) selectTable(want);
}

function tableEntry(t) {
  const defs = t.AttributeDefinitions || [];
  const b = h("button", { className: "table", type: "button" }, h("span", { className: "table-name" }, t.TableName),
    h("span", { className: "keys" }, `${t.ItemCount} items`),
    h("span", { className: "keys" }, keyText(t.KeySchema, defs)),
    ...indexesOf(t).map((i) => h("span", { className: "keys" }, `${i.kind} ${i.IndexName}: ${keyText(i.KeySchema, defs)}`)),
    ...(t.VectorIndexes || []).map((v) => h("span", { className: "keys" }, vectorText(v))));
  b.dataset.table = t.TableName;
  b.addEventListener("click", () => selectTable(t.TableName));
  return h("li", {}, b);
}

function selectTable(name) {
  const t = state.tables.get(name);
  state.table = t;
  history.replaceState(null, "", "#" + encodeURIComponent(name));
  for (const b of document.querySelectorAll("#tables button")) b.classList.toggle("selected", b.dataset.table === name);
  $("no-table").hidden = true;
  $("table-pane").hidden = false;
  $("table-name").textContent = name;
  const billing = (t.BillingModeSummary || {}).BillingMode || "PROVISIONED";
  $("table-info").textContent = `${t.ItemCount} items · ${t.TableSizeBytes} bytes · ${t.TableStatus} · ${billing}`;
  $("q-index").replaceChildren(h("option", { value: "" }, "table"),
    ...indexesOf(t).map((i) => h("option", { value: i.IndexName }, `${i.kind} ${i.IndexName}`)));
  keyFields();
  state.stopInsights();
  state.stopInsights = watchInsights(() => state.creds, t);
  state.stopReplicas();
  state.stopReplicas = watchReplicas(() => state.creds, t);
  runQuery();
}

$("tables-refresh").addEventListener("click", () => loadTables());

// ---- item browser ----

// schemaOf returns the key schema of the chosen table or index.
function schemaOf() {
  const name = $("q-index").value;
  if (!name) return state.table.KeySchema;
  return indexesOf(state.table).find((i) => i.IndexName === name).KeySchema;
}

function keyFields() {
  const ks = schemaOf();
  const pk = ks.find((k) => k.KeyType === "HASH");
  const sk = ks.find((k) => k.KeyType === "RANGE");
  $("q-key").hidden = $("q-mode").value !== "Query";
  $("q-pk-name").textContent = pk.AttributeName;
  $("q-sk-label").hidden = !sk;
  $("q-sk-name").textContent = sk ? sk.AttributeName : "";
  $("q-sk2").hidden = $("q-sk-op").value !== "between";
}
for (const id of ["q-mode", "q-index", "q-sk-op"]) $(id).addEventListener("change", keyFields);

function attrType(name) {
  const d = state.table.AttributeDefinitions.find((a) => a.AttributeName === name);
  return d ? d.AttributeType : "S";
}

function jsonField(id) {
  const s = $(id).value.trim();
  if (!s) return {};
  try {
    return JSON.parse(s);
  } catch (e) {
    throw new Error(`${id.slice(2)}: not JSON (${e.message})`);
  }
}

// buildRequest returns the Query or Scan request the form describes.
function buildRequest() {
  const mode = $("q-mode").value;
  const req = { TableName: state.table.TableName, ReturnConsumedCapacity: "TOTAL" };
  if ($("q-index").value) req.IndexName = $("q-index").value;
  const names = jsonField("q-names");
  const values = jsonField("q-values");
  if (mode === "Query") {
    const ks = schemaOf();
    const pk = ks.find((k) => k.KeyType === "HASH").AttributeName;
    names["#pk"] = pk;
    values[":pk"] = { [attrType(pk)]: $("q-pk").value };
    let cond = "#pk = :pk";
    const sk = ks.find((k) => k.KeyType === "RANGE");
    const op = $("q-sk-op").value;
    if (sk && op) {
      const t = attrType(sk.AttributeName);
      names["#sk"] = sk.AttributeName;
      values[":sk"] = { [t]: $("q-sk").value };
      if (op === "between") {
        values[":sk2"] = { [t]: $("q-sk2").value };
        cond += " AND #sk BETWEEN :sk AND :sk2";
      } else if (op === "begins_with") {
        cond += " AND begins_with(#sk, :sk)";
      } else {
        cond += ` AND #sk ${op} :sk`;
      }
    }
    req.KeyConditionExpression = cond;
  }
  if ($("q-filter").value.trim()) req.FilterExpression = $("q-filter").value.trim();
  if (Object.keys(names).length) req.ExpressionAttributeNames = names;
  if (Object.keys(values).length) req.ExpressionAttributeValues = values;
  if ($("q-limit").value) req.Limit = +$("q-limit").value;
  if ($("q-consistent").checked) req.ConsistentRead = true;
  return [mode, req];
}

// runQuery shows page n (0 = first) of the form's Query or Scan.
async function runQuery(n = 0) {
  $("q-error").textContent = "";
  let mode, req;
  try {
    [mode, req] = buildRequest();
  } catch (e) {
    $("q-error").textContent = e.message;
    return;
  }
  if (n === 0) state.pages = [undefined];
  if (state.pages[n]) req.ExclusiveStartKey = state.pages[n];
  const seq = ++state.seq; // only the latest run may draw
  let out;
  try {
    out = await call(state.creds, mode, req);
  } catch (e) {
    if (seq === state.seq) $("q-error").textContent = `${mode}: ${e.message}`;
    return;
  }
  if (seq !== state.seq) return;
  state.pages[n + 1] = out.LastEvaluatedKey;
  state.pages.length = n + 2;
  $("stat-count").textContent = out.Count;
  $("stat-scanned").textContent = out.ScannedCount;
  $("stat-units").textContent = units(out.ConsumedCapacity);
  $("stat-page").textContent = `page ${n + 1}${out.LastEvaluatedKey ? ", more" : ", last"}`;
  $("q-next").disabled = !out.LastEvaluatedKey;
  $("q-next").onclick = () => runQuery(n + 1);
  showItems(out.Items || []);
}

$("query-form").addEventListener("submit", (ev) => {
  ev.preventDefault();
  runQuery();
});

// columns returns the attribute names to show: the table's and the
// index's keys first, then the rest in order.
function columns(items) {
  const first = [...state.table.KeySchema, ...schemaOf()].map((k) => k.AttributeName);
  const rest = new Set();
  for (const it of items) for (const n of Object.keys(it)) rest.add(n);
  const cols = [...new Set(first)];
  return cols.concat([...rest].filter((n) => !cols.includes(n)).sort());
}

function showItems(items) {
  const cols = columns(items);
  $("results").tHead.replaceChildren(h("tr", {}, h("th", {}, ""), ...cols.map((c) => h("th", {}, c))));
  $("results").tBodies[0].replaceChildren(...items.map((it) => h("tr", {},
    h("td", {}, h("button", { type: "button", className: "edit", onclick: () => openEditor(it) }, "Edit"), " ",
      h("button", { type: "button", className: "delete", onclick: (ev) => deleteItem(ev.target, it) }, "Delete")),
    ...cols.map((c) => (c in it ? h("td", { title: JSON.stringify(it[c]) }, show(it[c])) : h("td"))))));
}

// deleteItem asks once (the button changes to "Really delete?") and
// deletes on the second click.
async function deleteItem(button, item) {
  if (!button.classList.contains("armed")) {
    button.classList.add("armed");
    button.textContent = "Really delete?";
    return;
  }
  const out = await api("DeleteItem", { TableName: state.table.TableName, Key: keyOf(item, state.table.KeySchema),
    ReturnConsumedCapacity: "TOTAL" });
  status(`DeleteItem: ${units(out.ConsumedCapacity)} WCU`);
  runQuery();
}

// ---- editor ----

// openEditor edits item, read again from the table first (a row from an
// index holds only the projected attributes, and saving that would drop
// the rest), or a new item when item is null.
async function openEditor(item) {
  const t = state.table;
  if (item) {
    const out = await api("GetItem", { TableName: t.TableName, Key: keyOf(item, t.KeySchema), ConsistentRead: true });
    if (!out.Item) {
      status(`GetItem: the item is no longer in ${t.TableName}`, true);
      return;
    }
    item = out.Item;
  }
  const blank = Object.fromEntries(t.KeySchema.map((k) => [k.AttributeName, { [attrType(k.AttributeName)]: "" }]));
  $("editor-title").textContent = item ? `Edit item in ${t.TableName}` : `New item in ${t.TableName}`;
  $("editor-json").value = JSON.stringify(item || blank, null, 2);
  $("editor-error").textContent = "";
  $("editor").showModal();
}

$("item-new").addEventListener("click", () => openEditor(null));
$("editor-cancel").addEventListener("click", () => $("editor").close());
$("editor-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  let item;
  try {
    item = JSON.parse($("editor-json").value);
  } catch (e) {
    $("editor-error").textContent = "Not JSON: " + e.message;
    return;
  }
  try {
    const out = await call(state.creds, "PutItem", { TableName: state.table.TableName, Item: item, ReturnConsumedCapacity: "TOTAL" });
    status(`PutItem: ${units(out.ConsumedCapacity)} WCU`);
  } catch (e) {
    $("editor-error").textContent = e.message;
    return;
  }
  $("editor").close();
  runQuery();
});

showCreds();
loadTables();
