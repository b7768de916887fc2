// The YAML nodes of a loaded service's items: which map in which file an Endpoint, a Parameter or an
// EnumValue of the model was read from, so that a lifecycle fact can be added to it in place. The
// loader keeps every item of a file in the file's order, so the n-th item of a list in the model is
// the n-th item of that list in the YAML (checked by key, an error otherwise).
import { existsSync, readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { isMap, isSeq, type YAMLMap, type YAMLSeq } from 'yaml';
import type { Endpoint, EnumValue, Parameter, Service } from '../../src/catalogue/model.js';
import { YamlText } from './yaml-splice.js';

/** The service folder's YAML files, read once, with the edits made to them. */
export class ServiceFiles {
  private texts = new Map<string, YamlText>();
  private created = new Map<string, string>();

  constructor(readonly dir: string) {}

  /** The file (relative to the service folder), or undefined when it does not exist. */
  get(rel: string): YamlText | undefined {
    let t = this.texts.get(rel);
    if (!t && existsSync(join(this.dir, rel))) this.texts.set(rel, (t = new YamlText(rel, readFileSync(join(this.dir, rel), 'utf8'))));
    return t;
  }

  exists(rel: string): boolean {
    return this.created.has(rel) || this.get(rel) !== undefined;
  }

  create(rel: string, text: string): void {
    this.created.set(rel, text);
  }

  /** Set a file's text aside (changes.yaml is written again when a proposal is revised). */
  forget(rel: string): void {
    this.texts.delete(rel);
    this.created.delete(rel);
  }

  /** Files whose text changes, relative to the service folder, with their new text. */
  outputs(): Map<string, string> {
    const out = new Map(this.created);
    for (const [rel, t] of this.texts) {
      if (!t.changed) continue;
      const text = t.result();
      if (text !== t.text) out.set(rel, text);
    }
    return out;
  }
}

export interface Located {
  file: YamlText;
  map: YAMLMap;
}

/** Where each endpoint, parameter and enum value of the service is written. */
export class CatalogueNodes {
  private endpoints = new Map<Endpoint, Located>();
  private params = new Map<Parameter, Located>();
  private values = new Map<EnumValue, Located>();

  /** Endpoints by the file they are written in (a file is parsed when one of its items is first asked for). */
  private byFile = new Map<string, Endpoint[]>();
  private ownerOf = new Map<Parameter, Endpoint>();

  constructor(
    private readonly service: Service,
    private readonly files: ServiceFiles,
  ) {
    for (const e of service.endpoints) {
      const name = basename(e.at.file);
      this.byFile.set(name, [...(this.byFile.get(name) ?? []), e]);
      for (const p of e.parameters) this.ownerOf.set(p, e);
    }
  }

  endpoint(e: Endpoint): Located {
    if (!this.endpoints.has(e)) this.index(basename(e.at.file));
    return this.endpoints.get(e)!;
  }

  parameter(p: Parameter): Located {
    if (!this.params.has(p)) this.endpoint(this.ownerOf.get(p)!);
    return this.params.get(p)!;
  }

  private index(name: string): void {
    const list = this.byFile.get(name) ?? [];
    const file = this.files.get(`endpoints/${name}`);
    const seq = file?.doc.get('endpoints', true) as YAMLSeq<YAMLMap> | undefined;
    if (!file || !isSeq(seq) || seq.items.length !== list.length) throw new Error(`endpoints/${name}: does not hold the ${list.length} endpoints the loader read from it`);
    list.forEach((e, i) => {
      const map = seq.items[i];
      if (!isMap(map) || `${map.get('method')} ${map.get('path')}` !== e.key) throw new Error(`endpoints/${name}: item ${i} is not ${e.key}`);
      this.endpoints.set(e, { file, map });
      const ps = map.get('parameters', true) as YAMLSeq<YAMLMap> | undefined;
      e.parameters.forEach((p, j) => {
        const pm = isSeq(ps) ? ps.items[j] : undefined;
        if (!isMap(pm) || pm.get('name') !== p.name) throw new Error(`endpoints/${name}: ${e.key} parameter ${j} is not ${p.name}`);
        this.params.set(p, { file, map: pm });
      });
    });
  }

  /** The YAML map of an enum in enums.yaml. */
  enumMap(name: string): Located {
    const file = this.files.get('enums.yaml');
    const map = file?.doc.getIn(['enums', name], true);
    if (!file || !isMap(map)) throw new Error(`enums.yaml: no enum ${name}`);
    return { file, map };
  }

  value(enumName: string, v: EnumValue): Located {
    if (!this.values.size) {
      for (const [name, def] of Object.entries(this.service.enums)) {
        const { file, map } = this.enumMap(name);
        const seq = map.get('values', true) as unknown as YAMLSeq<YAMLMap>;
        def.values.forEach((x, i) => {
          const vm = isSeq(seq) ? seq.items[i] : undefined;
          if (!isMap(vm) || String(vm.get('value')) !== x.value) throw new Error(`enums.yaml: ${name} value ${i} is not ${x.value}`);
          this.values.set(x, { file, map: vm });
        });
      }
    }
    const at = this.values.get(v);
    if (!at) throw new Error(`enums.yaml: ${enumName} ${v.value} not found`);
    return at;
  }
}
