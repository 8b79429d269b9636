// Worker thread for the parallel scan: reads whole files and sends back only their compact
// results (the candidate events and FileStats), never lines.
import { parentPort } from 'node:worker_threads';
import { chunkTransferList } from './event-index.js';
import { scanGroup, type WorkerRequest, type WorkerResponse } from './parallel.js';

const port = parentPort;
if (!port) throw new Error('worker.js must run as a worker thread');

port.on('message', async (msg: WorkerRequest) => {
  if (msg.type === 'stop') {
    port.close();
    return;
  }
  // One job is one `<sid>.jsonl` / `.jsonl.gz` group: its files share the duplicate filter.
  const { results, chunk } = await scanGroup(msg.files, msg.mode, { maxEvents: msg.maxEvents });
  // The main thread puts file names back: no copy of the same string per event.
  for (const out of results) for (const e of out.events) e.file = '';
  const reply: WorkerResponse = { type: 'done', id: msg.id, results, chunk };
  port.postMessage(reply, chunk ? chunkTransferList(chunk) : []);
});
