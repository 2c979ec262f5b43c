// fscost's speedscope export (`fscost convert --to speedscope`, docs/FORMATS.md)
// opened by speedscope itself: the app's built page from the `speedscope`
// npm package (version pinned in package.json), in chromium over file://
// with the network cut off, loaded the way speedscope's own command line
// does (a script that calls speedscope.loadFileFromBase64, named by
// #localProfilePath=). What speedscope shows is read from its DOM — the
// profile selector and the sandwich view's table — and checked against
// totals computed independently from `fscost report --format folded`.
// Run by ctest as browser.speedscope (browser.mjs says how).
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { test } from "node:test";
import assert from "node:assert/strict";

import { DATA, browser, checkScreenshot, errors, fscost, need, openPages, outDir, page, skip } from "./browser.mjs";

const PROFILE = DATA && join(DATA, "full-profile.json");
need(["the fixture profile", PROFILE]);
let app;
try {
  const pkg = createRequire(import.meta.url).resolve("speedscope/package.json");
  app = join(dirname(pkg), "dist", "release", "index.html");
} catch (err) {
  skip(`speedscope is not installed: run \`npm ci\` in tests/browser (${err.code || err.message})`);
}
if (!existsSync(app)) skip(`the speedscope package has no ${app}`);

const out = outDir();
const exported = resolve(out, "oncpu.speedscope.json");
const loader = resolve(out, "oncpu.speedscope.js");
let expected;  // root → { total, frames: name → { total, self } }

// What speedscope must show, from the folded stacks the export is made of:
// per root, its total, and per frame its total (stacks holding it, counted
// once however often it recurs) and its self weight (stacks ending in it).
function fromFolded(folded) {
  const roots = new Map();
  for (const line of folded.split("\n").filter(Boolean)) {
    const cut = line.lastIndexOf(" ");
    const value = Number(line.substring(cut + 1));
    const stack = line.substring(0, cut).split(";");
    if (!roots.has(stack[0])) roots.set(stack[0], { total: 0, frames: new Map() });
    const root = roots.get(stack[0]);
    root.total += value;
    for (const name of new Set(stack)) {
      if (!root.frames.has(name)) root.frames.set(name, { total: 0, self: 0 });
      root.frames.get(name).total += value;
    }
    root.frames.get(stack[stack.length - 1]).self += value;
  }
  return roots;
}

// "12,345 (67%)" → 12345: speedscope prints plain weights with thousands
// separators.
const weight = (s) => Number(s.trim().split(" ")[0].replace(/,/g, ""));

// The sandwich table's rows that are drawn (it draws only those in view).
function sandwichRows() {
  return page.$$eval("table tr", (trs) => trs.filter((tr) => tr.cells.length === 3 && tr.cells[0].localName === "td")
    .map((tr) => [...tr.cells].map((td) => td.textContent))
    .filter(([total]) => /\(/.test(total)));
}

async function checkSandwich(root) {
  const want = expected.get(root);
  const rows = await sandwichRows();
  assert.ok(rows.length >= Math.min(10, want.frames.size), `${root}: ${rows.length} rows drawn`);
  for (const [total, self, name] of rows) {
    const f = want.frames.get(name);
    assert.ok(f, `${root}: speedscope shows a frame "${name}" that the profile does not have`);
    assert.equal(weight(total), f.total, `${root}: total of ${name}`);
    assert.equal(weight(self), f.self, `${root}: self of ${name}`);
  }
  // Sorted by self weight, heaviest first, as speedscope opens it.
  const heaviest = Math.max(...[...want.frames.values()].map((f) => f.self));
  assert.equal(weight(rows[0][1]), heaviest);
  const rootRow = rows.find(([, , name]) => name === root);
  if (rootRow) assert.equal(weight(rootRow[0]), want.total, `${root}: the root holds the total`);
}

// The selector's entries: [name, total weight] in speedscope's order.
function profiles() {
  return page.$$eval("table tbody tr[title]", (trs) => trs.map((tr) => [tr.title, tr.cells[2].textContent]));
}

openPages(out, () => {
  fscost("convert", PROFILE, "--to", "speedscope", "-o", exported);
  expected = fromFolded(fscost("report", PROFILE, "--format", "folded"));
  // As speedscope's bin/cli.mjs does it.
  const base64 = readFileSync(exported).toString("base64");
  writeFileSync(loader, `speedscope.loadFileFromBase64(${JSON.stringify("oncpu.speedscope.json")}, ${JSON.stringify(base64)})`);
});

test("speedscope opens the export: every root a profile, the heaviest operation first", async () => {
  await page.goto(`${pathToFileURL(app).href}#localProfilePath=${loader}&view=sandwich`);
  const n = expected.size;
  const first = page.getByText(new RegExp(`^create \\(1/${n}\\)$`));
  await first.waitFor();
  const listed = await profiles();
  assert.equal(listed.length, n);
  for (const [name, total] of listed) {
    assert.ok(expected.has(name), `speedscope lists a profile ${name}`);
    assert.equal(weight(total), expected.get(name).total, `total of ${name}`);
  }
  // Operations first (heaviest first), then the other roots.
  const ops = listed.filter(([name]) => !name.startsWith("["));
  assert.deepEqual(listed.slice(0, ops.length), ops);
  assert.deepEqual(ops.map(([, t]) => weight(t)), ops.map(([, t]) => weight(t)).sort((x, y) => y - x));
  assert.deepEqual(errors, []);
});

test("the sandwich view lists create's frames with their totals", async () => {
  await checkSandwich("create");
  await checkScreenshot(browser, await page.screenshot(), join(out, "speedscope-sandwich.png"),
    { colours: 200, sd: 8 });  // a table
});

test("switching profile in speedscope shows another root's frames", async () => {
  await page.getByText(/^create \(1\/\d+\)$/).click();
  await page.locator("table tbody tr[title='unlink']").click();
  await page.getByText(/^unlink \(\d+\/\d+\)$/).waitFor();
  await checkSandwich("unlink");
  assert.deepEqual(errors, []);
});

test("speedscope draws the flame chart", async () => {
  await page.keyboard.press("2");  // left heavy
  await page.waitForTimeout(300);   // a WebGL frame
  await checkScreenshot(browser, await page.screenshot(), join(out, "speedscope-left-heavy.png"));
  assert.deepEqual(errors, []);
});

test("nothing was fetched from outside the files", () => {
  assert.deepEqual(browser.outside, []);
});
