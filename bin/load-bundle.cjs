'use strict';
// Loads the bundled CLI (dist/bundle/*.cjs, built by scripts/bundle.mjs) with V8's code cache:
// the bytecode of what a short command runs, saved at build time, so that each start skips most
// of the parsing and compiling (≈ 18 ms of `last`'s ≈ 210 ms, docs/performance.md#start-up).
// Node 20 has no compile cache of its own for modules (module.enableCompileCache is Node 22).
//
// V8 checks the cache against its version and flags, but for the source it compares only the
// length, and a release build does not verify the cached bytes. So each file's entry also holds
// the CRC-32 of the text it was made from and of its cached bytes (zlib's, native: a checksum in
// JavaScript cost ≈ 12 ms of a cold start, and a copy of the texts ≈ 5 ms of page faults), and an
// entry for other text, or damaged, is never used. A rejected or missing cache, or a Node without
// zlib.crc32 (before 20.15), only means compiling as usual.
//
// TRACE_DELEGATION_CODE_CACHE: `write` (the build) saves the cache of the files this run loaded,
// `off` ignores it, `report` says on stderr how many files came from it.
const { readFileSync, writeFileSync } = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const vm = require('node:vm');
const { crc32 } = require('node:zlib');

const CACHE_NAME = 'code-cache.bin';

/** The cache file: a 4-byte header length, a JSON header (file name → CRCs, offset, size), the cached bytes. */
function readCache(file) {
  try {
    const bytes = readFileSync(file);
    const headerLength = bytes.readUInt32LE(0);
    const header = JSON.parse(bytes.toString('latin1', 4, 4 + headerLength));
    const body = 4 + headerLength;
    const entries = new Map();
    for (const [name, e] of Object.entries(header.files)) entries.set(name, { textCrc: e.textCrc, dataCrc: e.dataCrc, data: bytes.subarray(body + e.at, body + e.at + e.size) });
    return entries;
  } catch {
    return new Map(); // absent or unreadable: compile as usual
  }
}

function writeCache(file, scripts) {
  const files = {};
  const parts = [];
  let at = 0;
  for (const { name, textCrc, script } of scripts) {
    const data = script.createCachedData();
    files[name] = { textCrc, dataCrc: crc32(data), at, size: data.length };
    parts.push(data);
    at += data.length;
  }
  const header = Buffer.from(JSON.stringify({ files }), 'latin1');
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
  const cache = mode === 'off' || mode === 'write' || !crc32 ? new Map() : readCache(cacheFile);
  const modules = new Map();
  const scripts = [];
  let fromCache = 0;

  function load(file) {
    const known = modules.get(file);
    if (known) return known.exports;
    const name = path.basename(file);
    const text = readFileSync(file);
    const textCrc = crc32 ? crc32(text) : 0;
    const entry = cache.get(name);
    const cachedData = entry && textCrc === entry.textCrc && crc32(entry.data) === entry.dataCrc ? entry.data : undefined;
    // The bundle uses require() only: import() has no loader in a vm.Script on Node 20.
    const script = new vm.Script(Module.wrap(text.toString('utf8')), { filename: file, cachedData });
    if (cachedData && !script.cachedDataRejected) fromCache++;
    scripts.push({ name, textCrc, script });
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
      if (mode === 'write' && crc32) {
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

module.exports = { loadBundle };
