// The deployment artefacts, checked offline: every Kubernetes manifest under deploy/ against the
// Kubernetes API schemas (kubernetes-models), every kustomization's files present, the gateway's
// container flags accepted by the gateway's own configuration reader, the probes and grace period
// consistent with how the gateway drains, and the Dockerfile linted (dockerfile-utils).
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { test } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { readConfig } from '../../src/config.js';
import { imageEnv, shippedAllocatorEnv } from '../support/image-env.js';
import { ROOT } from '../support/processes.js';

const require = createRequire(import.meta.url);
const DEPLOY = join(ROOT, 'deploy');

interface Doc { apiVersion: string; kind: string; metadata?: { name?: string }; spec?: any; resources?: string[]; patches?: { path: string }[] }

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? yamlFiles(p) : /\.ya?ml$/.test(n) ? [p] : [];
  });
}

const docs = yamlFiles(DEPLOY).flatMap((file) => parseAllDocuments(readFileSync(file, 'utf8')).map((d) => {
  assert.equal(d.errors, [], `${file}: YAML errors`);
  return { file, doc: d.toJS() as Doc };
}));

/** The kubernetes-models class of a manifest: core objects under v1/, groups under <group>/<version>/. */
function modelOf(doc: Doc): (new (d: unknown) => { validate(): void }) | undefined {
  const [group, version] = doc.apiVersion.includes('/') ? doc.apiVersion.split('/') : ['', doc.apiVersion];
  const path = `kubernetes-models/${group ? `${group}/` : ''}${version}/${doc.kind}`;
  try {
    return require(path)[doc.kind];
  } catch {
    return undefined;
  }
}

test('every manifest validates against the Kubernetes API schema of its kind', () => {
  const objects = docs.filter(({ doc }) => !doc.apiVersion.startsWith('kustomize.config.k8s.io/'));
  assert.ok(objects.length >= 8, `${objects.length} manifests`);
  const kinds = new Set(objects.map(({ doc }) => doc.kind));
  for (const k of ['Deployment', 'Service', 'PodDisruptionBudget', 'HorizontalPodAutoscaler', 'PersistentVolumeClaim']) assert.ok(kinds.has(k), `a ${k}`);
  // A strategic-merge patch is a partial object: it is checked once merged, by kustomize, not here.
  const patches = new Set(docs.flatMap(({ file, doc }) => (doc.patches ?? []).map((p) => join(dirname(file), p.path))));
  for (const { file, doc } of objects) {
    const Model = modelOf(doc);
    assert.ok(Model, `${file}: no schema for ${doc.apiVersion} ${doc.kind}`);
    if (patches.has(file)) continue;
    try {
      new Model!(doc).validate();
    } catch (e) {
      assert.unreachable(`${file}: ${doc.kind} ${doc.metadata?.name}: ${(e as Error).message}`);
    }
  }
});

test('a schema violation is caught (the check can fail)', () => {
  const { Deployment } = require('kubernetes-models/apps/v1/Deployment');
  assert.throws(() => new Deployment({ metadata: { name: 'x' }, spec: { replicas: '3', selector: {}, template: { spec: { containers: [{ name: 'a' }] } } } }).validate(), /replicas must be integer/);
});

test('every kustomization names files that exist', () => {
  const kustomizations = docs.filter(({ doc }) => doc.kind === 'Kustomization');
  assert.ok(kustomizations.length >= 2);
  for (const { file, doc } of kustomizations) {
    for (const r of [...(doc.resources ?? []), ...(doc.patches ?? []).map((p) => p.path)]) assert.ok(existsSync(join(dirname(file), r)), `${file}: ${r}`);
  }
});

test('the gateway container: flags the gateway accepts, probes on its health routes, grace above preStop + drain', () => {
  const { doc } = docs.find(({ doc: d }) => d.kind === 'Deployment' && d.metadata?.name === 'catalogue-gateway' && d.spec?.selector)!;
  const pod = doc.spec.template.spec;
  const c = pod.containers.find((x: { name: string }) => x.name === 'gateway');
  const env = Object.fromEntries((c.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value]));
  const cfg = readConfig(c.args, env); // throws on any flag the gateway would refuse
  assert.is(cfg.host, '0.0.0.0');
  assert.ok(cfg.fleet.startsWith('redis://') && cfg.rateLimitStore.startsWith('redis://'), 'shared budget and catalogue identity');
  assert.is(c.readinessProbe.httpGet.path, '/_gateway/ready');
  assert.is(c.livenessProbe.httpGet.path, '/_gateway/health');
  const preStop = Number(c.lifecycle.preStop.exec.command.at(-1));
  assert.ok(pod.terminationGracePeriodSeconds > preStop + (cfg.acceptGraceMs + cfg.shutdownGraceMs) / 1000, 'Kubernetes waits longer than preStop plus the gateway\'s hand-over and drain');
  assert.ok(c.resources.requests.cpu && c.resources.requests.memory && c.resources.limits.memory);
  assert.is(pod.securityContext.runAsNonRoot, true);
});

test('the TLS overlay: certificate and key from a Secret mounted read-only, flags the gateway accepts, probes on the plain health port', () => {
  const base = docs.find(({ doc: d }) => d.kind === 'Deployment' && d.spec?.selector)!.doc.spec.template.spec.containers.find((x: { name: string }) => x.name === 'gateway');
  const { doc } = docs.find(({ file, doc: d }) => file.includes('overlays/tls') && d.kind === 'Deployment')!;
  const pod = doc.spec.template.spec;
  const c = pod.containers.find((x: { name: string }) => x.name === 'gateway');
  const env = Object.fromEntries((c.env ?? []).map((e: { name: string; value: string }) => [e.name, e.value]));
  const cfg = readConfig(base.args, env);
  const mount = c.volumeMounts.find((m: { name: string }) => m.name === 'tls');
  assert.ok(mount.readOnly);
  assert.ok(cfg.tlsCert!.startsWith(`${mount.mountPath}/`) && cfg.tlsKey!.startsWith(`${mount.mountPath}/`), 'both files from the mounted Secret');
  assert.is(pod.volumes.find((v: { name: string }) => v.name === 'tls').secret.secretName, 'catalogue-gateway-tls');
  const probes = c.ports.find((p: { name: string }) => p.name === 'probes');
  assert.is(probes.containerPort, cfg.healthPort);
  assert.is(c.readinessProbe.httpGet.port, 'probes');
  assert.is(c.livenessProbe.httpGet.port, 'probes');
});

test('the Dockerfile lints clean and runs the gateway as a non-root user from a slim stage', () => {
  const text = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
  const { validate } = require('dockerfile-utils') as { validate(t: string): { message: string; range: { start: { line: number } } }[] };
  assert.equal(validate(text).map((d) => `line ${d.range.start.line + 1}: ${d.message}`), []);
  assert.ok(validate('FROM node:20\nEXPOSE port\n').length > 0, 'the linter reports a bad Dockerfile');
  assert.is((text.match(/^FROM /gm) ?? []).length, 2, 'multi-stage');
  assert.match(text, /^RUN npm ci --omit=dev/m);
  assert.match(text, /^USER node$/m);
  const cmd = JSON.parse(/^CMD (.*)$/m.exec(text)![1]) as string[];
  assert.equal(cmd, ['node', 'dist/src/cli.cjs']);
  assert.is(readConfig([], imageEnv()).host, '0.0.0.0', 'the image listens on every interface');
});

test('the image and `npm start` run the gateway with the same allocator settings', () => {
  const image = shippedAllocatorEnv();
  assert.equal(Object.keys(image), ['MALLOC_ARENA_MAX']);
  const start = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.start;
  for (const [name, value] of Object.entries(image)) {
    // An operator's own value wins over npm start's, as `docker run -e` does over the image's.
    assert.ok(start.includes(`${name}=\${${name}:-${value}}`), `npm start sets ${name} to ${value} unless already set: ${start}`);
  }
});

test.run();
