import type { Formatter } from './types.js';

/** The documented JSON document (docs/json.md); key order is stable. */
export const formatJson: Formatter = (report) => `${JSON.stringify(report, null, 2)}\n`;
