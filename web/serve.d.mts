// Types for web/serve.mjs (imported by test/web.test.ts).
import type { Server } from "node:http";

export declare const DEFAULT_ROOT: string;

export declare function serve(options?: { root?: string; port?: number; host?: string }): Promise<{
  url: string;
  server: Server;
  close(): Promise<void>;
}>;
