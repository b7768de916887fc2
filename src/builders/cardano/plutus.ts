// Plutus data given as JSON strings, and provided scripts.
import * as CSL from './csl.js';
import { type Arena, withArena } from './arena.js';
import { attempt, inputError } from './errors.js';
import { type JsonObject, describe, hexField, join, objectField, stringField } from './json-fields.js';
import type { LanguageVersion, ProvidedScript } from './tx-plan.js';

/**
 * A datum or redeemer: a string holding Plutus data in CSL's detailed JSON schema. The string
 * goes to CSL untouched — a JSON.parse/stringify round trip would lose big integers.
 * Returns the CBOR hex.
 */
export function plutusDataField(obj: JsonObject, key: string, path: string): string {
  const fieldPath = join(path, key);
  const value = obj[key];
  if (value === undefined) throw inputError(fieldPath, 'missing field');
  if (typeof value !== 'string') {
    throw inputError(fieldPath, `expected a string holding Plutus data JSON (e.g. "{\\"constructor\\":0,\\"fields\\":[]}"), got ${describe(value)}`);
  }
  return withArena((a) =>
    a.own(attempt(fieldPath, 'invalid Plutus data JSON (detailed schema)', () => CSL.PlutusData.from_json(value, CSL.PlutusDatumSchema.DetailedSchema))).to_hex(),
  );
}

/** Plutus data given as CBOR hex (a UTxO's inline datum). */
export function checkPlutusDataCbor(hex: string, path: string): void {
  withArena((a) => a.own(attempt(path, 'not valid Plutus data CBOR', () => CSL.PlutusData.from_hex(hex))));
}

const LANGUAGES: readonly LanguageVersion[] = ['v1', 'v2', 'v3'];

export function language(a: Arena, version: LanguageVersion): CSL.Language {
  switch (version) {
    case 'v1':
      return a.own(CSL.Language.new_plutus_v1());
    case 'v2':
      return a.own(CSL.Language.new_plutus_v2());
    case 'v3':
      return a.own(CSL.Language.new_plutus_v3());
  }
}

/**
 * A ProvidedScriptSource `{ scriptCbor, languageVersion }`. Like the reference, the builder
 * decides the Plutus version it attaches the script as (`version`); `languageVersion` must
 * still be present and valid.
 */
export function scriptField(obj: JsonObject, key: string, path: string, version: LanguageVersion): ProvidedScript {
  const scriptPath = join(path, key);
  const source = objectField(obj, key, path);
  const declared = stringField(source, 'languageVersion', scriptPath);
  if (!(LANGUAGES as readonly string[]).includes(declared)) {
    throw inputError(`${scriptPath}.languageVersion`, `expected "v1", "v2" or "v3", got ${JSON.stringify(declared)}`);
  }
  const cbor = hexField(source, 'scriptCbor', scriptPath);
  const cborPath = `${scriptPath}.scriptCbor`;
  withArena((a) => {
    const script = a.own(attempt(cborPath, 'not a CBOR-wrapped Plutus script', () => CSL.PlutusScript.from_hex_with_version(cbor, language(a, version))));
    // Double wrapping means the script's bytes are themselves a CBOR byte string (major type 2);
    // a single-wrapped script would start with the flat program instead and never evaluate.
    const inner = script.bytes();
    if (inner.length === 0 || inner[0]! >> 5 !== 2) {
      throw inputError(cborPath, 'expected a double-CBOR-wrapped script (as produced for applied Aiken blueprint scripts); this looks single-wrapped');
    }
  });
  return { cbor, version, declared: declared as LanguageVersion };
}

/** " (…)" hint when the request declared another language than the builder uses. */
export function versionHint(script: ProvidedScript, builder: string): string {
  return script.declared && script.declared !== script.version
    ? ` (${builder} attaches scripts as Plutus ${script.version.toUpperCase()}; languageVersion "${script.declared}" is not used)`
    : '';
}

export function scriptHash(script: ProvidedScript): string {
  return withArena((a) => a.own(a.own(CSL.PlutusScript.from_hex_with_version(script.cbor, language(a, script.version))).hash()).to_hex());
}
