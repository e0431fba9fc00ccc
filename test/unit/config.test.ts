import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, withDevDefaults } from '../../src/config.js';
import { assertPresetsFit, createPolicyResolver } from '../../src/deliveries/policy-resolver.js';
import { inlineSlotsFor } from '../../src/activities/inline-slots.js';
import { createHeraldWorker } from '../../src/worker.js';
import { prebuiltBundle } from '../../src/workflow-bundle.js';
import type { NativeConnection } from '@temporalio/worker';

describe('configuration (foundation)', () => {
  it('defaults need nothing from the environment', () => {
    const c = loadConfig({});
    expect(c).toMatchObject({ TEMPORAL_NAMESPACE: 'default', HERALD_TASK_QUEUE: 'herald', HERALD_API_PORT: 3000 });
    expect(c.HERALD_ALLOW_ADDRESSES).toEqual([]);
  });

  it('fails fast with a message naming every bad variable', () => {
    expect(() => loadConfig({ HERALD_API_PORT: 'eighty', HERALD_DEFAULT_PRESET: 'svix' })).toThrow(ConfigError);
    try {
      loadConfig({ HERALD_API_PORT: 'eighty', HERALD_DEFAULT_PRESET: 'svix', HERALD_OPERATOR_KEY: 'short' });
    } catch (e) {
      const msg = (e as Error).message;
      expect(msg).toContain('HERALD_API_PORT');
      expect(msg).toContain('HERALD_DEFAULT_PRESET');
      expect(msg).toContain('HERALD_OPERATOR_KEY');
    }
  });

  it('a HERALD_WORKFLOW_BUNDLE that is not there stops the worker at start, saying how to build one', () => {
    const config = loadConfig({ HERALD_WORKFLOW_BUNDLE: '/nonexistent/workflow-bundle.js' });
    expect(() => prebuiltBundle(config.HERALD_WORKFLOW_BUNDLE)).toThrow(ConfigError);
    expect(() => prebuiltBundle(config.HERALD_WORKFLOW_BUNDLE)).toThrow(
      /HERALD_WORKFLOW_BUNDLE.*src\/workflow-bundle\.ts/s,
    );
    const here = new URL(import.meta.url).pathname;
    expect(prebuiltBundle(here)).toEqual({ codePath: here });
    expect(prebuiltBundle(undefined)).toBeUndefined();
  });

  it('npm start allows loopback receivers by default, and an explicit setting wins', () => {
    expect(loadConfig(withDevDefaults({})).HERALD_ALLOW_ADDRESSES).toEqual(['127.0.0.1/32', '::1/128']);
    expect(loadConfig(withDevDefaults({ HERALD_ALLOW_ADDRESSES: '' })).HERALD_ALLOW_ADDRESSES).toEqual([]);
  });
});

describe('Railhook operator settings (R-RH-LIFETIME, R-RA)', () => {
  it('R-RH-LIFETIME: the default presets fit their lifetimes, so the worker may start', () => {
    expect(() => assertPresetsFit(loadConfig({}))).not.toThrow();
  });

  it('R-RH-LIFETIME: the worker refuses to start when Railhook\'s schedule at max jitter cannot fit a 24 h cap', async () => {
    const config = loadConfig({ DELIVERY_ESCALATION_HARD_CAP_HOURS: '24' });
    expect(() => assertPresetsFit(config)).toThrow(/railhook outbound schedule takes up to/);
    // The refusal comes before the worker touches its connection.
    await expect(createHeraldWorker({ connection: {} as NativeConnection, config })).rejects.toThrow(
      /more than its 24.00h lifetime/,
    );
  });

  it('R-RA: WEBHOOK_RETRY_AFTER_MAX_SECONDS caps the header, and 0 ignores it, for railhook only', () => {
    const capped = createPolicyResolver(loadConfig({ WEBHOOK_RETRY_AFTER_MAX_SECONDS: '600' }));
    expect(capped('railhook').retryAfter.capSeconds).toBe(600);
    expect(capped('standard').retryAfter.capSeconds).toBe(3600);
    const ignored = createPolicyResolver(loadConfig({ WEBHOOK_RETRY_AFTER_MAX_SECONDS: '0' }));
    expect(ignored('railhook').retryAfter.ignore).toBe(true);
  });

  it('R-CRASH: WEBHOOK_CLAIM_TIMEOUT_SECONDS sets Railhook\'s lease; the default is 300 s', () => {
    expect(createPolicyResolver(loadConfig({}))('railhook').leaseSeconds).toBe(300);
    expect(createPolicyResolver(loadConfig({ WEBHOOK_CLAIM_TIMEOUT_SECONDS: '120' }))('railhook').leaseSeconds).toBe(120);
  });
});

describe('Issue 16: inline first attempts sized from the workflow-task slots the worker runs', () => {
  it('a cache smaller than the default slots brings the slots, and the inline attempts, down with it', () => {
    const c = loadConfig({ HERALD_WORKER_MAX_CACHED_WORKFLOWS: '10' });
    // The SDK would run 10 workflow tasks at once; 20 inline attempts could hold them all.
    expect(c.HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS).toBe(10);
    const inline = inlineSlotsFor(c.HERALD_ENDPOINT_MAX_SHARE, c.HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS);
    expect(inline.total).toBe(5);
    // A cache of 1 is 2 in the SDK; no cache leaves the slots as set.
    expect(loadConfig({ HERALD_WORKER_MAX_CACHED_WORKFLOWS: '1' }).HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS).toBe(2);
    expect(loadConfig({ HERALD_WORKER_MAX_CACHED_WORKFLOWS: '0' }).HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS).toBe(40);
    expect(loadConfig({}).HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS).toBe(40);
  });

  it('slots set above the cache are refused at start, naming both variables', () => {
    const load = () =>
      loadConfig({ HERALD_WORKER_MAX_CACHED_WORKFLOWS: '10', HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '40' });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(/HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: 40 .*HERALD_WORKER_MAX_CACHED_WORKFLOWS \(10\)/);
    expect(
      loadConfig({ HERALD_WORKER_MAX_CACHED_WORKFLOWS: '10', HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS: '10' })
        .HERALD_WORKER_MAX_CONCURRENT_WORKFLOW_TASKS,
    ).toBe(10);
  });
});
