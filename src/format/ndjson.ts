import { createRequire } from 'node:module';
import type { Formatter } from './types.js';

/**
 * One JSON object per line, one line per delegation (the `delegations[]` entries of the JSON
 * document), serialized by the `ndjson` package so line framing matches what its parser reads.
 */
export const formatNdjson: Formatter = (report) => {
  // Loaded on first use: with its stream dependencies it cost every CLI start-up ~0.1 s.
  const ndjson = createRequire(import.meta.url)('ndjson') as typeof import('ndjson');
  const serializer = ndjson.stringify();
  let out = '';
  for (const delegation of report.delegations) {
    serializer.write(delegation);
    // The serializer's transform is synchronous: each written object is readable at once.
    for (let chunk = serializer.read(); chunk !== null; chunk = serializer.read()) out += String(chunk);
  }
  // A buffered write would mean lost lines; fail loudly rather than print a short report.
  if (serializer.writableLength > 0) throw new Error('ndjson serializer did not flush synchronously');
  serializer.destroy();
  return out;
};
