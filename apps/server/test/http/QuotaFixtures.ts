/** Helpers of the quota end-to-end tests (QuotaAdmin, QuotaUsage, QuotaOrg). */
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { Repositories } from "@kiln/domain/repo/Repositories"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { admin, at, type Auth, request, ROOT_URL } from "../support/TestServer.ts"

export const errorUrl = `${ROOT_URL}api/swagger`
export const error = (message: string) => ({ message, url: errorUrl })

export const zeroUsage = {
  size: {
    repos: { public: 0, private: 0 },
    git: { LFS: 0 },
    assets: { attachments: { issues: 0, releases: 0 }, artifacts: 0, packages: { all: 0 } }
  }
}

export const expectStatus = (what: string, status: number) => <R extends { readonly status: number; readonly text: string }>(response: R) =>
  response.status === status
    ? Effect.succeed(response)
    : Effect.die(new Error(`${what}: expected ${status}, got ${response.status} ${response.text}`))

export const adminCall = (method: string, path: string, status: number, json?: unknown) =>
  Effect.flatMap(
    request(method, `/api/v1${path}`, { auth: admin, ...(json === undefined ? {} : { json }) }),
    expectStatus(`${method} ${path}`, status)
  )

export const usedOf = (auth: Auth, path: string) =>
  Effect.map(request("GET", `/api/v1${path}/quota`, { auth }), (response) => ({
    public: Number(at(response.body, "used", "size", "repos", "public")),
    private: Number(at(response.body, "used", "size", "repos", "private"))
  }))

/**
 * A push as the git route will make it: a commit with 256 KiB of incompressible data written into the
 * bare repository with the git CLI, then the Repositories service's after-push hook.
 */
export const pushBigCommit = (owner: string, name: string, repositoryId: number) =>
  Effect.gen(function*() {
    const config = yield* KilnConfig
    const bare = Path.join(config.dataDir, "repositories", owner.toLowerCase(), `${name.toLowerCase()}.git`)
    const work = Fs.mkdtempSync(Path.join(Os.tmpdir(), "kiln-quota-push-"))
    const git = (...args: ReadonlyArray<string>) =>
      execFileSync("git", ["-c", "user.name=Pusher", "-c", "user.email=pusher@example.com", ...args], { cwd: work, stdio: "pipe" })
    git("clone", "--quiet", bare, ".")
    Fs.writeFileSync(Path.join(work, "blob.bin"), randomBytes(256 * 1024))
    git("add", "blob.bin")
    git("commit", "--quiet", "-m", "big")
    git("push", "--quiet", "origin", "HEAD")
    Fs.rmSync(work, { recursive: true, force: true })
    const repositories = yield* Repositories
    yield* Effect.orDie(repositories.recordPush(repositoryId))
  })

export const check = (auth: Auth, path: string, subject: string) =>
  Effect.map(request("GET", `/api/v1${path}/quota/check?subject=${encodeURIComponent(subject)}`, { auth }), (response) => response.body)
