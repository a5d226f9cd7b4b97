/**
 * `*` matches any run of characters; everything else is literal, case-insensitive.
 * Matched by hand with the greedy two-pointer walk, not a RegExp: globs come from repository
 * config, and a regex built from many stars backtracks on long job names.
 */
export function globMatch(glob: string, name: string): boolean {
  const g = glob.toLowerCase();
  const n = name.toLowerCase();
  let gi = 0;
  let ni = 0;
  let star = -1;
  let resume = 0;
  while (ni < n.length) {
    if (gi < g.length && g[gi] === '*') {
      star = gi++;
      resume = ni;
    } else if (gi < g.length && g[gi] === n[ni]) {
      gi++;
      ni++;
    } else if (star >= 0) {
      gi = star + 1;
      ni = ++resume;
    } else {
      return false;
    }
  }
  while (gi < g.length && g[gi] === '*') gi++;
  return gi === g.length;
}
