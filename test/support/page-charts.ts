/**
 * What a report page shows at a given width, measured in the browser: the sections wider than
 * their box, and each chart drawn (an `svg` of some width) with its visible marks and each label's
 * rendered size and whether it stays inside the chart.
 */
import type { Page } from 'puppeteer-core';

export interface DrawnChart {
  readonly marks: number;
  readonly texts: readonly { readonly text: string; readonly px: number; readonly inside: boolean }[];
}

/** The headings of the sections whose content overflows them. */
export const overflowingSections = (page: Page): Promise<(string | null | undefined)[]> =>
  page.$$eval('section', (all) =>
    all.filter((s) => s.scrollWidth > s.clientWidth).map((s) => s.querySelector('h2')?.textContent),
  );

export const drawnCharts = (page: Page): Promise<DrawnChart[]> =>
  page.$$eval('svg', (all) =>
    all
      .filter((s) => s.getBoundingClientRect().width > 0)
      .map((s) => {
        const scale = (s as unknown as { getScreenCTM(): { a: number } | null }).getScreenCTM()?.a ?? 0;
        const frame = s.getBoundingClientRect();
        const view = s.ownerDocument.defaultView;
        return {
          marks: [...s.querySelectorAll('.mark')].filter((m) => m.getBoundingClientRect().width > 0).length,
          texts: [...s.querySelectorAll('text')].map((t) => {
            const box = t.getBoundingClientRect();
            return {
              text: t.textContent ?? '',
              px: parseFloat(view?.getComputedStyle(t).fontSize ?? '0') * scale,
              inside: box.left >= frame.left - 0.5 && box.right <= frame.right + 0.5,
            };
          }),
        };
      }),
  );
