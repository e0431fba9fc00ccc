// One import point for the workflow, the activities and the API.
export * from './policy.js';
export * from './presets.js';
export * from './schedule.js';
export * from './retry-after.js';
export * from './status-grammar.js';
export * from './classify.js';
export * from './url-check.js';
export * from './address.js';
