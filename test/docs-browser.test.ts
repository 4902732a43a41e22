import t from 'tap';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import puppeteer, { type Browser, type HTTPResponse } from 'puppeteer-core';
import { OPERATOR_KEY, call, startTestServer } from './helpers/server.js';

const CHROMIUM = '/usr/bin/chromium';

/**
 * GET /docs in a real browser (Debian's Chromium, headless, driven by puppeteer-core): the reference lists every
 * operation of /openapi.json, and "Try it out" on /embed with a key typed into Authorize gets a 200 with vectors.
 */
t.test('the /docs page in Chromium', { skip: !existsSync(CHROMIUM) && `${CHROMIUM} is absent (bash scripts/ensure-chromium.sh installs Debian's chromium)`, saveFixture: true }, async (t) => {
  const srv = await startTestServer();
  t.teardown(() => srv.close());
  const documented = (await call(srv.url, 'GET', '/openapi.json')).body;
  const operations = Object.entries(documented.paths as Record<string, Record<string, unknown>>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`)).sort();

  const shots = t.testdir(); // kept after the run (saveFixture): the screenshot is for people to look at
  const profile = mkdtempSync(join(tmpdir(), 'mi-chromium-'));
  t.teardown(() => rmSync(profile, { recursive: true, force: true }));
  const browser: Browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', `--user-data-dir=${profile}`],
    defaultViewport: { width: 1280, height: 1800 },
  });
  t.teardown(() => browser.close());
  const page = await browser.newPage();
  const requested: string[] = [];
  page.on('request', (r) => requested.push(r.url()));
  const pageErrors: string[] = [];
  page.on('pageerror', (e) => pageErrors.push(String(e)));

  await page.goto(`${srv.url}/docs`, { waitUntil: 'networkidle0' });
  await page.waitForSelector('.opblock', { timeout: 30000 });

  t.test('every documented operation is listed', async (t) => {
    const listed = await page.$$eval('.opblock', (blocks) =>
      blocks.map((b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`),
    );
    t.same([...listed].sort(), operations, `${operations.length} operations listed, no more, no fewer`);
    t.match(await page.$eval('.info .title', (e) => e.textContent ?? ''), /Menu Intelligence API/);
    await page.screenshot({ path: join(shots, 'docs-overview.png'), fullPage: true });
  });

  t.test('Authorize with a key, Try it out on POST /embed, Execute: 200 with vectors', async (t) => {
    await page.click('.auth-wrapper .authorize');
    await page.waitForSelector('.modal-ux .auth-container');
    const containers = await page.$$('.modal-ux .auth-container');
    let filled = false;
    for (const c of containers) {
      const title = await c.$eval('h4', (h) => h.textContent ?? '');
      if (!title.includes('ApiKeyAuth')) continue;
      await (await c.$('input'))!.type(OPERATOR_KEY);
      await (await c.$('button.authorize'))!.click();
      filled = true;
      break;
    }
    t.ok(filled, 'the X-API-Key scheme is offered in Authorize');
    await page.click('.modal-ux .btn-done, .modal-ux .close-modal');

    const block = '#operations-Embeddings-embed';
    await page.click(`${block} .opblock-summary`);
    await page.waitForSelector(`${block} .try-out__btn`);
    await page.click(`${block} .try-out__btn`);
    const example = await page.$eval(`${block} textarea.body-param__text`, (e) => (e as HTMLTextAreaElement).value);
    const sentItems = (JSON.parse(example) as { items: string[] }).items;
    t.ok(sentItems.some((s) => /Biryani|पनीर|tikka/i.test(s)), 'the body is prefilled with the real-menu example');

    const answer: Promise<HTTPResponse> = page.waitForResponse((r) => r.url() === `${srv.url}/embed` && r.request().method() === 'POST', { timeout: 60000 });
    await page.click(`${block} .execute`);
    const response = await answer;
    t.equal(response.request().headers()['x-api-key'], OPERATOR_KEY, 'the page sent the key it was given');
    t.equal(response.status(), 200);
    const body = (await response.json()) as { embeddings: number[][]; dimension: number; count: number };
    t.equal(body.count, sentItems.length);
    t.equal(body.embeddings.length, sentItems.length, 'one vector per item');
    for (const v of body.embeddings) {
      t.equal(v.length, body.dimension);
      t.ok(Math.abs(v.reduce((s, x) => s + x * x, 0) - 1) < 1e-3, 'unit norm');
    }
    const row = `${block} .live-responses-table tbody tr.response`;
    await page.waitForSelector(`${row} .response-col_status`, { timeout: 30000 });
    const shot = join(shots, 'docs-embed-try-it.png');
    await page.$eval(`${block} .live-responses-table`, (e) => e.scrollIntoView({ block: 'center' }));
    await page.screenshot({ path: shot, fullPage: false });
    t.ok(statSync(shot).size > 10_000, `screenshot saved: ${shot}`);
    t.comment(`screenshot: ${shot}`);
    t.equal((await page.$eval(`${row} .response-col_status`, (e) => e.textContent ?? '')).trim(), '200', 'the page shows 200');
    const shown = await page.$eval(`${row} .response-col_description pre`, (e) => e.textContent ?? '');
    t.match(shown, /"embeddings"/, 'and the vectors');
  });

  t.test('nothing was fetched from anywhere but this server, and the page threw nothing', async (t) => {
    const foreign = requested.filter((u) => !u.startsWith(srv.url) && !u.startsWith('data:'));
    t.same(foreign, [], 'no CDN, no validator badge');
    t.ok(requested.some((u) => u === `${srv.url}/docs/assets/swagger-ui-bundle.js`), 'Swagger UI came from the server');
    t.same(pageErrors, []);
  });
});
