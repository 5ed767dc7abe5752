#!/usr/bin/env node
// Lighthouse check of the guest site: the home page, a property, the
// booking form, the request-sent page and the guest's own page, each
// with Lighthouse's mobile emulation, in headless Chromium.
//
//   node lighthouse-check.mjs --url http://127.0.0.1:PORT [--min 95] [--label NAME]
//
// --url    base URL of a running `frontdesk serve` (the demo business)
// --min    the least score each category must reach (default 95)
//
// Performance, accessibility, best practices and SEO must each reach
// --min on every page. The request-sent and guest pages carry noindex on
// purpose (they are one guest's own), so their SEO score is counted
// without the crawlability audit. To reach those pages the check sends
// one booking request through the form, as a browser would post it, with
// a signature drawn here as a PNG.
//
// Chromium is CHROME_PATH, else /usr/bin/chromium. Prints one line per
// page and category (PASS/FAIL) and ends with exactly `N passed, M
// failed`; exits non-zero when anything failed.
import { spawn } from 'node:child_process';
import { deflateSync } from 'node:zlib';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];

function usage(msg) {
  console.error(`lighthouse-check: ${msg}\nusage: node lighthouse-check.mjs --url BASE [--min 95] [--label NAME]`);
  process.exit(2);
}

function parseArgs(argv) {
  const out = { url: null, min: 95, label: '' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--url') out.url = argv[++i];
    else if (a === '--min') out.min = Number(argv[++i]);
    else if (a === '--label') out.label = argv[++i];
    else usage(`unknown argument ${a}`);
  }
  if (!out.url) usage('give --url');
  if (!(out.min >= 0 && out.min <= 100)) usage('--min is a score from 0 to 100');
  out.url = out.url.replace(/\/$/, '');
  return out;
}

// crc32 of a PNG chunk.
const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

// signature is a grey PNG of 300×100 with a dark wave across it, as a
// data: URL: enough ink, wide and tall enough for the form's check.
function signature() {
  const w = 300, h = 100;
  const rows = [];
  for (let y = 0; y < h; y++) {
    const row = Buffer.alloc(1 + w, 255);
    row[0] = 0; // no filter
    for (let x = 20; x < w - 20; x++) {
      const cy = 50 + Math.round(25 * Math.sin(x / 18));
      if (Math.abs(y - cy) <= 2) row[1 + x] = 20;
    }
    rows.push(row);
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr[8] = 8; // bit depth
  ihdr[9] = 0; // greyscale
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return 'data:image/png;base64,' + png.toString('base64');
}

function day(offset) {
  return new Date(Date.now() + offset * 86400_000).toISOString().slice(0, 10);
}

// bookingRequest sends one request through the riverside form and
// returns the path of the guest's page it redirects to.
async function bookingRequest(base) {
  const checkin = day(40), checkout = day(42);
  const formURL = `${base}/book/riverside?roomtype=double&checkin=${checkin}&checkout=${checkout}`;
  const page = await (await fetch(formURL)).text();
  const token = /name="token" value="([^"]+)"/.exec(page)?.[1];
  if (!token) throw new Error(`the form at ${formURL} has no token`);
  const body = new URLSearchParams({
    token, roomtype: 'double', checkin, checkout, guests: '2', name: 'Lighthouse Check',
    email: 'lighthouse@example.com', phone: '+1 303 555 0199', signature: signature(),
  });
  const res = await fetch(`${base}/book/riverside`, { method: 'POST', body, redirect: 'manual' });
  const where = res.headers.get('location');
  if (res.status !== 303 || !where?.startsWith('/stay/')) throw new Error(`the form answered ${res.status} ${where ?? ''}`);
  return { sent: where, stay: where.split('?')[0], form: formURL };
}

// lighthouse runs the CLI on one URL with its default mobile emulation
// and returns the report.
function lighthouse(url, chrome) {
  const here = dirname(fileURLToPath(import.meta.url));
  const cli = join(here, 'node_modules', 'lighthouse', 'cli', 'index.js');
  const args = [cli, url, '--output=json', '--output-path=stdout', '--quiet',
    `--only-categories=${CATEGORIES.join(',')}`,
    '--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage'];
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, args, { env: { ...process.env, CHROME_PATH: chrome }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (d) => { out += d; });
    p.stderr.on('data', (d) => { err += d; });
    p.on('close', (code) => {
      if (code !== 0) return reject(new Error(`lighthouse exited ${code}: ${err.slice(-500)}`));
      try { resolve(JSON.parse(out)); } catch (e) { reject(new Error(`lighthouse printed no report: ${e.message}`)); }
    });
  });
}

// score is a category's score out of 100, leaving out the audits named
// in skip: the mean of the scored audits by their weights, as Lighthouse
// computes it.
function score(report, id, skip) {
  const cat = report.categories[id];
  if (!skip.length) return Math.round(cat.score * 100);
  let sum = 0, weights = 0;
  for (const ref of cat.auditRefs) {
    const a = report.audits[ref.id];
    if (skip.includes(ref.id) || !ref.weight || a.score === null) continue;
    if (['notApplicable', 'manual', 'informative'].includes(a.scoreDisplayMode)) continue;
    sum += a.score * ref.weight;
    weights += ref.weight;
  }
  return Math.round((sum / weights) * 100);
}

// failing lists the audits that lost points in a category, for the log.
function failing(report, id) {
  return report.categories[id].auditRefs
    .filter((r) => r.weight > 0 && report.audits[r.id].score !== null && report.audits[r.id].score < 1)
    .map((r) => `${r.id} (${report.audits[r.id].score})`);
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  const chrome = process.env.CHROME_PATH || '/usr/bin/chromium';
  if (!existsSync(chrome)) usage(`no Chromium at ${chrome}; set CHROME_PATH`);
  const prefix = opts.label ? `${opts.label}: ` : '';
  let passed = 0, failed = 0;
  const check = (ok, line) => {
    console.log(`${prefix}${ok ? 'PASS' : 'FAIL'} ${line}`);
    if (ok) passed++; else failed++;
  };
  let pages;
  try {
    const req = await bookingRequest(opts.url);
    pages = [
      { name: 'home', path: '/' },
      { name: 'property', path: '/properties/riverside' },
      { name: 'form', path: req.form.slice(opts.url.length) },
      { name: 'request-sent', path: req.sent, noindex: true },
      { name: 'guest page', path: req.stay, noindex: true },
    ];
  } catch (e) {
    check(false, `send a booking request to reach the guest's pages: ${e.message}`);
    pages = [{ name: 'home', path: '/' }, { name: 'property', path: '/properties/riverside' }];
  }
  for (const p of pages) {
    let report;
    try {
      report = await lighthouse(opts.url + p.path, chrome);
    } catch (e) {
      check(false, `${p.name}: ${e.message}`);
      continue;
    }
    if (report.runtimeError) {
      check(false, `${p.name}: ${report.runtimeError.code} ${report.runtimeError.message}`);
      continue;
    }
    for (const id of CATEGORIES) {
      const skip = id === 'seo' && p.noindex ? ['is-crawlable'] : [];
      const s = score(report, id, skip);
      const lost = s < 100 ? ` [${failing(report, id).filter((a) => !skip.some((k) => a.startsWith(k))).join(', ')}]` : '';
      check(s >= opts.min, `${p.name} ${id} ${s}${skip.length ? ' (without is-crawlable: the page is noindex)' : ''}${lost}`);
    }
  }
  console.log(`${prefix}${passed} passed, ${failed} failed`);
  process.exit(failed ? 1 : 0);
}

main().catch((e) => {
  console.error(e);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
