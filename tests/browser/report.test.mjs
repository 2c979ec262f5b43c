// Real-browser test of the HTML report and of a standalone SVG flame graph
// (docs/HTML.md): Debian's chromium, driven by playwright-core, opens what
// `fscost html` and `fscost flamegraph` wrote for a fixture profile, over
// file:// with the network cut off, and clicks, searches and screenshots it.
//
// Run by ctest as browser.report: node report.test.mjs, with FSCOST_BIN and
// FSCOST_TEST_DATA set (tests/CMakeLists.txt). Without chromium or
// node_modules it prints why and exits 77 (skipped), unless CI=true, where
// a skip is a failure because the CI machine can run it.
import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";

const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
const FSCOST = process.env.FSCOST_BIN;
const DATA = process.env.FSCOST_TEST_DATA;
const PROFILE = DATA && join(DATA, "full-profile.json");
// Flags the machine needs (docs/HTML.md); playwright adds a fresh
// --user-data-dir through launchPersistentContext.
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];
const MATCH_FILL = "rgb(230,0,230)";  // flamegraph.js

function skip(why) {
  if (process.env.CI === "true") {
    console.error(`browser.report: FAILED: ${why} (CI=true, where this test must run)`);
    process.exit(1);
  }
  console.log(`browser.report: SKIPPED: ${why}`);
  process.exit(77);
}

if (!FSCOST || !existsSync(FSCOST) || !PROFILE || !existsSync(PROFILE)) {
  console.error("browser.report: set FSCOST_BIN to the fscost binary and FSCOST_TEST_DATA to tests/data");
  process.exit(1);
}
try {
  accessSync(CHROMIUM, constants.X_OK);
} catch {
  skip(`no chromium at ${CHROMIUM} (scripts/setup.sh installs Debian's chromium)`);
}
let chromium;
try {
  ({ chromium } = await import("playwright-core"));
} catch (err) {
  skip(`playwright-core is not installed: run \`npm ci\` in tests/browser (${err.code || err.message})`);
}

const out = process.env.BROWSER_OUT_DIR || mkdtempSync(join(tmpdir(), "fscost-browser-"));
mkdirSync(out, { recursive: true });
const reportPath = resolve(out, "report.html");
const svgPath = resolve(out, "oncpu.svg");
let userDataDir;
let context;
let page;
const errors = [];    // page errors and console errors
const outside = [];   // requests for anything but the files themselves

function fscost(...args) {
  return execFileSync(FSCOST, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

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

// A screenshot with real content: large, and many colours with spread-out
// brightness (decoded by the browser itself, on a blank page).
async function checkScreenshot(png, name) {
  writeFileSync(join(out, name), png);
  assert.ok(png.length > 20000, `${name} is only ${png.length} bytes`);
  const probe = await context.newPage();
  const stats = await probe.evaluate(async (b64) => {
    const img = new Image();
    img.src = `data:image/png;base64,${b64}`;
    await img.decode();
    const c = document.createElement("canvas");
    c.width = img.width;
    c.height = img.height;
    const ctx = c.getContext("2d");
    ctx.drawImage(img, 0, 0);
    const d = ctx.getImageData(0, 0, c.width, c.height).data;
    const colours = new Set();
    let sum = 0;
    let sq = 0;
    for (let i = 0; i < d.length; i += 4) {
      colours.add((d[i] << 16) | (d[i + 1] << 8) | d[i + 2]);
      const y = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2];
      sum += y;
      sq += y * y;
    }
    const n = d.length / 4;
    return { w: c.width, h: c.height, colours: colours.size, sd: Math.sqrt(sq / n - (sum / n) ** 2) };
  }, png.toString("base64"));
  await probe.close();
  assert.ok(stats.w > 500 && stats.h > 200, `${name}: ${stats.w}x${stats.h}`);
  // A page of text alone has a few hundred colours (antialiasing) and a
  // spread near 12; a flame graph thousands, and 35 or more.
  assert.ok(stats.colours > 1000, `${name}: only ${stats.colours} colours`);
  assert.ok(stats.sd > 20, `${name}: brightness spread ${stats.sd.toFixed(1)}`);
}

before(async () => {
  fscost("html", PROFILE, "-o", reportPath);
  fscost("flamegraph", PROFILE, "-o", svgPath);
  userDataDir = mkdtempSync(join(tmpdir(), "fscost-chromium-"));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, offline: true,
    viewport: { width: 1400, height: 1000 },
  });
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:")) return route.continue();
    outside.push(url);
    return route.abort();
  });
  context.setDefaultTimeout(5000);  // fail fast: nothing here takes a second
  page = context.pages()[0] || (await context.newPage());
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => { if (m.type() === "error") errors.push(`console: ${m.text()}`); });
});

after(async () => {
  if (context) await context.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  console.log(`browser.report: pages and screenshots in ${out}`);
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
  const dangling = await page.$$eval("a[href]", (as) =>
    as.map((a) => a.getAttribute("href")).filter((h) => !h.startsWith("#") || !document.getElementById(h.substring(1))));
  assert.deepEqual(dangling, []);
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
  assert.deepEqual(outside, []);
});
