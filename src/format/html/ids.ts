// DOM ids come from positions in the report, never from journal text (which is untrusted).

export const sectionId = (i: number): string => `d${i}`;
export const barId = (i: number, child: number, attempt: number): string => `d${i}-c${child}-a${attempt}`;
export const findingId = (i: number, n: number): string => `d${i}-f${n}`;
