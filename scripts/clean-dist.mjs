// Empties dist/ before a build: tsc never deletes the output of a source file that was removed,
// and `npm pack` would ship that stale module.
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
