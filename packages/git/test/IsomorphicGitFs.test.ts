import { assert, describe, it } from "@effect/vitest"
import { promises } from "node:fs"
import { resolveRef } from "isomorphic-git"
import { isomorphicGitFs } from "../src/IsomorphicGitFs.ts"
import { GitSandbox } from "./GitSandbox.ts"

describe("isomorphicGitFs", () => {
  it("answers isomorphic-git's promise probe at once, where Node's file system makes an argument error", async () => {
    // isomorphic-git's check that `fs` is a promise API, on every call: readFile() with no argument.
    assert.isUndefined(await isomorphicGitFs.promises.readFile())
    const nodes = await (promises.readFile as unknown as () => Promise<unknown>)().catch((error: unknown) => error)
    assert.instanceOf(nodes, TypeError)
  })

  it("reads a repository as Node's file system does", async () => {
    const sandbox = await GitSandbox.make()
    try {
      const { work, commits } = await sandbox.threeCommits("work")
      const gitdir = sandbox.path("bare.git")
      await sandbox.git(["clone", "-q", "--bare", work, gitdir])
      assert.strictEqual(await resolveRef({ fs: isomorphicGitFs, gitdir, ref: "refs/heads/main" }), commits[2])
      const content: unknown = await isomorphicGitFs.promises.readFile(`${gitdir}/HEAD`, "utf8")
      assert.strictEqual(content, "ref: refs/heads/main\n")
    } finally {
      await sandbox.dispose()
    }
  })
})
