// Whether clients pinned before a change are bridged across it (docs/version-changes.md): for an
// upgrade diff, every change that breaks an old client (an item, parameter or enum value removed, a
// parameter made required) and every deprecation a version change carries is told what the
// gateway does with the old call: migrated by a named change, or refused 410 (declared
// unbridgeable). Read from changes.yaml through the composer's own index, never restated here.
import { covers } from '../catalogue/changes/covers.js';
import { changeAt, unbridgeableAt } from '../catalogue/changes/lookup.js';
import type { BreakingEvent } from '../catalogue/changes/events.js';
import { STREAM, WS_API } from '../catalogue/changes/ws-operations.js';
import type { Service } from '../catalogue/model.js';
import type { Change } from './types.js';

/** The operation keys (as changes.yaml names them) and the event an old client meets, for one change. */
function eventsOf(c: Change): { key: string; event: BreakingEvent | 'deprecated' }[] {
  const own = (key: string) => (c.id.endsWith('-removed') ? [{ key, event: { kind: 'removed' } as const }] : c.id.endsWith('-deprecated') ? [{ key, event: 'deprecated' as const }] : []);
  if (c.kind === 'endpoint' && c.endpoint) return own(c.endpoint);
  if (c.kind === 'ws-method' && c.name) return own(`${WS_API}${c.name}`);
  if (c.kind === 'stream' && c.name) return own(`${STREAM}${c.name}`);
  const key = c.endpoint ?? (c.wsMethod ? `${WS_API}${c.wsMethod}` : undefined);
  // A JSON body's top-level field is a parameter to version changes (a nested property is not one).
  const field = c.kind === 'parameter' || (c.kind === 'body' && !/[.[]/.test(c.name ?? '.'));
  if (field && key && c.name) {
    if (c.id === 'parameter-removed' || c.id === 'body-property-removed') return [{ key, event: { kind: 'parameterRemoved', parameter: c.name } }];
    if (/^(parameter-became-required|required-parameter-added|body-property-became-required|body-required-property-added)$/.test(c.id)) return [{ key, event: { kind: 'requiredAdded', parameter: c.name } }];
  }
  if (c.id === 'enum-value-removed' && c.value !== undefined) {
    return (c.usedBy ?? []).flatMap((u) => {
      const k = u.endpoint ?? (u.wsMethod ? `${WS_API}${u.wsMethod}` : u.stream ? `${STREAM}${u.stream}` : undefined);
      return k ? [{ key: k, event: { kind: 'valueRemoved', parameter: u.name, value: c.value! } as const }] : [];
    });
  }
  return [];
}

/** What happens to old clients, one phrase per verdict, naming the operations when the change touches several. */
function verdicts(service: Service, c: Change): string[] {
  const r = service.releases.findIndex((x) => x.id === c.release);
  if (r < 1) return [];
  if (c.kind === 'answer' && c.endpoint) return answerVerdict(service, r, c);
  const byPhrase = new Map<string, string[]>();
  const events = eventsOf(c);
  for (const { key, event } of events) {
    const change = changeAt(service, r, key);
    let phrase: string;
    if (event === 'deprecated') {
      if (!change) continue;
      phrase = `carried to the replacement by version change ${change.id}`;
    } else {
      const how = covers(change, unbridgeableAt(service, r, key), event);
      const bridge = change?.request.find((x) => x.kind === 'bridge');
      phrase = how === 'change' ? `bridged by version change ${change!.id}${bridge ? ` (in signing mode the gateway answers it itself: ${bridge.name} ${bridge.action}, holding ${bridge.via} upstream; without a key 410)` : ''}`
        : how === 'unbridgeable' ? 'not bridged: refused 410 (declared unbridgeable)' : 'not bridged: no version change carries them';
    }
    byPhrase.set(phrase, [...(byPhrase.get(phrase) ?? []), key]);
  }
  return [...byPhrase].map(([phrase, keys]) => (events.length > 1 ? `${phrase} for ${keys.join(', ')}` : phrase));
}

/**
 * The changes of an upgrade diff (from older to newer) with what happens to old clients appended to
 * each message they concern, and `bridged` set for the JSON output. Downgrades and base diffs are
 * left as they are: version changes carry requests up, never down.
 */
export function withOldClients(service: Service, changes: Change[]): Change[] {
  if (!service.changes.changes.length && !service.changes.unbridgeable.length) return changes;
  return changes.map((c) => {
    const v = verdicts(service, c);
    if (!v.length) return c;
    const bridged = v.every((x) => !x.startsWith('not bridged'));
    return { ...c, message: `${c.message}; old clients: ${v.join('; ')}`, bridged };
  });
}

/** An answer change: carried back by the change that declares it, unless it declares the field lost. */
function answerVerdict(service: Service, r: number, c: Change): string[] {
  const change = changeAt(service, r, c.endpoint!);
  if (!change) return [];
  const lost = change.answer.some((s) => s.kind === 'lost' && s.names.some((n) => c.name === n || c.name?.endsWith(`.${n}`)));
  return [lost ? 'not bridged: declared lost (nothing restores it; the answer passes without it)' : `bridged by version change ${change.id}`];
}
