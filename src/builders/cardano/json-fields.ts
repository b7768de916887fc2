// Typed readers for the JSON request body. Each names the full path of the field it rejects
// (e.g. `inputs[2].output.amount[0].quantity`) so a caller can find the mistake.
import { inputError } from './errors.js';

export type JsonObject = Record<string, unknown>;

const HEX = /^(?:[0-9a-fA-F]{2})*$/;
const U64_MAX = 2n ** 64n - 1n;

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

export function asObject(value: unknown, path: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw inputError(path, `expected an object, got ${describe(value)}`);
  }
  return value as JsonObject;
}

export function field(obj: JsonObject, key: string, path: string): unknown {
  const value = obj[key];
  if (value === undefined) throw inputError(join(path, key), 'missing field');
  return value;
}

export function join(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

export function stringField(obj: JsonObject, key: string, path: string): string {
  const value = field(obj, key, path);
  if (typeof value !== 'string') throw inputError(join(path, key), `expected a string, got ${describe(value)}`);
  return value;
}

export function objectField(obj: JsonObject, key: string, path: string): JsonObject {
  return asObject(field(obj, key, path), join(path, key));
}

export function arrayField(obj: JsonObject, key: string, path: string): unknown[] {
  const value = field(obj, key, path);
  if (!Array.isArray(value)) throw inputError(join(path, key), `expected an array, got ${describe(value)}`);
  return value;
}

/** An optional hex string: absent and null both mean "not given". */
export function optionalHexField(obj: JsonObject, key: string, path: string): string | null {
  const value = obj[key];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw inputError(join(path, key), `expected a hex string or null, got ${describe(value)}`);
  return checkHex(value, join(path, key));
}

export function hexField(obj: JsonObject, key: string, path: string): string {
  return checkHex(stringField(obj, key, path), join(path, key));
}

export function checkHex(value: string, path: string): string {
  if (!HEX.test(value)) {
    throw inputError(path, value.length % 2 === 1 ? 'odd-length hex string' : 'not a hex string');
  }
  return value.toLowerCase();
}

export function u32Field(obj: JsonObject, key: string, path: string): number {
  const value = field(obj, key, path);
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 0xffff_ffff) {
    throw inputError(join(path, key), `expected an integer between 0 and 4294967295, got ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * A quantity written as a decimal integer string. Kept as BigInt end to end: Number loses
 * precision above 2^53 and quantities reach 9·10^15 and beyond.
 */
export function quantity(value: unknown, path: string, max: bigint = U64_MAX): bigint {
  if (typeof value !== 'string') throw inputError(path, `expected a decimal integer string, got ${describe(value)}`);
  if (/^-\d+$/.test(value)) throw inputError(path, `negative quantity ${value}`);
  if (!/^\d+$/.test(value)) throw inputError(path, `not a non-negative decimal integer: ${JSON.stringify(value)}`);
  const n = BigInt(value);
  if (n > max) throw inputError(path, `quantity ${value} exceeds the maximum ${max}`);
  return n;
}

/**
 * A mint amount: a signed decimal integer string within the chain's i64 (negative burns), never
 * zero.
 */
export function signedQuantity(value: unknown, path: string, max: bigint): bigint {
  if (typeof value !== 'string') throw inputError(path, `expected a decimal integer string, got ${describe(value)}`);
  if (!/^-?\d+$/.test(value)) throw inputError(path, `not a decimal integer: ${JSON.stringify(value)}`);
  const n = BigInt(value);
  if (n === 0n) throw inputError(path, 'must be greater than zero to mint, or less than zero to burn');
  if (n > max) throw inputError(path, `quantity ${value} exceeds the maximum ${max}`);
  if (n < -max - 1n) throw inputError(path, `quantity ${value} is below the minimum ${-max - 1n}`);
  return n;
}
