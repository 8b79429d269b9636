// The published package.json without `prepare`: it builds a checkout (npm ci), but in a tarball
// it would never run (there is no source to build) and npm 11 warns about it on every install.
// `prepack` strips it (after building), with prepack and postpack themselves (they name scripts/,
// which is not shipped; npm still runs the postpack it read first), and `postpack` restores the
// file byte for byte. A pack that fails in between leaves the backup: `npm run build` restores it.
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

const MANIFEST = 'package.json';
const BACKUP = 'package.json.prepack';

const mode = process.argv[2];
if (mode === 'strip') {
  if (existsSync(BACKUP)) renameSync(BACKUP, MANIFEST); // a pack that failed after stripping
  copyFileSync(MANIFEST, BACKUP);
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8'));
  for (const name of ['prepare', 'prepack', 'postpack']) delete manifest.scripts[name];
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 2)}\n`);
} else if (mode === 'restore') {
  if (existsSync(BACKUP)) renameSync(BACKUP, MANIFEST);
} else {
  console.error('usage: node scripts/pack-manifest.mjs strip|restore');
  process.exit(2);
}
