// The settings table as people read it: `--help` and the configuration table of docs/configuration.md, both
// rendered from src/settings.ts so neither can drift from what the parser accepts.
import { SIGNING_ENV } from './upstream/signing/settings.js';
import { SETTINGS, type Setting } from './settings.js';

function defaultOf(s: Setting): string {
  if (s.defaultText) return s.defaultText;
  if (typeof s.default === 'string') return s.arg ? s.default : s.default === 'false' ? 'off' : 'on';
  return 'none';
}

const flagText = (s: Setting) => (s.flag ? `--${s.flag}${s.arg ? ` ${s.arg}` : ''}` : '');

/** `npm start -- --help`. */
export function usage(): string {
  const rows = SETTINGS.filter((s) => s.flag);
  const width = Math.min(44, Math.max(...rows.map((s) => flagText(s).length)));
  const lines = rows.map((s) => {
    const f = flagText(s);
    const pad = f.length >= width ? `\n  ${' '.repeat(width)}` : ' '.repeat(width - f.length);
    return `  ${f}${pad}  ${s.help} [default: ${defaultOf(s)}; ${s.env}${s.reload ? '' : '; restart to change'}]`;
  });
  return [
    'usage: npm start -- [options]   (flags win over GATEWAY_* variables, which win over the --config file)',
    '',
    ...lines,
    '',
    `signing mode: ${Object.values(SIGNING_ENV).join(', ')} (or the config file's signing:)`,
    'reload: kill -HUP <gateway pid>, POST /_gateway/reload, or --watch; settings marked "restart to change" keep their start-up value',
  ].join('\n');
}

const cell = (s: string) => s.replace(/\|/g, '\\|');

/** The configuration table of docs/configuration.md (between its settings markers). */
export function readmeTable(): string {
  const head = '| flag | environment | config key | default | reload | meaning |\n|---|---|---|---|---|---|';
  const rows = SETTINGS.map((s) => {
    const key = s.key === 'corsOrigins' ? 'cors.origins' : s.special === 'config' ? '' : s.key;
    return `| ${s.flag ? `\`${cell(flagText(s))}\`` : ''} | \`${s.env}\` | ${key ? `\`${key}\`` : ''} | ${cell(defaultOf(s))} | ${s.reload ? 'applied' : 'restart'} | ${cell(s.doc ?? s.help)} |`;
  });
  return [head, ...rows].join('\n');
}
