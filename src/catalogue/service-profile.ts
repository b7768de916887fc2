// How a service's upstream speaks HTTP, as service.yaml declares it: its error envelope and codes, the
// answers by which it says something does not exist, its version header and how credentials reach it.
// Part of the model (model.ts re-exports these types).

export interface ErrorConfig {
  envelope: 'code-msg' | 'error' | 'message';
  codes: Record<string, number>;
  /** envelope message: the documentation_url of the gateway's own answers. */
  documentationUrl?: string;
  /** The upstream's answers meaning "no such operation" / "no such parameter" (drift from the catalogue). */
  upstreamUnknown?: UpstreamUnknown;
}

/** One kind of upstream answer: its HTTP status (absent: any 4xx) and its envelope code ('none': no code; absent: any). */
export interface UpstreamAnswer {
  status?: number;
  code?: number | 'none';
}

/** service.yaml errors.upstreamUnknown: what the upstream answers when an operation or a parameter does not exist there. */
export interface UpstreamUnknown {
  operation: UpstreamAnswer[];
  parameter: UpstreamAnswer[];
  source: string;
}

/** The header by which the upstream's clients choose its version, and the releases its values name. */
export interface VersionHeader {
  /** As written (X-GitHub-Api-Version). */
  name: string;
  /** Each value the upstream accepts → the newest release it names. */
  values: Record<string, string>;
  /** The release of a request that chooses none. */
  absent?: string;
  source?: string;
  note?: string;
}

export interface Credentials {
  /** The client's own Authorization reaches the upstream unchanged. */
  forward: boolean;
  /** Where a client's gateway token travels, as written (Authorization, X-Gateway-Token). */
  tokenHeader: string;
  /** Where a credential the gateway holds for the service goes, on requests that present a gateway token. */
  inject?: { header: string; prefix: string };
  source?: string;
  note?: string;
}
