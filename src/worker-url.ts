import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The compiled worker script `name` next to the calling module (`here` = its import.meta.url);
 * when running from sources (vitest), the built one in `dist/<dir>/`.
 */
export function workerUrl(here: string, name: string, dir: string): URL {
  const beside = new URL(`./${name}`, here);
  if (existsSync(fileURLToPath(beside))) return beside;
  return new URL(`../../dist/${dir}/${name}`, here);
}
