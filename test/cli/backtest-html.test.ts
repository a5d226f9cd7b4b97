import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GitHubSimulator } from '../sim/index.js';
import { drawnCharts, overflowingSections } from '../support/page-charts.js';
import { appEnv } from '../support/harness.js';
import { seedMonth } from './backtest-history.js';

/** The docs' screenshot is refreshed on request (WRITE_SCREENSHOTS=1); a plain run leaves the checkout as it was. */
const screenshotPath = (name: string): string =>
  process.env.WRITE_SCREENSHOTS === '1'
    ? join(process.cwd(), 'docs', name)
    : join(tmpdir(), `reprise-${process.pid}-${name}`);

const BIN = resolve('lib/cli/bin.mjs');

/** Debian's Chromium, or another Chromium on PATH; CHROMIUM_PATH names one elsewhere. */
function findChromium(): string | undefined {
  const named = process.env.CHROMIUM_PATH;
  if (named && existsSync(named)) return named;
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    for (const name of ['chromium', 'chromium-browser']) {
      if (dir && existsSync(join(dir, name))) return join(dir, name);
    }
  }
  return undefined;
}

const chromium = findChromium();
if (!chromium)
  console.warn('reprise backtest browser test SKIPPED: no chromium binary found (apt-get install chromium)');

const TITLES = [
  'Re-runs reprise would have made, per day',
  'Failed attempts by class',
  'Delay before a re-run by people',
  'Repositories with the most re-runs',
  'Workflows with the most re-runs',
  'Evidence behind the re-runs',
];

describe('reprise backtest --html', () => {
  let sim: GitHubSimulator;
  const dir = mkdtempSync(join(tmpdir(), 'reprise-backtest-html-'));
  const file = join(dir, 'backtest.html');

  beforeAll(async () => {
    sim = await GitHubSimulator.start();
    seedMonth(sim);
    const got = await promisify(execFile)(process.execPath, [BIN, 'backtest', 'acme', '--html', file], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, ...appEnv(sim.url) },
      timeout: 120_000,
    });
    expect(got.stderr).toContain(`wrote ${file}`);
  }, 120_000);
  afterAll(async () => {
    await sim.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('one self-contained page: no script, nothing loaded from anywhere; each disagreement links to its run with its explain command', () => {
    const html = readFileSync(file, 'utf8');
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).not.toMatch(/<script|<link|<img|@import|url\(/i);
    expect(html.match(/\ssrc=/g)).toBeNull();
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'"`);
    // Links are the runs' own pages on GitHub, three disagreements of the month.
    const links = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    expect(links).toHaveLength(4);
    for (const l of links)
      expect(l).toMatch(/^https:\/\/github\.com\/acme\/(web|api)\/actions\/runs\/\d+(\/attempts\/\d+)?$/);
    expect(html.match(/<code>reprise explain acme\/(web|api)#\d+@\d<\/code>/g)).toHaveLength(4);
  });

  describe.skipIf(!chromium)(`in a real browser${chromium ? '' : ' (SKIPPED: no chromium binary found)'}`, () => {
    const open = async (width: number) => {
      const puppeteer = (await import('puppeteer-core')).default;
      const browser = await puppeteer.launch({
        executablePath: chromium,
        headless: true,
        // Root in a container has no user namespace for the sandbox.
        args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none'],
      });
      const page = await browser.newPage();
      const errors: string[] = [];
      const requests: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') errors.push(m.text());
      });
      page.on('pageerror', (e) => errors.push(String(e)));
      page.on('request', (r) => requests.push(r.url()));
      await page.setViewport({ width, height: 900, deviceScaleFactor: 1, isMobile: width < 600 });
      await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
      return { browser, page, errors, requests };
    };

    it('renders with no console error and no request, the cards and every chart drawn; screenshot kept in docs/backtest.png with WRITE_SCREENSHOTS=1', async () => {
      const { browser, page, errors, requests } = await open(1100);
      try {
        const charts = await page.$$eval('section', (sections) =>
          sections.map((s) => ({
            title: s.querySelector('h2')?.textContent ?? '',
            drawn: [...s.querySelectorAll('svg .mark')].filter((m) => m.getBoundingClientRect().width > 0).length,
          })),
        );
        expect(charts.map((c) => c.title)).toEqual([...TITLES, 'Disagreements']);
        // Five days with re-runs reprise would make; four classes; delay buckets; two repositories.
        expect(charts.slice(0, 4).map((c) => c.drawn)).toEqual([6, 4, 3, 2]);
        for (const c of charts.slice(0, 6)) expect(c.drawn, c.title).toBeGreaterThan(0);
        const cards = await page.$eval('.cards', (el) => el.textContent ?? '');
        expect(cards).toContain('runs examined');
        expect(cards).toContain('re-runs reprise would make');
        expect(cards).toContain('1.7 hwaiting time saved');
        expect(cards).toContain('4disagreements');
        expect(errors).toEqual([]);
        expect(requests).toEqual([pathToFileURL(file).href]);
        const png = screenshotPath('backtest.png');
        await page.screenshot({ path: png as `${string}.png`, fullPage: true });
        expect(readFileSync(png).subarray(1, 4).toString()).toBe('PNG');
      } finally {
        await browser.close();
      }
    }, 60_000);

    it('is readable at 390 px wide: no horizontal overflow, every chart drawn, text at least 10 px', async () => {
      const { browser, page } = await open(390);
      try {
        expect(await page.$eval('html', (h) => h.scrollWidth)).toBeLessThanOrEqual(390);
        const overflowing = await overflowingSections(page);
        expect(overflowing).toEqual([]);
        const charts = await drawnCharts(page);
        expect(charts).toHaveLength(TITLES.length);
        for (const c of charts) expect(c.marks).toBeGreaterThan(0);
        for (const t of charts.flatMap((c) => c.texts)) {
          expect(t.px, `"${t.text}" at ${t.px.toFixed(1)} px`).toBeGreaterThanOrEqual(10);
          expect(t.inside, `"${t.text}" inside its chart`).toBe(true);
        }
      } finally {
        await browser.close();
      }
    }, 60_000);
  });
});
