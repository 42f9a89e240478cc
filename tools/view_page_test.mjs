// End-to-end test of `rigport view` pages in headless Chromium (tools/browser.mjs):
//   node tools/view_page_test.mjs --rigport BIN --samples DIR --work DIR [--screenshot PNG]
// Builds pages through the CLI (the demo character as `rigport demo` writes it, the procedural one
// with its events, and the RenderWare DFF sample with its .anm), then checks each model in the page
// against what is independently known: the clips and counts from `rigport info --json`, the events
// and skin weights read here straight from the .glb embedded in the HTML. It also checks that the
// frames are not blank, that animation and bone selection change the pixels, hover/click picking,
// the keyboard shortcuts, console errors and that no request leaves file://; plus a rig with bones
// and no mesh.
// Chromium that cannot start is a failure, never a skip.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launch, openFile, readPixels, screenshot, pixelStats, differingPixels } from './browser.mjs';
import { check, run } from './page_test.mjs';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
for (const need of ['rigport', 'samples', 'work']) {
  if (!args[need]) { console.error(`usage: node view_page_test.mjs --rigport BIN --samples DIR --work DIR [--screenshot PNG]`); process.exit(2); }
}
const BACKGROUND = [0x26, 0x2a, 0x31];  // viewer/src/stage.js BACKGROUND


function rigport(...argv) {
  return execFileSync(args.rigport, argv, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
}

// The .glb files the CLI embedded, decoded here without three.js: [{name, json, bin}].
function embeddedModels(html) {
  const re = /<script type="application\/octet-stream" class="rigport-model" data-name="([^"]*)">([^<]*)<\/script>/g;
  return [...html.matchAll(re)].map(([, name, b64]) => {
    const glb = Buffer.from(b64, 'base64');
    const jsonLength = glb.readUInt32LE(12);
    const json = JSON.parse(glb.toString('utf8', 20, 20 + jsonLength));
    const binStart = 20 + jsonLength;
    const bin = binStart < glb.length ? glb.subarray(binStart + 8, binStart + 8 + glb.readUInt32LE(binStart)) : Buffer.alloc(0);
    return { name, json, bin };
  });
}

// Vertices that joint `node` (a node index) weighs on, from JOINTS_n/WEIGHTS_n as rigport writes
// them (unsigned byte/short joints, float weights, tightly packed).
function weightedVertices(model, node) {
  const { json, bin } = model;
  const read = (index) => {
    const a = json.accessors[index], v = json.bufferViews[a.bufferView];
    const at = (v.byteOffset || 0) + (a.byteOffset || 0), n = a.count * 4;
    const get = { 5121: (i) => bin.readUInt8(at + i), 5123: (i) => bin.readUInt16LE(at + 2 * i), 5126: (i) => bin.readFloatLE(at + 4 * i) }[a.componentType];
    return Array.from({ length: n }, (_, i) => get(i));
  };
  let count = 0;
  for (const [m, mesh] of (json.meshes || []).entries()) {
    const skinNode = json.nodes.find((nd) => nd.mesh === m && nd.skin !== undefined);
    if (!skinNode) continue;
    const joint = json.skins[skinNode.skin].joints.indexOf(node);
    for (const p of mesh.primitives) {
      const w = new Float64Array(json.accessors[p.attributes.POSITION].count);
      for (let s = 0; p.attributes[`JOINTS_${s}`] !== undefined; s++) {
        const j = read(p.attributes[`JOINTS_${s}`]), wt = read(p.attributes[`WEIGHTS_${s}`]);
        j.forEach((ji, i) => { if (ji === joint) w[i >> 2] += wt[i]; });
      }
      count += w.filter((x) => x > 0).length;
    }
  }
  return count;
}

function luminance(img, i) { return 0.2126 * img.data[i * 4] + 0.7152 * img.data[i * 4 + 1] + 0.0722 * img.data[i * 4 + 2]; }

// Not blank: enough pixels that are not background, some contrast, and the model not black
// (three.js's default glTF material is metallic and renders black under these lights).
function checkFrame(img, what) {
  const s = pixelStats(img, BACKGROUND);
  check(s.foregroundShare > 0.01 && s.variance > 20, `${what} is not blank`, `${(100 * s.foregroundShare).toFixed(1)}% non-background, luminance variance ${s.variance.toFixed(0)}`);
  let dark = 0, fg = 0;
  for (let i = 0; i < img.width * img.height; i++) {
    const bg = Math.abs(img.data[i * 4] - BACKGROUND[0]) + Math.abs(img.data[i * 4 + 1] - BACKGROUND[1]) + Math.abs(img.data[i * 4 + 2] - BACKGROUND[2]);
    if (bg <= 36) continue;
    fg++;
    if (luminance(img, i) < 25) dark++;
  }
  check(fg > 0 && dark / fg < 0.1, `${what}: the model is lit, not black`, `${dark} of ${fg} non-background pixels near black`);
}

async function checkModel(page, index, model, expected) {
  const tag = `[${model.name}]`;
  const v = (fn, arg) => page.evaluate(fn, arg);
  await v((i) => window.rigportView.show(i), index);
  await v(() => window.rigportView.pause());

  // Clips: names and lengths as rigport wrote them (and, for files, as `rigport info` reads them).
  const clips = await v(() => window.rigportView.clips());
  const glbClips = (model.json.animations || []).map((a) => a.name);
  check(JSON.stringify(clips.map((c) => c.name)) === JSON.stringify(glbClips), `${tag} the page lists the clips of the .glb`, clips.map((c) => c.name).join(', '));
  if (expected.clips) check(JSON.stringify([...glbClips].sort()) === JSON.stringify([...expected.clips].sort()), `${tag} ...which are the clips rigport info reads`, expected.clips.join(', '));
  check(clips.length > 0, `${tag} has at least one clip to play`);
  for (const [i, a] of (model.json.animations || []).entries()) {
    check(Math.abs(clips[i].duration - a.extras.duration) < 1e-3, `${tag} clip ${a.name} lasts extras.duration`, `${clips[i].duration} s`);
  }
  const info = await v(() => window.rigportView.info());
  if (expected.vertices !== undefined) check(info.counts.vertices === expected.vertices, `${tag} vertex count matches rigport info`, `${info.counts.vertices}`);
  check(info.provenance.format === model.json.asset.extras.format, `${tag} provenance shows the source format`, info.provenance.format);
  check((await v(() => window.rigportView.state().matte)) === !(model.json.materials || []).length, `${tag} matte is on when the glTF has no material`);

  // Rest pose, then the middle of the first clip: both drawn, and different.
  await v(() => window.rigportView.rest());
  const rest = await readPixels(page, { selector: '#view' });
  checkFrame(rest, `${tag} rest frame`);
  const clip = clips[0];
  await v((name) => { window.rigportView.play(name); window.rigportView.pause(); }, clip.name);
  const t = await v((time) => window.rigportView.seek(time), clip.duration / 2);
  const mid = await readPixels(page, { selector: '#view' });
  checkFrame(mid, `${tag} frame at ${t.toFixed(3)} s of ${clip.name}`);
  const moved = differingPixels(rest, mid);
  check(moved > rest.width * rest.height * 0.002, `${tag} the mid-clip frame differs from the rest frame`, `${moved} pixels`);
  const marks = await page.locator('#marks .mark').count();
  check(marks === clip.events.length && marks === ((model.json.animations[0].extras.events || []).length), `${tag} one timeline mark per event of ${clip.name}`, `${marks}`);

  // Weights: the two bones weighing on the most vertices, each painted differently; the count of
  // vertices each paints matches the .glb's own JOINTS_n/WEIGHTS_n.
  await v(() => { window.rigportView.rest(); window.rigportView.set({ skeleton: false }); });
  const bones = await v(() => window.rigportView.bones());
  const nodeOf = (name) => model.json.nodes.findIndex((n) => n.name === name);
  const ranked = bones.map((b) => [b, weightedVertices(model, nodeOf(b))]).sort((a, b) => b[1] - a[1]);
  const [[boneA, countA], [boneB, countB]] = ranked;
  const paintedA = await v((b) => window.rigportView.selectBone(b), boneA);
  check(paintedA === countA && countA > 0, `${tag} selecting ${boneA} paints the vertices it weighs on`, `${paintedA} of ${countA}`);
  const heatA = await readPixels(page, { selector: '#view' });
  const paintedB = await v((b) => window.rigportView.selectBone(b), boneB);
  check(paintedB === countB, `${tag} selecting ${boneB} paints the vertices it weighs on`, `${paintedB} of ${countB}`);
  const heatB = await readPixels(page, { selector: '#view' });
  const changed = differingPixels(heatA, heatB);
  check(changed > 50, `${tag} selecting another bone changes the weight view`, `${changed} pixels`);
  check(differingPixels(heatA, rest) > 50, `${tag} the weight view differs from the matte view`);

  // Hover shows the bone name; a click selects it.
  await v(() => window.rigportView.set({ skeleton: true }));
  const at = await v((b) => window.rigportView.boneScreen(b), boneA);
  await page.mouse.move(at.x, at.y);
  const tip = await page.locator('#tip').evaluate((e) => (e.hidden ? '' : e.textContent));
  check(bones.includes(tip), `${tag} hovering a joint names the bone`, tip);
  await page.mouse.click(at.x, at.y);
  check((await v(() => window.rigportView.state().bone)) === tip, `${tag} clicking the joint selects it`);
}

// A rig with bones but no mesh (a DFF holding only frames gives one): rigport writes nodes and no
// skin, so three.js makes plain nodes, not bones. Built here by hand as rigport would write it,
// and put in place of the model of a page the CLI wrote.
function skeletonOnlyPage(fromPage, toPage) {
  const bin = Buffer.concat([Buffer.from(new Float32Array([0, 1]).buffer), Buffer.from(new Float32Array([0, 0, 0, 1, 0, 0, 0.7071068, 0.7071068]).buffer)]);
  const json = {
    asset: { version: '2.0', generator: 'rigport', extras: { format: 'renderware-dff', file: 'skeleton.dff', sourceAxes: { up: 'Z', rightHanded: true, metresPerUnit: 1 }, warnings: [] } },
    scene: 0, scenes: [{ nodes: [0] }],
    nodes: [{ name: 'root', children: [1] }, { name: 'spine', translation: [0, 1, 0], children: [2] }, { name: 'head', translation: [0, 0.5, 0] }],
    buffers: [{ byteLength: bin.length }],
    bufferViews: [{ buffer: 0, byteOffset: 0, byteLength: 8 }, { buffer: 0, byteOffset: 8, byteLength: 32 }],
    accessors: [{ bufferView: 0, componentType: 5126, count: 2, type: 'SCALAR', min: [0], max: [1] }, { bufferView: 1, componentType: 5126, count: 2, type: 'VEC4' }],
    animations: [{ name: 'bend', channels: [{ sampler: 0, target: { node: 1, path: 'rotation' } }], samplers: [{ input: 0, output: 1 }],
      extras: { duration: 1, events: [{ time: 0.5, type: 'sound', payload: 'step' }] } }],
  };
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const glb = Buffer.alloc(28 + text.length + bin.length);
  glb.writeUInt32LE(0x46546c67, 0); glb.writeUInt32LE(2, 4); glb.writeUInt32LE(glb.length, 8);
  glb.writeUInt32LE(text.length, 12); glb.writeUInt32LE(0x4e4f534a, 16); text.copy(glb, 20);
  glb.writeUInt32LE(bin.length, 20 + text.length); glb.writeUInt32LE(0x004e4942, 24 + text.length); bin.copy(glb, 28 + text.length);
  const html = readFileSync(fromPage, 'utf8').replace(/(class="rigport-model" data-name=")[^"]*(">)[^<]*/, (_, a, b) => `${a}skeleton.dff${b}${glb.toString('base64')}`);
  writeFileSync(toPage, html);
}

async function checkSkeletonOnly(page) {
  const v = (fn, arg) => page.evaluate(fn, arg);
  const info = await v(() => window.rigportView.info());
  check(info.counts.meshes === 0 && JSON.stringify(await v(() => window.rigportView.bones())) === '["root","spine","head"]', '[skeleton.dff] a rig without mesh lists its bones', JSON.stringify(info.counts));
  await v(() => window.rigportView.rest());
  const rest = await readPixels(page, { selector: '#view' });
  const s = pixelStats(rest, BACKGROUND);
  check(s.foreground > 200, '[skeleton.dff] the skeleton and grid are drawn', `${s.foreground} non-background pixels`);
  await v(() => { window.rigportView.play('bend'); window.rigportView.pause(); window.rigportView.seek(1); });
  const bent = await readPixels(page, { selector: '#view' });
  check(differingPixels(rest, bent) > 50, '[skeleton.dff] the clip moves the bones', `${differingPixels(rest, bent)} pixels`);
  check((await page.locator('#marks .mark').count()) === 1, '[skeleton.dff] its event is marked on the timeline');
  const at = await v(() => window.rigportView.boneScreen('head'));
  await page.mouse.move(at.x, at.y);
  check((await page.locator('#tip').textContent()) === 'head', '[skeleton.dff] hovering a joint names the bone');
}

async function checkKeys(page) {
  const s = () => page.evaluate(() => window.rigportView.state());
  await page.evaluate(() => { window.rigportView.rest(); });
  await page.locator('#view').focus();
  const before = await s();
  await page.keyboard.press('s');
  await page.keyboard.press('m');
  const after = await s();
  check(after.skeleton === !before.skeleton && after.matte === !before.matte, 'keys s and m toggle skeleton and matte');
  await page.keyboard.press('Space');
  check((await s()).playing, 'space plays');
  await page.keyboard.press('Space');
  const paused = await s();
  await page.keyboard.press('ArrowRight');
  const stepped = await s();
  check(!paused.playing && Math.abs(stepped.time - Math.min(paused.time + 1 / 30, 1e9)) < 1e-6, 'space pauses, → steps one frame', `${paused.time.toFixed(4)} -> ${stepped.time.toFixed(4)}`);
  await page.keyboard.press('?');
  check(await page.locator('#help').isVisible(), '? shows the shortcuts');
  await page.keyboard.press('Escape');
}

// A GTA ped with its 330-clip ped.ifp (issue 26: the clip buttons filled the column and left the 3D
// view 0 px tall): the demo's .glb with its walk listed 330 times under other names, each a valid
// animation sharing the walk's samplers' accessors.
function manyClipsGlb(fromGlb, toGlb, count) {
  const glb = readFileSync(fromGlb);
  const jsonLength = glb.readUInt32LE(12);
  const json = JSON.parse(glb.toString('utf8', 20, 20 + jsonLength));
  const walk = json.animations[0];
  json.animations = Array.from({ length: count }, (_, i) => ({ ...walk, name: `clip_${String(i).padStart(4, '0')}` }));
  let text = Buffer.from(JSON.stringify(json));
  text = Buffer.concat([text, Buffer.alloc((4 - (text.length % 4)) % 4, 0x20)]);
  const bin = glb.subarray(20 + jsonLength);
  const header = Buffer.alloc(20);
  header.writeUInt32LE(0x46546c67, 0);
  header.writeUInt32LE(2, 4);
  header.writeUInt32LE(20 + text.length + bin.length, 8);
  header.writeUInt32LE(text.length, 12);
  header.writeUInt32LE(0x4e4f534a, 16);
  writeFileSync(toGlb, Buffer.concat([header, text, bin]));
}

async function checkManyClips(page, count) {
  const v = (f, a) => page.evaluate(f, a);
  const clips = await v(() => window.rigportView.clips().length);
  check(clips === count, `[many clips] the page lists all ${count} clips`, `${clips}`);
  const layout = await v(() => window.rigportView.layout());
  check(layout.view.height >= 300, '[many clips] the 3D view keeps its space', `${layout.view.width}x${layout.view.height} px`);
  check(layout.clips.height <= 100 && layout.clipsScroll > layout.clips.height, '[many clips] the clip list scrolls within a few rows',
    `${layout.clips.height} px shown of ${layout.clipsScroll} px`);
  check(layout.filterShown, '[many clips] a filter box is shown');
  await page.locator('#clip-filter').fill('clip_032');
  const shown = await page.locator('#clips button[data-clip]:visible').count();
  check(shown === 10, '[many clips] typing in the filter keeps the matching clips', `${shown} shown for "clip_032"`);
  await page.locator('#clips button[data-clip="clip_0329"]').click();
  check((await v(() => window.rigportView.state().clip)) === 'clip_0329', '[many clips] clicking a filtered clip plays it');
  check((await v(() => window.rigportView.filterClips(''))) === count, '[many clips] clearing the filter shows every clip again');
  const s = pixelStats(await readPixels(page, { selector: '#view' }), BACKGROUND);
  check(s.foregroundShare > 0.01, '[many clips] the model is drawn', `${(100 * s.foregroundShare).toFixed(1)}% non-background`);
}

async function main() {
  const work = args.work;
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const S = join(args.samples, 'renderware');
  // Page 1: the demo character written through the CLI (.dff + .anm) plus the procedural one
  // (which keeps its footstep events): two models in one page.
  rigport('demo', join(work, 'demo'), '--no-validate');
  const demoDff = join(work, 'demo', 'demo_character.dff'), demoAnm = join(work, 'demo', 'demo_character.anm');
  rigport('view', demoDff, '--anim', demoAnm, '--demo', '-o', join(work, 'demo.html'));
  // Page 2: the RenderWare sample.
  const dff = join(S, 'synthetic_skin_rw36003.dff'), anm = join(S, 'synthetic_skin_rw36003.anm');
  rigport('view', dff, '--anim', anm, '-o', join(work, 'dff.html'));

  // What `rigport info` reports for the model with its clips bound, as the page must show it.
  const infoOf = (model, anims) => {
    const [file] = JSON.parse(rigport('info', '--json', model, ...anims.flatMap((a) => ['--anim', a])));
    const [rig] = file.rigs;
    return { vertices: rig.vertices, clips: rig.animations.map((x) => x.name) };
  };
  skeletonOnlyPage(join(work, 'dff.html'), join(work, 'skeleton.html'));
  // Page 4: 330 clips.
  const MANY = 330;
  manyClipsGlb(join(work, 'demo', 'demo_character.glb'), join(work, 'many.glb'), MANY);
  rigport('view', join(work, 'many.glb'), '-o', join(work, 'many.html'));
  const pages = [
    { file: join(work, 'demo.html'), expected: [infoOf(demoDff, [demoAnm]), {}] },
    { file: join(work, 'dff.html'), expected: [infoOf(dff, [anm])] },
    { file: join(work, 'skeleton.html'), skeletonOnly: true },
    { file: join(work, 'many.html'), manyClips: MANY },
  ];

  let browser;
  try {
    browser = await launch();
  } catch (e) {
    check(false, 'headless Chromium starts', e.message);
    return;
  }
  try {
    // The harness itself: a page that asks for a remote image must show up as one blocked request,
    // or "no request leaves file://" below would prove nothing.
    const probe = join(work, 'probe.html');
    writeFileSync(probe, '<!doctype html><img src="http://192.0.2.1/probe.png">');
    const { page: probePage, log: probeLog } = await openFile(browser, probe);
    check(probeLog.external.length === 1, 'the harness sees and blocks a remote request', probeLog.external.join(' '));
    await probePage.close();

    for (const [p, { file, expected, skeletonOnly, manyClips }] of pages.entries()) {
      const started = Date.now();
      const { page, log } = await openFile(browser, file);
      const ready = await page.waitForFunction(() => window.rigportView && (window.rigportView.ready || window.rigportView.error), null, { timeout: 30000 })
        .then(() => page.evaluate(() => window.rigportView.error || 'ready'), (e) => e.message);
      if (!check(ready === 'ready', `${file} loads`, `${ready} in ${Date.now() - started} ms`)) continue;
      const renderer = await page.evaluate(() => window.rigportView.info().renderer);
      check(typeof renderer === 'string' && renderer.length > 0, `${file}: WebGL renders`, renderer);
      if (skeletonOnly) {
        await checkSkeletonOnly(page);
      } else if (manyClips) {
        await checkManyClips(page, manyClips);
      } else {
        const models = embeddedModels(readFileSync(file, 'utf8'));
        check(models.length === expected.length, `${file} holds ${expected.length} model(s)`);
        for (const [i, model] of models.entries()) await checkModel(page, i, model, expected[i] || {});
      }
      if (p === 0) {
        await checkKeys(page);
        if (args.screenshot) {
          // The README picture: the procedural character mid-walk, a thigh's weights, skeleton on.
          await page.mouse.move(0, 0);
          await page.evaluate(() => window.rigportView.show(1));
          await page.evaluate(() => {
            const v = window.rigportView;
            const clip = v.clips()[0];
            v.set({ skeleton: true, matte: true });
            v.play(clip.name); v.pause(); v.seek(clip.duration * 0.3);
            v.selectBone(v.bones().find((b) => /thigh|upperleg|leg/i.test(b)) || v.bones()[1]);
          });
          await screenshot(page, { path: args.screenshot });
          console.log(`wrote ${args.screenshot}`);
        }
      }
      check(log.consoleErrors.length === 0 && log.pageErrors.length === 0, `${file}: no console or page error`, [...log.consoleErrors, ...log.pageErrors].join(' | '));
      check(log.external.length === 0, `${file}: no request leaves file:// (all others blocked)`, `${log.external.length} external of ${log.requests} requests ${log.external.join(' ')}`);
      await page.close();
    }
  } finally {
    await browser.close();
  }
}

run(main);
