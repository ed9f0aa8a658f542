// Reads a callgrind file kept by `BENCH_IR_KEEP=1 npm run bench:instructions` again, without
// counting anew: `node dist/bench/callgrind-report.js <callgrind file> <perf map> <requests>`.
//   IR_TOP=N        functions with the most own instructions per request
//   IR_INCLUSIVE=N  JS functions (or those matching IR_MATCH) with the most inclusive instructions per request (own and callees')
//   IR_CALLEES=re   what the functions matching `re` spend in each callee, per request
//   IR_CALLS=re     how often the functions matching `re` were called, per request
//   IR_TIERS=1      name JIT code with its tier (~ interpreted, ^ baseline, + Maglev, * TurboFan)
//   IR_CALLERS=re   who calls the functions matching `re`, and what those calls cost, per request
import { calleesOf, callGraph, inclusiveCosts } from './callgrind.js';

const [file, map, requests] = process.argv.slice(2);
if (!file || !requests) throw new Error('usage: callgrind-report <callgrind file> <perf map|-> <requests>');
const n = Number(requests);
const g = callGraph(file, map === '-' ? null : map);
const line = ([name, ir]: [string, number]): string => `${String(Math.round(ir / n)).padStart(8)}  ${name.replace(/file:\/\/\S*?\/dist\//, '').slice(0, 130)}`;
const top = Number(process.env.IR_TOP ?? 0);
if (top > 0) {
  console.log(`own instructions per request, top ${top}`);
  for (const e of [...g.self].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(line(e));
}
const inclusive = Number(process.env.IR_INCLUSIVE ?? 0);
if (inclusive > 0) {
  console.log(`\nJS functions by inclusive instructions per request, top ${inclusive}`);
  const match = new RegExp(process.env.IR_MATCH ?? '^JS:');
  for (const e of inclusiveCosts(g).filter(([name]) => match.test(name)).slice(0, inclusive)) console.log(line(e));
}
const counted = process.env.IR_CALLS;
if (counted) {
  console.log(`\ncalls per request of functions matching /${counted}/`);
  const re = new RegExp(counted);
  for (const [name, c] of g.calls) if (re.test(name)) console.log(`${(c / n).toFixed(3).padStart(10)}  ${name.slice(0, 130)}`);
}
const callers = process.env.IR_CALLERS;
if (callers) {
  console.log(`\ncallers of /${callers}/, instructions per request spent in it from each`);
  const re = new RegExp(callers);
  const out = new Map<string, number>();
  for (const [from, callees] of g.arcs) for (const [to, ir] of callees) if (re.test(to) && to !== from) out.set(from, (out.get(from) ?? 0) + ir);
  for (const e of [...out].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(line(e));
}
const callees = process.env.IR_CALLEES;
if (callees) {
  console.log(`\ncallees of /${callees}/, instructions per request`);
  for (const e of calleesOf(g, new RegExp(callees)).slice(0, 40)) console.log(line(e));
}
