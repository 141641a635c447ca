// The global table view of one table: its replicas side by side, each as
// DescribeTable in its own Region shows it, with the replication into it
// (backlog, lag, paused) and the conflicts resolved last-writer-wins, from
// GET /_ddblocal/replication; polled every 2 s while the page is visible.
// Pause and Resume cut a Region off from the others and let it catch up
// (POST /_ddblocal/replication/pause and /resume), as a partition would.
import { call, replication, show } from "./ddb.js";
import { $, h } from "./dom.js";

const pollMs = 2000;

// watchReplicas starts polling for table t (its description in the
// console's Region) and returns the function that stops it. A regional
// table hides the view.
export function watchReplicas(getCreds, t) {
  let stopped = false;
  let timer;
  $("global").hidden = !(t.Replicas || []).length;
  $("replicas").replaceChildren();
  $("conflicts").replaceChildren();
  $("global-status").textContent = "loading…";
  let last = "";
  const draw = async () => {
    try {
      const view = await load(getCreds(), t.TableName);
      if (stopped) return;
      // Drawn again only when something changed: a button is not
      // replaced under the pointer for nothing.
      const seen = JSON.stringify(view);
      if (seen !== last) render(view, draw);
      last = seen;
      $("global-status").textContent = `${view.replicas.length + 1} replicas · updated ${new Date().toLocaleTimeString()}`;
    } catch (e) {
      if (!stopped) $("global-status").textContent = `unavailable: ${e.message}`;
    }
  };
  const poll = async () => {
    if (stopped) return;
    if (!document.hidden) await draw();
    if (!stopped) timer = setTimeout(poll, pollMs);
  };
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// load reads what the view shows: the table in the console's Region, each
// replica in its own (a replica in another account is not readable with
// this key: it shows what the table lists of it), and the replication
// report.
async function load(creds, name) {
  const here = (await call(creds, "DescribeTable", { TableName: name })).Table;
  const replicas = await Promise.all((here.Replicas || []).map(async (r) => {
    if (r.ReplicaArn) return { region: r.RegionName, listed: r, table: null, otherAccount: true };
    const table = await call({ ...creds, region: r.RegionName }, "DescribeTable", { TableName: name }).then((o) => o.Table, () => null);
    return { region: r.RegionName, listed: r, table };
  }));
  const report = await replication();
  return { name, region: creds.region, here, replicas, report };
}

// render draws one column per replica, the console's Region first, and the
// table's conflicts.
function render(v, redraw) {
  $("global").hidden = !v.replicas.length;
  const paused = new Set(v.report.pausedRegions || []);
  const links = (v.report.links || []).filter((l) => l.table === v.name);
  const conflicts = (v.report.conflicts || []).filter((c) => c.table === v.name);
  const cols = [{ region: v.region, table: v.here, status: v.here.TableStatus, own: true },
    ...v.replicas.map((r) => ({ region: r.region, table: r.table, status: r.listed.ReplicaStatus, otherAccount: r.otherAccount }))];
  const rows = [
    ["status", "Status", (c) => c.status],
    ["items", "Items", (c) => (c.table ? String(c.table.ItemCount) : "–")],
    ["size", "Size (bytes)", (c) => (c.table ? String(c.table.TableSizeBytes) : "–")],
    ["class", "Table class", (c) => (c.table ? (c.table.TableClassSummary || {}).TableClass || "STANDARD" : "–")],
    ["capacity", "Capacity", (c) => (c.table ? capacity(c.table) : "–")],
    ["incoming", "Replicating in", (c) => incoming(links, c.region)],
    ["conflicts", "Conflicts resolved here", (c) => String(conflicts.filter((x) => x.region === c.region).length)],
  ];
  const head = h("tr", {}, h("th", {}, ""), ...cols.map((c) => h("th", {}, c.region,
    c.own ? h("span", { className: "hint" }, " (this Region)") : null,
    c.otherAccount ? h("span", { className: "hint" }, " (another account)") : null)));
  const body = rows.map(([id, label, cell]) => h("tr", {}, h("th", {}, label), ...cols.map((c) => {
    const td = h("td", {}, cell(c));
    td.dataset.region = c.region;
    td.dataset.row = id;
    return td;
  })));
  body.push(h("tr", {}, h("th", {}, "Replication"), ...cols.map((c) => {
    const cut = paused.has(c.region);
    const b = h("button", { type: "button", className: cut ? "resume" : "pause" }, cut ? "Resume" : "Pause");
    b.dataset.region = c.region;
    b.onclick = async () => {
      b.disabled = true;
      try {
        await replication(cut ? "resume" : "pause", c.region);
      } finally {
        redraw();
      }
    };
    const td = h("td", { className: cut ? "paused" : "" }, cut ? "paused " : "", b);
    td.dataset.region = c.region;
    td.dataset.row = "replication";
    return td;
  })));
  $("replicas").replaceChildren(h("thead", {}, head), h("tbody", {}, ...body));
  $("conflict-count").textContent = String(conflicts.length);
  $("conflicts").replaceChildren(...conflicts.map(conflictEntry));
  if (!conflicts.length) $("conflicts").append(h("li", { className: "hint" }, "none"));
}

// capacity describes a table's throughput.
function capacity(t) {
  const p = t.ProvisionedThroughput || {};
  if (((t.BillingModeSummary || {}).BillingMode || "PROVISIONED") === "PAY_PER_REQUEST") return "on demand";
  return `${p.ReadCapacityUnits} R · ${p.WriteCapacityUnits} W`;
}

// incoming describes the links into region: from where, how many writes
// wait and how long the oldest has.
function incoming(links, region) {
  const into = links.filter((l) => l.targetRegion === region);
  if (!into.length) return "–";
  return into.map((l) => `from ${l.sourceRegion}: ` + (l.copying ? "copying, " : "") +
    `${l.backlog} behind` + (l.backlog ? `, ${l.lagMillis} ms` : "") + (l.paused ? ", paused" : "")).join(" · ");
}

// conflictEntry lists one conflict: the item's key, the write that won and
// the one discarded, with their Regions and commit times.
function conflictEntry(c) {
  const key = Object.entries(c.key || {}).map(([k, v]) => `${k} = ${show(v, 40)}`).join(", ");
  const side = (w) => `${w.region} at ${w.time}${w.deleted ? " (delete)" : ""}`;
  const li = h("li", {}, h("code", {}, key), ` won: ${side(c.winner)} · discarded: ${side(c.loser)} · in ${c.region}`);
  li.dataset.region = c.region;
  return li;
}
