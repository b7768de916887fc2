// What an import refuses to write, whatever the description says: a path the gateway could not serve
// as written (a control character or space, a `.` or `..` segment, the /_gateway/ admin prefix, …)
// and a parameter name no JavaScript object can hold as a field (__proto__, constructor, prototype)
// or holding a control character. The rules are the loader's (build/paths.ts, build/parameters.ts):
// lint refuses the same entries, so an import that passed would write what lint then refuses.
import { pathProblem } from '../../src/catalogue/build/paths.js';
import { reservedNameProblem } from '../../src/catalogue/build/parameters.js';
import { InputError } from '../../src/input-error.js';
import { hasControl } from '../../src/printable.js';

/** Refused (InputError naming the file, the operation and the reason) when the path or a parameter name is one the catalogue cannot hold. */
export function checkNames(file: string, method: string, path: string, parameterNames: readonly unknown[]): void {
  const op = `${method} ${JSON.stringify(path)}`;
  const unsafe = typeof path !== 'string' || !path.startsWith('/') ? 'a path starts with /' : pathProblem(path);
  if (unsafe) throw new InputError(`${file}: ${op}: ${unsafe}`);
  for (const name of parameterNames) {
    const why = typeof name !== 'string' || name === '' ? 'a parameter name must be a non-empty string'
      : hasControl(name) ? `parameter ${JSON.stringify(name)} holds a control character`
      : reservedNameProblem(name);
    if (why) throw new InputError(`${file}: ${op}: ${why.startsWith('the name') ? `parameter ${JSON.stringify(name)}: ${why}` : why}`);
  }
}
