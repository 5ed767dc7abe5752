// Reads `go test -json` events on stdin, prints the failures and skips it
// saw (with the last lines each failed test printed), and exits non-zero when a test failed or a test was skipped that
// the allow-list (the file named by the first argument, one test name a
// line, "package TestName" or "package TestName/subtest", # comments)
// does not name: under CI a skipped test is a test that did not run.
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

const allowed = new Set(
  readFileSync(process.argv[2], "utf8")
    .split("\n")
    .map((l) => l.replace(/#.*/, "").trim())
    .filter(Boolean),
);
const skipped = [];
const failed = [];
let passed = 0;
// The output of each test, kept so a failure can be shown with its cause.
const output = new Map();
// Tests started and not yet ended, to name what a timed-out package ran.
const running = new Set();
const rl = createInterface({ input: process.stdin });
for await (const line of rl) {
  let e;
  try {
    e = JSON.parse(line);
  } catch {
    continue; // build output that is not an event
  }
  if (!e.Test) {
    // A package that fails with no failed test timed out, panicked or did
    // not build: its own output (and the tests still running) says which.
    const name = e.Package + " (package)";
    if (e.Action === "output") output.set(name, (output.get(name) ?? []).concat(e.Output).slice(-40));
    if (e.Action === "fail") {
      failed.push(name);
      const still = [...running].filter((t) => t.startsWith(e.Package + " "));
      if (still.length > 0) output.set(name, (output.get(name) ?? []).concat(`still running: ${still.join(", ")}\n`));
    }
    continue;
  }
  const name = `${e.Package} ${e.Test}`;
  if (e.Action === "run") running.add(name);
  if (["pass", "fail", "skip"].includes(e.Action)) running.delete(name);
  if (e.Action === "output") output.set(name, (output.get(name) ?? []).concat(e.Output).slice(-40));
  if (e.Action === "skip") skipped.push(name);
  if (e.Action === "fail") failed.push(name);
  if (e.Action === "pass") passed++;
}
const unexpected = skipped.filter((s) => !allowed.has(s));
for (const s of skipped) console.log(`skipped: ${s}${allowed.has(s) ? " (allowed)" : ""}`);
for (const f of failed) {
  console.log(`failed: ${f}`);
  for (const l of output.get(f) ?? []) process.stdout.write(`    ${l}`);
}
console.log(`go tests: ${passed} passed, ${failed.length} failed, ${skipped.length} skipped (${unexpected.length} not allowed)`);
process.exit(failed.length > 0 || unexpected.length > 0 ? 1 : 0);
