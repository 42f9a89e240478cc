// What the meshes are drawn with: their own material, the matte override (rigport writes no
// material, and three.js's default one is fully metallic, which is black without an environment
// map), or the weight heat map of the selected bone.
import * as THREE from 'three';

const matte = new THREE.MeshStandardMaterial({ color: 0xc9c1b6, metalness: 0, roughness: 0.8 });
const heat = new THREE.MeshLambertMaterial({ vertexColors: true });
const cold = new THREE.Color(0x1c2f8f), hot = new THREE.Color(0xff2a10);

// Sets each mesh's `color` attribute to the heat of joint `bone` (0 blue .. 1 red), summing the
// raw weights of every JOINTS_n/WEIGHTS_n set that names it. Returns the vertices it touches.
export function paintWeights(meshes, bone) {
  let touched = 0;
  const c = new THREE.Color();
  for (const m of meshes) {
    const g = m.geometry;
    const n = g.attributes.position.count;
    let attr = g.getAttribute('color');
    if (!attr || attr.count !== n || attr.itemSize !== 3) {
      attr = new THREE.Float32BufferAttribute(new Float32Array(n * 3), 3);
      g.setAttribute('color', attr);
    }
    const joint = bone && m.isSkinnedMesh ? m.skeleton.bones.indexOf(bone) : -1;
    const w = new Float32Array(n);
    if (joint >= 0) {
      for (const set of m.userData.influences) {
        for (let i = 0; i < set.joints.length; i++) if (set.joints[i] === joint) w[i >> 2] += set.weights[i];
      }
    }
    for (let v = 0; v < n; v++) {
      if (w[v] > 0) touched++;
      c.copy(cold).lerpHSL(hot, Math.min(1, w[v]));
      attr.setXYZ(v, c.r, c.g, c.b);
    }
    attr.needsUpdate = true;
  }
  return touched;
}

// mode: 'own' | 'matte' | 'weights'
export function applyMaterials(meshes, mode) {
  for (const m of meshes) {
    if (!m.userData.ownMaterial) m.userData.ownMaterial = m.material;
    m.material = mode === 'weights' ? heat : mode === 'matte' ? matte : m.userData.ownMaterial;
  }
}
