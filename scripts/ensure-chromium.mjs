// Issue 18: the browser suite drives Debian's `chromium` (playwright-core, executablePath).
// Installs it with apt-get when it is missing and this process may; otherwise fails saying
// how to install it. It never lets the suite skip quietly.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const HOW =
  "Install Debian's chromium package: `sudo apt-get update && sudo apt-get install -y chromium` " +
  '(or set CHROMIUM_PATH to a Chromium binary), then run the tests again.';

export function ensureChromium() {
  if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (root && existsSync('/usr/bin/apt-get')) {
    console.log('[herald] chromium is missing: apt-get install -y chromium');
    try {
      execFileSync('apt-get', ['update'], { stdio: 'inherit' });
      execFileSync('apt-get', ['install', '-y', '--no-install-recommends', 'chromium'], {
        stdio: 'inherit',
        env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
      });
    } catch (err) {
      throw new Error(`apt-get could not install chromium (${err.message}). ${HOW}`);
    }
    if (existsSync(CHROMIUM_PATH)) return CHROMIUM_PATH;
  }
  throw new Error(`No Chromium at ${CHROMIUM_PATH}: the browser tests need it. ${HOW}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    console.log(`[herald] chromium: ${ensureChromium()}`);
  } catch (err) {
    console.error(`[herald] ${err.message}`);
    process.exit(1);
  }
}
