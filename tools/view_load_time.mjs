// Load time of a `rigport view` page in headless Chromium (tools/browser.mjs):
//   node tools/view_load_time.mjs PAGE.html [RUNS]
// Per run, a fresh tab opens the page from file:// (no request interception, which would slow a
// 100 MB page down) and waits for window.rigportView.ready: the model decoded, parsed by
// GLTFLoader and its first frame drawn. Prints the time from navigation to ready and to
// DOMContentLoaded (the navigation entry's domContentLoadedEventStart, which comes later here).
import { statSync } from 'node:fs';
import { launch, openFile } from './browser.mjs';

const [file, runsArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: node tools/view_load_time.mjs PAGE.html [RUNS]');
  process.exit(2);
}
const runs = Number(runsArg || 3);
console.log(`${file}: ${(statSync(file).size / 1e6).toFixed(1)} MB`);
const browser = await launch();
const totals = [];
try {
  for (let r = 0; r < runs; r++) {
    const started = Date.now();
    const { page, log } = await openFile(browser, file, { timeout: 300000, intercept: false });
    await page.waitForFunction(() => window.rigportView.ready || window.rigportView.error, null, { timeout: 300000, polling: 100 });
    const s = await page.evaluate(() => ({
      error: window.rigportView.error,
      readyEpoch: window.rigportView.readyEpoch,
      dcl: performance.getEntriesByType('navigation')[0].domContentLoadedEventStart,
      counts: window.rigportView.info().counts,
    }));
    if (s.error || log.consoleErrors.length || log.pageErrors.length) throw new Error(`page failed: ${s.error || [...log.consoleErrors, ...log.pageErrors].join(' | ')}`);
    const total = (s.readyEpoch - started) / 1000;
    totals.push(total);
    console.log(`run ${r + 1}: ready (first frame drawn) after ${total.toFixed(1)} s, DOMContentLoaded after ${(s.dcl / 1000).toFixed(1)} s; ` +
      `${s.counts.vertices} vertices, ${s.counts.bones} bones, ${s.counts.keys} keys`);
    await page.close();
  }
} finally {
  await browser.close();
}
totals.sort((a, b) => a - b);
console.log(`median: ready after ${totals[Math.floor(totals.length / 2)].toFixed(1)} s over ${runs} run(s)`);
