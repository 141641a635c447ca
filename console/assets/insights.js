// The live partition view of one table, from GET /_ddblocal/insights
// (polled every 2 s while the page is visible): the heat map of units per
// partition over time, partition totals, top keys, item collections, read
// amplification and warnings.
import { insights, show } from "./ddb.js";
import { $, h } from "./dom.js";

const pollMs = 2000;
const buckets = 30; // columns of the heat map

const num = (x) => String(+Number(x).toFixed(2));

// watchInsights starts polling for table t and returns the function that
// stops it.
export function watchInsights(getCreds, t) {
  let stopped = false;
  let timer;
  let last = null;
  $("hm-index").replaceChildren(h("option", { value: "" }, "table"));
  $("hm-index").onchange = $("hm-metric").onchange = () => last && render(last);
  $("heatmap").replaceChildren();
  $("insights-status").textContent = "loading…";
  const poll = async () => {
    if (stopped) return;
    if (!document.hidden) {
      try {
        last = await insights(getCreds(), t.TableName);
        if (stopped) return;
        render(last);
        $("insights-status").textContent = `updated ${new Date(last.now * 1000).toLocaleTimeString()}` +
          (last.throttling ? " · throttling on" : " · throttling off");
        $("heatmap").classList.remove("unavailable");
        $("insights-detail").hidden = false;
      } catch (e) {
        if (stopped) return;
        unavailable(e);
      }
    }
    timer = setTimeout(poll, pollMs);
  };
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

// unavailable says plainly that there is nothing to show, and why.
function unavailable(e) {
  const why = e.status === 404 ? "this server does not serve GET /_ddblocal/insights (404)" : e.message;
  $("insights-status").textContent = "";
  $("heatmap").className = "unavailable";
  $("insights-detail").hidden = true;
  $("heatmap").replaceChildren(h("p", {}, `Partition insights are unavailable: ${why}.`));
}

function render(doc) {
  const sel = $("hm-index");
  const names = doc.indexes.map((i) => i.index);
  if (sel.options.length !== names.length || names.some((n, i) => sel.options[i].value !== n)) {
    const keep = sel.value;
    sel.replaceChildren(...names.map((n) => h("option", { value: n }, n === "" ? "table" : n)));
    sel.value = names.includes(keep) ? keep : "";
  }
  const ix = doc.indexes.find((i) => i.index === sel.value) || doc.indexes[0] || { partitions: [] };
  heatmap(doc, ix.partitions, $("hm-metric").value);
  partitionTable(ix.partitions);
  keyList($("top-units"), doc.topKeys.byUnits, (k) => `${num(k.readUnits)} R · ${num(k.writeUnits)} W · ${k.throttles} throttles`);
  keyList($("top-throttles"), doc.topKeys.byThrottles, (k) => `${k.throttles} throttles · ${num(k.readUnits)} R · ${num(k.writeUnits)} W`);
  keyList($("collections"), doc.collections, (c) => `${c.items} items · ${c.sizeBytes} bytes`);
  amplification(doc.amplification);
  warnings(doc.warnings);
  vectorIndexes(doc.vectorIndexes || []);
}

function metric(e, m) {
  if (!e) return 0;
  if (m === "units") return e.readUnits + e.writeUnits;
  if (m === "throttles") return e.readThrottles + e.writeThrottles;
  return e[m];
}

// heatmap draws one row per partition and one column per time bucket (the
// last `buckets` up to the server's now); a cell's shade is its value
// relative to the largest cell shown, and a red outline marks throttles.
function heatmap(doc, parts, m) {
  const w = doc.bucketSeconds;
  const end = Math.floor(doc.now / w) * w;
  const times = Array.from({ length: buckets }, (_, i) => end - (buckets - 1 - i) * w);
  const grid = parts.map((p) => new Map(p.series.map((s) => [s.t, s])));
  let max = 0;
  for (const row of grid) for (const t of times) max = Math.max(max, metric(row.get(t), m));
  const el = $("heatmap");
  el.style.gridTemplateColumns = `auto repeat(${buckets}, 1fr)`;
  const cells = [];
  parts.forEach((p, r) => {
    cells.push(h("span", { className: "label", title: `${p.hashLow}–${p.hashHigh}` }, `p${p.partition}`));
    for (const t of times) {
      const e = grid[r].get(t);
      const v = metric(e, m);
      const c = h("div", { className: "cell", title: `p${p.partition} at ${new Date(t * 1000).toLocaleTimeString()}: ` +
        (e ? `${num(e.readUnits)} R, ${num(e.writeUnits)} W units, ${e.readThrottles + e.writeThrottles} throttles` : "idle") });
      c.dataset.value = v;
      if (v > 0) c.style.background = `hsl(${m === "throttles" ? 0 : 24}, 90%, ${92 - 52 * (v / max)}%)`;
      if (e && e.readThrottles + e.writeThrottles > 0) c.classList.add("throttled");
      cells.push(c);
    }
  });
  if (!parts.length) cells.push(h("p", {}, "No partitions."));
  else cells.push(h("span"), h("span", { className: "label legend" }, `${w} s per column, the last ${num(buckets * w / 60)} min, newest on the right; darkest = ${num(max)}`));
  el.replaceChildren(...cells);
}

function partitionTable(parts) {
  const head = ["partition", "hash range", "items", "bytes", "read units", "write units", "read throttles", "write throttles"];
  $("partitions").replaceChildren(h("thead", {}, h("tr", {}, ...head.map((x) => h("th", {}, x)))),
    h("tbody", {}, ...parts.map((p) => h("tr", {}, h("td", {}, `p${p.partition}`), h("td", {}, `${p.hashLow}–${p.hashHigh}`),
      ...[p.items, p.sizeBytes, num(p.readUnits), num(p.writeUnits), p.readThrottles, p.writeThrottles]
        .map((x) => h("td", { className: "num" }, String(x)))))));
}

function keyText(k) {
  const pk = show(k.partitionKey, 40);
  return (k.index ? `[${k.index}] ` : "") + (k.sortKey ? `${pk} / ${show(k.sortKey, 40)}` : pk);
}

function keyList(ol, list, detail) {
  ol.replaceChildren(...list.map((k) => h("li", {}, h("code", {}, keyText(k)), " ", h("span", { className: "hint" }, detail(k)))));
  if (!list.length) ol.append(h("li", { className: "hint" }, "none"));
}

function amplification(a) {
  const rows = [["items read", a.itemsRead], ["items returned", a.itemsReturned], ["units read", num(a.unitsRead)],
    ["units per returned item", num(a.unitsPerReturnedItem)], ["share of reads by Scan", `${num(100 * a.scanReadShare)} %`]];
  $("amplification").replaceChildren(...rows.flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, String(v))]));
}

// vectorIndexes lists each vector index's vectors and its largest search
// partitions (a search reads one whole).
function vectorIndexes(list) {
  $("vector-section").hidden = !list.length;
  $("vector-indexes").replaceChildren(...list.map((v) => h("li", {}, h("code", {}, v.index),
    ` ${v.vectors} vectors · ${v.dimensions} dims ${v.distanceFunction} · ${v.vectorBytes} bytes · ` +
    (v.hash ? `${v.searchPartitionsTotal} search partitions by ${v.hash}; largest: ` +
      v.searchPartitions.map((p) => `${show(p.partitionKey, 40)} ${p.vectors}`).join(", ") : "one search partition"))));
}

function warnings(list) {
  $("warnings").replaceChildren(...list.map((w) => h("li", { className: "warning" }, h("span", { className: "kind" }, w.kind),
    w.index ? ` [${w.index}] ` : " ", w.message, h("span", { className: "remedy" }, w.remedy))));
  if (!list.length) $("warnings").append(h("li", { className: "hint" }, "No warnings."));
}
