// The three.js check (issue 13): what rigport writes, opened by plain three.js from npm in headless
// Chromium (tools/browser.mjs), renders lit, upright and facing a camera on +Z.
//   node tools/threejs_check_test.mjs --rigport BIN --samples DIR --work DIR
// Inputs come from the CLI: the demo character (`rigport demo`) and the RenderWare sample converted
// with its .anm. The page (tools/threejs_check_page.js) keeps the files' own materials and lights
// them with one HemisphereLight; the first clip is posed at mid-clip. Every criterion is also run
// on a deliberately wrong pose (turned 180° about Y, upside down, metallic materials) and must fail
// there, so none can pass vacuously. Chromium that cannot start is a failure, never a skip.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildSync } from 'esbuild';
import { launch, openFile, readPixels, screenshot, pixelStats } from './browser.mjs';
import { check, run } from './page_test.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
for (const need of ['rigport', 'samples', 'work']) {
  if (!args[need]) { console.error('usage: node threejs_check_test.mjs --rigport BIN --samples DIR --work DIR'); process.exit(2); }
}
const HERE = dirname(fileURLToPath(import.meta.url));

// Thresholds:
// a frame is drawn when more than 2% of it is not background (the character fills ~10-20%);
const MIN_FOREGROUND_SHARE = 0.02;
// "not black": the mean luminance (0-255, sRGB) of the model's pixels is above 40. The inputs'
// matte (metallic 0) materials, white and c8b4a0, render around 170 and 120 under the hemisphere
// light (shading formula in threejs_check_page.js); three.js's default glTF material (metallic 1)
// gets no diffuse light from a HemisphereLight and renders at 0, which the metallic control below
// measures. 40 sits far from both (it would also call a very dark albedo, sRGB < ~60, black).
const MIN_MODEL_LUMINANCE = 40;
// Upright: the head joint is above the lowest foot joint by more than half the posed height (a
// standing humanoid: ~0.9 of it), and the posed mesh is taller than it is deep (Z) and at least
// MIN_HEIGHT_OVER_WIDTH as tall as it is wide (X; a T-pose's arm span is about its height).
const MIN_HEAD_RISE = 0.5, MIN_HEIGHT_OVER_WIDTH = 0.8;
// Facing +Z: each front joint lies ahead (greater world Z) of its back joint by more than 2% of the
// posed height (the demo's toes are 0.12 m ahead of its ankles on 1.75 m, ~7%).
const MIN_FRONT_LEAD = 0.02;


function rigport(...argv) {
  return execFileSync(args.rigport, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

// The page: the bundle as a classic script beside a bare canvas, both in the work directory.
function buildPage(work) {
  buildSync({
    entryPoints: [join(HERE, 'threejs_check_page.js')], bundle: true, format: 'iife', target: 'es2020',
    outfile: join(work, 'page.js'), logLevel: 'warning', legalComments: 'none',
  });
  const html = join(work, 'index.html');
  writeFileSync(html, '<!doctype html><meta charset="utf-8"><title>three.js check</title>\n'
    + '<style>body{margin:0}canvas{display:block}</style><canvas></canvas><script src="page.js"></script>\n');
  return html;
}

const rgb = (hex) => [(hex >> 16) & 255, (hex >> 8) & 255, hex & 255];
const luminance = (img, i) => 0.2126 * img.data[i * 4] + 0.7152 * img.data[i * 4 + 1] + 0.0722 * img.data[i * 4 + 2];

// Mean luminance of `lit` over the pixels the mask render marks as model (white on black).
function modelLuminance(lit, mask) {
  let n = 0, sum = 0, dark = 0;
  for (let i = 0; i < mask.width * mask.height; i++) {
    if (mask.data[i * 4] < 128) continue;
    const y = luminance(lit, i);
    n++;
    sum += y;
    if (y < 25) dark++;
  }
  return { pixels: n, mean: n ? sum / n : 0, darkShare: n ? dark / n : 1 };
}

// The geometric criteria on one posed result; each returns {ok, detail}.
function upright(model, r) {
  const y = (b) => r.bones[b][1];
  const height = r.max[1] - r.min[1], width = r.max[0] - r.min[0], depth = r.max[2] - r.min[2];
  const rise = y(model.head) - Math.min(...model.feet.map(y));
  const ok = rise > MIN_HEAD_RISE * height && height > depth && height >= MIN_HEIGHT_OVER_WIDTH * width;
  return { ok, detail: `${model.head} ${rise.toFixed(3)} m above the lowest of ${model.feet.join('/')}, posed size x ${width.toFixed(3)} y ${height.toFixed(3)} z ${depth.toFixed(3)} m` };
}

function facing(model, r) {
  const height = r.max[1] - r.min[1];
  const leads = model.front.map(([front, back]) => r.bones[front][2] - r.bones[back][2]);
  const ok = leads.every((d) => d > MIN_FRONT_LEAD * height);
  return { ok, detail: model.front.map(([f, b], i) => `${f} ${leads[i] >= 0 ? '+' : ''}${leads[i].toFixed(3)} m in Z from ${b}`).join(', ') };
}

async function checkModel(page, model, work) {
  const tag = `[${model.name}]`;
  const glb = readFileSync(model.file).toString('base64');
  const loaded = await page.evaluate((b64) => window.threejsCheck.load(b64), glb);
  console.log(`${tag} clips ${loaded.clips.map((c) => `${c.name} (${c.duration.toFixed(3)} s)`).join(', ')}; materials ${JSON.stringify(loaded.materials)}`);
  const start = await page.evaluate(() => window.threejsCheck.pose({ time: 0 }));  // the clip's start
  const missing = [model.head, ...model.feet, ...model.front.flat()].filter((b) => !(b in start.bones));
  if (!check(missing.length === 0, `${tag} has the joints the criteria use`, missing.join(', '))) return;
  const time = loaded.clips[0].duration / 2;  // mid-clip: a real pose, not the rest pose
  const pose = (opts) => page.evaluate((o) => window.threejsCheck.pose(o), { time, ...opts });
  const shot = (path) => readPixels(page, { selector: 'canvas', path });
  const background = rgb(await page.evaluate(() => window.threejsCheck.background));

  // 2. Lit, as written. The mask render of the same pose says which pixels are the model.
  const r = await pose({});
  // The mixer really plays the clip: some joint has turned since the clip's start (the sample's
  // clip only twists bones about their own axes, so positions alone would not show it).
  const angle = (p, q) => 2 * Math.acos(Math.min(1, Math.abs(p.reduce((d, x, k) => d + x * q[k], 0))));
  const turnedBy = Math.max(...Object.keys(start.rotations).map((b) => angle(start.rotations[b], r.rotations[b])));
  check(turnedBy > 0.05, `${tag} the clip turns the joints by mid-clip`, `largest turn ${(turnedBy * 180 / Math.PI).toFixed(1)}° since 0 s`);
  const lit = await shot(join(work, `${model.name}.png`));
  await pose({ mask: true });
  const mask = await shot();
  const s = pixelStats(lit, background);
  check(s.foregroundShare > MIN_FOREGROUND_SHARE, `${tag} frame at ${time.toFixed(3)} s of ${loaded.clips[0].name} is not blank`, `${(100 * s.foregroundShare).toFixed(1)}% of pixels not background`);
  // Control: the same camera without the model counts as blank.
  await pose({ hidden: true });
  const empty = pixelStats(await shot(), background);
  check(empty.foregroundShare <= MIN_FOREGROUND_SHARE, `${tag} control: the frame without the model counts as blank`, `${(100 * empty.foregroundShare).toFixed(1)}% of pixels not background`);
  const l = modelLuminance(lit, mask);
  check(l.pixels > MIN_FOREGROUND_SHARE * lit.width * lit.height && l.mean > MIN_MODEL_LUMINANCE,
    `${tag} the model is lit, not black, with its own materials under the hemisphere light`,
    `mean luminance ${l.mean.toFixed(1)} over ${l.pixels} model pixels (> ${MIN_MODEL_LUMINANCE}), ${(100 * l.darkShare).toFixed(1)}% below 25`);
  console.log(`     screenshot: ${join(work, `${model.name}.png`)}`);
  // Control: three.js's default glTF material (metallic 1) must fall below the threshold, or the
  // threshold would not tell "black" apart.
  await pose({ metallic: true });
  const black = modelLuminance(await shot(), mask);
  check(black.mean <= MIN_MODEL_LUMINANCE, `${tag} control: with metallic 1 materials the same frame counts as black`, `mean luminance ${black.mean.toFixed(1)}`);

  // 3. Upright; controls: upside down (half turn about X) and lying on its back (quarter turn)
  // must fail.
  const up = upright(model, r);
  check(up.ok, `${tag} upright`, up.detail);
  const flipped = upright(model, await pose({ rotateX: Math.PI }));
  check(!flipped.ok, `${tag} control: upside down is not upright`, flipped.detail);
  const lying = upright(model, await pose({ rotateX: -Math.PI / 2 }));
  check(!lying.ok, `${tag} control: lying on its back is not upright`, lying.detail);

  // 4. Facing the camera on +Z; control: turned 180° about Y must face away (and stay upright).
  check(r.camera[2] > r.max[2], `${tag} the camera is on +Z in front of the model`, `camera z ${r.camera[2].toFixed(2)}`);
  const face = facing(model, r);
  check(face.ok, `${tag} faces +Z (the camera)`, face.detail);
  const turned = await pose({ rotateY: Math.PI });
  await screenshot(page, { selector: 'canvas', path: join(work, `${model.name}_turned.png`) });  // for comparison by eye
  const away = facing(model, turned);
  check(!away.ok && upright(model, turned).ok, `${tag} control: turned 180° about Y faces away, still upright`, away.detail);
}

async function main() {
  const work = args.work;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const S = join(args.samples, 'renderware');
  rigport('demo', join(work, 'demo'), '--no-validate');
  rigport('convert', join(S, 'synthetic_skin_rw36003.dff'), '--anim', join(S, 'synthetic_skin_rw36003.anm'), '-o', join(work, 'sample'));
  // The joints each criterion reads: head, feet (the lowest of them), and [front, back] pairs.
  // Demo (src/demo/character.cpp): each toe joint is 0.12 m ahead of its ankle ("foot").
  // Sample: made-up geometry with no face; the one front/back asymmetry of its skeleton is the
  // leg chain (Thigh, Calf), 0.2 m along RenderWare's forward axis (+Y, GTA peds face +Y) from the
  // body axis through Pelvis (samples/renderware/*.librw-dump.txt), so converted it must lie at +Z.
  const models = [
    { name: 'demo_character', file: join(work, 'demo', 'demo_character.glb'), head: 'head', feet: ['foot_l', 'foot_r'], front: [['toe_l', 'foot_l'], ['toe_r', 'foot_r']] },
    { name: 'synthetic_skin_rw36003', file: join(work, 'sample', 'synthetic_skin_rw36003.glb'), head: 'Head', feet: ['Calf'], front: [['Thigh', 'Pelvis'], ['Calf', 'Pelvis']] },
  ];
  const html = buildPage(work);

  let browser;
  try {
    browser = await launch({ viewport: { width: 480, height: 640 } });
  } catch (e) {
    check(false, 'headless Chromium starts', e.message);
    return;
  }
  try {
    const { page, log } = await openFile(browser, html);
    const ready = await page.waitForFunction(() => window.threejsCheck, null, { timeout: 15000 }).then(() => 'ready', (e) => e.message);
    if (check(ready === 'ready', 'the three.js page loads', ready)) {
      console.log(`three.js r${await page.evaluate(() => window.threejsCheck.revision)} on ${await page.evaluate(() => window.threejsCheck.renderer())}`);
      for (const model of models) await checkModel(page, model, work);
    }
    // 1. Nothing but file:// and no error, over the whole run.
    check(log.consoleErrors.length === 0 && log.pageErrors.length === 0, 'no console or page error', [...log.consoleErrors, ...log.pageErrors].join(' | '));
    check(log.external.length === 0, 'no request leaves file://', `${log.external.length} external of ${log.requests} requests ${log.external.join(' ')}`);
  } finally {
    await browser.close();
  }
}

run(main);
