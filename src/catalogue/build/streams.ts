// streams.yaml: the stream paths, the placeholders stream names use, and the streams; a user-data
// stream's keep-alive is checked against the endpoint that keeps its listen key alive.
import type { KeepAlive, Stream } from '../model.js';
import { durationSeconds } from '../duration.js';
import { listenKeyOf, takesListenKey } from '../user-data-streams.js';
import { dense, type Path, type RawFile, type ServiceBuild } from './context.js';
import { checkOverlaps, lifecycle } from './lifecycle.js';

/** setTimeout/setInterval's longest delay (2^31 − 1 ms); a longer one fires after 1 ms. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export function streams(b: ServiceBuild, f: RawFile): void {
  const file = f.data as { paths?: { raw: string; combined: string }; placeholders?: Record<string, any>; streams: any[] };
  if (file.paths) b.svc.streamPaths = { raw: file.paths.raw, combined: file.paths.combined };
  Object.assign(b.svc.placeholders, file.placeholders ?? {});
  const list: Stream[] = dense(file.streams.map((s, i) => ({
    ...lifecycle(b, f, ['streams', i], s, `stream ${s.name}`), name: s.name, description: s.description,
    ...(s.keepAlive && { keepAlive: keepAlive(b, f, ['streams', i, 'keepAlive'], s.name, s.keepAlive) }),
  })));
  checkOverlaps(b, list, (s) => s.name, 'duplicate stream');
  file.streams.forEach((s, i) => {
    for (const m of String(s.name).matchAll(/<([^>]+)>/g)) {
      if (!b.svc.placeholders[m[1]]) b.problem(f, ['streams', i, 'name'], `stream ${s.name}: placeholder <${m[1]}> is not defined in placeholders`);
    }
  });
  for (const [name, ph] of Object.entries(file.placeholders ?? {})) {
    if (ph.enum && !b.svc.enums[ph.enum]) b.problem(f, ['placeholders', name, 'enum'], `placeholder <${name}>: enum "${ph.enum}" does not exist in enums.yaml`);
  }
  b.svc.streams.push(...list);
}

/** A user-data stream's keep-alive: on a listen-key template, more often than the upstream expires the key. */
function keepAlive(b: ServiceBuild, f: RawFile, path: Path, stream: string, k: Omit<KeepAlive, 'intervalMs'>): KeepAlive {
  const intervalMs = durationSeconds(k.interval) * 1000;
  if (!listenKeyOf(stream)) {
    b.problem(f, path, `stream ${stream}: keepAlive applies to user-data streams (a template that is one placeholder, the listen key); here the gateway would ignore it`);
  } else if (intervalMs > MAX_TIMER_MS) {
    b.problem(f, [...path, 'interval'], `stream ${stream}: keepAlive.interval ${k.interval} is longer than a timer can wait (about 24 days): Node would fire it every millisecond instead`);
  } else if (intervalMs >= durationSeconds(k.expiresAfter) * 1000) {
    b.problem(f, [...path, 'interval'], `stream ${stream}: keepAlive.interval ${k.interval} must be shorter than keepAlive.expiresAfter ${k.expiresAfter}: the upstream would close the stream between two keep-alives`);
  }
  return { ...k, intervalMs };
}

/**
 * A user-data stream whose listen key a PUT endpoint keeps alive must say how often (without it the
 * upstream would close the stream under its client), and a keepAlive nothing would send is refused.
 */
export function checkKeepAlive(b: ServiceBuild): void {
  for (const s of b.svc.streams) {
    const param = listenKeyOf(s.name);
    if (!param) continue;
    const put = b.svc.endpoints.find((e) => e.method === 'PUT' && e.security.some((sec) => takesListenKey(sec.scheme, e.parameters, param)));
    if (put && !s.keepAlive) {
      b.problems.push({ ...s.at, message: `stream ${s.name}: keepAlive missing: ${put.key} keeps its listen key alive, so the stream must say how often and when the upstream expires the key (keepAlive: { interval, expiresAfter }, durations as in rateLimits)` });
    } else if (!put && s.keepAlive) {
      b.problems.push({ ...s.at, message: `stream ${s.name}: keepAlive (interval ${s.keepAlive.interval}): no API_KEY PUT endpoint requires parameter ${param}, so the gateway would never send it` });
    }
  }
}
