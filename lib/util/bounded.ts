/**
 * Maps items with at most `limit` calls in flight. When `stop()` turns true, items not yet
 * started are skipped and reported back, so the caller can say how many went unexamined.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T) => Promise<R>,
  stop: () => boolean = () => false,
): Promise<{ results: R[]; skipped: T[] }> {
  const results: R[] = [];
  const skipped: T[] = [];
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < items.length) {
      const item = items[next++] as T;
      if (stop()) {
        skipped.push(item);
        continue;
      }
      results.push(await fn(item));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return { results, skipped };
}
