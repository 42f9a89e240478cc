// What every browser page test shares: `check` prints one line per assertion and counts the
// failures; `run(main)` runs the test and exits 1 on any failed check or thrown error.
let failures = 0;

export function check(ok, what, detail = '') {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${what}${detail ? `: ${detail}` : ''}`);
  if (!ok) failures++;
  return ok;
}

export function run(main) {
  const started = Date.now();
  main().then(
    () => {
      console.log(`${failures ? 'FAILED' : 'passed'}: ${failures} failure(s) in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      process.exit(failures ? 1 : 0);
    },
    (e) => {
      console.error(`FAIL ${e.stack || e}`);
      process.exit(1);
    },
  );
}
