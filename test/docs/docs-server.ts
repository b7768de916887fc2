// A plain node:http server on 127.0.0.1 that answers with docsRoute (and /_gateway/openapi.json from
// toOpenApi), so the docs tests do not depend on how the gateway wires its admin routes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadCatalogue } from '../../src/catalogue/load.js';
import { pinViews, type ReleasePin } from '../../src/catalogue/pin.js';
import type { ReleaseView } from '../../src/catalogue/resolve.js';
import { toOpenApi } from '../../src/catalogue/to-openapi.js';
import { docsRoute } from '../../src/docs/index.js';

export interface DocsServer {
  url: string;
  views: ReleaseView[];
  close(): Promise<void>;
}

export async function startDocsServer(pin: ReleasePin): Promise<DocsServer> {
  const { catalogue } = loadCatalogue();
  const views = pinViews(catalogue, pin);
  let openapi: string | undefined;
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    try {
      if (url.pathname === '/_gateway/openapi.json') {
        res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' }).end((openapi ??= JSON.stringify(toOpenApi(views))));
        return;
      }
      const a = docsRoute(url.pathname, url.searchParams, views);
      if (!a) {
        res.writeHead(404, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify({ error: `no route ${url.pathname}` }));
        return;
      }
      res.writeHead(a.status, a.headers).end(req.method === 'HEAD' ? undefined : a.body);
    } catch (e) {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String((e as Error).stack));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    views,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
