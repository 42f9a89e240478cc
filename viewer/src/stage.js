// Renderer, camera, lights, orbit controls and the ground grid. Lights are chosen so that any
// material is visible: a hemisphere light for fill plus a directional key light.
import * as THREE from 'three';
import { OrbitControls } from 'three/examples/jsm/controls/OrbitControls.js';

export const BACKGROUND = 0x262a31;

export function createStage(canvas) {
  // preserveDrawingBuffer: screenshots and pixel reads see the last frame even between renders.
  const renderer = new THREE.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
  renderer.setPixelRatio(Math.min(window.devicePixelRatio || 1, 2));
  const scene = new THREE.Scene();
  scene.background = new THREE.Color(BACKGROUND);
  const camera = new THREE.PerspectiveCamera(40, 1, 0.01, 1000);
  const controls = new OrbitControls(camera, canvas);
  scene.add(new THREE.HemisphereLight(0xffffff, 0x5a5048, 2.2));
  const key = new THREE.DirectionalLight(0xffffff, 2.0);
  scene.add(key, key.target);
  const stage = { renderer, scene, camera, controls, key, grid: null, gridCell: 0 };
  resize(stage);
  return stage;
}

export function resize(stage) {
  const c = stage.renderer.domElement;
  const w = Math.max(1, c.clientWidth), h = Math.max(1, c.clientHeight);
  stage.renderer.setSize(w, h, false);
  stage.camera.aspect = w / h;
  stage.camera.updateProjectionMatrix();
}

// A grid under the model whose cell is a power of ten in metres (glTF units are metres), about a
// tenth of the model's largest extent; returns the cell size for the label.
export function placeGrid(stage, box) {
  if (stage.grid) {
    stage.scene.remove(stage.grid);
    stage.grid.geometry.dispose();
  }
  const size = box.getSize(new THREE.Vector3());
  const extent = Math.max(size.x, size.y, size.z, 1e-3);
  const cell = Math.pow(10, Math.round(Math.log10(extent / 10)));
  const cells = 2 * Math.ceil((extent * 0.75) / cell) + 4;
  stage.grid = new THREE.GridHelper(cells * cell, cells, 0x6c7480, 0x3d434c);
  const centre = box.getCenter(new THREE.Vector3());
  stage.grid.position.set(Math.round(centre.x / cell) * cell, box.min.y, Math.round(centre.z / cell) * cell);
  stage.scene.add(stage.grid);
  stage.gridCell = cell;
  return cell;
}

// Orbit camera on the box from the front-right (the character faces +Z), whole box in view.
export function frameBox(stage, box) {
  const { camera, controls, key } = stage;
  const centre = box.getCenter(new THREE.Vector3());
  const radius = Math.max(box.getSize(new THREE.Vector3()).length() / 2, 1e-3);
  const fit = radius / Math.sin(THREE.MathUtils.degToRad(camera.fov / 2));
  const distance = (fit / Math.min(1, camera.aspect)) * 1.2;  // a margin round the bounding sphere
  camera.position.copy(centre).add(new THREE.Vector3(0.55, 0.35, 1).normalize().multiplyScalar(distance));
  camera.near = distance / 200;
  camera.far = distance * 200;
  camera.updateProjectionMatrix();
  controls.target.copy(centre);
  controls.update();
  key.position.copy(centre).add(new THREE.Vector3(1, 2, 1.5).multiplyScalar(radius * 2));
  key.target.position.copy(centre);
}

export function formatMetres(m) {
  return `${+m.toPrecision(3)} m`;
}
