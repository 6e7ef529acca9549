// The host runtime for tests that run kernels: builds the native library first when a checkout
// has not built it yet (npm install builds it; a test run straight after a source change may not).
import fs from "node:fs";
import path from "node:path";
import { spawnSync } from "node:child_process";
import { nativeLibraryPath } from "../../shell-node/src/native";
import { ROOT } from "./files";

export function ensureHostLibrary(): void {
  if (!fs.existsSync(nativeLibraryPath("host"))) spawnSync(process.execPath, [path.join(ROOT, "shell-native", "build.mjs")], { stdio: "inherit" });
}

