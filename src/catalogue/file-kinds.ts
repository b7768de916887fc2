// The catalogue's file kinds, declared once: the file name (or folder) each kind lives in and the
// $defs entry of catalogue/schema/catalogue.schema.json that validates it. The loader sorts files
// by it and the validators are compiled from it.
export const FILE_KINDS = {
  service: { file: 'service.yaml', def: 'serviceFile' },
  releases: { file: 'releases.yaml', def: 'releasesFile' },
  enums: { file: 'enums.yaml', def: 'enumsFile' },
  streams: { file: 'streams.yaml', def: 'streamsFile' },
  wsApi: { file: 'ws-api.yaml', def: 'wsApiFile' },
  /** endpoints.yaml, or any YAML file under endpoints/ (one per module). */
  endpoints: { file: 'endpoints.yaml', folder: 'endpoints/', def: 'endpointsFile' },
  /** Version changes: how requests at older releases reach the upstream's (src/catalogue/changes/). */
  changes: { file: 'changes.yaml', def: 'changesFile' },
  /** Endpoints clients call that the gateway deliberately does not serve, each with its reason. */
  notServed: { file: 'not-served.yaml', def: 'notServedFile' },
} as const;

export type Kind = keyof typeof FILE_KINDS;
export const KINDS = Object.keys(FILE_KINDS) as Kind[];

/** The kind of a file by its path inside the service folder, or undefined for a file that is none. */
export function kindOf(path: string): Kind | undefined {
  for (const k of KINDS) {
    const spec: { file: string; folder?: string } = FILE_KINDS[k];
    if (path === spec.file || (spec.folder && path.startsWith(spec.folder))) return k;
  }
  return undefined;
}

/** "service.yaml, releases.yaml, …, or endpoints/*.yaml", for messages. */
export const KNOWN_FILES = `${KINDS.map((k) => FILE_KINDS[k].file).join(', ')} or endpoints/*.yaml`;
