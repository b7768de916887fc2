// A loaded catalogue handed from the loading worker to the request loop in pieces. Receiving it is
// building its object graph on the receiving thread, which for a large catalogue (10 000 endpoints:
// ~8 MB of JSON) blocks for a few hundred milliseconds if done at once, and several times that as a
// structured clone. So the worker sends JSON texts — the result with its lists emptied, then the
// lists' items in pieces of about PIECE_BYTES — and the receiver parses one piece per turn of the
// event loop: the same total work, in slices of a few milliseconds between requests.
import type { LoadResult } from './load.js';

/** About this many bytes of JSON per piece: ~1–3 ms of JSON.parse each. */
const PIECE_BYTES = 128 * 1024;

export interface Transfer {
  /** The LoadResult with every list in `pieces` emptied. */
  head: string;
  /** Items of the list at `path` (in the head), in order. */
  pieces: { path: (string | number)[]; json: string }[];
}

/** Cut a LoadResult into JSON texts (on the worker). */
export function cutForTransfer(result: LoadResult, json: (value: unknown) => string = JSON.stringify): Transfer {
  const pieces: Transfer['pieces'] = [];
  const lists: [(string | number)[], unknown[]][] = [[['warnings'], result.warnings]];
  const services = result.catalogue.services.map((s, i) => {
    const head: Record<string, unknown> = { ...s };
    for (const [k, v] of Object.entries(s)) {
      if (!Array.isArray(v)) continue;
      lists.push([['catalogue', 'services', i, k], v]);
      head[k] = [];
    }
    return head;
  });
  for (const [path, items] of lists) {
    let batch: string[] = [];
    let bytes = 0;
    const flush = () => {
      if (batch.length) pieces.push({ path, json: `[${batch.join(',')}]` });
      batch = [];
      bytes = 0;
    };
    for (const item of items) {
      const text = json(item) ?? 'null'; // as JSON.stringify writes undefined in a list
      batch.push(text);
      bytes += text.length;
      if (bytes >= PIECE_BYTES) flush();
    }
    flush();
  }
  const head = json({ ...result, warnings: [], catalogue: { ...result.catalogue, services } });
  return { head, pieces };
}

/** Rebuild the LoadResult (on the receiving thread), one piece per turn of the event loop. */
export async function assembleTransfer(t: Transfer): Promise<LoadResult> {
  const result = JSON.parse(t.head) as LoadResult;
  for (const { path, json } of t.pieces) {
    await new Promise((resolve) => setImmediate(resolve));
    const list = path.reduce<any>((o, k) => o[k], result) as unknown[];
    for (const item of JSON.parse(json) as unknown[]) list.push(item);
  }
  return result;
}
