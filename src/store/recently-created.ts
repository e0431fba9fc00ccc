/**
 * Ids this process created in the last `keepMs`, per tenant. Visibility is eventually
 * consistent: a list right after a create may not show the new workflow yet, and a count
 * or a publish straight after the create must still see it.
 */
export class RecentlyCreated {
  private readonly byTenant = new Map<string, Map<string, number>>();

  constructor(
    private readonly keepMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  remember(tenantId: string, id: string): void {
    let m = this.byTenant.get(tenantId);
    if (!m) this.byTenant.set(tenantId, (m = new Map()));
    m.set(id, this.now());
  }

  ids(tenantId: string): string[] {
    const m = this.byTenant.get(tenantId);
    if (!m) return [];
    for (const [id, at] of m) if (this.now() - at > this.keepMs) m.delete(id);
    if (m.size === 0) this.byTenant.delete(tenantId);
    return [...m.keys()];
  }
}
