import type { Config } from './config.js';
import type { PublishSettings } from './core/publish-event.js';
import { createPolicyResolver, type PolicyResolver } from './deliveries/policy-resolver.js';
import { urlCheckOptionsFor } from './own-ports.js';

/**
 * The environment as the use cases read it: each takes its own part, typed, instead of the
 * flat HERALD_* record. Built once per Config (the policy resolver with it).
 */
export interface Settings {
  /** HERALD_TASK_QUEUE: where every Herald workflow is started. */
  taskQueue: string;
  resolvePolicy: PolicyResolver;
  publish: PublishSettings;
}

const built = new WeakMap<Config, Settings>();

export function settingsFrom(config: Config): Settings {
  let s = built.get(config);
  if (!s) {
    const resolvePolicy = createPolicyResolver(config);
    s = {
      taskQueue: config.HERALD_TASK_QUEUE,
      resolvePolicy,
      publish: {
        maxTargets: config.HERALD_MAX_TARGETS_PER_PUBLISH,
        defaultPreset: config.HERALD_DEFAULT_PRESET,
        urlCheck: urlCheckOptionsFor(config),
        resolvePolicy,
      },
    };
    built.set(config, s);
  }
  return s;
}
