// Worker thread for the parallel scan: reads whole files and sends back only their compact
// results (the candidate events and FileStats), never lines.
import { parentPort } from 'node:worker_threads';
import { scanFile } from './scan-file.js';
import type { WorkerRequest, WorkerResponse } from './parallel.js';

const port = parentPort;
if (!port) throw new Error('worker.js must run as a worker thread');

port.on('message', async (msg: WorkerRequest) => {
  if (msg.type === 'stop') {
    port.close();
    return;
  }
  // One job is one `<sid>.jsonl` / `.jsonl.gz` group: its files share the duplicate filter.
  const seen = msg.files.length > 1 ? new Set<string>() : undefined;
  const results = [];
  for (const f of msg.files) {
    const out = await scanFile({ path: f.path, display: f.display, fileIndex: f.fileIndex, seen });
    for (const e of out.events) e.file = ''; // the main thread puts the name back: no copy per event
    results.push(out);
  }
  const reply: WorkerResponse = { type: 'done', id: msg.id, results };
  port.postMessage(reply);
});
