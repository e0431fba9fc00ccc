export function ensureDevServer(): string;
export function ensureTestServer(): string;
