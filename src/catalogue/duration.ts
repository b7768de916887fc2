// Durations as the catalogue writes them (rate-limit windows, keep-alive intervals): a number and
// s, m, h or d; the JSON Schema's $defs/duration admits nothing else.

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** "30m" → 1800. */
export function durationSeconds(text: string): number {
  return parseInt(text, 10) * (UNIT_SECONDS[text.slice(-1)] ?? 1);
}
