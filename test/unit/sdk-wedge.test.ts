// The SDK's core can drop an activation of a run (src/observability/sdk-wedge.ts); the run
// then takes no task until the worker restarts. Its one trace is an ERROR line in the SDK's
// log, which reaches Herald through the logger the SDK runtime is installed with.
import { afterEach, describe, expect, it } from 'vitest';
import { sdkLogger } from '../../src/observability/sdk-runtime.js';
import {
  SDK_WEDGE_MESSAGE,
  watchForSdkWedge,
  type SdkWedgeWatch,
} from '../../src/observability/sdk-wedge.js';

describe('the SDK wedge watch', () => {
  let watch: SdkWedgeWatch | undefined;
  afterEach(() => watch?.stop());

  it('the SDK logging a dropped activation marks the worker wedged, once, and /readyz says so', async () => {
    let wedges = 0;
    watch = watchForSdkWedge(() => wedges++);
    expect(await watch.readiness()).toBeUndefined();
    const logger = sdkLogger();
    logger.error(SDK_WEDGE_MESSAGE, { sdkComponent: 'core' });
    logger.error(SDK_WEDGE_MESSAGE, { sdkComponent: 'core' });
    expect(wedges).toBe(1);
    expect(await watch.readiness()).toMatchObject({ code: 'worker_wedged' });
  });

  it('other SDK errors, and the line below ERROR, are no wedge', async () => {
    let wedges = 0;
    watch = watchForSdkWedge(() => wedges++);
    const logger = sdkLogger();
    logger.error('Workflow task failed', { sdkComponent: 'worker' });
    logger.warn(SDK_WEDGE_MESSAGE);
    expect(wedges).toBe(0);
    expect(await watch.readiness()).toBeUndefined();
  });

  it('a stopped watch is told nothing more', () => {
    let wedges = 0;
    watch = watchForSdkWedge(() => wedges++);
    watch.stop();
    sdkLogger().error(SDK_WEDGE_MESSAGE);
    expect(wedges).toBe(0);
  });
});
