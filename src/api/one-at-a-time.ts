/**
 * Runs tasks with the same key one after another (tasks with other keys run freely), so a
 * check-then-act such as "count the tenant's endpoints, then create one" holds against
 * concurrent requests in this process. A task that fails does not stop the next one.
 */
export class OneAtATime {
  private readonly tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const before = this.tails.get(key) ?? Promise.resolve();
    const result = before.then(task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    try {
      return await result;
    } finally {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }
}
