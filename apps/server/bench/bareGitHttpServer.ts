/**
 * Baseline: the least a smart-HTTP git server does for a push, on `node:http`: no authentication,
 * no database, no locks, no follow-up; `git receive-pack --stateless-rpc` spawned per request, the
 * request body piped into it and its output into the response. A push through it against one to
 * the file system is the cost of carrying git over HTTP on this machine (the client's helper
 * processes, the loopback, the relay), which Kiln pays too. Forked by Baselines.ts.
 */
import * as ChildProcess from "node:child_process"
import * as Http from "node:http"
import * as Path from "node:path"
import { announceListening } from "./ChildServer.ts"

export interface BareGitHttpConfig {
  readonly port: number
  /** Directory holding the bare repositories, served as `/<name>.git`. */
  readonly root: string
}

// The parent (Baselines.ts) wrote this argument from a BareGitHttpConfig.
const config: BareGitHttpConfig = JSON.parse(process.argv[2] ?? "{}")

const pktLine = (text: string) => `${(text.length + 4).toString(16).padStart(4, "0")}${text}`

const server = Http.createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://bare")
  const route = /^\/([A-Za-z0-9_.-]+\.git)\/(info\/refs|git-receive-pack)$/.exec(url.pathname)
  const repository = route?.[1]
  if (repository === undefined || repository.startsWith(".")) {
    response.writeHead(404).end()
    return
  }
  const directory = Path.join(config.root, repository)
  const advertise = route?.[2] === "info/refs"
  if (advertise && url.searchParams.get("service") !== "git-receive-pack") {
    response.writeHead(403).end()
    return
  }
  const git = ChildProcess.spawn("git", ["receive-pack", "--stateless-rpc", ...(advertise ? ["--advertise-refs"] : []), directory], {
    stdio: ["pipe", "pipe", "ignore"]
  })
  git.on("error", () => response.destroy())
  response.writeHead(200, {
    "content-type": `application/x-git-receive-pack-${advertise ? "advertisement" : "result"}`,
    "cache-control": "no-cache"
  })
  if (advertise) {
    response.write(`${pktLine("# service=git-receive-pack\n")}0000`)
    git.stdin.end()
  } else {
    request.pipe(git.stdin)
  }
  git.stdout.pipe(response)
})
server.listen(config.port, "127.0.0.1", () => announceListening(config.port))
process.once("SIGTERM", () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
})
