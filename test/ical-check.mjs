// ical-check reads iCalendar files with ical.js, a parser written apart
// from frontdesk's, and prints what it finds in each, as JSON on one
// line: the calendar's properties and every event's UID, summary, start,
// end, whether it is all-day, and DTSTAMP. The Go tests of the channel
// exports run it and compare with the nights they hold.
//
//   node test/ical-check.mjs FILE...
import { readFileSync } from "node:fs";
import ICAL from "ical.js";

const out = [];
for (const path of process.argv.slice(2)) {
  const text = readFileSync(path, "utf8");
  const root = new ICAL.Component(ICAL.parse(text));
  if (root.name !== "vcalendar") {
    throw new Error(`${path}: the root component is ${root.name}, not vcalendar`);
  }
  const events = root.getAllSubcomponents("vevent").map((c) => {
    const e = new ICAL.Event(c);
    return {
      uid: e.uid,
      summary: e.summary,
      start: e.startDate.toString(),
      end: e.endDate.toString(),
      allDay: e.startDate.isDate && e.endDate.isDate,
      dtstamp: c.getFirstPropertyValue("dtstamp")?.toString() ?? null,
      description: c.getFirstPropertyValue("description") ?? null,
    };
  });
  out.push({
    file: path,
    version: root.getFirstPropertyValue("version"),
    prodid: root.getFirstPropertyValue("prodid"),
    events,
  });
}
process.stdout.write(JSON.stringify(out) + "\n");
