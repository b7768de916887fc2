// Websocket stream names against the stream templates of streams.yaml at the pinned release.
// A template such as "<symbol>@kline_<interval>" becomes an anchored regex: enum placeholders admit
// only the enum's values alive at the pin, pattern placeholders their pattern. Aliveness comes from
// the release view (resolve.ts → lifecycle.ts); nothing here decides it.
// A refused name is explained: the template or the enum value it would need, with its release facts.
import { lifecycleFacts } from '../../catalogue/lifecycle.js';
import type { EnumValue, Stream } from '../../catalogue/model.js';
import type { ReleaseView } from '../../catalogue/resolve.js';

/**
 * gone: the name is valid at the pin but the upstream no longer has it (a version change refuses it);
 * unknown: it matches no template the catalogue knows at any release (drift).
 */
export type StreamCheck = { ok: true; stream: Stream } | { ok: false; reason: string; gone?: boolean; unknown?: boolean };

interface Compiled {
  stream: Stream;
  /** Placeholder names with the index of the capture group holding each one's value. */
  placeholders: Array<{ name: string; group: number }>;
  regex: RegExp;
}

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Capturing groups of a regex source (a pattern placeholder may bring its own). */
const countGroups = (src: string) => new RegExp(`${src}|`).exec('')!.length - 1;
const stripAnchors = (p: string) => p.replace(/^\^/, '').replace(/\$$/, '');

export class StreamMatcher {
  /** Templates alive at the pin, placeholders admitting only what is alive at the pin. */
  private readonly alive: Compiled[];
  /** Every template the catalogue knows, placeholders admitting every value ever known (for reasons). */
  private readonly known: Compiled[];
  private readonly pinned: string;

  constructor(readonly view: ReleaseView) {
    const service = view.service;
    this.pinned = view.release ? ` at ${view.release.id}` : '';
    this.alive = view.streams.map((s) => this.compile(s, (name) => view.enumValues(name)));
    this.known = service.streams.map((s) => this.compile(s, (name) => service.enums[name]?.values ?? []));
  }

  /** Templates alive at the pin that a concrete name matches (at most one in a well-formed catalogue). */
  matching(name: string): Stream[] {
    return this.alive.filter((c) => c.regex.test(name)).map((c) => c.stream);
  }

  /** Check one concrete stream name; a refusal names the release facts that rule it out. */
  check(name: string): StreamCheck {
    for (const c of this.alive) if (c.regex.test(name)) return { ok: true, stream: c.stream };
    const facts = this.explain(name);
    if (!facts) return { ok: false, unknown: true, reason: `Invalid stream name '${name}'${this.pinned}: it matches no stream of the catalogue (stream names are lower case, e.g. btcusdt@aggTrade).` };
    return { ok: false, reason: `Invalid stream name '${name}'${this.pinned}: ${facts}.` };
  }

  /** Why a name known to the catalogue is not served at the pin; '' when it matches no template at all. */
  private explain(name: string): string {
    const { view } = this;
    const releases = view.service.releases;
    const facts: string[] = [];
    for (const c of this.known) {
      const m = c.regex.exec(name);
      if (!m) continue;
      const status = view.status(c.stream);
      if (status !== 'alive' && status !== 'deprecated') {
        facts.push(`stream ${c.stream.name} was ${lifecycleFacts(c.stream, releases, view.at)}`);
        continue;
      }
      // The template is served: one of its enum placeholders holds a value not alive at the pin.
      for (const { name: ph, group } of c.placeholders) {
        const enumName = view.service.placeholders[ph]?.enum;
        if (!enumName) continue;
        const value = m[group];
        if (view.enumValues(enumName).some((v) => v.value === value)) continue;
        const def = view.service.enums[enumName]!.values.find((v) => v.value === value)!;
        const valid = view.enumValues(enumName).map((v) => v.value).join(', ');
        facts.push(`<${ph}> of ${c.stream.name}: ${enumName} value ${value} was ${lifecycleFacts(def, releases, view.at)} (valid: ${valid})`);
      }
    }
    return facts.join('; ');
  }

  private compile(stream: Stream, values: (enumName: string) => readonly EnumValue[]): Compiled {
    const placeholders: Compiled['placeholders'] = [];
    let groups = 0;
    const src = stream.name.split(/(<[^>]+>)/).map((part) => {
      const m = /^<([^>]+)>$/.exec(part);
      if (!m) return escape(part);
      const ph = this.view.service.placeholders[m[1]];
      if (!ph) throw new Error(`stream ${stream.name}: placeholder <${m[1]}> is not defined in streams.yaml`);
      placeholders.push({ name: m[1], group: groups + 1 });
      let inner: string;
      if (ph.enum) {
        const vs = values(ph.enum);
        // An enum with no value at the pin admits nothing.
        inner = vs.length ? vs.map((v) => escape(v.value)).join('|') : '(?!)';
      } else {
        inner = stripAnchors(ph.pattern ?? '.+');
      }
      groups += 1 + countGroups(inner);
      return `(${inner})`;
    }).join('');
    return { stream, placeholders, regex: new RegExp(`^${src}$`) };
  }
}
