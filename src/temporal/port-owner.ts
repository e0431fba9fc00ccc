import { readFileSync, readdirSync, readlinkSync } from 'node:fs';

export interface PortOwner {
  pid: number;
  command: string;
}

/**
 * Which process listens on a TCP port, read from /proc (Linux), so a refusal to start can
 * name the stray server instead of only saying "in use". Undefined where /proc does not
 * tell (another OS, or a process of another user).
 */
export function portOwner(port: number): PortOwner | undefined {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // local_address is HEXIP:HEXPORT; state 0A is LISTEN.
      const local = cols[1];
      if (!local || cols[3] !== '0A') continue;
      if (parseInt(local.split(':')[1] ?? '', 16) === port && cols[9]) inodes.add(cols[9]);
    }
  }
  if (inodes.size === 0) return undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]!)) {
        let command = '';
        try {
          command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
        } catch {
          // the process ended while we looked
        }
        return { pid: Number(pid), command };
      }
    }
  }
  return undefined;
}
