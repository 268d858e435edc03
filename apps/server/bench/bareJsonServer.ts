/**
 * Baseline: a bare `node:http` server answering every request with the same JSON body of a given
 * size. What Kiln's framework costs on top of Node shows against it. Forked by Baselines.ts.
 */
import * as Http from "node:http"
import { announceListening } from "./ChildServer.ts"

export interface BareJsonConfig {
  readonly port: number
  readonly bodyBytes: number
}

/** A JSON object of exactly `bytes` bytes (at least the 14 of its empty padding). */
const jsonBodyOf = (bytes: number): Buffer => {
  const empty = `{"padding":""}`
  return Buffer.from(`{"padding":"${"x".repeat(Math.max(0, bytes - empty.length))}"}`)
}

// The parent (Baselines.ts) wrote this argument from a BareJsonConfig.
const config: BareJsonConfig = JSON.parse(process.argv[2] ?? "{}")
const body = jsonBodyOf(config.bodyBytes)

const server = Http.createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": body.length })
  response.end(body)
})
server.listen(config.port, "127.0.0.1", () => announceListening(config.port))
process.once("SIGTERM", () => {
  server.close(() => process.exit(0))
  server.closeAllConnections()
})
