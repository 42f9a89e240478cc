// Raw glTF accessor reads straight from the GLB, because GLTFLoader keeps only JOINTS_0/WEIGHTS_0
// as skin attributes and renormalises those four weights in place: the heat map and the influence
// count need the weights exactly as rigport wrote them, including JOINTS_1/WEIGHTS_1.

const COMPONENT = {
  5121: [Uint8Array, 1, 255],
  5123: [Uint16Array, 2, 65535],
  5125: [Uint32Array, 4, 0],
  5126: [Float32Array, 4, 0],
};
const WIDTH = { SCALAR: 1, VEC2: 2, VEC3: 3, VEC4: 4, MAT4: 16 };

// The BIN chunk of a GLB (Spec "Binary glTF Layout"): 12-byte header, JSON chunk, then BIN.
export function glbBinChunk(bytes) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const jsonLength = view.getUint32(12, true);
  const binStart = 20 + jsonLength;
  if (binStart + 8 > bytes.byteLength) return new Uint8Array(0);
  const binLength = view.getUint32(binStart, true);
  return new Uint8Array(bytes.buffer, bytes.byteOffset + binStart + 8, binLength);
}

// Accessor `index` as a flat array of numbers (normalised integers scaled to 0..1 when asked).
export function readAccessor(json, bin, index, normalise = false) {
  const acc = json.accessors[index];
  const [Type, size, max] = COMPONENT[acc.componentType];
  const width = WIDTH[acc.type];
  const count = acc.count * width;
  if (acc.bufferView === undefined) return new Float32Array(count);  // all zeros (Spec §accessors)
  const bv = json.bufferViews[acc.bufferView];
  const offset = (bv.byteOffset || 0) + (acc.byteOffset || 0);
  const stride = bv.byteStride || size * width;
  let values;
  if (stride === size * width && (bin.byteOffset + offset) % size === 0) {
    values = new Type(bin.buffer, bin.byteOffset + offset, count);
  } else {  // interleaved or unaligned: copy element by element
    const dv = new DataView(bin.buffer, bin.byteOffset);
    const get = { 1: (o) => dv.getUint8(o), 2: (o) => dv.getUint16(o, true), 4: Type === Float32Array ? (o) => dv.getFloat32(o, true) : (o) => dv.getUint32(o, true) }[size];
    values = new Type(count);
    for (let e = 0; e < acc.count; e++) for (let c = 0; c < width; c++) values[e * width + c] = get(offset + e * stride + c * size);
  }
  if (normalise && acc.normalized && max > 0) return Float32Array.from(values, (v) => v / max);
  return values;
}
