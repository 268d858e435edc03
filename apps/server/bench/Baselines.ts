/**
 * The bare `node:http` servers Kiln is compared with, each in a child process of its own: one
 * answers a fixed JSON body of a given size (the cost of Node's HTTP alone), one does Kiln's user
 * lookup with Kiln's database client (HTTP plus the database, nothing else), and one relays pushes
 * to `git receive-pack` (git over HTTP, nothing else).
 *
 * Both run with the V8 flags Kiln's server gives itself (ProcessFlags.ts): a ratio then compares
 * code with code, not Kiln's V8 settings with Node's defaults (`--no-allocation-site-pretenuring`
 * alone took ~25% off Kiln's CPU per `/version` in the windows V8 pretenured its requests' objects).
 */
import { serverFlags } from "../src/platform/ProcessFlags.ts"
import type { BareGitHttpConfig } from "./bareGitHttpServer.ts"
import type { BareJsonConfig } from "./bareJsonServer.ts"
import type { BareLookupConfig } from "./bareLookupServer.ts"
import type { DatabaseLocation } from "./BenchDatabase.ts"
import { type ChildServer, forkServer } from "./ChildServer.ts"
import { freePort } from "./FreePort.ts"

export const startBareJson = async (bodyBytes: number): Promise<ChildServer> =>
  forkServer(new URL("./bareJsonServer.ts", import.meta.url), {
    port: await freePort(),
    bodyBytes
  } satisfies BareJsonConfig, { nodeFlags: serverFlags })

/** For the embedded database, nothing else may have it open meanwhile. */
export const startBareLookup = async (database: DatabaseLocation): Promise<ChildServer> =>
  forkServer(new URL("./bareLookupServer.ts", import.meta.url), {
    port: await freePort(),
    database
  } satisfies BareLookupConfig, { nodeFlags: serverFlags })

/** Serves the bare repositories in `root` as `/<name>.git`, for pushes. */
export const startBareGitHttp = async (root: string): Promise<ChildServer> =>
  forkServer(new URL("./bareGitHttpServer.ts", import.meta.url), {
    port: await freePort(),
    root
  } satisfies BareGitHttpConfig, { nodeFlags: serverFlags })
