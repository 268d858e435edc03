/**
 * `git http-backend` (the stock CGI program) behind a tiny node:http server on loopback, with
 * optional Basic auth, a "stall" path that never answers, and the request count. For migration tests.
 */
import { spawn } from "node:child_process"
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface GitHttpBackend {
  readonly url: string
  readonly port: number
  readonly close: () => Promise<void>
}

const cgi = (projectRoot: string, request: IncomingMessage, response: ServerResponse) => {
  const url = new URL(request.url ?? "/", "http://backend")
  const child = spawn("/usr/lib/git-core/git-http-backend", [], {
    env: {
      PATH: process.env["PATH"] ?? "/usr/bin:/bin",
      GIT_PROJECT_ROOT: projectRoot,
      GIT_HTTP_EXPORT_ALL: "1",
      REQUEST_METHOD: request.method ?? "GET",
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.replace(/^\?/, ""),
      CONTENT_TYPE: request.headers["content-type"] ?? "",
      REMOTE_USER: "tester",
      REMOTE_ADDR: "127.0.0.1",
      ...(request.headers["git-protocol"] === undefined ? {} : { GIT_PROTOCOL: String(request.headers["git-protocol"]) })
    },
    stdio: ["pipe", "pipe", "ignore"]
  })
  request.pipe(child.stdin)
  let head = Buffer.alloc(0)
  let headersDone = false
  child.stdout.on("data", (chunk: Buffer) => {
    if (headersDone) {
      response.write(chunk)
      return
    }
    head = Buffer.concat([head, chunk])
    const end = head.indexOf("\r\n\r\n")
    if (end < 0) return
    headersDone = true
    let status = 200
    for (const line of head.subarray(0, end).toString("latin1").split("\r\n")) {
      const colon = line.indexOf(":")
      const name = line.slice(0, colon).trim()
      const value = line.slice(colon + 1).trim()
      if (name.toLowerCase() === "status") status = Number.parseInt(value, 10)
      else response.setHeader(name, value)
    }
    response.writeHead(status)
    response.write(head.subarray(end + 4))
  })
  child.stdout.on("end", () => response.end())
}

/** Serves the bare repositories under `projectRoot`; with `credentials`, only to Basic auth with them. */
export const startGitHttpBackend = (
  projectRoot: string,
  credentials?: { readonly username: string; readonly password: string }
): Promise<GitHttpBackend> =>
  new Promise((resolve) => {
    const expected = credentials === undefined
      ? undefined
      : `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString("base64")}`
    const server: Server = createServer((request, response) => {
      if ((request.url ?? "").startsWith("/stall/")) return // never answers
      if (expected !== undefined && request.headers.authorization !== expected) {
        response.writeHead(401, { "www-authenticate": "Basic realm=\"git\"" })
        response.end()
        return
      }
      cgi(projectRoot, request, response)
    })
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo // a TCP listen always has an AddressInfo
      resolve({
        url: `http://127.0.0.1:${port}`,
        port,
        close: () => new Promise((done) => {
          server.closeAllConnections()
          server.close(() => done())
        })
      })
    })
  })
