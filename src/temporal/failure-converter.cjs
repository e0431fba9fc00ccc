// Issue 13.7: failure messages and stack traces go into an encoded attributes payload, so
// the payload codec encrypts them like any other payload instead of leaving them in clear
// in history (an error message can quote a URL, a receiver's answer or a secret's shape).
//
// CommonJS on purpose: the SDK loads this file with require() in clients and workers
// (where no TypeScript loader may be present, e.g. under vitest), and webpack bundles it
// into the workflow sandbox, where it must stay deterministic: it only builds a converter.
/* global require, exports */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS, see above
const { DefaultFailureConverter } = require('@temporalio/common');

exports.failureConverter = new DefaultFailureConverter({ encodeCommonAttributes: true });
