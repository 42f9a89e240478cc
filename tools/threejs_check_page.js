// Browser side of tools/threejs_check_test.mjs: plain three.js from npm (bundled by esbuild into
// one classic script, since Chromium refuses ES modules and fetch() on file:// pages) loading a
// .glb the way an application would: GLTFLoader, the file's own materials, a HemisphereLight and
// nothing else (no directional light, no environment map), an AnimationMixer on the first clip,
// and a perspective camera on +Z looking at the posed model's bounds centre.
import * as THREE from 'three';
import { GLTFLoader } from 'three/addons/loaders/GLTFLoader.js';

export const WIDTH = 480, HEIGHT = 640;
const BACKGROUND = 0x3050a0;  // saturated blue: neither black nor a likely skin/cloth colour
// Sky white, ground dark grey. three.js (r155+) shades a matte surface under a hemisphere light as
// linear albedo × intensity/π × mix(ground, sky, (1 + n·up)/2): a white albedo facing sideways
// gives 0.42 (sRGB 172), the RenderWare sample's c8b4a0 about 0.2 (sRGB ~124).
const SKY = 0xffffff, GROUND = 0x404040, HEMI_INTENSITY = 2.5;

const canvas = document.querySelector('canvas');
// preserveDrawingBuffer: the test screenshots the canvas after render() returns, with no loop.
const renderer = new THREE.WebGLRenderer({ canvas, antialias: false, preserveDrawingBuffer: true });
renderer.setPixelRatio(1);
renderer.setSize(WIDTH, HEIGHT);

let state = null;

function rendererName() {
  const gl = renderer.getContext();
  const ext = gl.getExtension('WEBGL_debug_renderer_info');
  return ext ? gl.getParameter(ext.UNMASKED_RENDERER_WEBGL) : gl.getParameter(gl.RENDERER);
}

async function load(base64) {
  const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
  const gltf = await new GLTFLoader().parseAsync(bytes.buffer, '');
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(BACKGROUND);
  // The negative controls turn this group, never the glTF's own nodes.
  const root = new THREE.Group();
  root.add(gltf.scene);
  scene.add(root);
  scene.add(new THREE.HemisphereLight(SKY, GROUND, HEMI_INTENSITY));
  if (!gltf.animations.length) throw new Error('the .glb has no animation to play');
  const mixer = new THREE.AnimationMixer(gltf.scene);
  mixer.clipAction(gltf.animations[0]).play();
  const meshes = [], bones = new Map();
  gltf.scene.traverse((o) => {
    if (o.isSkinnedMesh) {
      meshes.push(o);
      for (const b of o.skeleton.bones) bones.set(b.name, b);
    }
  });
  if (!meshes.length) throw new Error('the .glb has no skinned mesh');
  const materials = new Set();
  for (const m of meshes) for (const mat of [].concat(m.material)) materials.add(mat);
  state = { scene, root, mixer, meshes, bones, materials: [...materials] };
  return {
    clips: gltf.animations.map((a) => ({ name: a.name, duration: a.duration })),
    materials: state.materials.map((m) => ({ type: m.type, metalness: m.metalness, roughness: m.roughness, color: m.color.getHexString() })),
  };
}

// Poses the first clip at `time` with the root turned by rotateX, rotateY, renders one frame and
// returns the posed bones (positions, rotations) and the bounds of the posed (skinned) vertices, both in world space.
// `metallic` renders with every material's metalness at 1 (three's glTF default), `mask` renders
// the model unlit white on black to tell model pixels from background, `hidden` renders the
// background alone; all three serve the test's controls and are undone before returning.
function pose({ time, rotateX = 0, rotateY = 0, metallic = false, mask = false, hidden = false }) {
  const { scene, root, mixer, meshes, bones, materials } = state;
  root.rotation.set(rotateX, rotateY, 0);
  root.visible = !hidden;
  mixer.setTime(time);
  scene.updateMatrixWorld(true);
  // precise: every vertex through its bones (SkinnedMesh.getVertexPosition -> applyBoneTransform).
  const box = new THREE.Box3();
  for (const m of meshes) box.expandByObject(m, true);
  const centre = box.getCenter(new THREE.Vector3()), size = box.getSize(new THREE.Vector3());
  const camera = new THREE.PerspectiveCamera(30, WIDTH / HEIGHT, 0.01, 1000);
  // Far enough on +Z that the whole box fits vertically and horizontally, with a margin.
  const halfFov = THREE.MathUtils.degToRad(camera.fov / 2);
  const fit = Math.max(size.y / 2, size.x / 2 / camera.aspect) / Math.tan(halfFov);
  camera.position.set(centre.x, centre.y, centre.z + size.z / 2 + 1.2 * fit);
  camera.lookAt(centre);
  camera.near = fit / 100;
  camera.far = 10 * (fit + size.z);
  camera.updateProjectionMatrix();

  const saved = materials.map((m) => m.metalness);
  if (metallic) for (const m of materials) m.metalness = 1;
  if (mask) {
    scene.overrideMaterial = new THREE.MeshBasicMaterial({ color: 0xffffff });
    scene.background = new THREE.Color(0x000000);
  }
  renderer.render(scene, camera);
  materials.forEach((m, i) => { m.metalness = saved[i]; });
  scene.overrideMaterial = null;
  root.visible = true;
  scene.background = new THREE.Color(BACKGROUND);

  const world = {}, turns = {};
  for (const [name, b] of bones) {
    world[name] = b.getWorldPosition(new THREE.Vector3()).toArray();
    turns[name] = b.getWorldQuaternion(new THREE.Quaternion()).toArray();
  }
  return { bones: world, rotations: turns, min: box.min.toArray(), max: box.max.toArray(), camera: camera.position.toArray() };
}

window.threejsCheck = { load, pose, renderer: rendererName, revision: THREE.REVISION, background: BACKGROUND };
