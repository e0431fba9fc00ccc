import type { Client } from '@temporalio/client';
import type { Config } from '../config.js';
import type { Directory } from '../store/directory.js';

/** What every tenant router receives from the app. */
export type RouterDeps = {
  client: Client;
  config: Config;
  directory: Directory;
  /** Issue 16: the clock recovery windows are judged by (AppDeps.now); the wall clock by default. */
  now?: () => number;
};
