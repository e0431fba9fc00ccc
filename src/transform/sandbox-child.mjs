// One transformation process (R-RH-TRANSFORM). Plain JavaScript on purpose: it is forked
// without any TypeScript loader, the same under tsx, vitest and plain node.
//
// JSONata itself cannot reach the network, the file system or the process: it has no
// import, no I/O functions, and it reads only own properties of its input (no
// `constructor`, no prototypes). This process adds what the language cannot give: the
// parent kills it after a wall-clock timeout, V8 ends it when it outgrows its heap
// (--max-old-space-size), and it starts with an empty environment and, where the Node
// version supports it, the permission model (no file writes, no reads outside its own
// code, no child processes, no threads). JSONata's own guardrails (`timeout`, `stack`)
// end most runaway expressions earlier with a clearer message.
import { Buffer } from 'node:buffer';
import jsonata from 'jsonata';

// Nothing an expression could reach even if it escaped the language.
for (const name of ['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest']) {
  try {
    delete globalThis[name];
  } catch {
    // not configurable here: the permission model and the language still stand
  }
}

const timeoutMs = Number(process.argv[2]);
const maxDepth = Number(process.argv[3]);
const maxResultBytes = Number(process.argv[4]);
const compiled = new Map();
const COMPILED_CACHE = 200;

function compile(expression) {
  let expr = compiled.get(expression);
  if (expr) {
    // Most recently used last, so the oldest is the one dropped.
    compiled.delete(expression);
  } else {
    expr = jsonata(expression, { timeout: timeoutMs, stack: maxDepth });
    if (compiled.size >= COMPILED_CACHE) compiled.delete(compiled.keys().next().value);
  }
  compiled.set(expression, expr);
  return expr;
}

function describe(err) {
  if (err && typeof err === 'object') {
    const code = typeof err.code === 'string' ? `${err.code}: ` : '';
    const message = typeof err.message === 'string' ? err.message : String(err);
    const at = typeof err.position === 'number' ? ` (at position ${err.position})` : '';
    return `${code}${message}${at}`;
  }
  return String(err);
}

process.on('message', async (msg) => {
  try {
    const value = await compile(msg.expression).evaluate(msg.input);
    const json = value === undefined ? undefined : JSON.stringify(value);
    if (json !== undefined && Buffer.byteLength(json) > maxResultBytes) {
      process.send({ id: msg.id, ok: false, error: `the result is larger than ${maxResultBytes} bytes` });
      return;
    }
    process.send({ id: msg.id, ok: true, json });
  } catch (err) {
    process.send({ id: msg.id, ok: false, error: describe(err) });
  }
});
// The parent went away: nothing left to serve.
process.on('disconnect', () => process.exit(0));

process.send({ ready: true });
