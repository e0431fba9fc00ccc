/**
 * @deprecated the directory lives in store/directory.ts; this re-export serves the files
 * not yet moved (auth.ts, admin.ts, endpoint-attempts.ts).
 */
export { Directory, UNKNOWN_TENANT_MAX, UNKNOWN_TENANT_TTL_MS } from '../store/directory.js';
export { literal as lit } from '../store/visibility.js';
