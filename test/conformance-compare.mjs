#!/usr/bin/env node
// Compares one run of the MCP conformance suite (server mode) with
// conformance-expected-failures.txt. Used by conformance.sh.
//
//   node conformance-compare.mjs RUN_LOG RESULTS_DIR EXPECTED_FILE [LABEL]
//
// RUN_LOG      what `conformance server --url URL -o RESULTS_DIR` printed
//              (the scenarios it ran are read from its "=== Running scenario: X ===" lines)
// RESULTS_DIR  the -o folder: one server-<scenario>-<timestamp>/checks.json per scenario
//
// A scenario FAILS when any of its checks has status FAILURE, or when it left
// no checks.json (the suite could not run it). WARNING checks (SHOULD-level
// advice) are printed but do not fail a scenario.
//
// Exit 1 when a scenario that is not listed fails, when a listed scenario
// passes (the list must stay true), when a listed name is not a scenario the
// suite ran, or when a listed line has no `# reason`.
import fs from 'node:fs';
import path from 'node:path';

const [runLog, resultsDir, expectedFile, label = ''] = process.argv.slice(2);
if (!runLog || !resultsDir || !expectedFile) {
  console.error('usage: node conformance-compare.mjs RUN_LOG RESULTS_DIR EXPECTED_FILE [LABEL]');
  process.exit(2);
}
const prefix = label ? `[${label}] ` : '';

// --- the expected-failures list: `scenario  # reason`, blank lines and whole-line comments allowed
const expected = new Map();
const listProblems = [];
fs.readFileSync(expectedFile, 'utf8')
  .split('\n')
  .forEach((raw, i) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const hash = line.indexOf('#');
    const name = (hash === -1 ? line : line.slice(0, hash)).trim();
    const reason = hash === -1 ? '' : line.slice(hash + 1).trim();
    if (!/^[a-z0-9][a-z0-9/_-]*$/.test(name)) listProblems.push(`line ${i + 1}: "${name}" is not a scenario name`);
    else if (!reason) listProblems.push(`line ${i + 1}: ${name} has no "# reason"`);
    else if (expected.has(name)) listProblems.push(`line ${i + 1}: ${name} listed twice`);
    else expected.set(name, reason);
  });

// --- what ran
const log = fs.readFileSync(runLog, 'utf8');
const ran = [...log.matchAll(/^=== Running scenario: (\S+) ===$/gm)].map((m) => m[1]);
if (ran.length === 0) {
  console.log(`${prefix}conformance: the suite ran no scenario; its output ends with:\n${log.split('\n').slice(-20).join('\n')}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
}

// --- results per scenario, from RESULTS_DIR/server-<scenario>-<ISO timestamp with : and . as ->/checks.json
const stamp = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const checksByScenario = new Map();
for (const dir of fs.existsSync(resultsDir) ? fs.readdirSync(resultsDir) : []) {
  if (!dir.startsWith('server-') || !stamp.test(dir)) continue;
  const scenario = dir.slice('server-'.length).replace(stamp, '');
  const file = path.join(resultsDir, dir, 'checks.json');
  if (fs.existsSync(file)) checksByScenario.set(scenario, JSON.parse(fs.readFileSync(file, 'utf8')));
}

function oneLine(s, max = 240) {
  const t = String(s ?? '').replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

const rows = [];
for (const scenario of ran) {
  const checks = checksByScenario.get(scenario);
  const failures = checks ? checks.filter((c) => c.status === 'FAILURE') : [];
  const warnings = checks ? checks.filter((c) => c.status === 'WARNING') : [];
  const successes = checks ? checks.filter((c) => c.status === 'SUCCESS') : [];
  const failedNow = !checks || failures.length > 0;
  const listed = expected.has(scenario);
  let verdict;
  if (failedNow && listed) verdict = 'expected failure';
  else if (failedNow) verdict = 'UNEXPECTED FAILURE';
  else if (listed) verdict = 'UNEXPECTED PASS (remove it from the list)';
  else verdict = 'pass';
  rows.push({ scenario, checks, failures, warnings, successes, failedNow, listed, verdict });
}

console.log(`${prefix}conformance scenarios (${ran.length}):`);
for (const r of rows) {
  const counts = r.checks
    ? `${r.successes.length} ok, ${r.failures.length} failed, ${r.warnings.length} warnings`
    : 'no checks.json: the suite could not run it';
  console.log(`${prefix}  ${r.verdict.padEnd(18)} ${r.scenario} (${counts})${r.listed ? ` — listed: ${expected.get(r.scenario)}` : ''}`);
  const showDetail = r.verdict === 'UNEXPECTED FAILURE' || r.verdict.startsWith('UNEXPECTED PASS');
  for (const c of r.failures) {
    console.log(`${prefix}      FAILURE ${c.name}: ${oneLine(c.errorMessage)}`);
    if (showDetail && c.details) console.log(`${prefix}        details: ${oneLine(JSON.stringify(c.details), 600)}`);
  }
  for (const c of r.warnings) console.log(`${prefix}      warning ${c.name}: ${oneLine(c.errorMessage || c.details?.message)}`);
}

const notRun = [...expected.keys()].filter((s) => !ran.includes(s));
for (const s of notRun) listProblems.push(`${s} is listed but the suite did not run such a scenario`);

const unexpectedFailures = rows.filter((r) => r.verdict === 'UNEXPECTED FAILURE');
const unexpectedPasses = rows.filter((r) => r.verdict.startsWith('UNEXPECTED PASS'));
const passes = rows.filter((r) => r.verdict === 'pass');
const expectedFailures = rows.filter((r) => r.verdict === 'expected failure');

for (const p of listProblems) console.log(`${prefix}expected-failures list: ${p}`);
console.log(
  `${prefix}conformance: ${passes.length} scenarios passed, ${expectedFailures.length} failed as listed, ` +
    `${unexpectedFailures.length} failed unexpectedly, ${unexpectedPasses.length} listed but passed`,
);
const bad = unexpectedFailures.length + unexpectedPasses.length + listProblems.length;
console.log(`conformance: ${passes.length} passed, ${bad} failed`);
process.exit(bad === 0 ? 0 : 1);
