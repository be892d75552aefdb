// axe-core (the exact-pinned dev dependency) in a Playwright page: injected through the driver
// (so the pages' strict Content-Security-Policy need not allow it) and run on the whole page.
// `seriousViolations` gives what WCAG 2.x A/AA rules (and axe's best practices) find with a
// serious or critical impact, each as one readable line naming the rule and the elements.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
let source = null;

/** The violations of impact `serious` or `critical` on `page` now, as strings (none: `[]`). */
export async function seriousViolations(page, { exclude = [] } = {}) {
  source ??= await readFile(require.resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.evaluate(source);
  const violations = await page.evaluate(
    (excluded) =>
      window.axe
        .run(
          { exclude: excluded.map((selector) => [selector]) },
          { resultTypes: ['violations'], runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } },
        )
        .then((result) =>
          result.violations.map((v) => ({
            id: v.id,
            impact: v.impact,
            help: v.help,
            nodes: v.nodes.map((n) => `${n.target.join(' ')}${n.failureSummary ? ` (${n.failureSummary.split('\n').slice(1).join(' ').trim()})` : ''}`),
          })),
        ),
    exclude,
  );
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.impact} ${v.id}: ${v.help}: ${v.nodes.join('; ')}`);
}
