// What building one service shares across its files: the service taking shape, the release index
// every lifecycle resolves against, the problems found, and the schemas compiled at the end (a
// parameter's schema takes its enum's values, known only once every file is read).
import type { Endpoint, Parameter, Service } from '../model.js';
import type { Problem } from '../problems.js';
import type { Kind } from '../file-kinds.js';
import { SchemaCheck } from '../schema-check.js';
import type { ParsedYaml } from '../yaml-file.js';

export interface RawFile extends ParsedYaml {
  /** Path inside the service folder, e.g. "endpoints/market.yaml". */
  path: string;
}

export type Path = (string | number)[];

export class ServiceBuild {
  readonly releaseIndex = new Map<string, number>();
  svc!: Service;
  /** Schemas compiled once every enum is known (a parameter's schema takes its enum's values). */
  readonly paramSchemas: { f: RawFile; path: Path; p: Parameter; owner: string }[] = [];
  readonly bodies: { f: RawFile; path: Path; e: Endpoint }[] = [];
  readonly schemaCheck: SchemaCheck;

  constructor(
    readonly id: string,
    readonly files: Map<Kind, RawFile[]>,
    readonly problems: Problem[],
    readonly warnings: Problem[],
    cacheDir: string | false,
  ) {
    this.schemaCheck = new SchemaCheck(cacheDir);
  }

  problem(f: RawFile, path: Path, message: string): void {
    this.problems.push({ file: f.file, line: f.lineOf(path), message });
  }
}

/** A list without the holes withoutFaultyItems() left (map() keeps holes, filter() drops them). */
export const dense = <T>(list: T[]): T[] => list.filter(() => true);
