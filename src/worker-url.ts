import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The compiled worker script `dist/<dir>/<name>` as seen from the calling module (`here` = its
 * import.meta.url): beside it in dist/<dir>/, from the CLI bundle in dist/bundle/, or from the
 * sources (vitest) in src/<dir>/.
 */
export function workerUrl(here: string, name: string, dir: string): URL {
  const candidates = [`./${name}`, `../${dir}/${name}`, `../../dist/${dir}/${name}`].map((p) => new URL(p, here));
  return candidates.find((u) => existsSync(fileURLToPath(u))) ?? candidates[0];
}
