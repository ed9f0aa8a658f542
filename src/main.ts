#!/usr/bin/env node
import { runCli } from './cli/main.js';

// Entry point of `npm start` and the `gw` bin.
runCli(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
