// An input a tool refuses (a file too large, not UTF-8, nested too deeply, holding a name the
// catalogue cannot hold): the tools print its one-line message and exit 2, without the usage and
// without a stack trace (src/cli/run-tool.ts). A leaf module, like ./usage-error.ts.
export class InputError extends Error {
  override name = 'InputError';
}
