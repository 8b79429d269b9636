#!/usr/bin/env node
'use strict';
// Thin entry point: all behaviour lives in main(), which returns the exit code. The bundled CLI
// (npm run build) starts faster, from V8's code cache (load-bundle.cjs); the plain compiled
// modules work the same without it. CommonJS: an ES module entry costs ≈ 10 ms more to start.
const { existsSync } = require('node:fs');
const path = require('node:path');

// Output that cannot be written is not a crash. A reader that stops early (`| head`, a closed
// pager) is normal: stop at once and quietly, as the reader expects. Anything else (a full disk)
// is one sentence and exit 2. Without a listener, Node prints the stream's error as a stack trace.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (err) => {
    if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    // Worded as the -o errors are: "no space left on the device".
    const why = err.code === 'ENOSPC' ? 'no space left on the device' : err.code === 'EDQUOT' ? 'the disk quota is exceeded' : err.message;
    if (stream !== process.stderr) process.stderr.write(`trace-delegation: cannot write the output (${why}).\n`);
    process.exit(2);
  });
}

// --follow exits 0 on Ctrl-C or SIGTERM, also while the CLI is still loading (before follow mode
// installs its own handlers, which take these off): Node's default would be exit 130 or 143.
if (process.argv.includes('--follow')) {
  const early = () => process.exit(0);
  early.untilFollowStarts = true;
  process.once('SIGINT', early);
  process.once('SIGTERM', early);
}

// How long a follower stopped by a signal waits for its output to drain (follow.ts keeps its signal handlers as long).
const STOP_DRAIN_MS = 1000;

const bundle = path.join(__dirname, '..', 'dist', 'bundle');
const loaded = existsSync(path.join(bundle, 'main.cjs')) ? require('./load-bundle.cjs').loadBundle(bundle) : null;
const entry = loaded ? Promise.resolve(loaded.exports) : import('../dist/cli/main.js');
// stdin on first use only: creating process.stdin loads fs streams, fs/promises and readline (≈ 4 ms
// of every command), and only --stdin reads it.
let stoppedBySignal = false;
const io = { argv: process.argv.slice(2), stdout: process.stdout, stderr: process.stderr, env: process.env, get stdin() { return process.stdin; }, exitCodeKnown: (code) => { process.exitCode = code; }, stoppedBySignal: () => { stoppedBySignal = true; } };
const run = entry.then(({ main }) => main(io));
(loaded ? loaded.done(run) : run).then((code) => {
  process.exitCode = code;
  // Exit at once, once the output is out: left to itself Node tears its heap down piece by
  // piece first (≈ 7 ms of `last`, more after a large run). Writes to a pipe are asynchronous on
  // some systems, so whatever is still queued is flushed first; setImmediate lets a write error
  // that is still to be reported (a full disk) reach its handler above.
  const queued = [process.stdout, process.stderr].filter((s) => s.writableLength > 0);
  const flushed = Promise.all(queued.map((s) => new Promise((done) => s.write('', done))));
  // A follower stopped by Ctrl-C or SIGTERM exits 0 within a second even when its reader stopped
  // reading (a full pipe): what the reader never took is dropped, as a stop asks.
  const waited = stoppedBySignal ? Promise.race([flushed, new Promise((done) => setTimeout(done, STOP_DRAIN_MS))]) : flushed;
  waited.then(() => setImmediate(() => process.exit(code)));
});
