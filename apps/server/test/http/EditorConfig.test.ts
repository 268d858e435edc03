import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { writeFileSync } from "node:fs"
import { bareRepositoryPath, git, scratchDir, seedRepository } from "./ArchiveFixtures.ts"
import { at, baseUrl, createUser, request } from "../support/TestServer.ts"
import * as TestServer from "../support/TestServer.ts"
import { MAX_QUEUED_MATCHES } from "../../src/platform/editorconfig/EditorConfigMatcherLive.ts"

layer(TestServer.layer(), { timeout: "180 seconds" })("editorconfig", (it) => {
  it.effect("matches the root .editorconfig's sections and globs, later sections winning, with Forgejo's four keys", () =>
    Effect.gen(function*() {
      const ada = yield* createUser("ada")
      const { feature } = yield* seedRepository(ada.auth, "ada", "styled")
      const definition = (file: string, query = "") =>
        Effect.map(request("GET", `/api/v1/repos/ada/styled/editorconfig/${file}${query}`, { auth: ada.auth }), (r) => [r.status, r.body] as const)
      assert.deepStrictEqual(yield* definition("main.py"), [200, { charset: "utf-8", indent_style: "space", indent_size: "4", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("app.ts"), [200, { charset: "utf-8", indent_style: "space", indent_size: "2", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("lib.js"), [200, { charset: "utf-8", indent_style: "space", indent_size: "2", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("Makefile"), [200, { charset: "utf-8", indent_style: "tab", indent_size: "4", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("NOTES.md"), [200, { charset: "latin1", indent_style: "space", end_of_line: "lf" }])
      assert.deepStrictEqual(yield* definition("x.ts", `?ref=${feature}`), [200, { charset: "utf-8", indent_style: "space", indent_size: "2", end_of_line: "lf" }])
      assert.strictEqual((yield* definition("x.ts", "?ref=missing"))[0], 404)

      const plain = yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "plain", auto_init: true } })
      assert.strictEqual(plain.status, 201)
      assert.strictEqual((yield* request("GET", "/api/v1/repos/ada/plain/editorconfig/a.ts", { auth: ada.auth })).status, 404)
      yield* request("POST", "/api/v1/user/repos", { auth: ada.auth, json: { name: "empty" } })
      const empty = yield* request("GET", "/api/v1/repos/ada/empty/editorconfig/a.ts", { auth: ada.auth })
      assert.strictEqual(empty.status, 404)
    }))

  it.effect("answers {} for a file no section matches", () =>
    Effect.gen(function*() {
      const bo = yield* createUser("bo")
      const created = yield* request("POST", "/api/v1/user/repos", { auth: bo.auth, json: { name: "narrow", auto_init: true } })
      assert.strictEqual(created.status, 201)
      // Replace the content with an .editorconfig that only speaks of Go files.
      const { bareRepositoryPath, contentTree, git } = yield* Effect.promise(() => import("./ArchiveFixtures.ts"))
      const work = contentTree()
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(`${work}/.editorconfig`, "root = true\n[*.go]\nindent_style = tab\n")
      yield* git(["init", "--quiet", "--initial-branch=main", work])
      yield* git(["add", "-A"], work)
      yield* git(["commit", "--quiet", "-m", "narrow"], work)
      yield* git(["push", "--quiet", "--force", yield* bareRepositoryPath("bo", "narrow"), "main"], work)
      const none = yield* request("GET", "/api/v1/repos/bo/narrow/editorconfig/a.ts")
      assert.strictEqual(none.status, 200)
      assert.deepStrictEqual(none.body, {})
      const go = yield* request("GET", "/api/v1/repos/bo/narrow/editorconfig/a.go")
      // EditorConfig: indent_style = tab with no indent_size means indent_size = tab.
      assert.deepStrictEqual(go.body, { indent_style: "tab", indent_size: "tab" })
    }))
})

/** Replaces the content of `owner/name` (created with auto_init) with one `.editorconfig`. */
const pushEditorConfig = (owner: string, name: string, content: string) =>
  Effect.gen(function*() {
    const work = scratchDir()
    writeFileSync(`${work}/.editorconfig`, content)
    yield* git(["init", "--quiet", "--initial-branch=main", work])
    yield* git(["add", "-A"], work)
    yield* git(["commit", "--quiet", "-m", "editorconfig"], work)
    yield* git(["push", "--quiet", "--force", yield* bareRepositoryPath(owner, name), "main"], work)
  })

/** `/version` answered over the socket the whole time `during` runs: the longest wait, in ms. */
const versionWhile = <A, E, R>(during: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const base = yield* baseUrl
    let running = true
    let longest = 0
    let answered = 0
    const poll = Effect.promise(async () => {
      while (running) {
        const started = performance.now()
        const response = await fetch(`${base}/api/v1/version`)
        await response.text()
        if (response.status === 200) answered++
        longest = Math.max(longest, performance.now() - started)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    })
    const fiber = yield* Effect.forkChild(poll)
    const result = yield* during.pipe(Effect.ensuring(Effect.sync(() => { running = false })))
    yield* Fiber.join(fiber)
    return { result, longest, answered }
  })

layer(TestServer.layer(), { timeout: "180 seconds" })("editorconfig that would hold the server", (it) => {
  it.effect("a crafted 2 KB file of brace sets is refused with 422 within a second, /version answering meanwhile", () =>
    Effect.gen(function*() {
      const eve = yield* createUser("eve")
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: eve.auth, json: { name: "braces", auto_init: true } })).status, 201)
      // The review's file (finding 1): 20 headers of 18 brace sets took 27 s of CPU per lookup.
      const crafted = Array.from({ length: 20 }, (_, i) => `[${"{a,b}".repeat(18)}${i}]\nindent_size=2\n`).join("")
      assert.isAtMost(crafted.length, 2_200)
      yield* pushEditorConfig("eve", "braces", crafted)
      const { result, answered } = yield* versionWhile(Effect.gen(function*() {
        const started = performance.now()
        const refused = yield* request("GET", "/api/v1/repos/eve/braces/editorconfig/foo")
        return { refused, millis: performance.now() - started }
      }))
      assert.strictEqual(result.refused.status, 422)
      assert.match(String(at(result.refused.body, "message")), /brace sets, more than 8/)
      assert.strictEqual(at(result.refused.body, "url"), `${TestServer.ROOT_URL}api/swagger`)
      assert.isAtMost(result.millis, 1_000)
      assert.isAtLeast(answered, 1)
    }))

  it.effect("a file within the limits that matches too slowly is stopped (422) while /version keeps answering", () =>
    Effect.gen(function*() {
      const fay = yield* createUser("fay")
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: fay.auth, json: { name: "ranges", auto_init: true } })).status, 201)
      // 64 sections of one brace set each (2.5 KB): each range expands into 100,000 patterns (the
      // expansion's own cap), 6,400,000 in all: many seconds of CPU on any machine (one such
      // section took from under one to five seconds here, by load).
      const ranges = Array.from({ length: 64 }, (_, i) => `[{1..100000}x${i}]\nindent_style = tab\n`).join("")
      yield* pushEditorConfig("fay", "ranges", ranges)
      const { result, longest, answered } = yield* versionWhile(
        Effect.all([1, 2].map(() => request("GET", "/api/v1/repos/fay/ranges/editorconfig/7")), { concurrency: "unbounded" })
      )
      for (const refused of result) {
        assert.strictEqual(refused.status, 422)
        assert.match(String(at(refused.body, "message")), /took longer than 1000 ms and was stopped/)
      }
      assert.isAtLeast(answered, 3)
      // Generous: the event loop was never held for the seconds a match takes.
      assert.isBelow(longest, 1_500)
      // The next lookup gets a fresh matching thread.
      yield* pushEditorConfig("fay", "ranges", "[*.go]\nindent_style = tab\n")
      assert.deepStrictEqual((yield* request("GET", "/api/v1/repos/fay/ranges/editorconfig/a.go")).body, { indent_style: "tab", indent_size: "tab" })
    }))

  it.effect("lookups past the queue's bound are answered 503 with Retry-After at once (finding 29)", () =>
    Effect.gen(function*() {
      const hal = yield* createUser("hal")
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: hal.auth, json: { name: "slow", auto_init: true } })).status, 201)
      // Each lookup takes the whole time limit (1 s) and is stopped.
      yield* pushEditorConfig("hal", "slow", Array.from({ length: 64 }, (_, i) => `[{1..100000}x${i}]\nindent_style = tab\n`).join(""))
      const base = yield* baseUrl
      // Far more than the thread holds: they reach it over a second or two (each reads git first).
      const answers = yield* Effect.promise(() =>
        Promise.all(Array.from({ length: 2 * MAX_QUEUED_MATCHES }, () =>
          fetch(`${base}/api/v1/repos/hal/slow/editorconfig/7`).then(async (response) => ({
            status: response.status,
            retryAfter: response.headers.get("retry-after"),
            body: await response.json() as unknown
          })))))
      const busy = answers.filter((answer) => answer.status === 503)
      // At most one matching and MAX_QUEUED_MATCHES waiting at any moment; the rest refused.
      assert.isAtLeast(busy.length, 1)
      for (const answer of busy) {
        assert.strictEqual(answer.retryAfter, "1")
        assert.deepStrictEqual(answer.body, { message: "too many .editorconfig lookups are waiting; try again later", url: `${TestServer.ROOT_URL}api/swagger` })
      }
      assert.isTrue(answers.every((answer) => answer.status === 503 || answer.status === 422))
    }), { timeout: 180_000 })

  it.effect("a lookup whose client went away leaves the queue: the next one waits for no one's leftovers", () =>
    Effect.gen(function*() {
      const ivy = yield* createUser("ivy")
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: ivy.auth, json: { name: "slow", auto_init: true } })).status, 201)
      yield* pushEditorConfig("ivy", "slow", Array.from({ length: 64 }, (_, i) => `[{1..100000}x${i}]\nindent_style = tab\n`).join(""))
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: ivy.auth, json: { name: "quick", auto_init: true } })).status, 201)
      yield* pushEditorConfig("ivy", "quick", "[*.go]\nindent_style = tab\n")
      const base = yield* baseUrl
      const clients = Array.from({ length: 12 }, () => new AbortController())
      const leaving = clients.map((client) =>
        fetch(`${base}/api/v1/repos/ivy/slow/editorconfig/7`, { signal: client.signal }).then(() => undefined, () => undefined))
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 300)))
      for (const client of clients) client.abort()
      yield* Effect.promise(() => Promise.all(leaving))
      const started = performance.now()
      const quick = yield* request("GET", "/api/v1/repos/ivy/quick/editorconfig/a.go")
      assert.deepStrictEqual([quick.status, quick.body], [200, { indent_style: "tab", indent_size: "tab" }])
      // Behind at most the lookup being matched (1 s), not the 11 that left (11 s): a hang guard.
      assert.isBelow(performance.now() - started, 6_000)
    }))

  it.effect("a file over the size limit is refused before it is read", () =>
    Effect.gen(function*() {
      const gus = yield* createUser("gus")
      assert.strictEqual((yield* request("POST", "/api/v1/user/repos", { auth: gus.auth, json: { name: "huge", auto_init: true } })).status, 201)
      yield* pushEditorConfig("gus", "huge", `[*]\nindent_style = tab\n${"# padding\n".repeat(7_000)}`)
      const refused = yield* request("GET", "/api/v1/repos/gus/huge/editorconfig/a.go")
      assert.strictEqual(refused.status, 422)
      assert.match(String(at(refused.body, "message")), /^\.editorconfig is 70\d+ bytes, more than the limit of 65536 bytes$/)
    }))
})
