// The side panel: provenance from rigport's asset.extras (format, file, source axes, warnings with
// their offsets; src/export/gltf_export.cpp), counts, and the selected bone's node extras.
function el(tag, text, cls) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (cls) e.className = cls;
  return e;
}

function table(rows) {
  const t = el('table');
  for (const [k, v] of rows) {
    const tr = el('tr');
    tr.append(el('th', k), el('td', String(v)));
    t.append(tr);
  }
  return t;
}

export function provenanceOf(json) {
  const x = (json.asset && json.asset.extras) || {};
  const axes = x.sourceAxes || {};
  return {
    format: x.format || '(not written by rigport)',
    file: x.file || '',
    generator: (json.asset && json.asset.generator) || '',
    axes: axes.up ? `${axes.up} up, ${axes.rightHanded ? 'right' : 'left'}-handed, ${axes.metresPerUnit} m per unit` : '',
    warnings: Array.isArray(x.warnings) ? x.warnings : [],
    notes: Object.keys(json.extras || {}),  // e.g. animationsWithoutChannels, meshesWithoutVertices
  };
}

export function renderPanel(root, model) {
  const p = provenanceOf(model.json);
  const c = model.counts;
  root.replaceChildren();
  root.append(el('h2', 'Source'));
  root.append(table([['format', p.format], ['file', p.file], ['axes', p.axes], ['generator', p.generator]]));
  root.append(el('h2', `Warnings (${p.warnings.reduce((n, w) => n + (w.count || 1), 0)})`));
  const list = el('ul', undefined, 'warnings');
  for (const w of p.warnings) list.append(el('li', `${w.code}${w.count > 1 ? ` ×${w.count}` : ''}: ${w.message}`));
  for (const n of p.notes) list.append(el('li', `${n}: ${JSON.stringify(model.json.extras[n])}`));
  if (!list.children.length) list.append(el('li', 'none', 'none'));
  root.append(list);
  root.append(el('h2', 'Counts'));
  root.append(table([['bones', c.bones], ['meshes', c.meshes], ['vertices', c.vertices], ['triangles', c.triangles],
    ['influences', c.influences], ['animations', c.animations], ['keys', c.keys]]));
}

// The selected bone: name, rigport's node extras (originalName, boneId, nameHash) and how many
// vertices it weighs on.
export function renderBone(root, bone, touched) {
  root.replaceChildren();
  if (!bone) {
    root.append(el('p', 'Click a joint (or pick one below) to see its weights.', 'none'));
    return;
  }
  const rows = [['name', bone.name], ['vertices weighted', touched]];
  for (const [k, v] of Object.entries(bone.userData)) if (typeof v !== 'object' && k !== 'name') rows.push([k, v]);
  root.append(table(rows));
}
