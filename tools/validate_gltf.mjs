#!/usr/bin/env node
// Runs the Khronos glTF-Validator (npm gltf-validator, pinned in package.json) on .glb/.gltf files.
// Usage: node tools/validate_gltf.mjs [--json] FILE...
// Prints one summary line per file: issue counts, then code@pointer for each error and warning
// (--json prints the full reports instead). Exit codes: 0 when every file has 0 errors and
// 0 warnings, 1 otherwise, 2 when the validator itself fails (it rejects its promise instead of
// reporting an issue for some inputs, e.g. FLOAT JOINTS_0: shared/formats/gltf_ecosystem.md §0.3).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
let validator;
try {
  // Resolve from the project root so the script works from any working directory.
  const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
  validator = require(require.resolve('gltf-validator', { paths: [root] }));
} catch (e) {
  console.error(`validate_gltf: gltf-validator is not installed (run scripts/setup.sh): ${e.message}`);
  process.exit(2);
}

const args = process.argv.slice(2);
const json = args.includes('--json');
const files = args.filter((a) => a !== '--json');
if (files.length === 0) {
  console.error('usage: node tools/validate_gltf.mjs [--json] FILE.glb|FILE.gltf...');
  process.exit(2);
}

const SEVERITY = ['error', 'warning', 'info', 'hint'];
let exitCode = 0;
for (const file of files) {
  let report;
  try {
    const data = await readFile(file);
    report = await validator.validateBytes(new Uint8Array(data), {
      uri: path.basename(file),
      maxIssues: 0, // unlimited
      writeTimestamp: false,
      // .gltf files reference their .bin by a relative uri.
      externalResourceFunction: (uri) =>
        readFile(path.join(path.dirname(file), decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
    });
  } catch (e) {
    console.log(`${file}: VALIDATOR FAILED: ${e && e.message ? e.message : e}`);
    exitCode = 2;
    continue;
  }
  const is = report.issues;
  if (json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    const listed = is.messages
      .filter((m) => m.severity <= 1)
      .map((m) => `${SEVERITY[m.severity]} ${m.code}@${m.pointer ?? ''}`);
    console.log(`${file}: errors=${is.numErrors} warnings=${is.numWarnings} infos=${is.numInfos} hints=${is.numHints}` +
      (listed.length ? ` | ${listed.join(' ; ')}` : ''));
  }
  if ((is.numErrors > 0 || is.numWarnings > 0) && exitCode === 0) exitCode = 1;
}
process.exit(exitCode);
