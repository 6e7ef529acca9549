// Where a sweep's JSON is: a folder written by `tile sweep` holds sweep.json; committed evidence
// may hold it gzip-compressed as sweep.json.gz (evidence/h200/README.md: the device tool carries
// at most 64 MiB with the tracked tree). Readers take a folder, a sweep.json or a sweep.json.gz.
import fs from "node:fs";
import path from "node:path";
import zlib from "node:zlib";

/** The sweep file a folder or path names: DIR/sweep.json, else DIR/sweep.json.gz, else the path itself. */
export function sweepFile(dirOrFile: string): string {
  if (fs.existsSync(dirOrFile) && fs.statSync(dirOrFile).isDirectory()) {
    const plain = path.join(dirOrFile, "sweep.json");
    return fs.existsSync(plain) || !fs.existsSync(plain + ".gz") ? plain : plain + ".gz";
  }
  return dirOrFile;
}

/** The text of a sweep file (gunzipped when it ends in .gz). Throws as fs does when unreadable. */
export function readSweepText(dirOrFile: string): string {
  const file = sweepFile(dirOrFile);
  const bytes = fs.readFileSync(file);
  return (file.endsWith(".gz") ? zlib.gunzipSync(bytes) : bytes).toString("utf8");
}
