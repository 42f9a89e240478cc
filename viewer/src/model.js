// One embedded model: base64 text -> GLB bytes -> three.js scene, plus what the panels need that
// three.js does not keep (rigport's extras, raw skin influences, counts).
import * as THREE from 'three';
import { GLTFLoader } from 'three/examples/jsm/loaders/GLTFLoader.js';
import { glbBinChunk, readAccessor } from './glb.js';

// Both decoders skip ASCII whitespace themselves, so a 100 MB text is not copied to strip it.
export function decodeBase64(text) {
  if (Uint8Array.fromBase64) return Uint8Array.fromBase64(text);
  const bin = atob(text);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

// Per-vertex influence sets of one primitive, raw: [{joints, weights}] for JOINTS_n/WEIGHTS_n.
function influenceSets(json, bin, primitive) {
  const sets = [];
  for (let n = 0; primitive.attributes[`JOINTS_${n}`] !== undefined && primitive.attributes[`WEIGHTS_${n}`] !== undefined; n++) {
    sets.push({
      joints: readAccessor(json, bin, primitive.attributes[`JOINTS_${n}`]),
      weights: readAccessor(json, bin, primitive.attributes[`WEIGHTS_${n}`], true),
    });
  }
  return sets;
}

export async function loadModel(bytes) {
  const gltf = await new GLTFLoader().parseAsync(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength), '');
  const json = gltf.parser.json;
  const bin = glbBinChunk(bytes);
  const root = gltf.scene;
  const assoc = gltf.parser.associations;

  const meshes = [];
  const nodes = [];  // skeleton nodes: every node without a mesh, except rigport's synthetic root
  root.updateMatrixWorld(true);
  root.traverse((o) => {
    const ref = assoc.get(o);
    if (o.isMesh) {
      const prim = ref && ref.meshes !== undefined ? json.meshes[ref.meshes].primitives[ref.primitives || 0] : null;
      o.userData.influences = prim ? influenceSets(json, bin, prim) : [];
      o.frustumCulled = false;  // the bounds of a posed skinned mesh are not its rest bounds
      meshes.push(o);
    } else if (ref && ref.nodes !== undefined && ref.meshes === undefined && !o.userData.rigportSyntheticRoot) {
      nodes.push(o);
    }
  });
  // A skin makes its joints THREE.Bone; a rig without meshes has plain nodes, which SkeletonHelper
  // only draws when they claim to be bones.
  const bones = nodes;
  for (const b of bones) b.isBone = true;

  const rest = new Map();
  root.traverse((o) => rest.set(o, [o.position.clone(), o.quaternion.clone(), o.scale.clone()]));

  return { gltf, json, root, meshes, bones, rest, counts: countsOf(json, meshes, bones) };
}

function countsOf(json, meshes, bones) {
  let vertices = 0, triangles = 0, influences = 0;
  for (const m of meshes) {
    const g = m.geometry;
    vertices += g.attributes.position.count;
    triangles += (g.index ? g.index.count : g.attributes.position.count) / 3;
    for (const set of m.userData.influences) for (const w of set.weights) if (w > 0) influences++;
  }
  let keys = 0;  // keys per channel, as `rigport info` counts them (T, R and S each)
  for (const a of json.animations || []) for (const c of a.channels) keys += json.accessors[a.samplers[c.sampler].input].count;
  return { bones: bones.length, meshes: meshes.length, vertices, triangles, influences, animations: (json.animations || []).length, keys };
}

// Restores every node's rest TRS (the glTF node values), undoing any animation.
export function restPose(model) {
  for (const [o, [p, q, s]] of model.rest) {
    o.position.copy(p);
    o.quaternion.copy(q);
    o.scale.copy(s);
  }
  model.root.updateMatrixWorld(true);
}

// Bounds of meshes (posed) and bone positions, so a skeleton-only rig is framed too.
export function boundsOf(model) {
  const box = new THREE.Box3();
  model.root.updateMatrixWorld(true);
  for (const m of model.meshes) {
    if (m.isSkinnedMesh) {
      m.computeBoundingBox();
      box.union(m.boundingBox.clone().applyMatrix4(m.matrixWorld));
    } else {
      box.expandByObject(m);
    }
  }
  const p = new THREE.Vector3();
  for (const b of model.bones) box.expandByPoint(b.getWorldPosition(p));
  if (box.isEmpty()) box.set(new THREE.Vector3(-0.5, 0, -0.5), new THREE.Vector3(0.5, 1, 0.5));
  return box;
}
