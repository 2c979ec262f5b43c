// What every browser test shares (docs/HTML.md, "The browser test"):
// the environment and its skips, Debian's chromium launched offline through
// playwright-core, the hooks that open and close it for a test file, and the
// checks of what a reader sees — screenshots that are not blank, no U+FFFD
// in visible text, nothing wider than the window or cut off by its box.
//
// Each NAME.test.mjs runs as ctest's browser.NAME with FSCOST_BIN,
// COMPARE_PAGE_BIN, FSCOST_TEST_DATA and BROWSER_OUT_DIR set
// (tests/CMakeLists.txt). Without chromium or node_modules a test prints
// why and exits 77 (skipped), unless CI=true, where a skip is a failure
// because the CI machine can run it.
import { execFileSync } from "node:child_process";
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { after, before } from "node:test";
import assert from "node:assert/strict";

export const CHROMIUM = process.env.CHROMIUM || "/usr/bin/chromium";
export const FSCOST = process.env.FSCOST_BIN;
export const DATA = process.env.FSCOST_TEST_DATA;
export const WIDTH = 1400;  // the window every page must fit
// Flags the machine needs (docs/HTML.md); playwright adds a fresh
// --user-data-dir through launchPersistentContext.
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"];

const name = basename(process.argv[1] || "browser", ".test.mjs");

export function skip(why) {
  if (process.env.CI === "true") {
    console.error(`browser.${name}: FAILED: ${why} (CI=true, where this test must run)`);
    process.exit(1);
  }
  console.log(`browser.${name}: SKIPPED: ${why}`);
  process.exit(77);
}

// Exits unless the binaries and data the test needs are there.
export function need(...paths) {
  for (const [what, p] of [["FSCOST_BIN", FSCOST], ["FSCOST_TEST_DATA", DATA], ...paths]) {
    if (!p || !existsSync(p)) {
      console.error(`browser.${name}: ${what} is ${p ? `${p}, which does not exist` : "not set"} ` +
        "(tests/CMakeLists.txt sets FSCOST_BIN, COMPARE_PAGE_BIN, FSCOST_TEST_DATA; build them first)");
      process.exit(1);
    }
  }
}

export function fscost(...args) {
  return execFileSync(FSCOST, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export function outDir() {
  const out = process.env.BROWSER_OUT_DIR || mkdtempSync(join(tmpdir(), `fscost-browser-${name}-`));
  mkdirSync(out, { recursive: true });
  return out;
}

// A browser with the network cut off: `outside` collects every request for
// anything but a file or data: URL (each is aborted), `errors` every page
// error and console error of the pages opened with newPage().
export async function launch() {
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
  const userDataDir = mkdtempSync(join(tmpdir(), "fscost-chromium-"));
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, offline: true,
    viewport: { width: WIDTH, height: 1000 },
  });
  const b = { context, errors: [], outside: [] };
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith("file:") || url.startsWith("data:")) return route.continue();
    b.outside.push(url);
    return route.abort();
  });
  context.setDefaultTimeout(5000);  // fail fast: nothing here takes a second
  b.newPage = async () => {
    const page = await context.newPage();
    page.on("pageerror", (e) => b.errors.push(`pageerror: ${e.message}`));
    page.on("console", (m) => { if (m.type() === "error") b.errors.push(`console: ${m.text()}`); });
    return page;
  };
  b.close = async () => {
    await context.close();
    rmSync(userDataDir, { recursive: true, force: true });
  };
  return b;
}

// The browser, its first page and that page's error list, set by the
// before() hook of openPages(). They are live bindings: a test file imports
// them and sees them set once its tests run (one test file a process).
export let browser;
export let page;
export let errors;

// The before/after hooks every test file shares. Before its tests:
// `prepare()` (write the files the tests open), then launch() and a first
// page. After them: the browser closed, and where `out` keeps the pages and
// screenshots printed.
export function openPages(out, prepare) {
  before(async () => {
    await prepare();
    browser = await launch();
    ({ errors } = browser);
    page = await browser.newPage();
  });
  after(async () => {
    if (browser) await browser.close();
    console.log(`browser.${name}: pages and screenshots in ${out}`);
  });
}

// A screenshot with real content: large, and many colours with spread-out
// brightness (decoded by the browser itself, on a blank page). A page of
// text alone has a few hundred colours (antialiasing) and a spread near 12;
// a flame graph thousands, and 35 or more. `min` lowers the bars for pages
// that are mostly text and tables.
export async function checkScreenshot(b, png, file, min = { colours: 1000, sd: 20 }) {
  writeFileSync(file, png);
  assert.ok(png.length > 20000, `${file} is only ${png.length} bytes`);
  const probe = await b.context.newPage();
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
  assert.ok(stats.w > 500 && stats.h > 200, `${file}: ${stats.w}x${stats.h}`);
  assert.ok(stats.colours > min.colours, `${file}: only ${stats.colours} colours`);
  assert.ok(stats.sd > min.sd, `${file}: brightness spread ${stats.sd.toFixed(1)}`);
}

// What a reader of `page` would find wrong, as a list of sentences (empty =
// fine), over everything rendered (hidden tabs are not):
// - visible text holding U+FFFD (a character lost on the way);
// - a document wider than the window;
// - an element whose content is wider than its box (cut, or behind a
//   scroll bar), e.g. a table in an overflow:auto block;
// - an element reaching past the window's right edge;
// - SVG text outside its <svg> (a clipped title or legend line).
// Frame labels are left out: flame graphs cut them to their frame by design.
export function readerProblems(page) {
  return page.evaluate(() => {
    const problems = [];
    const shown = (el) => el.checkVisibility({ visibilityProperty: true });
    const describe = (el) => {
      const id = el.id ? `#${el.id}` : "";
      const cls = typeof el.className === "string" && el.className ? `.${el.className.split(" ").join(".")}` : "";
      const text = (el.textContent || "").trim().replace(/\s+/g, " ").substring(0, 60);
      return `<${el.localName}${id}${cls}> "${text}"`;
    };
    const walk = document.createTreeWalker(document.documentElement, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const el = n.parentElement;
      if (!el || ["title", "script", "style"].includes(el.localName) || !shown(el)) continue;
      if (n.data.includes("\uFFFD")) problems.push(`U+FFFD in ${describe(el)}`);
    }
    const width = window.innerWidth;
    const doc = document.scrollingElement || document.documentElement;
    if (doc.scrollWidth > width) problems.push(`document is ${doc.scrollWidth} px wide, window ${width}`);
    for (const el of document.querySelectorAll("body *")) {
      if (el instanceof SVGElement || !shown(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.right > width + 0.5) problems.push(`${describe(el)} reaches ${Math.round(r.right)} px`);
      const style = getComputedStyle(el);
      if (style.overflowX !== "visible" && el.scrollWidth > el.clientWidth + 1 && el.localName !== "nav")
        problems.push(`${describe(el)} holds ${el.scrollWidth} px in ${el.clientWidth}`);
    }
    for (const svg of document.querySelectorAll("svg")) {
      if (!shown(svg) || (svg.parentElement && svg.parentElement.closest("svg"))) continue;
      const box = svg.getBoundingClientRect();
      for (const t of svg.querySelectorAll("text")) {
        if (!shown(t) || t.closest(".fg-frames") || !t.textContent.trim()) continue;
        const r = t.getBoundingClientRect();
        if (r.left < box.left - 0.5 || r.right > box.right + 0.5)
          problems.push(`SVG text ${describe(t)} spans ${Math.round(r.left - box.left)}..` +
            `${Math.round(r.right - box.left)} px of a ${Math.round(box.width)} px graph`);
      }
    }
    return problems.slice(0, 20);
  });
}

export async function checkReadable(page, what) {
  assert.deepEqual(await readerProblems(page), [], `${what}: what a reader sees is wrong`);
}

// Links of `page` that lead nowhere: an anchor without its element, or a
// relative link to a file that is not next to the page in `dir`.
export async function danglingLinks(page, dir) {
  const hrefs = await page.$$eval("a[href]", (as) => as.map((a) => ({
    href: a.getAttribute("href"),
    found: !a.getAttribute("href").startsWith("#") || !!document.getElementById(a.getAttribute("href").substring(1)),
  })));
  return hrefs.filter(({ href, found }) => {
    if (href.startsWith("#")) return !found;
    if (/^[a-z]+:/.test(href)) return false;  // external: the offline check catches loads
    return !existsSync(join(dir, href.split("#")[0]));
  }).map(({ href }) => href);
}
