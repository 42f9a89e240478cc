// Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for tests that open
// local pages: fresh profile, every non-file/data/blob request blocked and counted, console
// errors collected, screenshots decoded to pixels. Used by view_page_test.mjs; meant to be reused
// by any other page test (e.g. three.js checks of plain .glb files).
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';
import { decodePng } from './png.mjs';

export const CHROMIUM = process.env.RIGPORT_CHROMIUM || '/usr/bin/chromium';

// WebGL here comes from SwiftShader through ANGLE (no GPU, no display): with these flags Debian's
// Chromium 156 reports "ANGLE (Google, Vulkan 1.3.0 (SwiftShader Device (Subzero) ...), SwiftShader
// driver)". The other flags keep Chromium from talking to the network on its own (updates, sync,
// QUIC probes).
export const CHROMIUM_ARGS = [
  '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync', '--use-angle=swiftshader', '--enable-unsafe-swiftshader',
];

const LOCAL = /^(file|data|blob):/;

// Throws with a clear message when Chromium is missing or cannot start: callers must fail, not skip.
export async function launch({ viewport = { width: 1200, height: 760 }, timeout = 30000 } = {}) {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: run scripts/setup.sh (apt package chromium)`);
  const profile = mkdtempSync(join(tmpdir(), 'rigport-chromium-'));
  let context;
  try {
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS, viewport, timeout, serviceWorkers: 'block',
    });
  } catch (e) {
    rmSync(profile, { recursive: true, force: true });
    throw new Error(`Chromium (${CHROMIUM}) could not start: ${e.message}`);
  }
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

// Opens a local file. `log` gathers console errors, page errors and every request that would
// leave the machine (aborted before it is sent).
// `intercept: false` only counts external requests instead of routing every request through
// playwright (which costs seconds for a 100 MB page); for load-time measurements.
export async function openFile(browser, file, { timeout = 30000, intercept = true } = {}) {
  const page = await browser.context.newPage();
  page.setDefaultTimeout(timeout);
  const log = { consoleErrors: [], pageErrors: [], external: [], requests: 0 };  // external: unique URLs
  if (intercept) {
    await page.route('**/*', (route) => {
      const url = route.request().url();
      if (LOCAL.test(url)) return route.continue();
      if (!log.external.includes(url)) log.external.push(url);  // the 'request' event may have listed it
      return route.abort('blockedbyclient');
    });
  }
  page.on('request', (r) => {
    log.requests++;
    if (!LOCAL.test(r.url()) && !log.external.includes(r.url())) log.external.push(r.url());
  });
  page.on('websocket', (ws) => log.external.push(ws.url()));
  page.on('console', (m) => { if (m.type() === 'error') log.consoleErrors.push(m.text()); });
  page.on('pageerror', (e) => log.pageErrors.push(String(e && e.stack ? e.stack : e)));
  await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
  return { page, log };
}

// PNG of the element matching `selector` (the whole viewport when omitted), optionally saved.
export async function screenshot(page, { selector, path } = {}) {
  const target = selector ? page.locator(selector) : page;
  return target.screenshot({ path, animations: 'disabled' });
}

// Pixels of a screenshot: {width, height, data: RGBA bytes}.
export async function readPixels(page, options) {
  return decodePng(await screenshot(page, options));
}

// How much of an image is not `background` (RGB, within `tolerance` per channel), and the
// variance of its luminance: a blank or single-colour frame has neither.
export function pixelStats(img, background, tolerance = 12) {
  let foreground = 0, sum = 0, sum2 = 0;
  const n = img.width * img.height;
  for (let i = 0; i < n; i++) {
    const r = img.data[i * 4], g = img.data[i * 4 + 1], b = img.data[i * 4 + 2];
    if (Math.abs(r - background[0]) > tolerance || Math.abs(g - background[1]) > tolerance || Math.abs(b - background[2]) > tolerance) foreground++;
    const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
    sum += y;
    sum2 += y * y;
  }
  const mean = sum / n;
  return { pixels: n, foreground, foregroundShare: foreground / n, variance: sum2 / n - mean * mean };
}

// Pixels whose colour differs by more than `tolerance` in any channel between two same-size images.
export function differingPixels(a, b, tolerance = 16) {
  if (a.width !== b.width || a.height !== b.height) throw new Error('images differ in size');
  let n = 0;
  for (let i = 0; i < a.width * a.height; i++) {
    for (let k = 0; k < 3; k++) {
      if (Math.abs(a.data[i * 4 + k] - b.data[i * 4 + k]) > tolerance) { n++; break; }
    }
  }
  return n;
}
