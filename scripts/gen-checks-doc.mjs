#!/usr/bin/env node
// Writes docs/checks.md from the check registry metadata in the built dist/ (npm run docs builds
// first). `--check` only compares and exits 1 when the file is out of date.
// To document another registry, append a group to CHECK_GROUPS in src/checks/catalog.ts, or pass
// extra groups to generate() from your own script.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CHECK_GROUPS } from '../dist/checks/catalog.js';
import { renderChecksDoc } from '../dist/checks/docs.js';

export const DOC_PATH = fileURLToPath(new URL('../docs/checks.md', import.meta.url));

/** The document for the built-in catalog plus any extra `{ title, source, checks }` groups. */
export function generate(extraGroups = []) {
  return renderChecksDoc([...CHECK_GROUPS, ...extraGroups]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const text = generate();
  if (process.argv.includes('--check')) {
    let current = '';
    try {
      current = readFileSync(DOC_PATH, 'utf8');
    } catch {
      // a missing file is out of date
    }
    if (current !== text) {
      process.stderr.write('docs/checks.md is out of date: run npm run docs\n');
      process.exitCode = 1;
    }
  } else {
    writeFileSync(DOC_PATH, text);
    process.stdout.write(`wrote docs/checks.md (${CHECK_GROUPS.reduce((n, g) => n + g.checks.length, 0)} checks)\n`);
  }
}
