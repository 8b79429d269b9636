// Preloaded with `node --import` when /usr/bin/time is missing: writes this process's peak RSS
// (KiB, worker threads included) to $BENCH_RSS_FILE as it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, `${process.resourceUsage().maxRSS}\n`);
});
