// Browser side of tools/texture_render_test.mjs: plain three.js from npm (bundled by esbuild) loads
// every converted quad (a .glb through GLTFLoader, or a PNG `convert` wrote, through TextureLoader on
// a plane) into one scene, each fitted into its own cell of a grid seen by an orthographic camera
// straight down -Z, one world unit a pixel. Materials are swapped for unlit ones that keep what the
// loader made of the file (the texture with its colour space and sampler, the colour factor and the
// side), so a pixel shows the texture's colour unshaded: `colour` renders RGB opaque, `alpha` the
// texture's alpha as grey. The demo character is rendered the same way, fitted to the canvas.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

export const CELL = 64, COLUMNS = 8, WIDTH = CELL * COLUMNS, HEIGHT = 448;
const BACKGROUND = 0xff00ff;  // magenta: no quadrant's colour

const canvas = document.querySelector('canvas');
const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
renderer.setSize(WIDTH, HEIGHT);
const camera = new THREE.OrthographicCamera(0, WIDTH, HEIGHT, 0, -1000, 1000);  // screen y = HEIGHT - world y
camera.position.z = 10;

function bytesOf(base64) {
  return Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
}

// The unlit pair of a loaded material: `colour` shows the texture's RGB (sRGB-decoded by the
// sampler, encoded again on output) times the colour factor, `alpha` its alpha as grey (written
// after the output encoding, so grey = alpha).
function unlit(material) {
  const common = { map: material.map, color: material.color, side: material.side };
  const colour = new THREE.MeshBasicMaterial(common);
  const alpha = new THREE.MeshBasicMaterial({ ...common, opacity: material.opacity });
  alpha.onBeforeCompile = (shader) => {
    // Read before <opaque_fragment>, which sets an opaque material's alpha to 1.
    shader.fragmentShader = shader.fragmentShader
      .replace('#include <opaque_fragment>', 'float textureAlpha = diffuseColor.a;\n#include <opaque_fragment>')
      .replace('#include <dithering_fragment>', '#include <dithering_fragment>\ngl_FragColor = vec4(vec3(textureAlpha), 1.0);');
  };
  return { colour, alpha };
}

const scenes = { quads: null, character: null };

function newScene() {
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(BACKGROUND);
  return scene;
}

// Every mesh under `object` with its unlit pair.
function unlitMeshes(object) {
  const meshes = [];
  object.traverse((o) => {
    if (!o.isMesh) return;
    if (Array.isArray(o.material)) throw new Error(`${o.name}: one material a mesh expected`);
    o.frustumCulled = false;  // a skinned mesh's culling sphere is computed once, before the fitting moves it
    meshes.push({ mesh: o, ...unlit(o.material), textured: Boolean(o.material.map) });
  });
  return meshes;
}

// The precise (skinned) bounds of `object`.
function bounds(object) {
  object.updateMatrixWorld(true);
  return new THREE.Box3().expandByObject(object, true);
}

async function loadOne(item) {
  if (item.glb) return (await new GLTFLoader().parseAsync(bytesOf(item.glb).buffer, '')).scene;
  // A PNG `convert` wrote: on a 1x1 plane facing +Z, image top at the top (TextureLoader's flipY).
  const texture = await new THREE.TextureLoader().loadAsync(`data:image/png;base64,${item.png}`);
  texture.colorSpace = THREE.SRGBColorSpace;
  const plane = new THREE.Mesh(new THREE.PlaneGeometry(1, 1), new THREE.MeshStandardMaterial({ map: texture }));
  return new THREE.Group().add(plane);
}

// Loads the quads into the grid; returns each one's screen rectangle (pixels, y down) and whether its
// material holds a texture.
async function loadQuads(items) {
  if (items.length > COLUMNS * Math.floor(HEIGHT / CELL)) throw new Error(`${items.length} quads do not fit the grid`);
  const scene = newScene();
  const placed = [];
  for (let i = 0; i < items.length; i++) {
    const object = await loadOne(items[i]);
    const holder = new THREE.Group().add(object);
    const box = bounds(holder), size = box.getSize(new THREE.Vector3()), centre = box.getCenter(new THREE.Vector3());
    const scale = (0.8 * CELL) / Math.max(size.x, size.y);
    const cx = (i % COLUMNS) * CELL + CELL / 2, cy = Math.floor(i / COLUMNS) * CELL + CELL / 2;
    holder.scale.setScalar(scale);
    holder.position.set(cx - scale * centre.x, HEIGHT - cy - scale * centre.y, -scale * centre.z);
    scene.add(holder);
    const meshes = unlitMeshes(holder);
    placed.push({ meshes, rect: { x: cx - (scale * size.x) / 2, y: cy - (scale * size.y) / 2, width: scale * size.x, height: scale * size.y } });
  }
  scenes.quads = { scene, placed };
  return placed.map((p) => ({ rect: p.rect, textured: p.meshes.length > 0 && p.meshes.every((m) => m.textured) }));
}

function renderQuads(mode) {
  const { scene, placed } = scenes.quads;
  for (const p of placed) for (const m of p.meshes) m.mesh.material = m[mode];
  renderer.render(scene, camera);
}

// The demo character, rest pose, fitted into the canvas; `probes` are [bone, towards] pairs whose
// midpoint's pixel the test reads.
async function loadCharacter(glb, probes) {
  const gltf = await new GLTFLoader().parseAsync(bytesOf(glb).buffer, '');
  const scene = newScene();
  const root = new THREE.Group().add(gltf.scene);
  scene.add(root);
  const bones = new Map();
  gltf.scene.traverse((o) => { if (o.isBone) bones.set(o.name, o); });
  const missing = probes.flat().filter((b) => !bones.has(b));
  if (missing.length) throw new Error(`the character has no bone ${missing.join(', ')}`);
  scenes.character = { scene, root, bones, probes, meshes: unlitMeshes(root) };
  return { textured: scenes.character.meshes.every((m) => m.textured), materials: scenes.character.meshes.length };
}

// Renders the character turned by `rotateY` about its bounds' centre, fitted with a margin; returns
// each probe's pixel position (y down) and how near its point lies to the camera compared with the
// character's depth (a probe behind the body would be hidden).
function renderCharacter({ rotateY = 0, mode = 'colour' }) {
  const { scene, root, bones, probes, meshes } = scenes.character;
  root.rotation.set(0, 0, 0);
  root.position.set(0, 0, 0);
  root.scale.setScalar(1);
  const box = bounds(root), size = box.getSize(new THREE.Vector3()), centre = box.getCenter(new THREE.Vector3());
  const scale = (0.9 * Math.min(WIDTH, HEIGHT)) / Math.max(size.x, size.y, size.z);
  root.scale.setScalar(scale);
  root.rotation.y = rotateY;
  const turned = centre.clone().multiplyScalar(scale).applyAxisAngle(new THREE.Vector3(0, 1, 0), rotateY);
  root.position.set(WIDTH / 2 - turned.x, HEIGHT / 2 - turned.y, -turned.z);
  root.updateMatrixWorld(true);
  for (const m of meshes) m.mesh.material = m[mode];
  renderer.render(scene, camera);
  return probes.map(([bone, towards]) => {
    const a = bones.get(bone).getWorldPosition(new THREE.Vector3()), b = bones.get(towards).getWorldPosition(new THREE.Vector3());
    const p = a.add(b).multiplyScalar(0.5);
    return { x: p.x, y: HEIGHT - p.y };
  });
}

window.textureRender = { loadQuads, renderQuads, loadCharacter, renderCharacter, revision: THREE.REVISION, background: BACKGROUND, cell: CELL, columns: COLUMNS };
