/**
 * @deprecated Issue 15: import checkTransformation from '../transformation-check.js'. Kept
 * only until endpoints.ts and sources.ts (being split) import it from there; then deleted.
 */
export { checkTransformation } from '../transformation-check.js';
