// The docs pages in a real headless browser (Debian's chromium driven by puppeteer-core): Swagger UI
// renders every endpoint of the pin, the timeline shows the changes of 3.6.0, the comparison puts two
// releases side by side, and no request the pages make leaves the gateway's origin. Screenshots of
// both pages are written to test-output/docs-screenshots/ in the repository (git-ignored,
// overwritten each run) for people to look at: deliberately not the run's temp folder, which the
// test runner requires to be left empty.
// Swagger UI takes ~8 s of one core to draw the pin's ~430 operations here; beside two busy loops
// and five other test files it gets a small share of a core, so the file and its waits get more time.
// test-runner: limit 300 s
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { suite } from '../support/uvu.js';
import * as assert from '../support/assert.js';
import { diffReleases } from '../../src/diff/index.js';
import { startDocsServer, type DocsServer } from './docs-server.js';
import { ROOT } from '../support/processes.js';
import { tempDir } from '../support/temp.js';

const CHROMIUM = '/usr/bin/chromium';
const PIN = '3.12.0';
/** How long a page may take to load or draw (the file's limit is 300 s). */
const WAIT_MS = 200_000;
export const SCREENSHOTS = join(ROOT, 'test-output', 'docs-screenshots');

const test = suite('docs pages in a browser');
let server: DocsServer;
let browser: Browser;
let profile: string;
/** Every request any page of the browser made, and every CSP refusal or page error it reported. */
const requests: string[] = [];
const complaints: string[] = [];

test.before(async () => {
  server = await startDocsServer({ all: PIN, byService: {} });
  profile = tempDir('docs-chromium-');
  mkdirSync(SCREENSHOTS, { recursive: true });
  browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    protocolTimeout: WAIT_MS,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
});

test.after(async () => {
  await browser?.close();
  await server?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

async function open(path: string): Promise<Page> {
  const page = await browser.newPage();
  page.setDefaultTimeout(WAIT_MS);
  await page.setViewport({ width: 1280, height: 900 });
  page.on('request', (r) => void requests.push(r.url()));
  page.on('console', (m) => {
    if (m.type() === 'error' || /Content Security Policy|Refused to/i.test(m.text())) complaints.push(`${path}: console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => void complaints.push(`${path}: page error: ${String(e)}`));
  const res = await page.goto(`${server.url}${path}`, { waitUntil: 'networkidle0', timeout: WAIT_MS });
  assert.is(res?.status(), 200, `GET ${path}`);
  return page;
}

/**
 * "METHOD /path" of every operation Swagger UI draws. It only keeps the operations near the viewport
 * in the page, so the page is scrolled from top to bottom and what appears is collected.
 */
async function renderedOperations(page: Page): Promise<string[]> {
  const seen = new Set<string>();
  // A tall window for the sweep: fewer steps, each sees more (steps overlap by 500 px).
  const viewport = page.viewport()!;
  await page.setViewport({ ...viewport, height: 3000 });
  for (let y = 0; ; y += 2500) {
    await page.evaluate((to) => window.scrollTo(0, to), y);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    const now = await page.$$eval('.opblock', (els) =>
      els.map((el) => `${el.querySelector('.opblock-summary-method')?.textContent?.trim()} ${el.querySelector('.opblock-summary [data-path]')?.getAttribute('data-path')}`),
    );
    for (const k of now) seen.add(k);
    if (y > (await page.evaluate(() => document.documentElement.scrollHeight))) break;
  }
  await page.setViewport(viewport);
  await page.evaluate(() => window.scrollTo(0, 0));
  return [...seen];
}

test('/_gateway/docs renders every endpoint of the pin with Swagger UI', async () => {
  const page = await open('/_gateway/docs');
  await page.waitForSelector('.opblock', { timeout: WAIT_MS });
  const rendered = await renderedOperations(page);
  // The page shows the pinned release's set: the exchange at the pin and the unversioned services (GitHub has its own page).
  const expected = server.views.filter((v) => !v.release || v.release.id === PIN).flatMap((v) => v.served.map((e) => `${e.endpoint.method} ${e.endpoint.path}`));
  assert.ok(expected.length > 200, `the pin serves ${expected.length} endpoints`);
  const missing = expected.filter((k) => !rendered.includes(k));
  assert.equal(missing, [], `${missing.length} endpoint(s) of ${PIN} not rendered`);
  assert.is(new Set(rendered).size, expected.length, 'nothing rendered beyond the pin');
  const title = await page.$eval('.info .title', (el) => el.textContent ?? '');
  assert.match(title, PIN);
  await page.screenshot({ path: join(SCREENSHOTS, 'docs.png') });
  await page.close();
});

test('/_gateway/releases shows every release with its date and the changes of 3.6.0', async () => {
  const page = await open('/_gateway/releases');
  const exchange = server.views.find((v) => v.release)!.service;
  const ids = await page.$$eval('ol.timeline > li', (els) => els.map((el) => [el.id, el.querySelector('time')?.getAttribute('datetime')]));
  assert.equal(ids, [...exchange.releases].reverse().map((r) => [`r-${r.id}`, r.date]));
  const section = await page.$eval('#r-3\\.6\\.0', (el) => (el as HTMLElement).innerText);
  const changes = diffReleases({ dir: '', services: [exchange] }, exchange, '3.5.1', '3.6.0').changes;
  assert.ok(changes.length > 0, 'the catalogue has changes at 3.6.0');
  for (const c of changes) assert.ok(section.includes(c.message) && section.includes(c.id), `3.6.0 section lacks "${c.message}" (${c.id})`);
  assert.ok(await page.$(`#r-${PIN.replaceAll('.', '\\.')}.pinned`), `the pinned release ${PIN} is marked`);
  // A release after the seam shows its effective date beside its announcement date.
  const retired = await page.$eval('#r-2026\\.01\\.21', (el) => [...el.querySelectorAll('time')].map((t) => t.getAttribute('datetime')));
  assert.equal(retired, ['2026-01-21', '2026-02-20']);
  await page.screenshot({ path: join(SCREENSHOTS, 'releases.png') });
  await (await page.$('#r-3\\.6\\.0'))!.screenshot({ path: join(SCREENSHOTS, 'releases-3.6.0.png') });
  await page.close();
});

test('two releases side by side: ?from=3.5.1&to=3.6.0, reached through the form', async () => {
  const page = await open('/_gateway/releases');
  await page.select('select[name="from"]', '3.5.1');
  await page.select('select[name="to"]', '3.6.0');
  await Promise.all([page.waitForNavigation({ waitUntil: 'networkidle0' }), page.click('form.compare button')]);
  assert.match(page.url(), /\/_gateway\/releases\?(service=exchange&)?from=3\.5\.1&to=3\.6\.0$/); // a service select once there are several
  const sides = await page.$$eval('.sides .side h3', (els) => els.map((el) => el.textContent ?? ''));
  assert.is(sides.length, 2);
  assert.match(sides[0], '3.5.1');
  assert.match(sides[1], '3.6.0');
  const exchange = server.views.find((v) => v.release)!.service;
  const changes = diffReleases({ dir: '', services: [exchange] }, exchange, '3.5.1', '3.6.0').changes;
  const rows = await page.$$eval('table.diff tbody tr', (els) => els.map((el) => (el as HTMLElement).innerText));
  assert.is(rows.length, changes.length);
  changes.forEach((c, i) => assert.ok(rows[i].includes(c.message), `row ${i}: ${rows[i]} lacks ${c.message}`));
  await (await page.$('section.comparison'))!.screenshot({ path: join(SCREENSHOTS, 'compare.png') });
  await page.close();
});

test('no page made a request outside the gateway, and none reported a CSP refusal or error', () => {
  const origin = new URL(server.url).origin;
  assert.ok(requests.length >= 8, `only ${requests.length} requests recorded`);
  assert.ok(requests.some((u) => u.endsWith('/_gateway/docs/swagger-ui-bundle.js')), 'Swagger UI came from the gateway');
  const outside = requests.filter((u) => !u.startsWith('data:') && new URL(u).origin !== origin);
  assert.equal(outside, [], 'requests outside the gateway');
  assert.equal(complaints, []);
  console.log(`screenshots: ${SCREENSHOTS}`);
});

test.run();
