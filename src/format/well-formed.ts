// Lone UTF-16 surrogates to U+FFFD for the JSON formats whose readers need UTF-8 (OTLP, chrome-trace).

/**
 * Protobuf strings and trace viewers want valid UTF-8: a lone surrogate (a preview cut inside an
 * emoji, or a journal's "\ud800" escape) makes a collector refuse the whole request, so it becomes U+FFFD.
 */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** A JSON.stringify replacer: every string value well formed. */
export const wellFormed = (_key: string, value: unknown): unknown => (typeof value === 'string' ? value.replace(LONE_SURROGATE, '\uFFFD') : value);
