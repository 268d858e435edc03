/**
 * `@kiln/server/testing`: a throwaway Kiln for the tests of other projects. It listens on a free
 * loopback port, over the embedded database in a temporary directory (or a given PostgreSQL
 * server), with a site administrator and a token of theirs; `close()` removes what it made.
 * Promises only, so vitest, node:test and Jest use it alike.
 */
import { mkdtemp, rm } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Option, Redacted } from "effect"
import { type KilnInstance, type KilnOptions, start } from "../Kiln.ts"

export interface TestKilnOptions {
  /** A PostgreSQL server's URL instead of the embedded database; its database should be empty. */
  readonly databaseUrl?: string
  /** Other settings (`maxBodySize`, `quotaDefaultGroups`, ...); the root URL is the server's own. */
  readonly settings?: Partial<Omit<KilnOptions, "rootUrl" | "dataDir" | "databaseUrl" | "admin">>
}

export interface TestKiln {
  /** `http://127.0.0.1:<port>`, without a trailing slash: `${url}/api/v1/version`. */
  readonly url: string
  readonly admin: { readonly username: string; readonly password: string }
  /** A token of the administrator with every scope: `Authorization: token <adminToken>`. */
  readonly adminToken: string
  readonly dataDir: string
  /** The running Kiln, for its domain services (`kiln.runPromise`). */
  readonly kiln: KilnInstance
  /** Stops the server and Kiln and removes the data directory. */
  readonly close: () => Promise<void>
}

const ADMIN = { username: "kiln-admin", password: "kiln-admin-password", email: "kiln-admin@example.com" } as const

const listen = (server: Server) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port))
  })

const closeServer = (server: Server) =>
  new Promise<void>((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })

export const startTestKiln = async (options: TestKilnOptions = {}): Promise<TestKiln> => {
  const dataDir = await mkdtemp(join(tmpdir(), "kiln-testing-"))
  // The port comes first: the root URL every answer carries names it.
  const server = createServer()
  let kiln: KilnInstance | undefined
  try {
    const port = await listen(server)
    const url = `http://127.0.0.1:${port}`
    kiln = await start({
      ...options.settings,
      rootUrl: `${url}/`,
      dataDir,
      httpHost: "127.0.0.1",
      httpPort: port,
      databaseUrl: options.databaseUrl === undefined ? Option.none() : Option.some(Redacted.make(options.databaseUrl)),
      admin: Option.some({ username: ADMIN.username, password: Redacted.make(ADMIN.password), email: ADMIN.email }),
      accessLog: options.settings?.accessLog ?? false
    })
    server.on("request", kiln.handler)
    const adminToken = await issueToken(url)
    const running = kiln
    return {
      url,
      admin: { username: ADMIN.username, password: ADMIN.password },
      adminToken,
      dataDir,
      kiln: running,
      close: async () => {
        await closeServer(server)
        await running.close()
        await rm(dataDir, { recursive: true, force: true })
      }
    }
  } catch (error) {
    await closeServer(server)
    await kiln?.close()
    await rm(dataDir, { recursive: true, force: true })
    throw error
  }
}

const issueToken = async (url: string): Promise<string> => {
  const basic = Buffer.from(`${ADMIN.username}:${ADMIN.password}`).toString("base64")
  const response = await fetch(`${url}/api/v1/users/${ADMIN.username}/tokens`, {
    method: "POST",
    headers: { authorization: `Basic ${basic}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "kiln-testing", scopes: ["all"] })
  })
  const body: unknown = await response.json()
  if (response.status !== 201 || typeof body !== "object" || body === null || !("sha1" in body) || typeof body.sha1 !== "string") {
    throw new Error(`the test Kiln refused its administrator a token: ${response.status} ${JSON.stringify(body)}`)
  }
  return body.sha1
}
