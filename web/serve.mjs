// A small static server for the planner page (dist/web/), for `npm run web` and the browser
// tests. node:http only; binds to 127.0.0.1; GET and HEAD; no directory listings.
//   node web/serve.mjs [--port 8080] [--root dist/web]
import http from "node:http";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
export const DEFAULT_ROOT = path.resolve(here, "..", "dist", "web");

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** The file a URL path names under root, or null when it escapes root or is not a file. */
function fileFor(root, urlPath) {
  let rel;
  try {
    rel = decodeURIComponent(urlPath.split("?")[0].split("#")[0]);
  } catch {
    return null;
  }
  if (rel.endsWith("/")) rel += "index.html";
  const file = path.resolve(root, "." + path.posix.normalize("/" + rel));
  if (file !== root && !file.startsWith(root + path.sep)) return null;
  try {
    return fs.statSync(file).isFile() ? file : null;
  } catch {
    return null;
  }
}

/**
 * Serves `root` on `host:port` (port 0 picks a free one).
 * @param {{root?: string, port?: number, host?: string}} [options]
 * @returns {Promise<{url: string, server: http.Server, close(): Promise<void>}>}
 */
export function serve({ root = DEFAULT_ROOT, port = 8080, host = "127.0.0.1" } = {}) {
  const base = path.resolve(root);
  const server = http.createServer((req, res) => {
    if (req.method !== "GET" && req.method !== "HEAD") {
      res.writeHead(405, { Allow: "GET, HEAD" }).end();
      return;
    }
    const file = fileFor(base, req.url ?? "/");
    if (file === null) {
      res.writeHead(404, { "Content-Type": "text/plain; charset=utf-8" }).end("not found\n");
      return;
    }
    const body = fs.readFileSync(file);
    res.writeHead(200, {
      "Content-Type": TYPES[path.extname(file)] ?? "application/octet-stream",
      "Content-Length": body.length,
      "Cache-Control": "no-store",
      "X-Content-Type-Options": "nosniff",
    });
    res.end(req.method === "HEAD" ? undefined : body);
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      const address = server.address();
      const url = `http://${host}:${typeof address === "object" && address ? address.port : port}/`;
      resolve({ url, server, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

function argValue(flag) {
  const i = process.argv.indexOf(flag);
  return i > 0 ? process.argv[i + 1] : undefined;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(argValue("--root") ?? DEFAULT_ROOT);
  if (!fs.existsSync(path.join(root, "index.html"))) {
    process.stderr.write(`serve: ${root}/index.html is missing: build the page first (npm run build:web)\n`);
    process.exit(2);
  }
  const port = Number(argValue("--port") ?? process.env.PORT ?? 8080);
  const { url } = await serve({ root, port });
  process.stdout.write(`Tile planner at ${url} (serving ${path.relative(process.cwd(), root) || "."}; Ctrl-C stops)\n`);
}
