// Preloaded with `node --import` when /usr/bin/time is missing: writes this process's peak RSS
// (KiB, worker threads included) and its CPU seconds (user, system) to $BENCH_RSS_FILE as it exits.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const u = process.resourceUsage();
  if (process.env.BENCH_RSS_FILE) writeFileSync(process.env.BENCH_RSS_FILE, `${u.maxRSS} ${u.userCPUTime / 1e6} ${u.systemCPUTime / 1e6}\n`);
});
