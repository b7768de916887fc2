// Bytes from outside (a file a tool is given, a gateway's answer) as text, refused when they are not
// UTF-8: a decoder that replaced them with U+FFFD would carry the damage silently into what is
// written (a catalogue file) or printed.
import { isUtf8 } from 'node:buffer';
import { InputError } from './input-error.js';

/** `bytes` as text; refused, naming the first invalid byte, when they are not UTF-8. */
export function utf8Text(from: string, bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    const at = firstInvalidUtf8(bytes);
    const line = bytes.subarray(0, at).filter((b) => b === 0x0a).length + 1;
    throw new InputError(`${from}: not UTF-8 text (byte 0x${bytes[at]?.toString(16).padStart(2, '0')} at offset ${at}, line ${line}); save it as UTF-8`);
  }
}

/** Offset of the first byte that starts no valid UTF-8 sequence. */
function firstInvalidUtf8(b: Uint8Array): number {
  for (let i = 0; i < b.length;) {
    const c = b[i];
    const n = c < 0x80 ? 1 : c >= 0xc2 && c < 0xe0 ? 2 : c >= 0xe0 && c < 0xf0 ? 3 : c >= 0xf0 && c < 0xf5 ? 4 : 0;
    if (n === 0 || (n > 1 && !isUtf8(b.subarray(i, i + n)))) return i;
    i += n;
  }
  return b.length;
}

