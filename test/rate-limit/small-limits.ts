// A copy of the repository's catalogue (the exchange alone) with its limits made small, so a test
// reaches them in a few requests instead of 6000 weight per minute.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { shippedCopy } from '../catalogue/folder.js';

export interface SmallLimits {
  /** REQUEST_WEIGHT per minute (the exchange's: 6000). */
  weight: number;
  /** ORDERS per 10 s per account (the exchange's: 100). */
  orders?: number;
}

export function catalogueWithLimits(l: SmallLimits): string {
  const dir = shippedCopy('cat-rate-limit-');
  const file = join(dir, 'exchange/service.yaml');
  const text = readFileSync(file, 'utf8');
  const out = text
    .replace(/(kind: REQUEST_WEIGHT\n(?: {4}.*\n)*? {4}limit: )6000\n/, `$1${l.weight}\n`)
    .replace(/(kind: ORDERS\n {4}interval: 10s\n(?: {4}.*\n)*? {4}limit: )100\n/, `$1${l.orders ?? 100}\n`);
  if (out === text) throw new Error(`${file}: the rate limits were not found to shrink`);
  writeFileSync(file, out);
  return dir;
}
