// The three.js texture check (issue 29, "what it must show"): textures rigport converts, seen in a
// real client. render_texture_quads (tests/render/) writes, for every pixel format each texture
// reader decodes, a model of one upright quad facing +Z textured with four coloured quadrants (a
// DFF + TXD, a DRS + DDS, a Sluggers block with its TEX section; a Skate 3 texture arena, which
// `convert` writes as a PNG since no model binds it yet), and the demo character as a DFF + TXD;
// `rigport convert` converts each. One headless Chromium renders every quad unlit in one grid
// (tools/texture_render_page.js) and the pixel at each quadrant's centre must be the colour (and,
// in a second pass, the alpha) the tests encoded, within RENDER_TOLERANCE; the character must show
// its texture's front colour on its front and the back colour once turned.
//   node tools/texture_render_test.mjs --rigport BIN --quads BIN --work DIR
// Controls: each pattern's quadrants differ by more than the tolerance (so a flipped or turned
// texture fails), the background shows between cells, and a quad drawn without its texture (the
// same DFF converted with --no-textures) fails the colour check.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { launch, openFile, readPixels } from './browser.mjs';
import { check, run } from './page_test.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
for (const need of ['rigport', 'quads', 'work']) {
  if (!args[need]) { console.error('usage: node texture_render_test.mjs --rigport BIN --quads BIN --work DIR'); process.exit(2); }
}
const HERE = dirname(fileURLToPath(import.meta.url));

// Per channel, 0-255: the expected colours are exact in each format (tests/render/quad_pattern.hpp),
// so what is left is the sampler's sRGB decode and the output's encode, each rounding once (and
// SwiftShader's sRGB tables are within one level of the curve).
const RENDER_TOLERANCE = 3;

function rigport(...argv) {
  return execFileSync(args.rigport, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function buildPage(work) {
  buildSync({
    entryPoints: [join(HERE, 'texture_render_page.js')], bundle: true, format: 'iife', target: 'es2020',
    outfile: join(work, 'page.js'), logLevel: 'warning', legalComments: 'none',
  });
  const html = join(work, 'index.html');
  writeFileSync(html, '<!doctype html><meta charset="utf-8"><title>texture check</title>\n'
    + '<style>body{margin:0}canvas{display:block}</style><canvas></canvas><script src="page.js"></script>\n');
  return html;
}

const converted = [];  // every .glb, for one glTF-Validator run

// Every converted .glb has no validator error or warning (tools/validate_gltf.mjs, exit 0).
function validateAll() {
  let output = '', code = 0;
  try {
    output = execFileSync(process.execPath, [join(HERE, 'validate_gltf.mjs'), ...converted], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (e) {
    code = e.status ?? 2;
    output = `${e.stdout || ''}${e.stderr || ''}`;
  }
  check(code === 0, `the glTF-Validator passes all ${converted.length} converted .glb files`, code === 0 ? '' : output.trim());
}

// The converted file of a case: its .glb, or the one PNG `convert` wrote for a texture arena.
function convert(work, c, extra = []) {
  const out = join(work, 'out', c.input.replace(/\.[^./]+$/, ''), ...extra);
  rigport('convert', join(work, 'cases', c.input), '-o', out, ...extra.map((e) => `--${e}`));
  if (c.makes !== 'png') {
    const glb = join(out, readdirSync(out).find((f) => f.endsWith('.glb')));
    converted.push(glb);
    return { glb: readFileSync(glb).toString('base64') };
  }
  const dir = join(out, readdirSync(out)[0]);
  const pngs = readdirSync(dir).filter((f) => f.endsWith('.png'));
  if (pngs.length !== 1) throw new Error(`${c.input}: ${pngs.length} PNGs written, one expected`);
  return { png: readFileSync(join(dir, pngs[0])).toString('base64') };
}

const at = (img, x, y) => { const i = 4 * (Math.round(y) * img.width + Math.round(x)); return [img.data[i], img.data[i + 1], img.data[i + 2]]; };
const off = (a, b) => Math.max(...a.map((v, k) => Math.abs(v - b[k])));
const hex = (c) => c.map((v) => v.toString(16).padStart(2, '0')).join('');
const NAMES = ['top-left', 'top-right', 'bottom-left', 'bottom-right'];

// The pixel at each quadrant's centre of `rect`, and how far each is from `want` (per quadrant RGB).
function quadrants(img, rect) {
  return [0, 1, 2, 3].map((q) => at(img, rect.x + rect.width * (q % 2 ? 0.75 : 0.25), rect.y + rect.height * (q >= 2 ? 0.75 : 0.25)));
}

function checkQuads(cases, placed, colour, alpha, { background, cell, columns }) {
  cases.forEach((c, i) => {
    const tag = `[${c.format} ${c.pixelFormat}]`;
    const want = c.quadrants;
    // Control: a flip, a mirror or a quarter turn would move some colour onto a different one.
    const distinct = [[0, 1], [0, 2], [0, 3], [1, 2], [1, 3], [2, 3]].every(([a, b]) => off(want[a], want[b]) > 2 * RENDER_TOLERANCE);
    check(distinct, `${tag} control: the four quadrants differ by more than the tolerance`, want.map(hex).join(' '));
    if (c.makes !== 'png') check(placed[i].textured, `${tag} the converted material holds a texture`);  // a PNG's plane is the page's own
    const got = quadrants(colour, placed[i].rect), gotAlpha = quadrants(alpha, placed[i].rect);
    const rgbOff = got.map((g, q) => off(g, want[q].slice(0, 3))), alphaOff = gotAlpha.map((g, q) => off(g, [want[q][3], want[q][3], want[q][3]]));
    check(rgbOff.every((d) => d <= RENDER_TOLERANCE), `${tag} each quadrant's centre shows its colour`,
      got.map((g, q) => `${NAMES[q]} ${hex(g)} (want ${hex(want[q].slice(0, 3))})`).join(', '));
    check(alphaOff.every((d) => d <= RENDER_TOLERANCE), `${tag} each quadrant's centre has its alpha`,
      gotAlpha.map((g, q) => `${g[0]} (want ${want[q][3]})`).join(', '));
    // Control: the cell's corner, outside the quad, is background.
    const corner = at(colour, (i % columns) * cell + 1, Math.floor(i / columns) * cell + 1);
    check(off(corner, background) <= RENDER_TOLERANCE, `${tag} control: the background shows beside the quad`, hex(corner));
  });
}

async function checkCharacter(page, work, c, glb, background) {
  const tag = '[demo character, DFF + TXD]';
  const loaded = await page.evaluate(([glb, probes]) => window.textureRender.loadCharacter(glb, probes), [glb, c.probes.map((p) => [p.bone, p.towards])]);
  check(loaded.textured && loaded.materials > 0, `${tag} every mesh's material holds the texture`, JSON.stringify(loaded));
  for (const [side, rotateY] of [['front', 0], ['back', Math.PI]]) {
    const points = await page.evaluate((o) => window.textureRender.renderCharacter(o), { rotateY });
    const img = await readPixels(page, { selector: 'canvas', path: join(work, `demo_character_${side}.png`) });
    c.probes.forEach((p, k) => {
      const got = at(img, points[k].x, points[k].y);
      check(off(got, p[side]) <= RENDER_TOLERANCE, `${tag} seen from its ${side}, the ${p.bone} tube shows the texture's ${side} colour`,
        `${hex(got)} at (${points[k].x.toFixed(0)}, ${points[k].y.toFixed(0)}), want ${hex(p[side])}`);
    });
    check(off(at(img, 2, 2), background) <= RENDER_TOLERANCE, `${tag} control: the corner of the ${side} view is background`);
  }
}

async function main() {
  const work = args.work;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  execFileSync(args.quads, [join(work, 'cases')], { stdio: 'inherit' });
  const manifest = JSON.parse(readFileSync(join(work, 'cases', 'manifest.json'), 'utf8'));
  const cases = manifest.filter((c) => c.makes !== 'character'), character = manifest.find((c) => c.makes === 'character');
  const items = cases.map((c) => convert(work, c));
  // Control: the first TXD quad converted without its texture must not pass as textured.
  const untextured = { ...cases[0], pixelFormat: `${cases[0].pixelFormat} --no-textures` };
  items.push(convert(work, cases[0], ['no-textures']));
  const characterGlb = convert(work, character).glb;
  validateAll();
  const html = buildPage(work);

  let browser;
  try {
    browser = await launch({ viewport: { width: 512, height: 448 } });
  } catch (e) {
    check(false, 'headless Chromium starts', e.message);
    return;
  }
  try {
    const { page, log } = await openFile(browser, html);
    const ready = await page.waitForFunction(() => window.textureRender, null, { timeout: 15000 }).then(() => 'ready', (e) => e.message);
    if (check(ready === 'ready', 'the three.js page loads', ready)) {
      const grid = await page.evaluate(() => ({ background: window.textureRender.background, cell: window.textureRender.cell, columns: window.textureRender.columns }));
      const background = [(grid.background >> 16) & 255, (grid.background >> 8) & 255, grid.background & 255];
      console.log(`three.js r${await page.evaluate(() => window.textureRender.revision)}`);
      const placed = await page.evaluate((list) => window.textureRender.loadQuads(list), items);
      await page.evaluate(() => window.textureRender.renderQuads('colour'));
      const colour = await readPixels(page, { selector: 'canvas', path: join(work, 'quads_colour.png') });
      await page.evaluate(() => window.textureRender.renderQuads('alpha'));
      const alpha = await readPixels(page, { selector: 'canvas', path: join(work, 'quads_alpha.png') });
      checkQuads(cases, placed, colour, alpha, { ...grid, background });
      const plain = quadrants(colour, placed[cases.length].rect);
      check(!placed[cases.length].textured && plain.some((g, q) => off(g, untextured.quadrants[q].slice(0, 3)) > RENDER_TOLERANCE),
        `[${untextured.format} ${untextured.pixelFormat}] control: the quad without its texture fails the colour check`, plain.map(hex).join(' '));
      console.log(`     screenshots: ${join(work, 'quads_colour.png')}, ${join(work, 'quads_alpha.png')}`);
      await checkCharacter(page, work, character, characterGlb, background);
    }
    check(log.consoleErrors.length === 0 && log.pageErrors.length === 0, 'no console or page error', [...log.consoleErrors, ...log.pageErrors].join(' | '));
    check(log.external.length === 0, 'no request leaves file://', log.external.join(' '));
  } finally {
    await browser.close();
  }
}

run(main);
