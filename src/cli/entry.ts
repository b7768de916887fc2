// Whether a module is the script node was started on (`node <file>`), not one imported by another:
// a module that is both a command and a library runs its command only then.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `moduleUrl`: the module's import.meta.url. Links are followed on both sides (npm's bin links). */
export function startedOn(moduleUrl: string): boolean {
  const script = process.argv[1];
  if (!script) return false;
  const real = (p: string) => { try { return realpathSync(p); } catch { return p; } };
  return real(script) === real(fileURLToPath(moduleUrl));
}
