#!/usr/bin/env node
// The `tile` executable: runs the bundled shell (built by `npm install` into dist/).
import { main } from "../../dist/tile-shell.mjs";

// a closed pipe (`tile plan ... | head`) ends the output quietly
process.stdout.on("error", (err) => {
  if (err.code === "EPIPE") process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await main(process.argv.slice(2));
