#!/usr/bin/env node
// The `tile` executable: runs the bundled shell (built by `npm install` into dist/).
import { main } from "../../dist/tile-shell.mjs";

process.exitCode = await main(process.argv.slice(2));
