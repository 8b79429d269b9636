// Type-checks TypeScript files as a user's strict NodeNext project would, against the package's
// shipped declarations (dist/index.d.ts, as 'trace-delegation').
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'vitest';
import { ROOT } from './cli.js';

/** Writes each source (name → code) to a temporary project, runs tsc on it and expects no diagnostic. */
export function expectTypeChecks(sources: Record<string, string>): void {
  const dir = mkdtempSync(path.join(tmpdir(), 'td-types-'));
  try {
    const files = Object.entries(sources).map(([name, code]) => {
      const file = path.join(dir, name);
      writeFileSync(file, code);
      return file;
    });
    const config = {
      compilerOptions: {
        module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: true,
        types: ['node'], typeRoots: [path.join(ROOT, 'node_modules', '@types')],
        paths: { 'trace-delegation': [path.join(ROOT, 'dist', 'index.d.ts')] },
      },
      files,
    };
    writeFileSync(path.join(dir, 'tsconfig.json'), JSON.stringify(config));
    const tsc = spawnSync(process.execPath, [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', dir], { encoding: 'utf8' });
    expect(tsc.stdout + tsc.stderr).toBe('');
    expect(tsc.status).toBe(0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
