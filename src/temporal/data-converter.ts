import type { DataConverter } from '@temporalio/common';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError, type Config } from '../config.js';
import { log } from '../observability/log.js';
import { AesGcmCodec, generateCodecKey } from './codec.js';

/**
 * Failure converter that moves messages and stack traces into an encoded payload (13.7).
 * Workers built from `workflowsPath` bundle it from the data converter; a prebuilt bundle
 * must name it too (`bundleWorkflowCode({ failureConverterPath })`).
 */
export const FAILURE_CONVERTER_PATH = fileURLToPath(new URL('./failure-converter.cjs', import.meta.url));

/** The same converter must be used by every client and worker of a namespace. */
export function dataConverterFor(config: Config): DataConverter | undefined {
  if (config.HERALD_CODEC_KEYS.length === 0) return undefined;
  return {
    payloadCodecs: [
      new AesGcmCodec(config.HERALD_CODEC_KEYS, { acceptPlaintext: config.HERALD_CODEC_ACCEPT_PLAINTEXT }),
    ],
    failureConverterPath: FAILURE_CONVERTER_PATH,
  };
}

/**
 * Issue 13.1: a worker or API on a cluster it did not start must encrypt what it writes
 * there; a missing key is refused rather than silently writing plaintext history. The
 * embedded `npm start` makes its own key, so only TEMPORAL_ADDRESS is checked.
 */
export function assertHistoryEncrypted(config: Config, warn: (msg: string) => void = (msg) => log.warn(msg)): void {
  if (!config.TEMPORAL_ADDRESS || config.HERALD_CODEC_KEYS.length > 0) return;
  if (config.HERALD_ALLOW_PLAINTEXT_HISTORY) {
    warn(
      `[herald] WARNING: HERALD_ALLOW_PLAINTEXT_HISTORY=true: no HERALD_CODEC_KEYS, so signing secrets, API-key hashes and event bodies are written to ${config.TEMPORAL_ADDRESS} in plaintext`,
    );
    return;
  }
  throw new ConfigError(
    `refusing to start: TEMPORAL_ADDRESS is set (${config.TEMPORAL_ADDRESS}) but HERALD_CODEC_KEYS is not, so every secret would be written to that cluster's history in plaintext.\n` +
      `  Set HERALD_CODEC_KEYS (e.g. \`openssl rand -base64 32\`), shared by every worker and API of the namespace,\n` +
      `  or, knowingly, HERALD_ALLOW_PLAINTEXT_HISTORY=true.`,
  );
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
