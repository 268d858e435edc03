/** A restored repository's config keeps only allowed keys (review 4b30e64, finding 31), read and written through git. */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { allowedSettings, snapshotRepository, writeRestoredConfig } from "../src/index.ts"

const git = { gitBinary: "git" }

describe("restored config", () => {
  it("keeps the format, the object format and the mirror remote, nothing git would run", async () => {
    const dir = mkdtempSync(join(tmpdir(), "kiln-restored-config-"))
    const archived = join(dir, "archived")
    writeFileSync(archived, [
      "[core]", "\trepositoryformatversion = 1", "\tbare = false", "\thooksPath = /tmp/x", "\tfsmonitor = touch /tmp/y",
      "\tsshCommand = touch /tmp/z", "[include]", "\tpath = /etc/passwd", "[extensions]", "\tobjectformat = sha256",
      "[remote \"origin\"]", "\turl = https://example.com/r.git", "\tfetch = +refs/heads/*:refs/heads/*", "\tfetch = +refs/tags/*:refs/tags/*",
      "\tmirror = true", "[remote \"other\"]", "\turl = file:///etc", ""
    ].join("\n"))
    assert.deepStrictEqual(await allowedSettings(git, dir, archived), [
      ["core.repositoryformatversion", "1"],
      ["extensions.objectformat", "sha256"],
      ["remote.origin.url", "https://example.com/r.git"],
      ["remote.origin.fetch", "+refs/heads/*:refs/heads/*"],
      ["remote.origin.fetch", "+refs/tags/*:refs/tags/*"],
      ["remote.origin.mirror", "true"]
    ])
    const target = join(dir, "config")
    await writeRestoredConfig(git, dir, archived, target)
    const listed = execFileSync("git", ["config", "--file", target, "--list"], { encoding: "utf8" }).trim().split("\n")
    assert.deepStrictEqual(listed, [
      "core.repositoryformatversion=1", "core.filemode=true", "core.bare=true", "extensions.objectformat=sha256",
      "remote.origin.url=https://example.com/r.git", "remote.origin.fetch=+refs/heads/*:refs/heads/*",
      "remote.origin.fetch=+refs/tags/*:refs/tags/*", "remote.origin.mirror=true"
    ])
    const unreadable = join(dir, "broken")
    writeFileSync(unreadable, "[core\n\tbare = \"\n")
    assert.deepStrictEqual(await allowedSettings(git, dir, unreadable), [])
  })

  it("a snapshot leaves hooks out", async () => {
    const gitdir = join(mkdtempSync(join(tmpdir(), "kiln-snapshot-hooks-")), "r.git")
    execFileSync("git", ["init", "-q", "--bare", gitdir])
    mkdirSync(join(gitdir, "hooks"), { recursive: true })
    writeFileSync(join(gitdir, "hooks", "post-receive"), "#!/bin/sh\n", { mode: 0o755 })
    const snapshot = await snapshotRepository(git, gitdir)
    await snapshot.release()
    assert.deepStrictEqual(snapshot.files.filter((file) => file.path.startsWith("hooks")), [])
    assert.isTrue(snapshot.files.some((file) => file.path === "config"))
    assert.include(readFileSync(join(gitdir, "config"), "utf8"), "bare = true")
  })
})
