#!/usr/bin/env node
// Real-client check: the official TypeScript MCP SDK client against a started
// frontdesk server, over streamable HTTP and/or stdio.
//
//   node client-check.mjs --url http://127.0.0.1:PORT [--label NAME] [--stdio -- CMD ARG...]
//
// --url     base URL of a running `frontdesk serve` (the hub is BASE/mcp, the
//           locations BASE/locations/{slug}/mcp)
// --stdio   everything after `--` is the command that serves the hub over stdio
//           (e.g. /tmp/x/frontdesk mcp --data DIR)
// --label   a word printed in front of every line (e.g. sqlite, postgres)
//
// Prints one line per check (PASS/FAIL) and ends with exactly
// `N passed, M failed`; exits non-zero when anything failed.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const HUB_TOOLS = [
  'list_properties', 'find_rooms', 'quote_stay', 'property_info',
  'start_booking', 'confirm_booking', 'get_booking', 'cancel_booking',
];
const LOCATION_TOOLS = ['find_rooms', 'quote_stay', 'property_info'];
const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'];
const TIMEOUT_MS = 30_000;

function parseArgs(argv) {
  const out = { url: null, stdio: null, label: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--url') out.url = argv[++i];
    else if (a === '--label') out.label = argv[++i];
    else if (a === '--stdio') {
      if (argv[i + 1] !== '--') usage(`--stdio must be followed by -- and a command`);
      out.stdio = argv.slice(i + 2);
      if (out.stdio.length === 0) usage('--stdio -- needs a command');
      break;
    } else usage(`unknown argument ${a}`);
  }
  if (!out.url && !out.stdio) usage('give --url and/or --stdio');
  return out;
}
function usage(msg) {
  console.error(`client-check: ${msg}\nusage: node client-check.mjs --url BASE [--label NAME] [--stdio -- CMD ARG...]`);
  process.exit(2);
}

const opts = parseArgs(process.argv.slice(2));
const prefix = opts.label ? `[${opts.label}] ` : '';
let passed = 0;
let failed = 0;

function pass(name, detail = '') {
  passed++;
  console.log(`${prefix}PASS ${name}${detail ? ` (${detail})` : ''}`);
}
function fail(name, err) {
  failed++;
  const msg = err instanceof Error ? err.message : String(err);
  console.log(`${prefix}FAIL ${name}: ${msg}`);
}
async function check(name, fn) {
  try {
    const detail = await fn();
    pass(name, typeof detail === 'string' ? detail : '');
    return true;
  } catch (e) {
    fail(name, e);
    return false;
  }
}
function assert(cond, msg) {
  if (!cond) throw new Error(msg);
}
function withTimeout(p, what) {
  let t;
  return Promise.race([
    p,
    new Promise((_, rej) => {
      t = setTimeout(() => rej(new Error(`${what}: no answer within ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(t));
}

function isoDay(offsetDays) {
  const d = new Date();
  d.setUTCHours(12, 0, 0, 0);
  d.setUTCDate(d.getUTCDate() + offsetDays);
  return d.toISOString().slice(0, 10);
}
const CHECKIN = isoDay(30);
const CHECKOUT = isoDay(33);
const NIGHTS = 3;

function newClient() {
  return new Client({ name: 'frontdesk-client-check', version: '1.0.0' }, { capabilities: {} });
}
function short(v) {
  const s = JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 300)}…` : s;
}
function textOf(result) {
  return (result.content || []).filter((c) => c.type === 'text').map((c) => c.text).join(' ');
}

// Lists tools and checks names, titles, the four hints and outputSchema.
async function checkToolList(where, client, expected, exact) {
  let tools = [];
  await check(`${where} tools/list has ${expected.join(', ')}${exact ? ' (exactly)' : ''}`, async () => {
    const res = await withTimeout(client.listTools(), 'tools/list');
    tools = res.tools;
    const names = tools.map((t) => t.name).sort();
    const missing = expected.filter((n) => !names.includes(n));
    assert(missing.length === 0, `missing ${missing.join(', ')}; got ${names.join(', ')}`);
    if (exact) {
      const extra = names.filter((n) => !expected.includes(n));
      assert(extra.length === 0, `unexpected tools ${extra.join(', ')}`);
    }
    return `${names.length} tools: ${names.join(', ')}`;
  });
  for (const name of expected) {
    const tool = tools.find((t) => t.name === name);
    if (!tool) continue; // already failed above
    await check(`${where} tool ${name} has title, four hints, description, outputSchema`, async () => {
      const title = tool.title ?? tool.annotations?.title;
      assert(typeof title === 'string' && title.trim() !== '', 'no title (tool.title or annotations.title)');
      const ann = tool.annotations || {};
      const bad = HINTS.filter((h) => typeof ann[h] !== 'boolean');
      assert(bad.length === 0, `annotation hints not set as booleans: ${bad.join(', ')}`);
      assert(typeof tool.description === 'string' && tool.description.trim() !== '', 'no description');
      assert(tool.inputSchema && tool.inputSchema.type === 'object', 'inputSchema is not an object schema');
      assert(tool.outputSchema && tool.outputSchema.type === 'object', 'no outputSchema of type object');
      return `"${title}" ${HINTS.map((h) => `${h}=${ann[h]}`).join(' ')}`;
    });
  }
  return tools;
}

// Calls a tool; the SDK client itself validates structuredContent against the
// outputSchema it saw in tools/list (and rejects a missing structuredContent).
async function callOk(client, name, args) {
  const res = await withTimeout(client.callTool({ name, arguments: args }), `tools/call ${name}`);
  assert(!res.isError, `isError: ${textOf(res) || short(res)}`);
  assert(res.structuredContent && typeof res.structuredContent === 'object', `no structuredContent: ${short(res)}`);
  assert(Array.isArray(res.content), 'no content array');
  return res.structuredContent;
}

function isAmount(v) {
  return typeof v === 'number' && Number.isFinite(v) && v > 0;
}
// Arguments for a tool, keeping only those its inputSchema declares (a
// location's tools take no `property`: the location is the endpoint).
function argsFor(tool, args) {
  const props = tool?.inputSchema?.properties;
  if (!props) return args;
  return Object.fromEntries(Object.entries(args).filter(([k]) => k in props));
}
function checkQuote(sc, property) {
  assert(isAmount(sc.total), `total is not a positive number: ${short(sc.total)} in ${short(sc)}`);
  assert(sc.nights === NIGHTS, `nights is ${short(sc.nights)}, want ${NIGHTS}`);
  assert(sc.property === property, `property is ${short(sc.property)}, want ${property}`);
  assert(sc.roomtype === 'double', `roomtype is ${short(sc.roomtype)}, want double`);
  assert(sc.checkin === CHECKIN && sc.checkout === CHECKOUT, `dates are ${sc.checkin}..${sc.checkout}`);
  assert(typeof sc.currency === 'string' && sc.currency !== '', 'no currency');
  if (typeof sc.subtotal === 'number' && typeof sc.tax === 'number') {
    assert(Math.abs(sc.subtotal + sc.tax - sc.total) < 0.005, `subtotal ${sc.subtotal} + tax ${sc.tax} != total ${sc.total}`);
  }
  return `total=${sc.total} ${sc.currency} nights=${sc.nights}`;
}
// find_rooms: {checkin, checkout, nights, properties:[{property, rooms:[{roomtype, free, bookable, total?}]}]}
function checkFindRooms(sc, wantProperties) {
  assert(sc.nights === NIGHTS, `nights is ${short(sc.nights)}, want ${NIGHTS}`);
  assert(Array.isArray(sc.properties), `no properties array: ${short(sc)}`);
  const slugs = sc.properties.map((p) => p.property);
  assert(
    JSON.stringify([...slugs].sort()) === JSON.stringify([...wantProperties].sort()),
    `properties are ${slugs.join(', ')}, want ${wantProperties.join(', ')}`,
  );
  let rooms = 0;
  for (const p of sc.properties) {
    assert(Array.isArray(p.rooms) && p.rooms.length > 0, `${p.property} has no rooms`);
    for (const r of p.rooms) {
      rooms++;
      assert(typeof r.roomtype === 'string' && Number.isInteger(r.free), `bad room entry ${short(r)}`);
      if (r.bookable) assert(isAmount(r.total), `bookable ${p.property}/${r.roomtype} has no total`);
    }
  }
  return rooms;
}
function doubleTotal(sc, property) {
  return sc.properties?.find((p) => p.property === property)?.rooms?.find((r) => r.roomtype === 'double')?.total;
}

async function hubCalls(where, client) {
  await check(`${where} list_properties returns riverside, oldtown, airport`, async () => {
    const sc = await callOk(client, 'list_properties', {});
    const s = JSON.stringify(sc);
    const missing = ['riverside', 'oldtown', 'airport'].filter((slug) => !s.includes(slug));
    assert(missing.length === 0, `missing ${missing.join(', ')} in ${short(sc)}`);
    return `${findArrayLength(sc)} properties`;
  });
  let findTotal;
  await check(`${where} find_rooms ${CHECKIN}..${CHECKOUT} covers all three properties`, async () => {
    const sc = await callOk(client, 'find_rooms', { checkin: CHECKIN, checkout: CHECKOUT });
    const rooms = checkFindRooms(sc, ['riverside', 'oldtown', 'airport']);
    findTotal = doubleTotal(sc, 'riverside');
    return `${rooms} room types, riverside double ${findTotal}`;
  });
  await check(`${where} find_rooms property=riverside covers riverside only`, async () => {
    const sc = await callOk(client, 'find_rooms', { checkin: CHECKIN, checkout: CHECKOUT, property: 'riverside' });
    return `${checkFindRooms(sc, ['riverside'])} room types`;
  });
  await check(`${where} quote_stay riverside double ${NIGHTS} nights has total and nights`, async () => {
    const sc = await callOk(client, 'quote_stay', { property: 'riverside', roomtype: 'double', checkin: CHECKIN, checkout: CHECKOUT });
    const detail = checkQuote(sc, 'riverside');
    if (findTotal !== undefined) assert(sc.total === findTotal, `quote total ${sc.total} != find_rooms total ${findTotal}`);
    return detail;
  });
  await check(`${where} property_info riverside`, async () => {
    const sc = await callOk(client, 'property_info', { property: 'riverside' });
    assert(sc.property === 'riverside', `property is ${short(sc.property)}: ${short(sc)}`);
    return `${sc.name}`;
  });
}
function findArrayLength(obj) {
  for (const v of Object.values(obj || {})) if (Array.isArray(v)) return v.length;
  return 0;
}

async function withClient(where, makeTransport, body) {
  const client = newClient();
  let connected = false;
  let protocol = 'n/a';
  await check(`${where} connect + initialize`, async () => {
    const transport = makeTransport();
    const orig = transport.setProtocolVersion?.bind(transport);
    transport.setProtocolVersion = (v) => {
      protocol = v;
      orig?.(v);
    };
    await withTimeout(client.connect(transport), 'initialize');
    connected = true;
    const info = client.getServerVersion();
    const caps = client.getServerCapabilities() || {};
    assert(caps.tools, 'server did not declare the tools capability');
    // Declared capabilities match what is served: tools only.
    for (const other of ['prompts', 'resources', 'logging', 'completions']) {
      assert(!caps[other], `server declares ${other}, which it does not serve`);
    }
    const instructions = client.getInstructions() || '';
    assert(instructions.length >= 100, `server gives no usable instructions (${JSON.stringify(instructions)})`);
    return `${info?.name} ${info?.version}, protocol ${protocol}, ${instructions.length} characters of instructions`;
  });
  if (connected) {
    try {
      await body(client);
    } finally {
      await client.close().catch(() => {});
    }
  }
}

async function runHttp(base) {
  const b = base.replace(/\/+$/, '').replace(/\/mcp$/, '');
  const hub = `${b}/mcp`;
  await withClient(`http ${hub}`, () => new StreamableHTTPClientTransport(new URL(hub)), async (client) => {
    await checkToolList('http hub', client, HUB_TOOLS, true);
    await hubCalls('http hub', client);
    await bookingFlow(b, client);
  });
  const loc = `${b}/locations/riverside/mcp`;
  await withClient(`http ${loc}`, () => new StreamableHTTPClientTransport(new URL(loc)), async (client) => {
    const tools = await checkToolList('http riverside', client, LOCATION_TOOLS, true);
    const tool = (n) => tools.find((t) => t.name === n);
    await check('http riverside find_rooms covers riverside only', async () => {
      const sc = await callOk(client, 'find_rooms', argsFor(tool('find_rooms'), { checkin: CHECKIN, checkout: CHECKOUT, property: 'riverside' }));
      return `${checkFindRooms(sc, ['riverside'])} room types`;
    });
    await check('http riverside quote_stay double has total and nights', async () => {
      const args = argsFor(tool('quote_stay'), { property: 'riverside', roomtype: 'double', checkin: CHECKIN, checkout: CHECKOUT });
      return checkQuote(await callOk(client, 'quote_stay', args), 'riverside');
    });
    await check('http riverside property_info', async () => {
      const sc = await callOk(client, 'property_info', argsFor(tool('property_info'), { property: 'riverside' }));
      assert(sc.property === 'riverside', `property is ${short(sc.property)}`);
      return `${sc.name}`;
    });
  });
}

// The newest six-digit code mailed to addr, read from /dev/mail.json as a
// person testing the demo would.
async function codeFor(base, addr) {
  const res = await fetch(`${base}/dev/mail.json`);
  assert(res.ok, `/dev/mail.json answered ${res.status}`);
  const box = await res.json();
  for (const m of [...box.messages].reverse()) {
    const match = m.to.length === 1 && m.to[0] === addr && /code is (\d{6})\./.exec(m.text);
    if (match) return match[1];
  }
  throw new Error(`no code mailed to ${addr}`);
}

// The whole guest journey over the hub: start, code from the dev mailbox,
// confirm, look up, cancel in two steps. Chat cancellation runs only in
// office hours, so outside them the exact office-hours refusal is the
// expected answer.
async function bookingFlow(base, client) {
  const email = `ci-${process.pid}-${Date.now()}@example.com`;
  let bookingId, ref, cancelId;
  await check('http hub start_booking emails a code', async () => {
    const sc = await callOk(client, 'start_booking', {
      property: 'riverside', roomtype: 'single', checkin: CHECKIN, checkout: CHECKOUT,
      guest_name: 'CI Guest', email, phone: '+1 303 555 0199',
    });
    assert(typeof sc.booking_id === 'string' && sc.channel === 'email', `unexpected ${short(sc)}`);
    bookingId = sc.booking_id;
    return `${sc.code_sent_to}, expires ${sc.code_expires_local}`;
  });
  await check('http hub confirm_booking holds a room', async () => {
    const sc = await callOk(client, 'confirm_booking', { booking_id: bookingId, code: await codeFor(base, email) });
    assert(sc.status === 'reserved', `status ${short(sc.status)}`);
    ref = sc.reservation_number;
    return ref;
  });
  await check('http hub get_booking finds it by reference and last four', async () => {
    const sc = await callOk(client, 'get_booking', { reservation_number: ref, phone_last4: '0199' });
    assert(sc.ok === true && sc.status === 'reserved' && isAmount(sc.total), `unexpected ${short(sc)}`);
    return `${sc.status} ${sc.total}`;
  });
  await check('http hub cancel_booking in two steps', async () => {
    const first = await withTimeout(client.callTool({ name: 'cancel_booking', arguments: { reservation_number: ref, phone_last4: '0199' } }), 'cancel');
    if (first.isError) {
      const t = textOf(first);
      assert(t.includes('during office hours. Cancellation cannot be completed in chat right now.'), `refused: ${t}`);
      return 'outside office hours: the phone route was given';
    }
    cancelId = first.structuredContent.cancel_id;
    const sc = await callOk(client, 'cancel_booking', { cancel_id: cancelId, code: await codeFor(base, email) });
    assert(sc.status === 'cancelled', `status ${short(sc.status)}`);
    return 'cancelled';
  });
}

async function runStdio(cmd) {
  const [command, ...args] = cmd;
  let stderr = '';
  await withClient(
    `stdio ${cmd.join(' ')}`,
    () => {
      const t = new StdioClientTransport({ command, args, stderr: 'pipe' });
      t.stderr?.on('data', (d) => {
        stderr += d;
      });
      return t;
    },
    async (client) => {
      await checkToolList('stdio hub', client, HUB_TOOLS, false);
      await hubCalls('stdio hub', client);
    },
  );
  if (stderr.trim() && failed > 0) console.log(`${prefix}stdio server stderr:\n${stderr.trimEnd()}`);
}

try {
  if (opts.url) await runHttp(opts.url);
  if (opts.stdio) await runStdio(opts.stdio);
} catch (e) {
  fail('unexpected error', e);
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 && passed > 0 ? 0 : 1);
