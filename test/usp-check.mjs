#!/usr/bin/env node
// Real-client check of the USP MCP binding: the official TypeScript MCP SDK
// client lists and calls the usp_* tools of a started `frontdesk serve`
// (the demo business, whose demo platform has an API key) at BASE/usp/mcp.
//
//   node usp-check.mjs --url http://127.0.0.1:PORT --key API_KEY \
//        --profile PROFILE_URI [--label NAME]
//
// The platform's profile is pinned on the server beforehand
// (`frontdesk usp platform add --file`), so nothing serves it: the server
// checks calls naming PROFILE_URI against the pin without a fetch.
//
// Prints one line per check (PASS/FAIL) and ends with exactly
// `N passed, M failed`; exits non-zero when anything failed.
import { randomUUID } from 'node:crypto';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const TOOLS = [
  'usp_services_list', 'usp_services_get', 'usp_services_lookup', 'usp_services_feed', 'usp_availability_query',
  'usp_availability_hold', 'usp_availability_release', 'usp_bookings_create', 'usp_bookings_get',
  'usp_bookings_update', 'usp_bookings_confirm', 'usp_bookings_cancel', 'usp_bookings_reschedule', 'usp_bookings_confirm_payment',
  'usp_waitlist_join', 'usp_waitlist_list', 'usp_waitlist_get', 'usp_waitlist_leave', 'usp_waitlist_accept',
  'usp_waitlist_decline',
];
const TIMEOUT_MS = 30_000;

function usage(msg) {
  console.error(`usp-check: ${msg}\nusage: node usp-check.mjs --url BASE --key API_KEY --profile PROFILE_URI [--label NAME]`);
  process.exit(2);
}
const opts = { url: null, key: null, profile: null, label: '' };
for (let i = 2; i < process.argv.length; i++) {
  const a = process.argv[i];
  const v = process.argv[++i];
  if (a === '--url') opts.url = v;
  else if (a === '--key') opts.key = v;
  else if (a === '--profile') opts.profile = v;
  else if (a === '--label') opts.label = v;
  else usage(`unknown argument ${a}`);
}
if (!opts.url || !opts.key || !opts.profile) usage('give --url, --key and --profile');

const prefix = opts.label ? `[${opts.label}] ` : '';
let passed = 0;
let failed = 0;
async function check(name, fn) {
  try {
    const detail = await fn();
    passed++;
    console.log(`${prefix}PASS ${name}${typeof detail === 'string' && detail ? ` (${detail})` : ''}`);
    return true;
  } catch (e) {
    failed++;
    console.log(`${prefix}FAIL ${name}: ${e instanceof Error ? e.message : String(e)}`);
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

const profile = opts.profile;
const meta = (extra = {}) => ({ usp: { profile, correlation_id: randomUUID(), ...extra } });

const client = new Client({ name: 'frontdesk-usp-check', version: '1.0.0' }, { capabilities: {} });
const transport = new StreamableHTTPClientTransport(new URL(`${opts.url}/usp/mcp`), {
  // The platform's credential on the HTTP transport, as §9.2.2 prefers.
  requestInit: { headers: { Authorization: `Bearer ${opts.key}` } },
});
async function call(name, args) {
  const res = await withTimeout(client.callTool({ name, arguments: args }), `tools/call ${name}`);
  assert(!res.isError, `${name} answered isError: ${JSON.stringify(res.content)}`);
  const sc = res.structuredContent;
  assert(sc && sc.usp && sc.usp.version === '2026-08-20', `${name}: no usp object in structuredContent`);
  assert(Array.isArray(res.content) && res.content[0]?.type === 'text' && res.content[0].text, `${name}: no text summary`);
  return sc;
}

try {
  await check('connect to /usp/mcp', async () => {
    await withTimeout(client.connect(transport), 'connect');
    return client.getServerVersion()?.name;
  });
  await check(`tools/list has ${TOOLS.length} usp_* tools`, async () => {
    const res = await withTimeout(client.listTools(), 'tools/list');
    const names = res.tools.map((t) => t.name);
    const missing = TOOLS.filter((n) => !names.includes(n));
    assert(missing.length === 0, `missing ${missing.join(', ')}; got ${names.join(', ')}`);
    for (const t of res.tools) {
      const ann = t.annotations || {};
      for (const h of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
        assert(typeof ann[h] === 'boolean', `${t.name}: ${h} is not set`);
      }
    }
    return names.join(', ');
  });
  await check('usp_services_list', async () => {
    const sc = await call('usp_services_list', { _meta: meta() });
    assert(sc.services.some((s) => s.id === 'svc_airport_shuttle'), 'no svc_airport_shuttle');
    return `${sc.services.length} services`;
  });
  let slot = null;
  await check('usp_availability_query (14 days of shuttle slots)', async () => {
    const sc = await call('usp_availability_query', {
      service_id: 'svc_airport_shuttle', start_date: isoDay(1), end_date: isoDay(14), limit: 500, _meta: meta(),
    });
    assert(sc.slots.length > 100, `only ${sc.slots.length} slots`);
    slot = sc.slots[sc.slots.length - 1];
    return `${sc.slots.length} slots`;
  });
  let hold = null;
  await check('usp_availability_hold', async () => {
    assert(slot, 'no slot to hold');
    const sc = await call('usp_availability_hold', {
      service_id: 'svc_airport_shuttle', slot_id: slot.id, _meta: meta({ idempotency_key: randomUUID() }),
    });
    assert(sc.hold && sc.hold.status === 'active', `no active hold: ${JSON.stringify(sc)}`);
    hold = sc.hold;
    return `${hold.id} until ${hold.expires_at}`;
  });
  let booking = null;
  await check('usp_bookings_create (from the hold, with the API key; waits for its payment)', async () => {
    assert(hold, 'no hold to convert');
    const args = {
      service_id: 'svc_airport_shuttle', slot_id: slot.id, hold_id: hold.id,
      buyer: { first_name: 'Ada', last_name: 'Lovelace', email: 'ada@example.com' },
      _meta: meta({ idempotency_key: randomUUID() }),
    };
    const sc = await call('usp_bookings_create', args);
    // The demo shuttle is paid when booking: the booking holds its seat in
    // requires_action with one payment action until the payment comes.
    const due = sc.booking?.actions?.[0]?.payment_context?.amount_due;
    assert(sc.booking && sc.booking.status === 'requires_action' && sc.booking.actions.length === 1 && due > 0,
      `no booking waiting for its payment: ${JSON.stringify(sc)}`);
    booking = sc.booking;
    const again = await call('usp_bookings_create', args);
    assert(again.booking?.id === booking.id, 'the same idempotency key made another booking');
    return `${booking.id} ${booking.status}, ${due} due`;
  });
  await check('usp_bookings_confirm_payment (the platform\'s checkout took it; confirmed at once)', async () => {
    assert(booking, 'no booking to pay');
    const due = booking.actions[0].payment_context;
    const sc = await call('usp_bookings_confirm_payment', {
      booking_id: booking.id,
      payment_result: { status: 'paid', provider: 'acp', transaction_id: `txn_${randomUUID().slice(0, 8)}`,
        amount_paid: due.amount_due, currency: due.currency, order_reference: `ord_${randomUUID().slice(0, 8)}` },
      _meta: meta({ idempotency_key: randomUUID() }),
    });
    // The demo shuttle is confirmation_mode auto: confirmed in this call.
    assert(sc.booking?.status === 'confirmed' && sc.booking.confirmation_mode === 'auto' && sc.booking.payment?.status === 'paid',
      `not confirmed and paid: ${JSON.stringify(sc)}`);
    booking = sc.booking;
    return `${booking.id} ${booking.status}`;
  });
  let entry = null;
  await check('usp_waitlist_join (the booked, full slot)', async () => {
    assert(booking, 'no booking whose slot is full');
    const sc = await call('usp_waitlist_join', {
      service_id: 'svc_airport_shuttle', slot_id: slot.id,
      buyer: { first_name: 'Bea', last_name: 'Waits', email: 'bea@example.com' }, _meta: meta(),
    });
    assert(sc.entry && sc.entry.status === 'waiting' && sc.entry.position === 1, `not first in line: ${JSON.stringify(sc)}`);
    entry = sc.entry;
    return `${entry.id} ${entry.status}`;
  });
  await check('usp_bookings_cancel (the place goes to the waitlist)', async () => {
    assert(booking, 'no booking to cancel');
    const sc = await call('usp_bookings_cancel', { booking_id: booking.id, _meta: meta({ if_match: booking.revision }) });
    assert(sc.booking.status === 'canceled', `status ${sc.booking.status}`);
    return sc.booking.status;
  });
  await check('usp_waitlist_get (offered, with an expiry)', async () => {
    assert(entry, 'no entry');
    const sc = await call('usp_waitlist_get', { entry_id: entry.id, _meta: meta() });
    assert(sc.entry.status === 'offered' && sc.entry.offered_slot?.slot_id === slot.id && sc.entry.offer_expires_at,
      `not offered: ${JSON.stringify(sc.entry)}`);
    return sc.entry.offer_expires_at;
  });
  await check('usp_waitlist_accept (the offer becomes a booking)', async () => {
    assert(entry, 'no entry');
    const sc = await call('usp_waitlist_accept', { entry_id: entry.id, _meta: meta() });
    // The accepted offer is a booking of the paid shuttle: it waits for
    // its payment like any other.
    assert(sc.entry?.status === 'accepted' && sc.booking?.status === 'requires_action', `accept: ${JSON.stringify(sc)}`);
    const done = await call('usp_bookings_cancel', { booking_id: sc.booking.id, _meta: meta() });
    assert(done.booking.status === 'canceled', `status ${done.booking.status}`);
    return sc.booking.id;
  });
  await check('a privileged call without the key is a JSON-RPC error', async () => {
    const bare = new Client({ name: 'frontdesk-usp-check-anon', version: '1.0.0' }, { capabilities: {} });
    await withTimeout(bare.connect(new StreamableHTTPClientTransport(new URL(`${opts.url}/usp/mcp`))), 'connect');
    try {
      await withTimeout(bare.callTool({ name: 'usp_bookings_get', arguments: { booking_id: 'x', _meta: meta() } }), 'tools/call');
      throw new Error('the call succeeded');
    } catch (e) {
      assert(e.code === -32006 && e.data?.code === 'authentication_required', `got ${e.code} ${JSON.stringify(e.data)}`);
      return 'authentication_required';
    } finally {
      await bare.close();
    }
  });
} finally {
  await client.close().catch(() => {});
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
