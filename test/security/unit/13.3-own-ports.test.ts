import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { describeDevAllowances, devAllowancesFor } from '../../../src/dev-allowances.js';
import { heraldOwnPorts, listenerPortClashes, urlCheckOptionsFor } from '../../../src/own-ports.js';
import { checkEndpointUrl } from '../../../src/policy/url-check.js';

/**
 * Issue 13.3: the worker and the API take the list of Herald's own ports from one function
 * of the configuration, and `npm start` says which development allowances it applied.
 */
describe("13.3 R-SSRF: Herald's own ports come from its configuration", () => {
  it("13.3 R-SSRF: the defaults reserve the API, codec, Temporal frontend, its pinned HTTP and metrics ports, the Web UI and Herald's metrics and SDK exporter ports (issue 20)", () => {
    expect(heraldOwnPorts(loadConfig({}))).toEqual([3000, 3001, 7233, 7243, 7244, 8233, 9464, 9465]);
  });

  it("13.3 R-SSRF: every configured port is reserved, with a cluster's frontend and a configured SMTP relay", () => {
    const c = loadConfig({
      HERALD_API_PORT: '4000',
      HERALD_CODEC_PORT: '4001',
      HERALD_TEMPORAL_PORT: '7000',
      HERALD_TEMPORAL_HTTP_PORT: '7100',
      HERALD_TEMPORAL_METRICS_PORT: '7200',
      HERALD_TEMPORAL_UI_PORT: '8000',
      TEMPORAL_ADDRESS: 'localhost:7300',
      HERALD_SMTP_HOST: '127.0.0.1',
      HERALD_SMTP_PORT: '2525',
      HERALD_METRICS_PORT: '7400',
    });
    expect(heraldOwnPorts(c)).toEqual([2525, 4000, 4001, 7000, 7100, 7200, 7300, 7400, 7401, 8000]);
    // Unset, the dev server's HTTP and metrics ports follow the frontend's.
    expect(heraldOwnPorts(loadConfig({ HERALD_TEMPORAL_PORT: '9000' }))).toEqual(
      expect.arrayContaining([9000, 9010, 9011]),
    );
  });

  it('13.3: npm start refuses listeners that would share a port, naming the variables, derived ports included', () => {
    expect(listenerPortClashes(loadConfig({}), 'start')).toEqual([]);
    expect(
      listenerPortClashes(
        loadConfig({ HERALD_CODEC_ENDPOINT: 'true', HERALD_CODEC_KEYS: 'x'.repeat(44) }),
        'start',
      ),
    ).toEqual([]);
    // The dev server's HTTP and metrics ports follow its frontend's: 2990 + 10 and + 11 are the
    // API's 3000 and the codec's 3001.
    expect(
      listenerPortClashes(
        loadConfig({ HERALD_TEMPORAL_PORT: '2990', HERALD_CODEC_ENDPOINT: 'true' }),
        'start',
      ),
    ).toEqual([
      'HERALD_API_PORT and HERALD_TEMPORAL_HTTP_PORT (HERALD_TEMPORAL_PORT+10) are both port 3000: each listener needs its own',
      'HERALD_CODEC_PORT and HERALD_TEMPORAL_METRICS_PORT (HERALD_TEMPORAL_PORT+11) are both port 3001: each listener needs its own',
    ]);
    // Without the codec endpoint nothing listens on 3001; with a cluster no dev server runs here.
    expect(listenerPortClashes(loadConfig({ HERALD_TEMPORAL_PORT: '2990' }), 'start')).toHaveLength(1);
    expect(
      listenerPortClashes(
        loadConfig({
          HERALD_TEMPORAL_PORT: '2990',
          HERALD_CODEC_ENDPOINT: 'true',
          TEMPORAL_ADDRESS: '127.0.0.1:7233',
        }),
        'start',
      ),
    ).toEqual([]);
    expect(
      listenerPortClashes(
        loadConfig({ HERALD_API_PORT: '9464', HERALD_TEMPORAL_UI_PORT: '9464', HERALD_METRICS_PORT: '0' }),
        'start',
      ),
    ).toEqual([
      'HERALD_API_PORT and HERALD_TEMPORAL_UI_PORT are both port 9464: each listener needs its own',
    ]);
    expect(listenerPortClashes(loadConfig({ HERALD_API_PORT: '9465' }), 'start')).toEqual([
      'HERALD_API_PORT and HERALD_SDK_METRICS_PORT (HERALD_METRICS_PORT+1) are both port 9465: each listener needs its own',
    ]);
    // `npm run worker` and `npm run api` on a cluster check the listeners each opens.
    const cluster = { TEMPORAL_ADDRESS: '127.0.0.1:7233' };
    expect(
      listenerPortClashes(loadConfig({ ...cluster, HERALD_SDK_METRICS_PORT: '9464' }), 'worker'),
    ).toEqual([
      'HERALD_METRICS_PORT and HERALD_SDK_METRICS_PORT are both port 9464: each listener needs its own',
    ]);
    expect(listenerPortClashes(loadConfig({ ...cluster, HERALD_API_PORT: '9465' }), 'worker')).toEqual([]);
    expect(
      listenerPortClashes(
        loadConfig({ ...cluster, HERALD_CODEC_ENDPOINT: 'true', HERALD_CODEC_PORT: '9464' }),
        'api',
      ),
    ).toEqual(['HERALD_CODEC_PORT and HERALD_METRICS_PORT are both port 9464: each listener needs its own']);
    expect(listenerPortClashes(loadConfig({ ...cluster, HERALD_API_PORT: '9465' }), 'api')).toEqual([]);
    // Port 0 (any free port) clashes with nothing.
    expect(
      listenerPortClashes(
        loadConfig({ HERALD_API_PORT: '0', HERALD_CODEC_PORT: '0', HERALD_CODEC_ENDPOINT: 'true' }),
        'start',
      ),
    ).toEqual([]);
  });

  it("13.3 R-URL: the API's options refuse them on an allowed http host and keep other ports", () => {
    const opts = urlCheckOptionsFor(loadConfig({ HERALD_ALLOW_HTTP_HOSTS: '127.0.0.1' }));
    expect(checkEndpointUrl('http://127.0.0.1:7233/x', opts)).toMatchObject({
      ok: false,
      code: 'port_not_allowed',
    });
    expect(checkEndpointUrl('http://127.0.0.1:4123/x', opts)).toMatchObject({ ok: true });
  });

  it('13.3 R-SSRF: npm start logs which allowances it applied, or why none', () => {
    expect(describeDevAllowances(devAllowancesFor({}))).toMatch(
      /HERALD_ALLOW_ADDRESSES=127\.0\.0\.1\/32,::1\/128 HERALD_ALLOW_HTTP_HOSTS=\S+ HERALD_CODEC_ENDPOINT=true/,
    );
    // One the operator set is theirs, not an allowance.
    expect(describeDevAllowances(devAllowancesFor({ HERALD_ALLOW_ADDRESSES: '' }))).not.toContain(
      'HERALD_ALLOW_ADDRESSES',
    );
    expect(describeDevAllowances(devAllowancesFor({ TEMPORAL_ADDRESS: 't:7233' }))).toMatch(
      /no development allowances: TEMPORAL_ADDRESS/,
    );
    expect(describeDevAllowances(devAllowancesFor({ HERALD_API_HOST: '0.0.0.0' }))).toMatch(
      /no development allowances: HERALD_API_HOST=0\.0\.0\.0 is not a loopback address/,
    );
  });
});
