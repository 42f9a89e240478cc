// Bone hover and click: the bone whose joint is nearest the pointer on screen (within a few
// pixels) wins. Joints are points, so a screen-space distance picks them more reliably than a ray
// test against tiny geometry, whatever the model's size.
import * as THREE from 'three';

const RADIUS_PX = 14;

export function boneAt(stage, bones, clientX, clientY) {
  const rect = stage.renderer.domElement.getBoundingClientRect();
  const p = new THREE.Vector3();
  let best = null, bestD = RADIUS_PX * RADIUS_PX;
  for (const b of bones) {
    b.getWorldPosition(p).project(stage.camera);
    if (p.z < -1 || p.z > 1) continue;  // behind the camera or past the far plane
    const x = rect.left + ((p.x + 1) / 2) * rect.width;
    const y = rect.top + ((1 - p.y) / 2) * rect.height;
    const d = (x - clientX) ** 2 + (y - clientY) ** 2;
    if (d < bestD) { bestD = d; best = b; }
  }
  return best;
}

// Hover shows the name in `tip`; a click that did not drag the camera calls onPick(bone).
export function attachPicking(stage, getBones, tip, onPick) {
  const canvas = stage.renderer.domElement;
  let down = null;
  canvas.addEventListener('pointermove', (e) => {
    const b = boneAt(stage, getBones(), e.clientX, e.clientY);
    tip.hidden = !b;
    canvas.style.cursor = b ? 'pointer' : '';
    if (b) {
      tip.textContent = b.name || '(unnamed)';
      tip.style.left = `${e.clientX + 12}px`;
      tip.style.top = `${e.clientY + 12}px`;
    }
  });
  canvas.addEventListener('pointerleave', () => { tip.hidden = true; });
  canvas.addEventListener('pointerdown', (e) => { down = [e.clientX, e.clientY]; });
  canvas.addEventListener('pointerup', (e) => {
    if (!down || Math.hypot(e.clientX - down[0], e.clientY - down[1]) > 4) return;
    const b = boneAt(stage, getBones(), e.clientX, e.clientY);
    if (b) onPick(b);
  });
}
