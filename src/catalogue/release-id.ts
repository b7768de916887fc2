// What a release id may be. An id travels in the X-Gateway-Release header the gateway stamps on
// answers (node refuses a header value with a control or non-Latin-1 character by throwing), in
// the /@<id>/ path prefix, in log lines and metric labels: so a short token safe in all of them.
// catalogue.schema.json's releaseId says the same (a test holds the two equal); the loader checks
// it again itself, because the schema is a file of the catalogue folder and may be an older one.

/** Letters and digits, then also `.`, `_`, `+`, `-` (2.0.0-rc1, 3.0.0rc1, 1.0.0+build.5). */
export const RELEASE_ID_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._+-]*$';
export const RELEASE_ID_MAX_LENGTH = 64;
const RELEASE_ID = new RegExp(RELEASE_ID_PATTERN);

/** Why `id` cannot be a release id, or null when it can. */
export function releaseIdProblem(id: unknown): string | null {
  if (typeof id !== 'string') return `release id must be a string, got ${JSON.stringify(id)}`;
  if (id.length <= RELEASE_ID_MAX_LENGTH && RELEASE_ID.test(id)) return null;
  const shown = JSON.stringify(id.length > RELEASE_ID_MAX_LENGTH ? `${id.slice(0, RELEASE_ID_MAX_LENGTH)}…` : id);
  return `release id ${shown} is not a header- and path-safe token: a letter or digit, then letters, digits, ".", "_", "+" or "-", at most ${RELEASE_ID_MAX_LENGTH} characters`;
}
