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

describe("isomorphicGitFs reads small files synchronously, answering as Node's promise API does", () => {
  it("gives the same contents, and the same failures, as fs.promises", async () => {
    const sandbox = await GitSandbox.make()
    try {
      const small = sandbox.path("small.txt")
      const large = sandbox.path("large.bin")
      const text = "é ref: refs/heads/main\n"
      await promises.writeFile(small, text)
      // Past the synchronous bound: read through the promise API, whole.
      const bytes = Buffer.alloc(300 * 1024, 7)
      await promises.writeFile(large, bytes)
      const fs = isomorphicGitFs.promises
      assert.deepStrictEqual(await fs.readFile(small), Buffer.from(text))
      assert.strictEqual(await fs.readFile(small, "utf8"), text)
      assert.strictEqual(await fs.readFile(small, { encoding: "utf8" }), text)
      // As isomorphic-git takes every file's bytes: through Buffer.from.
      const read = await fs.readFile(large)
      assert.deepStrictEqual(read instanceof ArrayBuffer ? Buffer.from(read) : read, bytes)
      for (const path of [sandbox.path("missing"), sandbox.path("missing/below"), sandbox.path(".")]) {
        const ours: unknown = await fs.readFile(path).catch((error: unknown) => error)
        const nodes: unknown = await promises.readFile(path).catch((error: unknown) => error)
        assert.instanceOf(ours, Error, path)
        assert.strictEqual((ours as NodeJS.ErrnoException).code, (nodes as NodeJS.ErrnoException).code, path)
      }
      assert.strictEqual((await fs.stat(small)).size, Buffer.byteLength(text))
      assert.isTrue((await fs.lstat(sandbox.path("."))).isDirectory())
      const missing: unknown = await fs.lstat(sandbox.path("missing")).catch((error: unknown) => error)
      assert.strictEqual((missing as NodeJS.ErrnoException).code, "ENOENT")
    } finally {
      await sandbox.dispose()
    }
  })
})

describe("isomorphicGitFs hands isomorphic-git what it reads without a copy", () => {
  it("gives a large file's bytes as the memory they were read into, which Buffer.from views rather than copies", async () => {
    const sandbox = await GitSandbox.make()
    try {
      // isomorphic-git's FileSystem.read wraps every read in Buffer.from: a Buffer there is copied
      // (~3 ms per MB, a whole pack when one is loaded), an ArrayBuffer is only viewed.
      const pack = sandbox.path("pack.bin")
      await promises.writeFile(pack, Buffer.alloc(300 * 1024, 5))
      const read = await isomorphicGitFs.promises.readFile(pack)
      assert.instanceOf(read, ArrayBuffer)
      const wrapped = Buffer.from(read)
      assert.strictEqual(wrapped.buffer, read)
      assert.strictEqual(wrapped.length, 300 * 1024)
    } finally {
      await sandbox.dispose()
    }
  })
})
