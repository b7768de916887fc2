// The logger: JSON lines (pino) with level names, credential-like fields removed, a pretty form for
// terminals, and --log-format / GATEWAY_LOG_FORMAT / logFormat choosing between them.
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { createLogger, prettyLine } from '../../src/log.js';
import { UsageError } from '../../src/usage-error.js';

const test = suite('log format');

test('JSON lines: level by name, time, pid, message and fields; below the level nothing', () => {
  const lines: string[] = [];
  const log = createLogger('info', (l) => lines.push(l));
  log.debug('hidden');
  log.info('access', { reqId: 'r1', status: 200, ms: 1.5 });
  log.warn('plain');
  assert.is(lines.length, 2);
  assert.ok(lines.every((l) => l.endsWith('\n')));
  const a = JSON.parse(lines[0]) as Record<string, unknown>;
  assert.equal({ level: a.level, msg: a.msg, reqId: a.reqId, status: a.status, ms: a.ms, pid: a.pid }, { level: 'info', msg: 'access', reqId: 'r1', status: 200, ms: 1.5, pid: process.pid });
  assert.match(String(a.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  assert.is((JSON.parse(lines[1]) as { level: string }).level, 'warn');
  assert.ok(log.enabled('info'));
  assert.not.ok(log.enabled('debug'));
  assert.not.ok(createLogger('silent', () => {}).enabled('error'));
});

test('a message alone is written without pino, as pino writes it (quotes, newlines, non-ASCII escaped alike)', () => {
  const lines: string[] = [];
  const log = createLogger('info', (l) => lines.push(l));
  const msg = 'reload "x" refused:\n\tbad\u0001 ünï 🙂';
  log.warn(msg); // own line
  log.warn(msg, {}); // pino's line: it has (empty) fields
  const [own, pinos] = lines.map((l) => l.replace(/"time":"[^"]*"/, '"time":"T"'));
  assert.is(own, pinos);
  assert.is((JSON.parse(lines[0]) as { msg: string }).msg, msg);
});

test('access lines: the fields given, between level, time, pid and msg; not below info', () => {
  const lines: string[] = [];
  createLogger('info', (l) => lines.push(l)).access('"reqId":"r1","status":200');
  createLogger('warn', (l) => lines.push(l)).access('"reqId":"r2","status":200');
  assert.is(lines.length, 1);
  assert.match(lines[0], /^\{"level":"info","time":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","pid":\d+,"reqId":"r1","status":200,"msg":"access"\}\n$/);
  const t = Date.parse((JSON.parse(lines[0]) as { time: string }).time);
  assert.ok(Math.abs(t - Date.now()) < 60_000, 'the time is now');
});

test('credential-like fields never reach a line', () => {
  const lines: string[] = [];
  const log = createLogger('debug', (l) => lines.push(l));
  log.error('oops', { authorization: 'Bearer tok-123', token: 'tok-456', secret: 's3cr3t', query: 'a=zz9', body: 'b0dy', headers: 'h3ader', url: '/x?k=v9', route: '/x' });
  const text = lines.join('');
  for (const s of ['tok-123', 'tok-456', 's3cr3t', 'zz9', 'b0dy', 'h3ader', 'k=v9']) assert.not.ok(text.includes(s), `${s} in ${text}`);
  assert.match(text, /"route":"\/x"/);
});

test('pretty: time, level and message on one line, fields as key=value', () => {
  const lines: string[] = [];
  createLogger('info', (l) => lines.push(l), 'pretty').info('access', { route: '/api/v3/ping', status: 200 });
  assert.match(lines[0], /^\d\d:\d\d:\d\d\.\d{3} info  access route=\/api\/v3\/ping status=200\n$/);
  assert.is(prettyLine('not json'), 'not json');
});

test('--log-format, GATEWAY_LOG_FORMAT and logFormat; a bad value names the flag and the choices', () => {
  assert.is(readConfig(['--log-format', 'pretty'], {}).logFormat, 'pretty');
  assert.is(readConfig([], { GATEWAY_LOG_FORMAT: 'json' }).logFormat, 'json');
  assert.is(readConfig(['--log-format', 'json'], { GATEWAY_LOG_FORMAT: 'pretty' }).logFormat, 'json', 'the flag wins');
  assert.throws(() => readConfig(['--log-format', 'xml'], {}), (e: unknown) => e instanceof UsageError && /--log-format "xml"; valid: json, pretty/.test(e.message));
});

test.run();
