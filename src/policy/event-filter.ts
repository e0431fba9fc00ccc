/** An endpoint's event-type filter: empty means every type; `order.*` matches `order.paid`. */
export function matchesEventType(filter: readonly string[] | undefined, type: string): boolean {
  if (!filter || filter.length === 0) return true;
  return filter.some((f) => f === '*' || f === type || (f.endsWith('.*') && type.startsWith(f.slice(0, -1))));
}
