#!/usr/bin/env node
// The Node floor: the least a Node scan of the corpus can cost on this machine. BENCHMARKS.md's
// reference script, on `threads` threads: 256 KiB reads, Buffer.indexOf on `"delegation_`,
// JSON.parse of the matching lines only; no line numbers, no grouping, no checks, no report.
// Its time, side by side with the baseline, shows how much of the budget any Node tool
// has left for the work the report needs.
//
//   node bench/node_floor.mjs <threads> <file.jsonl>...     (prints the events parsed)
import { closeSync, openSync, readSync, statSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

const NEEDLE = Buffer.from('"delegation_');
const READ_SIZE = 1 << 18;

/** Parses every line holding the needle in `files`; returns how many. */
function scan(files) {
  const buf = Buffer.allocUnsafe(READ_SIZE * 2);
  let parsed = 0;
  for (const file of files) {
    const fd = openSync(file, 'r');
    let carry = 0;
    for (;;) {
      if (carry === buf.length) throw new Error(`${file}: a line longer than ${buf.length} bytes`);
      const n = readSync(fd, buf, carry, Math.min(READ_SIZE, buf.length - carry), null);
      const end = carry + n;
      // The last complete line ends here; at end of file, the file's end closes the last line.
      const complete = n === 0 ? end : buf.lastIndexOf(10, end - 1) + 1;
      for (let at = buf.indexOf(NEEDLE); at !== -1 && at < complete; ) {
        const start = buf.lastIndexOf(10, at) + 1;
        let stop = buf.indexOf(10, at);
        if (stop === -1) stop = complete; // the last line of a file without its newline
        if (JSON.parse(buf.toString('utf8', start, stop)).type) parsed++;
        at = buf.indexOf(NEEDLE, stop);
      }
      if (n === 0) break;
      buf.copy(buf, 0, complete, end);
      carry = end - complete;
    }
    closeSync(fd);
  }
  return parsed;
}

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

if (!isMainThread) parentPort.postMessage(scan(workerData));
else {
  const [threadsArg, ...files] = process.argv.slice(2);
  const threads = Number(threadsArg);
  if (!(threads >= 1) || files.length === 0) {
    process.stderr.write('usage: node bench/node_floor.mjs <threads> <file.jsonl>...\n');
    process.exit(2);
  }
  const parts = share(files, threads);
  // This thread takes the first share, as the tool's main thread does; workers the others.
  const others = parts.slice(1).map(
    (part) =>
      new Promise((resolve, reject) => {
        const w = new Worker(new URL(import.meta.url), { workerData: part });
        w.once('message', resolve).once('error', reject);
      }),
  );
  const here = scan(parts[0]);
  const counts = await Promise.all(others);
  process.stdout.write(`${counts.reduce((a, b) => a + b, here)}\n`);
  process.exit(0);
}
