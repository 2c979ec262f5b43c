// Real-browser test of the pages that compare two configurations
// (docs/HTML.md, docs/DIFF.md, docs/COMPARE.md): the compare's report.html,
// the diff's report.html (`fscost diff A/ B/ -o DIR`) and a standalone
// differential SVG (`fscost flamegraph --diff`), all over file:// with the
// network cut off.
//
// No compare runs: compare_page (tests/browser/compare_page.cpp) writes
// synthetic runs where `fscost compare --threads 1,2 --runs 3` puts them
// and the compare's outputs from them, the way the compare does after its
// last run; `fscost diff` and `fscost flamegraph --diff` then read those
// runs. Run by ctest as browser.compare (browser.mjs says how).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  browser, checkReadable, checkScreenshot, danglingLinks, errors, fscost, need, openPages, outDir, page,
} from "./browser.mjs";

const COMPARE_PAGE = process.env.COMPARE_PAGE_BIN;
need(["COMPARE_PAGE_BIN", COMPARE_PAGE]);

const out = outDir();
const compareDir = resolve(out, "compare");
const matrixDir = resolve(out, "matrix");
const diffDir = resolve(out, "diff");
const diffSvg = resolve(out, "diff.svg");
const runs = (t, side) => join(compareDir, "runs", `t${t}`, side);

// Text pages (tables, a little colour) have fewer colours than a graph.
const TEXT_PAGE = { colours: 300, sd: 8 };

openPages(out, () => {
  execFileSync(COMPARE_PAGE, [compareDir], { stdio: ["ignore", "pipe", "pipe"] });
  execFileSync(COMPARE_PAGE, [matrixDir, "--matrix"], { stdio: ["ignore", "pipe", "pipe"] });
  fscost("diff", runs(2, "a"), runs(2, "b"), "-o", diffDir);
  fscost("flamegraph", "--diff", join(runs(1, "a"), "run-01.profile"), join(runs(1, "b"), "run-01.profile"),
    "-o", diffSvg);
});

// The frames of a differential graph with what their tooltips say, and its
// legend lines.
function diffGraph(svg) {
  return page.$eval(svg, (s) => ({
    notes: [...s.querySelectorAll(".fg-note")].map((t) => t.textContent),
    frames: [...s.querySelectorAll(".fg-frames > g")].map((g) => ({
      title: g.querySelector("title").textContent,
      fill: g.querySelector("rect").getAttribute("fill"),
    })),
  }));
}

const GREY = ["rgb(195,195,195)", "url(#fg-insig)"];

// The legend says what the drawing shows: grey only if a frame is grey (and
// then it is), red frames grew and blue ones shrank in B, hatched frames
// are gone in B (the width is B's), the unit is time per operation, and the
// total is the root frame's.
async function checkLegend(svg, unit) {
  const { notes, frames } = await diffGraph(svg);
  const legend = notes.find((n) => n.startsWith("Red: more in B."));
  assert.ok(legend, `${svg}: no colour legend in ${JSON.stringify(notes)}`);
  const grey = frames.filter((f) => GREY.includes(f.fill));
  assert.equal(legend.includes("Grey"), grey.length > 0,
    `${svg}: legend "${legend}" with ${grey.length} grey frames of ${frames.length}`);
  for (const f of frames) {
    const delta = /, Δ ([+-]?[\d.]+) /.exec(f.title);
    assert.ok(delta, `${svg}: tooltip "${f.title}"`);
    assert.ok(f.title.includes(unit), `${svg}: "${f.title}" is not in ${unit}`);
    const d = Number(delta[1]);
    const rgb = /^rgb\((\d+),(\d+),(\d+)\)$/.exec(f.fill);
    if (rgb && !GREY.includes(f.fill)) {
      const [r, g, b] = rgb.slice(1).map(Number);
      if (r === 255 && g < 250) assert.ok(d > 0, `${svg}: red frame "${f.title}"`);
      if (b === 255 && r < 250) assert.ok(d < 0, `${svg}: blue frame "${f.title}"`);
      if (d > 0) assert.ok(r === 255 && g === b, `${svg}: "${f.title}" grew but is ${f.fill}`);
      if (d < 0) assert.ok(b === 255 && r === g, `${svg}: "${f.title}" shrank but is ${f.fill}`);
    }
    if (f.fill === "url(#fg-gone)") assert.match(f.title, /gone in B/);
  }
  if (frames.some((f) => f.fill === "url(#fg-gone)")) assert.match(notes.join("\n"), /hatched: gone in B/);
  const total = notes.map((n) => /Total: A (.+?), B (.+?), Δ (.+?)\.$/.exec(n)).find(Boolean);
  assert.ok(total, `${svg}: no total in ${JSON.stringify(notes)}`);
  const root = /^\S+ \(A (.+?), B (.+?), Δ (.+?),/.exec(frames[0].title);
  assert.deepEqual(total.slice(1), root.slice(1), `${svg}: total against the root "${frames[0].title}"`);
}

test("the diff page renders its explanation, tables and graphs", async () => {
  await page.goto(pathToFileURL(join(diffDir, "report.html")).href);
  assert.match(await page.locator("h1").textContent(), /fscost diff/);
  const ops = await page.$$eval(".diff-op h3", (hs) => hs.map((h) => h.textContent));
  assert.deepEqual([...ops].sort(), ["create", "mkdir", "unlink"]);
  assert.match(await page.locator("#op-create").textContent(), /xfs_parent_addname/);
  assert.ok(await page.locator("table.diff.metrics").count() >= 3);
  assert.ok(await page.locator("table.diff.metrics tr.significant").count() > 0);
  const graphs = await page.locator("svg.fg").count();
  assert.ok(graphs >= 6, `${graphs} graphs`);
  for (const svg of await page.locator("svg.fg").all())
    assert.ok(await svg.locator(".fg-frames > g").count() > 3);
  assert.deepEqual(await danglingLinks(page, diffDir), []);
  assert.deepEqual(errors, []);
});

// Issue 31: the page opens on the answer. In a 1400×900 window the verdict
// is the first thing after the title and on screen without scrolling; it
// says what summary.txt says above its separator (the first screen), and
// every link in it leads to an element of the page.
const squash = (s) => s.replace(/\s+/g, " ").trim();

// The first screen of a summary.txt: what stands above its separator.
function firstScreen(dir) {
  const text = readFileSync(join(dir, "summary.txt"), "utf8");
  const to = text.indexOf(`\n${"-".repeat(72)}\n`);
  assert.ok(to > 0, `${dir}/summary.txt: no first screen`);
  return text.substring(0, to + 1);
}

async function checkVerdict(dir, shot) {
  await page.setViewportSize({ width: 1400, height: 900 });
  try {
    await page.goto(pathToFileURL(join(dir, "report.html")).href);
    const verdict = page.locator("#verdict");
    const place = await verdict.evaluate((v) => {
      const main = v.closest("main");
      const h1 = main.querySelector("h1");
      return { afterTitle: h1.nextElementSibling === v, titleFirst: main.firstElementChild.firstElementChild === h1,
        blocks: [...v.querySelectorAll("p")].map((p) => p.getBoundingClientRect().bottom) };
    });
    assert.ok(place.titleFirst && place.afterTitle, `${dir}: the verdict is not first after the title`);
    assert.equal(await page.evaluate(() => window.scrollY), 0);
    const box = await verdict.boundingBox();
    assert.ok(box.y >= 0 && box.y < 120, `${dir}: verdict at ${box.y} px`);
    // Its first lines (the header, then the first finding) without scrolling.
    assert.ok(place.blocks.length >= 2, `${dir}: ${place.blocks.length} paragraphs`);
    assert.ok(place.blocks[1] <= 900, `${dir}: the first finding ends at ${place.blocks[1]} px`);
    assert.equal(squash(await verdict.innerText()), squash(firstScreen(dir)));
    const links = await verdict.locator("a").evaluateAll((as) => as.map((a) => ({
      href: a.getAttribute("href"), text: a.textContent,
      found: !!document.getElementById(a.getAttribute("href").substring(1)),
    })));
    assert.ok(links.length >= 2, `${dir}: ${links.length} links in the verdict`);
    assert.deepEqual(links.filter((l) => !l.href.startsWith("#") || !l.found), []);
    await checkScreenshot(browser, await page.screenshot(), join(out, shot), TEXT_PAGE);
    // A figure's link opens its graph's tab.
    const graph = links.find((l) => /^#graphs-.*-(oncpu|offcpu)$/.test(l.href));
    assert.ok(graph, `${dir}: no link to a graph in ${JSON.stringify(links)}`);
    await verdict.locator(`a[href="${graph.href}"]`).first().click();
    assert.ok(await page.locator(graph.href).isVisible(), `${graph.href} not shown`);
  } finally {
    await page.setViewportSize({ width: 1400, height: 1000 });
  }
  await page.goto(pathToFileURL(join(dir, "report.html")).href);
  assert.deepEqual(errors, []);
}

test("the diff page opens on its verdict: the first screen, linked", async () => {
  await checkVerdict(diffDir, "diff-verdict.png");
});

test("a reader sees the diff page whole at 1400 px, in every tab", async () => {
  await checkReadable(page, "fscost diff");
  await checkScreenshot(browser, await page.screenshot({ fullPage: true }), join(out, "diff.png"));
  for (const tab of await page.locator("a.view-tab").all()) {
    await tab.click();
    await checkReadable(page, `fscost diff, tab ${await tab.getAttribute("href")}`);
  }
  const first = page.locator("svg.fg:visible").first();
  await first.scrollIntoViewIfNeeded();
  await checkScreenshot(browser, await first.screenshot(), join(out, "diff-graph.png"));
  assert.deepEqual(errors, []);
});

test("the diff page's graphs have legends that match their frames", async () => {
  const n = await page.locator("svg.fg").count();
  for (let i = 0; i < n; i++) {
    const id = await page.locator("svg.fg").nth(i).evaluate((s) => s.closest("[id]").id);
    const perRun = id.includes("kernel-threads");
    await checkLegend(`#${id} svg.fg`, perRun ? "s" : "s/op");
  }
  // Insignificant frames are grey here: the diff's statistics say which.
  const { frames } = await diffGraph("#graphs-unlink-oncpu svg.fg");
  assert.ok(frames.some((f) => GREY.includes(f.fill)), "unlink did not change, yet nothing is grey");
});

test("the compare page shows its setup, runs and scaling, lines intact", async () => {
  await page.goto(pathToFileURL(join(compareDir, "report.html")).href);
  for (const id of ["compare-setup", "compare-order", "compare-workload", "compare-scaling", "compare-points"])
    assert.ok(await page.locator(`#${id}`).isVisible(), `#${id} not visible`);
  // 3 runs of A and of B at 1 and at 2 threads.
  assert.equal(await page.locator("#compare-order table tr").count(), 1 + 12);
  // The scaling table and the other thread count's diff are text in <pre>:
  // one line each of the table, not one line of replacement characters.
  const pre = await page.$$eval("pre", (ps) => ps.map((p) => ({ text: p.innerText, in: p.closest("section")?.id })));
  const scaling = pre.find((p) => p.text.startsWith("Scaling: ops/s by thread count"));
  assert.ok(scaling, `no scaling table in ${JSON.stringify(pre.map((p) => p.text.substring(0, 40)))}`);
  const lines = scaling.text.split("\n");
  assert.ok(lines.length >= 5, `scaling table in ${lines.length} lines`);
  assert.match(lines[2], /^\s*threads\s+A rmapbt=0\s+B rmapbt=1\s+B vs A\s+q$/);
  assert.match(lines[3], /^\s+1\s+\d+\s+\d+\s+[+-]\d+\.\d%\s+\S+$/);
  assert.match(lines[4], /^\s+2\s+\d+\s+\d+\s+[+-]\d+\.\d%\s+\S+$/);
  const other = pre.find((p) => p.text.startsWith("A = rmapbt=0, B = rmapbt=1"));
  assert.ok(other, "no diff text of the other thread count");
  assert.ok(other.text.split("\n").length > 10);
  assert.ok(await page.locator("#compare-scaling svg").count() >= 2, "no scaling charts");
  assert.deepEqual(await danglingLinks(page, compareDir), []);
  assert.deepEqual(errors, []);
});

test("the compare page opens on its verdict too", async () => {
  await checkVerdict(compareDir, "compare-verdict.png");
});

test("a reader sees the compare page whole at 1400 px, in every tab", async () => {
  await checkReadable(page, "fscost compare");
  await checkScreenshot(browser, await page.screenshot({ fullPage: true }), join(out, "compare.png"));
  await page.locator("#compare-scaling").scrollIntoViewIfNeeded();
  await checkScreenshot(browser, await page.screenshot(), join(out, "compare-scaling.png"), TEXT_PAGE);
  for (const tab of await page.locator("a.view-tab").all()) {
    await tab.click();
    await checkReadable(page, `fscost compare, tab ${await tab.getAttribute("href")}`);
  }
  assert.deepEqual(errors, []);
});

test("a standalone differential SVG: legend as drawn, subtitle whole, µs/op", async () => {
  await page.goto(pathToFileURL(diffSvg).href);
  assert.equal(await page.evaluate(() => document.documentElement.localName), "svg");
  await checkReadable(page, "fscost flamegraph --diff");
  // One run a side: no statistics, so nothing is grey and the legend says
  // nothing of grey.
  await checkLegend("svg", "s/op");
  const { notes, frames } = await diffGraph("svg");
  assert.ok(!frames.some((f) => GREY.includes(f.fill)));
  assert.ok(notes.some((n) => n.includes("run-01.profile")), "subtitle names the profiles");
  assert.match(frames[0].title, / µs\/op/);  // time, as on the diff page, not samples
  assert.doesNotMatch(notes.join("\n") + frames.map((f) => f.title).join("\n"), /samples/);
  await checkScreenshot(browser, await page.screenshot(), join(out, "diff-flamegraph.png"));
  assert.deepEqual(errors, []);
});

test("nothing was fetched from outside the files", () => {
  assert.deepEqual(browser.outside, []);
});

// Issue 20: three configurations (--config) make a matrix page: a row per
// configuration, a column per thread count, every cell of a non-baseline
// row a link to its diff against the baseline, and that diff's page there.
test("the matrix page links every cell to its diff against the baseline", async () => {
  await page.goto(pathToFileURL(join(matrixDir, "report.html")).href);
  assert.match(await page.locator("h1").textContent(), /3 configurations against plain/);
  const rows = page.locator("table.matrix tr");
  assert.equal(await rows.count(), 1 + 3);
  assert.deepEqual(await page.$$eval("table.matrix th", (th) => th.map((h) => h.textContent)),
    ["config", "1 thread", "2 threads"]);
  const links = await page.$$eval("table.matrix a", (as) => as.map((a) => a.getAttribute("href")));
  assert.deepEqual(links.sort(), ["vs-reflink/report.html", "vs-reflink/runs/t1/report.html",
    "vs-rmapbt/report.html", "vs-rmapbt/runs/t1/report.html"]);
  // The baseline's row links nowhere; every cell has its sys time.
  assert.equal(await rows.nth(1).locator("a").count(), 0);
  assert.equal(await page.locator("table.matrix .sys").count(), 3 * 2);
  assert.deepEqual(await danglingLinks(page, matrixDir), []);
  await checkReadable(page, "fscost compare matrix");
  await checkScreenshot(browser, await page.screenshot({ fullPage: true }), join(out, "matrix.png"),
    TEXT_PAGE);
  // A cell opens its pair's diff: the baseline against that configuration.
  await page.locator("table.matrix a[href='vs-reflink/runs/t1/report.html']").click();
  await page.waitForLoadState();
  assert.match(await page.locator("h1").textContent(), /plain vs reflink, 1 threads/);
  assert.match(await page.locator("#op-create").textContent(), /xfs_parent_addname/);
  assert.deepEqual(errors, []);
});
