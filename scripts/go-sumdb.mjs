// When may `go install` be retried with GOSUMDB=off? Only when the checksum database
// itself could not be reached. A checksum mismatch is Go refusing bits that differ from
// what the database recorded: retrying without the database would install exactly the
// tampered module the check exists to stop.
const MISMATCH = /checksum mismatch|SECURITY ERROR|verifying go\.mod: .*mismatch/i;
const SUMDB = /sum\.golang\.org|checksum database|GOSUMDB/i;
const UNREACHABLE =
  /dial tcp|no such host|connection refused|connection reset|i\/o timeout|TLS handshake timeout|network is unreachable|context deadline exceeded|Client\.Timeout|server misbehaving|proxyconnect|EOF/i;

/** True when go's stderr says the checksum database could not be reached, and nothing worse. */
export function sumdbUnreachable(stderr) {
  if (MISMATCH.test(stderr)) return false;
  // Each line that names the database must also say the network failed on it.
  const lines = stderr.split('\n').filter((l) => SUMDB.test(l));
  return lines.length > 0 && lines.some((l) => UNREACHABLE.test(l));
}
