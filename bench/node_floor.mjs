#!/usr/bin/env node
// Node scans of the corpus that do no report, on `threads` threads, in one of two ways:
//   --reference  BENCHMARKS.md's reference script: 64 KiB reads, Buffer.indexOf on
//                `"delegation_`, JSON.parse of the matching lines only;
//   --lean       the least a Node scan costs here (the Node floor): 64 KiB reads, every line
//                found with Buffer.indexOf(newline) and dropped after a byte test of its
//                `{"type":"<name>` head, as the tool's pre-filter does; JSON.parse of the rest.
// The lean scan is the faster: Buffer.indexOf with a 12-byte needle runs at ≈ 2 GB/s here,
// a one-byte search at memchr speed. Neither counts lines, groups, checks or reports: their
// times, side by side with the baseline, show how much of the budget any Node tool
// has left for the work the report needs.
//
//   node bench/node_floor.mjs <threads> --lean|--reference <file.jsonl>...   (prints the events parsed)
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const NEEDLE = Buffer.from('"delegation_');
const TYPE_HEAD = Buffer.from('{"type":"');
// 64 KiB reads, as the tool's: larger reads from the page cache cost up to 4x more on the VM.
const READ_SIZE = 1 << 16;
// Room for a line that spans blocks.
const BUFFER_SIZE = 1 << 20;

/**
 * Reads each file in blocks of READ_SIZE, after the remainder carried from the block before.
 * `consume(buf, end, atEnd)` takes buf[0, end) and returns where its unconsumed tail starts
 * (a line without its newline yet), which is carried; at the end of a file, `atEnd` is true.
 */
function readBlocks(files, consume) {
  const buf = Buffer.allocUnsafe(BUFFER_SIZE);
  for (const file of files) {
    const fd = openSync(file, 'r');
    let carry = 0;
    for (;;) {
      if (carry === buf.length) throw new Error(`${file}: a line longer than ${buf.length} bytes`);
      const n = readSync(fd, buf, carry, Math.min(READ_SIZE, buf.length - carry), null);
      const end = carry + n;
      // A view that ends at the data: searches must not run on into stale bytes.
      const rest = consume(buf.subarray(0, end), end, n === 0);
      if (n === 0) break;
      buf.copy(buf, 0, rest, end);
      carry = end - rest;
    }
    closeSync(fd);
  }
}

/** Parses every line holding the needle in `files`; returns how many. */
function scanReference(files) {
  let parsed = 0;
  readBlocks(files, (buf, end, atEnd) => {
    // The last complete line ends here; at end of file, the file's end closes the last line.
    const complete = atEnd ? end : buf.lastIndexOf(10, end - 1) + 1;
    for (let at = buf.indexOf(NEEDLE); at !== -1 && at < complete; ) {
      const start = buf.lastIndexOf(10, at) + 1;
      let stop = buf.indexOf(10, at);
      if (stop === -1) stop = complete; // the last line of a file without its newline
      if (JSON.parse(buf.toString('utf8', start, stop)).type) parsed++;
      at = buf.indexOf(NEEDLE, stop);
    }
    return complete;
  });
  return parsed;
}

/**
 * Parses every line of `files` that can be a delegation event by its head: `{"type":"` followed
 * by a `d` (the tool also keeps `s…` markers; they are rare), or any other head holding the
 * needle. Returns how many parsed to an object with a type.
 */
function scanLean(files) {
  let parsed = 0;
  readBlocks(files, (buf, end, atEnd) => {
    let start = 0;
    for (let stop = buf.indexOf(10, start); stop !== -1 && stop < end; stop = buf.indexOf(10, start)) {
      if (isCandidate(buf, start, stop) && JSON.parse(buf.toString('utf8', start, stop)).type) parsed++;
      start = stop + 1;
    }
    // The last line of a file without its newline.
    if (atEnd && start < end && isCandidate(buf, start, end) && JSON.parse(buf.toString('utf8', start, end)).type) parsed++;
    return start;
  });
  return parsed;
}

/** Whether buf[start, stop) can be a delegation event by its head (see scanLean). */
function isCandidate(buf, start, stop) {
  let head = stop - start > TYPE_HEAD.length;
  for (let i = 0; head && i < TYPE_HEAD.length; i++) head = buf[start + i] === TYPE_HEAD[i];
  if (head) return buf[start + TYPE_HEAD.length] === 0x64;
  const at = buf.indexOf(NEEDLE, start);
  return at !== -1 && at < stop;
}

const scans = { '--lean': scanLean, '--reference': scanReference };

/** Files shared out by size, largest first, each to the least loaded thread. */
function share(files, threads) {
  const parts = Array.from({ length: threads }, () => ({ bytes: 0, files: [] }));
  const sized = files.map((f) => ({ f, size: statSync(f).size })).sort((a, b) => b.size - a.size);
  for (const { f, size } of sized) {
    const least = parts.reduce((a, b) => (b.bytes < a.bytes ? b : a));
    least.files.push(f);
    least.bytes += size;
  }
  return parts.map((p) => p.files);
}

if (!isMainThread) parentPort.postMessage(scans[workerData.mode](workerData.files));
else {
  const [threadsArg, mode, ...files] = process.argv.slice(2);
  const threads = Number(threadsArg);
  if (!(threads >= 1) || !scans[mode] || files.length === 0) {
    process.stderr.write('usage: node bench/node_floor.mjs <threads> --lean|--reference <file.jsonl>...\n');
    process.exit(2);
  }
  const parts = share(files, threads);
  // This thread takes the first share, as the tool's main thread does; workers the others.
  const others = parts.slice(1).map(
    (part) =>
      new Promise((resolve, reject) => {
        const w = new Worker(new URL(import.meta.url), { workerData: { mode, files: part } });
        w.once('message', resolve).once('error', reject);
      }),
  );
  const here = scans[mode](parts[0]);
  const counts = await Promise.all(others);
  process.stdout.write(`${counts.reduce((a, b) => a + b, here)}\n`);
  process.exit(0);
}
