import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { portFree } from '../../src/port-free.js';

/** Every port the stack listens on, all on 127.0.0.1. */
export interface StackPorts {
  postgres: number;
  temporal: number;
  temporalHttp: number;
  frontendMembership: number;
  history: number;
  historyMembership: number;
  matching: number;
  matchingMembership: number;
  worker: number;
  workerMembership: number;
  ui: number;
  api: number;
  codec: number;
  apiMetrics: number;
  workerMetrics: number[];
}

/**
 * A free port below 32768: Temporal stores membership ports in a SMALLINT column, so the
 * OS's ephemeral range (32768+) fails its heartbeat. Random, to stay clear of other stacks.
 */
export async function freePort(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await portFree(port)) return port;
  }
  throw new Error('no free port in 20000-31999');
}

/**
 * The ports of a stack folder: the ones it had last time when they are still free (Temporal
 * records its frontend address in the database), fresh free ones otherwise.
 */
export async function stackPorts(
  file: string,
  workers: number,
  wanted: Partial<StackPorts> = {},
): Promise<StackPorts> {
  const saved = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Partial<StackPorts>) : {};
  const pick = async (key: Exclude<keyof StackPorts, 'workerMetrics'>): Promise<number> => {
    const want = wanted[key] ?? saved[key];
    if (want !== undefined && (await portFree(want))) return want;
    if (wanted[key] !== undefined) throw new Error(`port ${wanted[key]} (${key}) is in use`);
    return freePort();
  };
  const ports: StackPorts = {
    postgres: await pick('postgres'),
    temporal: await pick('temporal'),
    temporalHttp: await pick('temporalHttp'),
    frontendMembership: await pick('frontendMembership'),
    history: await pick('history'),
    historyMembership: await pick('historyMembership'),
    matching: await pick('matching'),
    matchingMembership: await pick('matchingMembership'),
    worker: await pick('worker'),
    workerMembership: await pick('workerMembership'),
    ui: await pick('ui'),
    api: await pick('api'),
    codec: await pick('codec'),
    apiMetrics: await pick('apiMetrics'),
    workerMetrics: [],
  };
  for (let i = 0; i < workers; i++) {
    const want = saved.workerMetrics?.[i];
    ports.workerMetrics.push(want !== undefined && (await portFree(want)) ? want : await freePort());
  }
  // Distinct even when the OS hands one port out twice in a row.
  const all = [
    ...Object.values(ports).filter((v): v is number => typeof v === 'number'),
    ...ports.workerMetrics,
  ];
  if (new Set(all).size !== all.length) return stackPorts(file, workers, wanted);
  writeFileSync(file, JSON.stringify(ports, null, 2));
  return ports;
}
