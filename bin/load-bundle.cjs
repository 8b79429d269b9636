'use strict';
// Loads the bundled CLI (dist/bundle/*.cjs, built by scripts/bundle.mjs) with V8's code cache:
// the bytecode of what a short command runs, saved at build time, so that each start skips most
// of the parsing and compiling (≈ 10 ms of `last`'s ≈ 200 ms, docs/performance.md#start-up).
// Node 20 has no compile cache of its own for modules (module.enableCompileCache is Node 22).
//
// V8 checks the cache against its version and flags, but for the source it compares only the
// length, and a release build does not verify the cached bytes: each file's entry also records a
// checksum of its text and one of its cached bytes, and an entry for other text, or damaged, is
// never used. A rejected or missing cache only means compiling as usual.
//
// TRACE_DELEGATION_CODE_CACHE: `write` (the build) saves the cache of the files this run loaded,
// `off` ignores it, `report` says on stderr how many files came from it.
const { readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');

const CACHE_NAME = 'code-cache.bin';

/** cyrb53 of a file's text, two UTF-16 units a step: a stale entry (same length, other text) must not be used. */
function checksum(s) {
  let h1 = 0xdeadbeef ^ s.length;
  let h2 = 0x41c6ce57;
  const pairs = s.length - (s.length % 2);
  for (let i = 0; i < pairs; i += 2) {
    const c = s.charCodeAt(i) | (s.charCodeAt(i + 1) << 16);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  if (pairs < s.length) h1 = Math.imul(h1 ^ s.charCodeAt(pairs), 2654435761);
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return 4294967296 * (2097151 & h2) + (h1 >>> 0);
}

/** FNV-1a of the cached bytes: a damaged cache must be compiled around, never deserialized. */
function bytesChecksum(b) {
  let h = 0x811c9dc5 ^ b.length;
  for (let i = 0; i < b.length; i++) h = Math.imul(h ^ b[i], 16777619);
  return h >>> 0;
}

/** The cache file: a 4-byte header length, a JSON header (name → checksum, offset, size), the data. */
function readCache(file) {
  try {
    const bytes = readFileSync(file);
    const headerLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.toString('utf8', 4, 4 + headerLength));
    const body = 4 + headerLength;
    const entries = new Map();
    for (const [name, e] of Object.entries(header.files)) entries.set(name, { sum: e.sum, dataSum: e.dataSum, data: bytes.subarray(body + e.at, body + e.at + e.size) });
    return entries;
  } catch {
    return new Map(); // absent or unreadable: compile as usual
  }
}

function writeCache(file, scripts) {
  const files = {};
  const parts = [];
  let at = 0;
  for (const { name, sum, script } of scripts) {
    const data = script.createCachedData();
    files[name] = { sum, dataSum: bytesChecksum(data), at, size: data.length };
    parts.push(data);
    at += data.length;
  }
  const header = Buffer.from(JSON.stringify({ files }));
  const size = Buffer.alloc(4);
  size.writeUInt32LE(header.length);
  writeFileSync(file, Buffer.concat([size, header, ...parts]));
}

/**
 * Runs `<dir>/main.cjs` and the chunks it requires as CommonJS modules compiled from the cache,
 * and returns its exports. `done(promise)` is to be called with the command's completion, so that
 * a `write` run saves the cache after the command has run (its functions are then compiled too).
 */
function loadBundle(dir, mode = process.env.TRACE_DELEGATION_CODE_CACHE) {
  const cacheFile = path.join(dir, CACHE_NAME);
  const cache = mode === 'off' || mode === 'write' ? new Map() : readCache(cacheFile);
  const modules = new Map();
  const scripts = [];
  let fromCache = 0;

  function load(file) {
    const known = modules.get(file);
    if (known) return known.exports;
    const name = path.basename(file);
    const source = readFileSync(file, 'utf8');
    const sum = checksum(source);
    const entry = cache.get(name);
    const cachedData = entry && entry.sum === sum && entry.dataSum === bytesChecksum(entry.data) ? entry.data : undefined;
    // The bundle uses require() only: import() has no loader in a vm.Script on Node 20.
    const script = new vm.Script(Module.wrap(source), { filename: file, cachedData });
    if (cachedData && !script.cachedDataRejected) fromCache++;
    scripts.push({ name, sum, script });
    const module = { exports: {} };
    modules.set(file, module);
    const outside = Module.createRequire(file);
    // Chunks of the bundle come through here too; anything else is an ordinary require.
    const require = (id) => (id.startsWith('./') && id.endsWith('.cjs') ? load(path.join(dir, id)) : outside(id));
    script.runInThisContext().call(module.exports, module.exports, require, module, file, dir);
    return module.exports;
  }

  const exports = load(path.join(dir, 'main.cjs'));
  const done = (finished) =>
    finished.finally(() => {
      if (mode === 'write') {
        try {
          writeCache(cacheFile, scripts);
        } catch (err) {
          process.stderr.write(`trace-delegation: the code cache was not written (${err.message}).\n`);
        }
      }
      if (mode === 'report') process.stderr.write(`code cache: ${fromCache} of ${scripts.length} files\n`);
    });
  return { exports, done };
}

module.exports = { loadBundle, CACHE_NAME };
