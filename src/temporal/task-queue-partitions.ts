import { existsSync, readFileSync, writeFileSync } from 'node:fs';

/**
 * R-SMENGO-FAIR: matching hands tasks out by fairness key only within one partition of a
 * task queue. With the CLI's four, the other three forward their tasks to the first, where
 * they go ahead of its own backlog, so a burst to one endpoint delayed other endpoints'
 * first tasks by up to matching's 5 s "negligible backlog" age (BENCHMARKS.md, session 23).
 * One process serving one worker gains nothing from four, so a new database gets one.
 *
 * A database made before holds tasks in all four, and a server reading fewer partitions
 * never hands those out: it keeps four. The count is written beside the database, so a
 * database keeps the count it was made with.
 */
export const LEGACY_PARTITIONS = 4;

export function taskQueuePartitions(dbFile: string | undefined): number {
  if (!dbFile) return 1;
  const marker = `${dbFile}.partitions`;
  if (existsSync(marker)) {
    const text = readFileSync(marker, 'utf8').trim();
    const n = Number(text);
    if (Number.isInteger(n) && n >= 1) return n;
    throw new Error(`${marker}: expected a partition count, found "${text}"`);
  }
  const n = existsSync(dbFile) ? LEGACY_PARTITIONS : 1;
  writeFileSync(marker, `${n}\n`);
  return n;
}

/** The dynamic config that sets both the read and write partitions of every task queue. */
export function partitionConfig(n: number): string[] {
  return [`matching.numTaskqueueReadPartitions=${n}`, `matching.numTaskqueueWritePartitions=${n}`];
}
