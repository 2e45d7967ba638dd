"""The JavaScript fixbot runs under a node check's own node for V8's coverage (`nodecov`).

`HOOK` is preloaded into every node process of the check (`--require` in `NODE_OPTIONS`,
which node's worker threads inherit): through node's inspector, in process
(https://nodejs.org/api/inspector.html), it keeps the code of each script V8 compiles that
carries a source map (`Debugger.scriptParsed`'s `sourceMapURL`: what a runner's transform leaves
in the code it runs, as vitest's and ts-node's inline `data:` maps), so that V8's offsets into
that code can be mapped to the file's lines afterwards. Pauses are skipped (a `debugger`
statement would stop the thread with nobody to resume it). A process its parent stops with
SIGTERM (vitest's and tinypool's worker processes) exits through `process.exit` instead, which
writes its coverage file; a project that listens for SIGTERM itself keeps its own handling.

`PRINT` runs under the project's node after the check, in the check's folder, and prints one
JSON line per script of that folder (not `node_modules`): a script V8 ran as its file reads,
`{"path": ..., "functions": [[name, [[start, end, count], ...]], ...]}` (offsets), and a
script that ran transformed, mapped through its source map (version 3:
https://tc39.es/ecma426/), `{"mapped": ..., "functions": [[name, first line, last line,
count], ...], "blocks": [[first line, last line, count], ...]}`, the functions executed ones
only, the blocks inside them each (a block of count 0 did not run: `nodelines.ran_lines`). A
function the transform added (no mapped position inside it: vite's export getters) and the
module's wrapper (holding every mapped line and another function) are left out.
"""

from __future__ import annotations

SOURCES = "fixbot_v8_sources"  # the variable naming the folder `HOOK` writes into

HOOK = r"""
try {
  const out = process.env.fixbot_v8_sources;
  const fs = require("fs"), path = require("path"), {pathToFileURL} = require("url");
  const threads = require("worker_threads");
  if (out) {
    const session = new (require("inspector").Session)();
    session.connect();
    session.on("Debugger.scriptParsed", ({params}) => {
      const name = params.url || "", map = params.sourceMapURL || "";
      if (!map || name.includes("/node_modules/") || params.length > 8e6) return;
      const url = name.startsWith("/") ? pathToFileURL(name).href : name;
      if (!url.startsWith("file:")) return;
      session.post("Debugger.getScriptSource", {scriptId: params.scriptId}, (err, res) => {
        if (err || !res) return;
        const line = JSON.stringify({url, map, source: res.scriptSource}) + "\n";
        const file = path.join(out, `sources-${process.pid}.jsonl`);
        try { fs.appendFileSync(file, line); } catch (e) {}
      });
    });
    session.post("Debugger.enable");
    session.post("Debugger.setSkipAllPauses", {skip: true});
  }
  if (threads.isMainThread) {
    process.on("SIGTERM", () => {
      if (process.listenerCount("SIGTERM") === 1) process.exit(143);
    });
  }
} catch (e) {}
"""

PRINT = r"""
const fs = require("fs"), path = require("path"), {pathToFileURL, fileURLToPath} = require("url");
const dir = process.argv[process.argv.length - 1];
const root = pathToFileURL(process.cwd()).href + "/";
const ours = u => u.startsWith(root) && !u.includes("/node_modules/");
const rel = u => decodeURIComponent(u.slice(root.length));
const names = fs.readdirSync(dir), sources = {};
for (const name of names.filter(n => n.startsWith("sources-"))) {
  for (const line of fs.readFileSync(path.join(dir, name), "utf8").split("\n")) {
    try { const s = JSON.parse(line); sources[s.url] = s; } catch (e) {}
  }
}
const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// The number of items of the sorted `list` below `x`.
function below(list, x) {
  let lo = 0, hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}
// A source map's mappings: per generated line, its segments [column, source, source line].
function decode(mappings) {
  const lines = [];
  let src = 0, line = 0, col = 0;
  for (const text of mappings.split(";")) {
    const segs = [];
    let gen = 0;
    for (const seg of text.split(",")) {
      const v = [];
      let shift = 0, value = 0;
      for (const ch of seg) {
        const d = B64.indexOf(ch);
        value += (d & 31) * 2 ** shift;
        if (d & 32) { shift += 5; continue; }
        v.push(value % 2 ? -(value - 1) / 2 : value / 2);
        value = 0; shift = 0;
      }
      if (!v.length) continue;
      gen += v[0];
      if (v.length < 4) continue;
      src += v[1]; line += v[2]; col += v[3];
      segs.push([gen, src, line + 1]);
    }
    lines.push(segs);
  }
  return lines;
}
function readMap(s) {
  try {
    if (s.map.startsWith("data:")) {
      const comma = s.map.indexOf(","), data = s.map.slice(comma + 1);
      const base64 = /;base64$/.test(s.map.slice(0, comma));
      const text = base64 ? Buffer.from(data, "base64").toString("utf8") : decodeURIComponent(data);
      return JSON.parse(text);
    }
    return JSON.parse(fs.readFileSync(fileURLToPath(new URL(s.map, s.url)), "utf8"));
  } catch (e) { return null; }
}
// offset in the code V8 ran -> [file URL, line in it, generated line], or null
function mapper(s) {
  const map = readMap(s);
  if (!map || typeof map.mappings !== "string") return null;
  const files = (map.sources || []).map(f => {
    try { return new URL((map.sourceRoot || "") + f, s.url).href; } catch (e) { return ""; }
  });
  const lines = decode(map.mappings), starts = [0];
  for (let i = s.source.indexOf("\n"); i >= 0; i = s.source.indexOf("\n", i + 1)) {
    starts.push(i + 1);
  }
  const offsets = [];
  lines.forEach((segs, l) => segs.forEach(g => offsets.push((starts[l] || 0) + g[0])));
  offsets.sort((x, y) => x - y);
  const used = lines.map((segs, l) => (segs.length ? l : -1)).filter(l => l >= 0);
  const lineOf = offset => below(starts, offset + 1) - 1;
  const at = offset => {
    const line = lineOf(offset), col = offset - starts[line], here = lines[line] || [];
    let found = here.filter(g => g[0] <= col).pop() || here[0];
    for (let l = line - 1; !found && l >= 0; l--) found = (lines[l] || []).slice(-1)[0];
    return found ? [files[found[1]] || "", found[2], line] : null;
  };
  at.mapped = (a, b) => {  // whether a mapped position lies in [a, b)
    const i = below(offsets, a);
    return i < offsets.length && offsets[i] < b;
  };
  const first = used[0], last = used[used.length - 1];
  at.whole = (a, b) => used.length > 0 && lineOf(a) <= first && lineOf(b) >= last;
  return at;
}
const scripts = {}, mapped = {};
for (const name of names.filter(n => n.startsWith("coverage-"))) {
  let report;
  try {
    report = JSON.parse(fs.readFileSync(path.join(dir, name), "utf8"));
  } catch (e) { continue; }
  for (const script of report.result || []) {
    const url = script.url || "";
    if (!ours(url)) continue;
    const s = sources[url];
    let disk = null;
    try { disk = fs.readFileSync(fileURLToPath(url), "utf8"); } catch (e) {}
    const at = s && s.source !== disk ? mapper(s) : null;
    if (!at) {
      (scripts[rel(url)] = scripts[rel(url)] || []).push(...script.functions.map(
        f => [f.functionName, f.ranges.map(r => [r.startOffset, r.endOffset, r.count])]));
      continue;
    }
    const tops = script.functions.map(f => f.ranges[0]);
    const holds = r => tops.some(
      o => o !== r && r.startOffset <= o.startOffset && o.endOffset <= r.endOffset);
    for (const f of script.functions) {
      const [top, ...blocks] = f.ranges, last = Math.max(top.startOffset, top.endOffset - 1);
      const a = at(top.startOffset), b = at(last);
      if (top.count === 0 || !a || !b || a[0] !== b[0] || !ours(a[0])) continue;
      if (!at.mapped(top.startOffset, top.endOffset)) continue;
      if (at.whole(top.startOffset, last) && holds(top)) continue;
      const file = (mapped[rel(a[0])] = mapped[rel(a[0])] || {functions: [], blocks: []});
      file.functions.push([f.functionName, a[1], Math.max(a[1], b[1]), top.count]);
      for (const r of blocks) {
        const c = at(r.startOffset), d = at(Math.max(r.startOffset, r.endOffset - 1));
        if (c && d && c[0] === a[0]) {
          file.blocks.push([c[1], Math.max(c[1], d[1]), r.count]);
        }
      }
    }
  }
}
for (const [p, functions] of Object.entries(scripts)) {
  process.stdout.write(JSON.stringify({path: p, functions}) + "\n");
}
for (const [p, lines] of Object.entries(mapped)) {
  process.stdout.write(JSON.stringify({mapped: p, ...lines}) + "\n");
}
"""
