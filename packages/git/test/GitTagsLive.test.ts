/** GitTagsLive against real bare repositories, read back with the stock git CLI. */
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { makeGitTags } from "../src/GitTagsLive.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
let head = ""

beforeAll(async () => {
  sandbox = await GitSandbox.make()
  const work = await sandbox.workTree("work")
  head = await sandbox.commit(work, { "README.md": "hello\n" }, "first")
  await sandbox.git(["clone", "-q", "--bare", work, sandbox.path("root", "alice", "app.git")])
})

afterAll(() => sandbox.dispose())

const tags = Effect.suspend(() => makeGitTags(sandbox.path("root")))
const location = { owner: "Alice", name: "App" }

describe("GitTagsLive", () => {
  it.effect("creates a lightweight tag at the commit, then refuses it as existing", () =>
    Effect.gen(function*() {
      const git = yield* tags
      yield* git.createTag(location, "v1.0", head)
      const refs = yield* Effect.promise(() => sandbox.refs(sandbox.path("root", "alice", "app.git")))
      assert.strictEqual(refs.get("refs/tags/v1.0"), head)
      const again = yield* Effect.flip(git.createTag(location, "v1.0", head))
      assert.strictEqual(again._tag, "AlreadyExists")
    }))

  it.effect("refuses bad names, unknown commits and missing repositories without touching refs", () =>
    Effect.gen(function*() {
      const git = yield* tags
      assert.strictEqual((yield* Effect.flip(git.createTag(location, "bad..name", head)))._tag, "Invalid")
      assert.strictEqual((yield* Effect.flip(git.createTag(location, "v2", "0".repeat(40))))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(git.createTag(location, "v2", "HEAD")))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(git.createTag({ owner: "alice", name: "none" }, "v2", head)))._tag, "NotFound")
      assert.strictEqual((yield* Effect.flip(git.createTag({ owner: "..", name: "app" }, "v2", head)))._tag, "Invalid")
      const refs = yield* Effect.promise(() => sandbox.refs(sandbox.path("root", "alice", "app.git")))
      assert.isFalse(refs.has("refs/tags/v2"))
      assert.isFalse(refs.has("refs/tags/bad..name"))
    }))

  it.effect("of concurrent creations of one tag exactly one succeeds", () =>
    Effect.gen(function*() {
      const git = yield* tags
      const results = yield* Effect.all(
        Array.from({ length: 5 }, () => Effect.exit(git.createTag(location, "race", head))),
        { concurrency: "unbounded" }
      )
      assert.strictEqual(results.filter((exit) => exit._tag === "Success").length, 1)
    }))
})
