// Real-browser test of the HTML report and of a standalone SVG flame graph
// (docs/HTML.md): Debian's chromium, driven by playwright-core, opens what
// `fscost html` and `fscost flamegraph` wrote for a fixture profile, over
// file:// with the network cut off, and clicks, searches and screenshots it.
//
// Run by ctest as browser.report (browser.mjs says how).
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import assert from "node:assert/strict";

import {
  DATA, browser, checkReadable, checkScreenshot as screenshot, danglingLinks, errors, fscost, need, openPages, outDir, page,
} from "./browser.mjs";

const PROFILE = DATA && join(DATA, "full-profile.json");
need(["the fixture profile", PROFILE]);
const MATCH_FILL = "rgb(230,0,230)";  // flamegraph.js

const out = outDir();
const reportPath = resolve(out, "report.html");
const svgPath = resolve(out, "oncpu.svg");

// Share of the total in stacks that hold a frame matching `re`: what the
// search's "Matched:" line must say, computed from the folded stacks.
function expectedShare(folded, re) {
  let total = 0;
  let matched = 0;
  for (const line of folded.split("\n").filter(Boolean)) {
    const cut = line.lastIndexOf(" ");
    const value = Number(line.substring(cut + 1));
    total += value;
    if (line.substring(0, cut).split(";").some((f) => re.test(f))) matched += value;
  }
  return (100 * matched) / total;
}

// Frames of the flame graph in `svg` (a selector) as the page sees them.
function frames(svg) {
  return page.$$eval(`${svg} .fg-frames > g`, (gs) => gs.map((g) => {
    const rect = g.querySelector("rect");
    const title = g.querySelector("title").textContent;
    return {
      name: title.substring(0, title.lastIndexOf(" (")),
      x: +rect.getAttribute("x"), w: +rect.getAttribute("width"), fill: rect.getAttribute("fill"),
      hidden: g.classList.contains("fg-hide"), parent: g.classList.contains("fg-parent"),
    };
  }));
}

async function clickFrame(svg, name) {
  const i = (await frames(svg)).findIndex((f) => f.name === name);
  assert.ok(i >= 0, `no frame ${name} in ${svg}`);
  await page.locator(`${svg} .fg-frames > g`).nth(i).locator("rect").click();
}

// Clicking a frame makes it fill the graph's width, fades its ancestors and
// hides frames beside it; Reset Zoom restores every frame.
async function checkZoom(svg, name, sibling) {
  const before = await frames(svg);
  const { width, pad } = await page.$eval(svg, (s) => ({
    width: +s.getAttribute("width"), pad: +s.querySelector(".fg-frames").getAttribute("data-pad") }));
  await clickFrame(svg, name);
  const zoomed = await frames(svg);
  const z = zoomed.find((f) => f.name === name);
  assert.ok(Math.abs(z.w - (width - 2 * pad)) < 0.01, `${name} is ${z.w} px wide after zoom`);
  assert.ok(Math.abs(z.x - pad) < 0.01);
  assert.ok(zoomed.find((f) => f.name === sibling).hidden, `${sibling} still shown`);
  assert.ok(zoomed.some((f) => f.parent), "no ancestor faded");
  assert.equal(await page.$eval(`${svg} .fg-unzoom`, (b) => b.classList.contains("fg-hide")), false);
  await page.locator(`${svg} .fg-unzoom`).click();
  const reset = await frames(svg);
  assert.ok(reset.every((f) => !f.hidden && !f.parent));
  assert.deepEqual(reset.map((f) => f.w), before.map((f) => f.w));
}

// The "Matched:" line and the highlighted frames after searching `term`.
async function checkSearch(svg, term, folded) {
  const re = new RegExp(term);
  const text = await page.$eval(`${svg} .fg-matched`, (t) => t.textContent);
  const m = /^Matched: (\d+\.\d)%$/.exec(text);
  assert.ok(m, `matched line is "${text}"`);
  const share = expectedShare(folded, re);
  assert.ok(share > 0 && share < 100);
  assert.ok(Math.abs(Number(m[1]) - share) <= 0.051, `matched ${m[1]}%, expected ${share}%`);
  const all = await frames(svg);
  const hits = all.filter((f) => f.fill === MATCH_FILL);
  assert.ok(hits.length > 0);
  assert.deepEqual(hits.map((f) => f.name), all.filter((f) => re.test(f.name)).map((f) => f.name));
}

const checkScreenshot = (png, name) => screenshot(browser, png, join(out, name));

openPages(out, () => {
  fscost("html", PROFILE, "-o", reportPath);
  fscost("flamegraph", PROFILE, "-o", svgPath);
});

test("the report renders its sections, tables and graphs", async () => {
  await page.goto(pathToFileURL(reportPath).href);
  for (const id of ["run", "operations", "graphs", "all", "op-create", "locks", "drops"])
    assert.ok(await page.locator(`#${id}`).isVisible(), `#${id} not visible`);
  const ops = await page.$$eval("table.ops tr td:first-child", (tds) => tds.map((td) => td.textContent));
  assert.deepEqual(ops, ["create", "unlink", "other", "fsync"]);
  assert.ok(await page.locator("table.locks tr").count() > 5);
  assert.equal(await page.locator("table.drops tr.nonzero td:first-child").textContent(), "stack_map_full");
  assert.equal(await page.locator("svg.fg").count(), 10);
  // One graph per set is shown (its first tab); the rest wait behind tabs.
  assert.equal(await page.locator(".view-panel:visible").count(), 4);
  const box = await page.locator("#all-oncpu svg").boundingBox();
  assert.ok(box.width > 600 && box.height > 150, `graph drawn at ${box.width}x${box.height}`);
  for (const svg of await page.locator("svg.fg").all())
    assert.ok(await svg.locator(".fg-frames > g").count() > 3);
  assert.deepEqual(errors, []);
});

test("every link resolves; the table of contents and tabs open graphs", async () => {
  assert.deepEqual(await danglingLinks(page, out), []);
  await page.locator("nav.toc a[href='#op-create-offcpu']").click();
  assert.equal(new URL(page.url()).hash, "#op-create-offcpu");
  assert.ok(await page.locator("#op-create-offcpu").isVisible());
  assert.equal(await page.locator("#op-create-oncpu").isVisible(), false);
  const top = await page.$eval("#op-create-offcpu", (e) => e.getBoundingClientRect().top);
  assert.ok(top >= -1 && top < 100, `graph scrolled to ${top}`);
  assert.equal(await page.locator("#op-create a.view-tab.active").textContent(), "Off-CPU");
  await page.locator("#op-create a.view-tab[href='#op-create-locks']").click();
  assert.ok(await page.locator("#op-create-locks").isVisible());
  assert.equal(await page.locator("#op-create-offcpu").isVisible(), false);
  assert.deepEqual(errors, []);
});

// Every tab in turn, since a hidden graph is not checked.
test("a reader sees the report whole at 1400 px, in every tab", async () => {
  await checkReadable(page, "fscost html");
  for (const tab of await page.locator("a.view-tab").all()) {
    await tab.click();
    await checkReadable(page, `fscost html, tab ${await tab.getAttribute("href")}`);
  }
  assert.deepEqual(errors, []);
});

test("clicking a frame in the report zooms to it", async () => {
  await page.locator("nav.toc a[href='#all-oncpu']").click();
  await checkZoom("#all-oncpu svg", "xfs_create", "unlink");
  assert.deepEqual(errors, []);
});

test("searching the report highlights matches and states their share", async () => {
  const svg = "#all-oncpu svg";
  let asked;
  page.once("dialog", (d) => {
    asked = d.type();
    d.accept("^xfs_");
  });
  await page.locator(`${svg} .fg-search`).click();
  assert.equal(asked, "prompt");
  await checkSearch(svg, "^xfs_", fscost("report", PROFILE, "--format", "folded"));
  await page.locator(`${svg} .fg-search`).click();  // "Reset Search"
  assert.equal((await frames(svg)).filter((f) => f.fill === MATCH_FILL).length, 0);
  assert.equal((await page.$eval(`${svg} .fg-matched`, (t) => t.textContent)).trim(), "");
  await checkScreenshot(await page.locator("#all").screenshot(), "report-graph.png");
  await checkScreenshot(await page.screenshot({ fullPage: true }), "report.png");
  assert.deepEqual(errors, []);
});

test("a standalone SVG from fscost flamegraph zooms, searches and draws", async () => {
  await page.goto(pathToFileURL(svgPath).href);
  assert.equal(await page.evaluate(() => document.documentElement.localName), "svg");
  await checkReadable(page, "fscost flamegraph");
  await checkZoom("svg", "xfs_create", "unlink");
  page.once("dialog", (d) => d.accept("^xfs_"));
  await page.keyboard.press("Control+f");  // standalone only: the page's keys are its own
  await checkSearch("svg", "^xfs_", fscost("report", PROFILE, "--format", "folded"));
  await checkScreenshot(await page.screenshot(), "flamegraph.png");
  await page.keyboard.press("Escape");
  assert.equal((await frames("svg")).filter((f) => f.fill === MATCH_FILL).length, 0);
  assert.deepEqual(errors, []);
});

test("nothing was fetched from outside the files", () => {
  assert.deepEqual(browser.outside, []);
});
