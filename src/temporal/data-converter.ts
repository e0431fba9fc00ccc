import type { DataConverter } from '@temporalio/common';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Config } from '../config.js';
import { AesGcmCodec, generateCodecKey } from './codec.js';

/** The same converter must be used by every client and worker of a namespace. */
export function dataConverterFor(config: Config): DataConverter | undefined {
  if (config.HERALD_CODEC_KEYS.length === 0) return undefined;
  return { payloadCodecs: [new AesGcmCodec(config.HERALD_CODEC_KEYS)] };
}

/**
 * `npm start` encrypts by default: without a configured key it makes one once and keeps
 * it beside the SQLite file, since the two are useless without each other.
 */
export function ensureLocalCodecKey(file: string): string {
  return ensureLocalSecret(file, generateCodecKey);
}

/** A secret made once and kept in a file only its owner can read. */
export function ensureLocalSecret(file: string, make: () => string): string {
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dirname(file), { recursive: true });
  const value = make();
  writeFileSync(file, `${value}\n`, { mode: 0o600 });
  return value;
}
