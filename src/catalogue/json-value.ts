// The values exact-json.ts reads JSON into, apart from its reader and writer: the gateway, the
// upstream layer and the catalogue's version-change applier (changes/apply.ts) all work on them.

/** A JSON number JSON.parse would change, kept as its text (String() and writeJson give the text back). */
export class ExactNumber {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
  valueOf(): number {
    return Number(this.text);
  }
}

/** A JSON object as readJson makes one (not an array, not an ExactNumber). */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof ExactNumber);

/** A scalar's text as a query or signature payload carries it (an ExactNumber's own text); undefined for objects, arrays, null. */
export function scalarText(v: unknown): string | undefined {
  if (v instanceof ExactNumber) return v.text;
  return v === undefined || v === null || typeof v === 'object' ? undefined : String(v);
}
