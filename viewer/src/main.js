// rigport view: the page's entry point (bundled by esbuild into viewer/page.html, see
// viewer/viewer.cmake). Reads the base64 .glb elements the CLI embedded, shows one model at a time
// and exposes window.rigportView so tests can drive the page deterministically.
import * as THREE from 'three';
import { createStage, resize, placeGrid, frameBox, formatMetres } from './stage.js';
import { decodeBase64, loadModel, boundsOf } from './model.js';
import { applyMaterials, paintWeights } from './materials.js';
import { Player } from './player.js';
import { attachPicking } from './picking.js';
import { renderPanel, renderBone, provenanceOf } from './panel.js';

const $ = (id) => document.getElementById(id);
const embedded = [...document.querySelectorAll('script.rigport-model')];
const stage = (() => {
  try {
    return createStage($('view'));
  } catch (e) {  // no WebGL: say so on the page and to a test, rather than fail silently
    window.rigportView = { ready: false, error: `WebGL is not available: ${e.message}` };
    $('title').textContent = window.rigportView.error;
    throw e;
  }
})();
const clock = new THREE.Clock();
const marker = new THREE.Mesh(new THREE.SphereGeometry(1, 12, 8), new THREE.MeshBasicMaterial({ color: 0xffd23f, depthTest: false }));
marker.renderOrder = 1000;

// Frames are drawn on demand (a change, a camera move, playback), not continuously: a 1 M-vertex
// skinned mesh in a software renderer would otherwise keep the main thread busy.
let dirty = true;
const invalidate = () => { dirty = true; };

const state = { model: null, index: -1, helper: null, bone: null, touched: 0, skeleton: true, weights: false, matte: true };

const player = new Player(
  { list: $('clips'), filter: $('clip-filter'), range: $('range'), time: $('time'), speed: $('speed'), marks: $('marks'), playButton: $('play') },
  invalidate,
  (clip) => frameClip(clip),
);
stage.controls.addEventListener('change', invalidate);

function materialMode() {
  return state.weights ? 'weights' : state.matte ? 'matte' : 'own';
}

function updateToggles() {
  for (const [id, on] of [['t-skeleton', state.skeleton], ['t-weights', state.weights], ['t-matte', state.matte]]) $(id).classList.toggle('on', on);
  if (state.helper) state.helper.visible = state.skeleton;
  if (state.model) applyMaterials(state.model.meshes, materialMode());
  invalidate();
}

function selectBone(bone) {
  state.bone = bone;
  state.touched = paintWeights(state.model.meshes, bone);
  state.weights = !!bone || state.weights;
  marker.visible = !!bone;
  for (const o of $('bones').options) o.selected = bone ? o.value === bone.name : o.value === '';
  renderBone($('bone'), bone, state.touched);
  updateToggles();
}

function frame(box = boundsOf(state.model)) {
  frameBox(stage, box);
  $('grid').textContent = `grid cell = ${formatMetres(placeGrid(stage, box))}`;
  marker.scale.setScalar(box.getSize(new THREE.Vector3()).length() / 150);
  invalidate();
}

// Camera and grid on everywhere the clip takes the model (a walk leaves the rest pose's box): the
// bounds at nine times across the clip, with the rest pose's.
function frameClip(clip) {
  const box = boundsOf(state.model);
  const length = player.lengthOf(clip);
  for (let i = 0; i <= 8; i++) {
    player.poseAt((length * i) / 8);
    box.union(boundsOf(state.model));
  }
  player.poseAt(player.time);
  frame(box);
}

async function showModel(index) {
  if (state.model) {
    stage.scene.remove(state.model.root, state.helper);
    state.helper.dispose();
  }
  const bytes = decodeBase64(embedded[index].textContent);
  const model = await loadModel(bytes);
  state.model = model;
  state.index = index;
  $('models').value = String(index);
  stage.scene.add(model.root);
  state.helper = new THREE.SkeletonHelper(model.root);
  state.helper.material.depthTest = false;  // the skeleton is drawn over the mesh
  state.helper.material.transparent = true;
  state.helper.renderOrder = 999;
  stage.scene.add(state.helper);
  stage.scene.add(marker, joints);
  // rigport writes no material: three.js's default is metallic (black here), so matte is on.
  state.matte = !(model.json.materials && model.json.materials.length);
  state.weights = false;
  player.setModel(model);
  const select = $('bones');
  select.replaceChildren(new Option('(no bone selected)', ''));
  for (const b of model.bones) select.append(new Option(b.name || '(unnamed)', b.name));
  selectBone(null);
  renderPanel($('panel'), model);
  document.title = `${embedded[index].dataset.name} · rigport view`;
  $('title').textContent = embedded[index].dataset.name;
  frame();
  render();
}

// Joint dots: the skeleton lines are one pixel wide, the dots show where to hover and click.
const joints = new THREE.Points(new THREE.BufferGeometry(), new THREE.PointsMaterial({ color: 0xf2f2f2, size: 5, sizeAttenuation: false, depthTest: false }));
joints.renderOrder = 999;
joints.frustumCulled = false;

function updateJoints() {
  const bones = state.model ? state.model.bones : [];
  let attr = joints.geometry.getAttribute('position');
  if (!attr || attr.count !== bones.length) {
    attr = new THREE.Float32BufferAttribute(new Float32Array(bones.length * 3), 3);
    joints.geometry.setAttribute('position', attr);
  }
  const p = new THREE.Vector3();
  bones.forEach((b, i) => attr.setXYZ(i, ...b.getWorldPosition(p).toArray()));
  attr.needsUpdate = true;
  joints.visible = state.skeleton;
}

function render() {
  dirty = false;
  if (state.bone) state.bone.getWorldPosition(marker.position);
  updateJoints();
  stage.renderer.render(stage.scene, stage.camera);
}

function loop() {
  const dt = clock.getDelta();
  if (player.playing) player.tick(dt);  // tick() calls invalidate via the player's refresh
  if (dirty) render();
}

function toggle(name) {
  state[name] = !state[name];
  if (name === 'weights' && state.weights) state.touched = paintWeights(state.model.meshes, state.bone);
  updateToggles();
}

function bindUi() {
  const models = $('models');
  embedded.forEach((e, i) => models.append(new Option(e.dataset.name, String(i))));
  models.hidden = embedded.length < 2;
  models.addEventListener('change', () => showModel(Number(models.value)));
  $('bones').addEventListener('change', (e) => selectBone(state.model.bones.find((b) => b.name === e.target.value) || null));
  $('t-skeleton').addEventListener('click', () => toggle('skeleton'));
  $('t-weights').addEventListener('click', () => toggle('weights'));
  $('t-matte').addEventListener('click', () => toggle('matte'));
  $('t-frame').addEventListener('click', () => frame());
  $('t-help').addEventListener('click', () => { $('help').hidden = !$('help').hidden; });
  attachPicking(stage, () => (state.model ? state.model.bones : []), $('tip'), selectBone);
  new ResizeObserver(() => { resize(stage); render(); }).observe($('stage'));
  window.addEventListener('keydown', (e) => {
    if (e.target.tagName === 'SELECT' || e.ctrlKey || e.metaKey || e.altKey) return;
    const keys = {
      ' ': () => player.toggle(), ArrowLeft: () => player.step(-1), ArrowRight: () => player.step(1),
      s: () => toggle('skeleton'), w: () => toggle('weights'), m: () => toggle('matte'), f: () => frame(),
      '?': () => { $('help').hidden = !$('help').hidden; }, Escape: () => { $('help').hidden = true; },
    };
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]();
    }
  });
}

// The test hook: everything a test needs, synchronous where it can be (each call renders).
const api = {
  ready: false,
  error: null,
  models: embedded.map((e) => e.dataset.name),
  async show(index) { await showModel(index); return true; },
  clips: () => player.clips(),
  bones: () => state.model.bones.map((b) => b.name),
  selectBone(name) {
    const bone = name === null ? null : state.model.bones.find((b) => b.name === name);
    if (bone === undefined) return false;
    selectBone(bone);
    render();
    return state.touched;
  },
  play(name) { const ok = player.play(name); render(); return ok; },
  pause() { player.pause(); render(); },
  rest() { player.rest(); render(); },
  seek(t) { player.seek(t); render(); return player.time; },
  set(options) {
    Object.assign(state, options);
    if (state.weights) state.touched = paintWeights(state.model.meshes, state.bone);
    updateToggles();
    render();
  },
  frame() { frame(); render(); },
  filterClips(text) { const shown = player.filter(text); render(); return shown; },
  layout: () => {
    const size = (id) => { const r = $(id).getBoundingClientRect(); return { width: r.width, height: r.height }; };
    const list = $('clips');
    return { view: size('view'), clips: size('clips'), clipsScroll: list.scrollHeight, filterShown: !$('clip-filter').hidden };
  },
  // Where a bone's joint is on screen (client pixels), so a test can hover and click it.
  boneScreen(name) {
    const bone = state.model.bones.find((b) => b.name === name);
    if (!bone) return null;
    const p = bone.getWorldPosition(new THREE.Vector3()).project(stage.camera);
    const r = stage.renderer.domElement.getBoundingClientRect();
    return { x: r.left + ((p.x + 1) / 2) * r.width, y: r.top + ((1 - p.y) / 2) * r.height };
  },
  bounds() { const b = boundsOf(state.model); return { min: b.min.toArray(), max: b.max.toArray() }; },
  state: () => ({ model: state.index, clip: player.clip ? player.clip.name : null, time: player.time, playing: player.playing,
    bone: state.bone ? state.bone.name : null, skeleton: state.skeleton, weights: state.weights, matte: state.matte,
    gridCell: stage.gridCell }),
  info: () => ({ counts: state.model.counts, provenance: provenanceOf(state.model.json), renderer: rendererName() }),
};
window.rigportView = api;

function rendererName() {
  const gl = stage.renderer.getContext();
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  return ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
}

bindUi();
if (!embedded.length) {
  api.error = 'this page holds no model';
  console.error(`rigport view: ${api.error}`);
} else {
  showModel(0).then(
    () => {
      // WebGL runs behind the page's back: reading one pixel waits until the first frame has
      // really been drawn, so `ready` (and the load time measured with it) includes that work.
      const gl = stage.renderer.getContext();
      gl.readPixels(0, 0, 1, 1, gl.RGBA, gl.UNSIGNED_BYTE, new Uint8Array(4));
      stage.renderer.setAnimationLoop(loop);
      api.readyEpoch = Date.now();  // wall clock, so a driver can time from the moment it navigated
      api.ready = true;
      document.body.dataset.ready = 'true';
    },
    (e) => {
      api.error = String(e && e.message ? e.message : e);
      $('title').textContent = `could not load: ${api.error}`;
      console.error('rigport view: could not load the model:', e);
    },
  );
}
