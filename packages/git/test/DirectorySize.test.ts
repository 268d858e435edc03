import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { mkdir, readdir, rm, stat, utimes, writeFile } from "node:fs/promises"
import { join } from "node:path"
import { directorySize } from "../src/DirectorySize.ts"
import { SettledDirectorySizes } from "../src/SettledDirectorySizes.ts"
import { GitSandbox } from "./GitSandbox.ts"

let sandbox: GitSandbox
beforeAll(async () => {
  sandbox = await GitSandbox.make()
})
afterAll(() => sandbox.dispose())

const longAgo = new Date(Date.now() - 60 * 60 * 1000)

/** Moves every object directory's mtime into the past, as time passing after a push would. */
const age = async (gitdir: string) => {
  const objects = join(gitdir, "objects")
  for (const name of await readdir(objects)) {
    if (/^[0-9a-f]{2}$|^pack$/.test(name)) await utimes(join(objects, name), longAgo, longAgo)
  }
}

describe("directorySize with settled object directories", () => {
  it("equals a full walk after every push, repack and prune, reusing only directories that did not change", async () => {
    const gitdir = sandbox.path("remote.git")
    await sandbox.git(["init", "-q", "--bare", gitdir])
    const work = await sandbox.workTree("work")
    const settled = new SettledDirectorySizes()
    const check = async (step: string) => {
      assert.strictEqual(await directorySize(gitdir, settled), await directorySize(gitdir), step)
      await age(gitdir)
      // Once settled, the same again (now from what was remembered).
      assert.strictEqual(await directorySize(gitdir, settled), await directorySize(gitdir), `${step}, settled`)
    }
    await check("empty")
    for (let round = 0; round < 6; round++) {
      await sandbox.commit(work, { [`f-${round}.txt`]: `content ${round}\n`.repeat(round * 50 + 1) }, `round ${round}`)
      await sandbox.git(["push", "-q", gitdir, "HEAD:refs/heads/main"], { cwd: work })
      await check(`push ${round}`)
    }
    await sandbox.git(["--git-dir", gitdir, "repack", "-a", "-d", "-q"])
    await check("repack")
    await sandbox.git(["--git-dir", gitdir, "prune", "--expire=now"])
    await check("prune")
    await sandbox.git(["--git-dir", gitdir, "gc", "-q", "--prune=now"])
    await check("gc")
  })

  it("reuses a settled directory's total while its mtime stays, and measures again once it moves", async () => {
    const gitdir = sandbox.path("made.git")
    const fanOut = join(gitdir, "objects", "ab")
    await mkdir(fanOut, { recursive: true })
    await writeFile(join(fanOut, "one"), "x".repeat(100))
    await writeFile(join(gitdir, "HEAD"), "ref: refs/heads/main\n")
    const settled = new SettledDirectorySizes()

    // A directory changed just now is not remembered: a same-tick change could keep its mtime.
    assert.strictEqual(await directorySize(gitdir, settled), 121)
    await writeFile(join(fanOut, "one"), "x".repeat(10))
    assert.strictEqual(await directorySize(gitdir, settled), 31)

    await utimes(fanOut, longAgo, longAgo)
    assert.strictEqual(await directorySize(gitdir, settled), 31)
    // Rewritten in place with the mtime kept (git never does this): the remembered total shows it was reused.
    await writeFile(join(fanOut, "one"), "x".repeat(50))
    await utimes(fanOut, longAgo, longAgo)
    assert.strictEqual(await directorySize(gitdir, settled), 31)
    // Outside the object directories everything is read each time.
    await writeFile(join(gitdir, "HEAD"), "ref: refs/heads/trunk\n")
    assert.strictEqual(await directorySize(gitdir, settled), 32)

    // A file added moves the mtime: measured again.
    await writeFile(join(fanOut, "two"), "y".repeat(7))
    assert.notStrictEqual((await stat(fanOut)).mtimeMs, longAgo.getTime())
    assert.strictEqual(await directorySize(gitdir, settled), 22 + 50 + 7)

    // A directory inside one (git makes none) is walked too.
    await mkdir(join(fanOut, "nested"))
    await writeFile(join(fanOut, "nested", "three"), "z".repeat(3))
    assert.strictEqual(await directorySize(gitdir, settled), 22 + 50 + 7 + 3)

    // A vanished directory counts nothing.
    await rm(fanOut, { recursive: true })
    assert.strictEqual(await directorySize(gitdir, settled), 22)
  })

  it("stats only the new names of a loose-object directory that changed, and every file again once a name is gone", async () => {
    const gitdir = sandbox.path("names.git")
    const fanOut = join(gitdir, "objects", "cd")
    await mkdir(fanOut, { recursive: true })
    const object = (n: number) => `${String(n).padStart(2, "0")}${"e".repeat(36)}`
    await writeFile(join(fanOut, object(1)), "x".repeat(100))
    await writeFile(join(fanOut, "tmp_obj_AbCdEf"), "t".repeat(5))
    const settled = new SettledDirectorySizes()
    assert.strictEqual(await directorySize(gitdir, settled), 105)

    // Rewritten in place (git never does this to an object): its size was taken from what was
    // remembered, while the temporary file, which git is still writing, was read again.
    await writeFile(join(fanOut, object(1)), "x".repeat(10))
    await writeFile(join(fanOut, "tmp_obj_AbCdEf"), "t".repeat(9))
    await writeFile(join(fanOut, object(2)), "y".repeat(20))
    assert.strictEqual(await directorySize(gitdir, settled), 100 + 9 + 20)

    // A name gone (gc pruned it): every file is read again.
    await rm(join(fanOut, object(2)))
    assert.strictEqual(await directorySize(gitdir, settled), 10 + 9)
    assert.strictEqual(await directorySize(gitdir), 10 + 9)
  })

  it("holds at most its bound of file sizes, forgetting the least recently read directories first", () => {
    const settled = new SettledDirectorySizes(16, 3)
    const sizes = (...names: Array<string>) => new Map(names.map((name) => [name, 1]))
    settled.rememberFiles("/r/a.git/objects/aa", sizes("1", "2"))
    settled.rememberFiles("/r/a.git/objects/bb", sizes("3"))
    assert.strictEqual(settled.filesOf("/r/a.git/objects/aa")?.size, 2)
    settled.rememberFiles("/r/a.git/objects/cc", sizes("4"))
    assert.isUndefined(settled.filesOf("/r/a.git/objects/aa"))
    assert.strictEqual(settled.filesOf("/r/a.git/objects/bb")?.size, 1)
    // Read again, a directory's sizes replace what it held, and it is the most recently read.
    settled.rememberFiles("/r/a.git/objects/bb", sizes("3", "5"))
    assert.strictEqual(settled.filesOf("/r/a.git/objects/bb")?.size, 2)
    settled.rememberFiles("/r/a.git/objects/ee", sizes("6"))
    assert.isUndefined(settled.filesOf("/r/a.git/objects/cc"))
    assert.strictEqual(settled.filesOf("/r/a.git/objects/bb")?.size, 2)
    // More than the bound in one directory, the pack directory, and a removed repository: nothing kept.
    settled.rememberFiles("/r/b.git/objects/dd", sizes("1", "2", "3", "4"))
    assert.isUndefined(settled.filesOf("/r/b.git/objects/dd"))
    settled.rememberFiles("/r/b.git/objects/pack", sizes("p"))
    assert.isUndefined(settled.filesOf("/r/b.git/objects/pack"))
    settled.forgetUnder("/r/a.git/")
    assert.isUndefined(settled.filesOf("/r/a.git/objects/bb"))
  })

  it("forgets the least recently used directories beyond its bound, and those under a removed path", async () => {
    const settled = new SettledDirectorySizes(2)
    const old = longAgo.getTime()
    settled.remember("/r/a.git/objects/aa", old, Date.now(), 1)
    settled.remember("/r/a.git/objects/bb", old, Date.now(), 2)
    assert.strictEqual(settled.lookup("/r/a.git/objects/aa", old), 1)
    settled.remember("/r/b.git/objects/pack", old, Date.now(), 3)
    assert.strictEqual(settled.lookup("/r/a.git/objects/bb", old), undefined)
    assert.strictEqual(settled.lookup("/r/a.git/objects/aa", old), 1)
    settled.forgetUnder("/r/a.git/")
    assert.strictEqual(settled.lookup("/r/a.git/objects/aa", old), undefined)
    assert.strictEqual(settled.lookup("/r/b.git/objects/pack", old), 3)
    assert.strictEqual(settled.lookup("/r/b.git/objects/pack", old + 1), undefined)
    assert.isTrue(settled.applies("/r/b.git/objects/pack"))
    assert.isTrue(settled.applies("/r/b.git/objects/0f"))
    assert.isFalse(settled.applies("/r/b.git/objects/info"))
    assert.isFalse(settled.applies("/r/b.git/refs/heads"))
  })

  it("remembers a total once its mtime is older than the file system's clock granularity", () => {
    const settled = new SettledDirectorySizes()
    const now = Date.now()
    // Nanosecond times (ext4, xfs, btrfs, tmpfs): settled after ten kernel ticks.
    const fine = now - 200 + 0.123456
    settled.remember("/r/a.git/objects/aa", fine, now, 1)
    assert.strictEqual(settled.lookup("/r/a.git/objects/aa", fine), 1)
    const justNow = now - 20 + 0.5
    settled.remember("/r/a.git/objects/bb", justNow, now, 2)
    assert.strictEqual(settled.lookup("/r/a.git/objects/bb", justNow), undefined)
    // Whole-second times (ext3, HFS+, FAT's two seconds): a change seconds later can keep the mtime.
    const coarse = Math.floor(now / 1000) * 1000 - 1_000
    settled.remember("/r/a.git/objects/cc", coarse, coarse + 2_500, 3)
    assert.strictEqual(settled.lookup("/r/a.git/objects/cc", coarse), undefined)
    settled.remember("/r/a.git/objects/cc", coarse, coarse + 3_000, 3)
    assert.strictEqual(settled.lookup("/r/a.git/objects/cc", coarse), 3)
  })
})

describe("directorySize of a large tree", () => {
  it("counts every file, and lets other work run between batches of entries", async () => {
    const root = sandbox.path("large")
    let expected = 0
    for (let d = 0; d < 12; d++) {
      await mkdir(join(root, `d${d}`, "inner"), { recursive: true })
      for (let f = 0; f < 100; f++) {
        const content = "x".repeat(d * 100 + f)
        await writeFile(join(root, `d${d}`, f % 2 === 0 ? "inner" : "", `f${f}`), content)
        expected += content.length
      }
    }
    let turns = 0
    const ticking = setInterval(() => turns++, 0)
    const size = await directorySize(root)
    clearInterval(ticking)
    assert.strictEqual(size, expected)
    // 1,200 files walked without a pause would give no timer a turn until the end.
    assert.isAtLeast(turns, 1)
  })
})
