import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LEGACY_PARTITIONS, partitionConfig, taskQueuePartitions } from '../../src/temporal/task-queue-partitions.js';

// R-SMENGO-FAIR, issue 16: the embedded server's task queues have one partition, so fairness
// by endpoint holds across all of a queue's tasks; a database made before keeps its four.
describe('issue 16: the embedded server\'s task-queue partitions', () => {
  const dirs: string[] = [];
  const dir = () => {
    const d = mkdtempSync(join(tmpdir(), 'herald-partitions-'));
    dirs.push(d);
    return d;
  };
  afterEach(() => {
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });

  it('R-SMENGO-FAIR: a new database and an in-memory server get one partition, and the database keeps it', () => {
    expect(taskQueuePartitions(undefined)).toBe(1);
    const db = join(dir(), 'herald.db');
    expect(taskQueuePartitions(db)).toBe(1);
    // The server then creates the database; on the next start it is not taken for an old one.
    writeFileSync(db, 'sqlite');
    expect(taskQueuePartitions(db)).toBe(1);
    expect(readFileSync(`${db}.partitions`, 'utf8').trim()).toBe('1');
  });

  it('R-SMENGO-FAIR: a database made before keeps four, so no task it holds in the other three is stranded', () => {
    const db = join(dir(), 'herald.db');
    writeFileSync(db, 'sqlite');
    expect(taskQueuePartitions(db)).toBe(LEGACY_PARTITIONS);
    expect(taskQueuePartitions(db)).toBe(LEGACY_PARTITIONS);
    expect(LEGACY_PARTITIONS).toBe(4);
  });

  it('a count file that is not a count stops the start with its path', () => {
    const db = join(dir(), 'herald.db');
    writeFileSync(`${db}.partitions`, 'many\n');
    expect(() => taskQueuePartitions(db)).toThrow(/herald\.db\.partitions.*"many"/);
  });

  it('sets the read and the write partitions alike (fewer read than written would strand tasks)', () => {
    expect(partitionConfig(1)).toEqual([
      'matching.numTaskqueueReadPartitions=1',
      'matching.numTaskqueueWritePartitions=1',
    ]);
  });
});
