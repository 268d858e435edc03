/**
 * The archive queue (review 4b30e64, finding 29): with every turn taken and the queue full, an
 * archive request is answered 503 with Retry-After at once; a request whose client went away
 * leaves the queue, so its archive is never made.
 */
import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { readdirSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Repositories } from "@kiln/domain/repo/Repositories"
import { KilnConfig } from "../../src/config/KilnConfig.ts"
import { bareRepositoryPath, git, scratchDir, seedRepository } from "./ArchiveFixtures.ts"
import { at, baseUrl, createUser, request, ROOT_URL } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"

const COMMITS = 10

layer(TestServer.layer({ archiveMaxConcurrent: 1 }), { timeout: "300 seconds" })("the archive queue", (it) => {
  it.effect("is bounded (503 with Retry-After past it), and drops the archives of clients that went away", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "noisy" } })
      assert.strictEqual(created.status, 201, created.text)
      // Commits that share an 8 MiB incompressible file: every archive of them takes a while to make.
      const work = scratchDir()
      yield* git(["init", "--quiet", "--initial-branch=main", work])
      writeFileSync(join(work, "noise.bin"), randomBytes(8 * 1024 * 1024))
      for (let i = 0; i < COMMITS; i++) {
        writeFileSync(join(work, "n.txt"), `${i}\n`)
        yield* git(["add", "-A"], work)
        yield* git(["commit", "--quiet", "-m", `c${i}`], work)
        yield* git(["tag", `t${i}`], work)
      }
      yield* git(["push", "--quiet", yield* bareRepositoryPath("ada", "noisy"), "main", "--tags"], work)
      const repositoryId = Number(at(created.body, "id"))
      const repositories = yield* Repositories
      yield* repositories.recordPush(repositoryId).pipe(Effect.orDie)

      const base = yield* baseUrl
      const clients = Array.from({ length: COMMITS * 2 }, () => new AbortController())
      const answers = clients.map((client, i) =>
        fetch(`${base}/api/v1/repos/ada/noisy/archive/t${i % COMMITS}.${i < COMMITS ? "zip" : "tar.gz"}`, { signal: client.signal })
          .then(async (response) => ({ status: response.status, retryAfter: response.headers.get("retry-after"), body: await response.text() }))
          .catch(() => undefined))
      // One archive is being made and 16 wait: the others are refused at once.
      const busy = yield* Effect.promise(async () => {
        for (let tries = 0; tries < 600; tries++) {
          const settled = await Promise.all(answers.map((answer) => Promise.race([answer, Promise.resolve("waiting" as const)])))
          const refused = settled.filter((answer) => typeof answer === "object" && answer?.status === 503)
          if (refused.length >= COMMITS * 2 - 17) return refused
          await new Promise((resolve) => setTimeout(resolve, 50))
        }
        return []
      })
      assert.strictEqual(busy.length, COMMITS * 2 - 17)
      for (const answer of busy) {
        assert.strictEqual(typeof answer === "object" ? answer.retryAfter : undefined, "10")
        assert.deepStrictEqual(typeof answer === "object" ? JSON.parse(answer.body) : undefined, {
          message: "too many archives are waiting to be made; try again later",
          url: `${ROOT_URL}api/swagger`
        })
      }
      // Every client goes away: the archives still waiting are never made.
      for (const client of clients) client.abort()
      yield* Effect.promise(() => Promise.all(answers))
      // A new request waits behind whatever is still made, then is made itself.
      yield* seedRepository(ada.auth, "ada", "small")
      const later = yield* request("GET", "/api/v1/repos/ada/small/archive/main.tar.gz", { auth: ada.auth })
      assert.strictEqual(later.status, 200)
      const { dataDir } = yield* KilnConfig
      const made = readdirSync(join(dataDir, "archives", String(repositoryId))).filter((name) => !name.includes(".tmp"))
      // The one being made when they left (perhaps the next, if it had just started); not the 16 waiting.
      assert.isAtMost(made.length, 2, made.join(", "))
    }), { timeout: 240_000 })
})
