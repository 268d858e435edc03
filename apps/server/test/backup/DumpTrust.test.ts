/**
 * Review 4b30e64 finding 31: a dump holds every secret, so it is written owner-only; and a dump
 * changed on shared storage (its checksums recomputed) brings back no program Kiln would run: no
 * repository hook is restored, a repository's config keeps only allowed keys, no restored file is
 * executable, and the staged rows are readable by the owner only.
 */
import { assert, describe, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import { createReadStream, createWriteStream, existsSync, readdirSync, readFileSync, statSync } from "node:fs"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"
import { createGunzip, createGzip } from "node:zlib"
import { Effect, Layer, Option } from "effect"
import { SqlClient } from "effect/sql"
import * as Migrations from "@kiln/postgres/migrations"
import * as TestDatabase from "@kiln/postgres/testing/TestDatabase"
import * as TarStream from "tar-stream"
import { checksumGroup } from "../../src/backup/ChecksumGroups.ts"
import { dump } from "../../src/backup/Dump.ts"
import { restore, startReading } from "../../src/backup/Restore.ts"
import { temporaryDirectory } from "./BackupFixtures.ts"

const quiet = () => ({ update: () => {}, done: () => {} })
const migrated = () => Layer.fresh(Migrations.layer.pipe(Layer.provideMerge(TestDatabase.layer)))
const empty = () => Layer.fresh(TestDatabase.layer)

const EVIL_CONFIG = [
  "[core]",
  "\trepositoryformatversion = 0",
  "\tbare = true",
  "\thooksPath = /tmp/kiln-evil-hooks",
  "\tfsmonitor = touch /tmp/kiln-pwned",
  "[include]",
  "\tpath = /etc/kiln-evil.conf",
  "[remote \"origin\"]",
  "\turl = https://mirror.example/app.git",
  "\tfetch = +refs/*:refs/*",
  "\tmirror = true",
  ""
].join("\n")

interface Added {
  readonly name: string
  readonly type: "file" | "directory"
  readonly content?: string
  readonly mode?: number
}

/**
 * The archive with `added` entries before its manifest and the manifest's checksums recomputed, as
 * someone who changed a dump on shared storage would.
 */
const withEntries = (archive: string, added: ReadonlyArray<Added>) =>
  Effect.promise(async () => {
    const output = archive.replace(/\.tar\.gz$/, "-changed.tar.gz")
    const reader = TarStream.extract()
    const writer = TarStream.pack()
    const written = pipeline(writer, createGzip(), createWriteStream(output))
    const read = pipeline(createReadStream(archive), createGunzip(), reader)
    const put = (header: Parameters<typeof writer.entry>[0], content: Buffer) =>
      new Promise<void>((resolve, reject) => writer.entry(header, content, (error) => error ? reject(error) : resolve()))
    for await (const entry of reader) {
      const chunks: Array<Buffer> = []
      for await (const chunk of entry) chunks.push(chunk as Buffer)
      if (entry.header.name !== "manifest.json") {
        await put(entry.header, Buffer.concat(chunks))
        continue
      }
      const manifest = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { checksums: Record<string, string> }
      const hashes = new Map<string, ReturnType<typeof createHash>>()
      for (const item of added) {
        const group = checksumGroup(item.name)
        const hash = hashes.get(group) ?? createHash("sha256")
        hashes.set(group, hash)
        hash.update(`${item.name}\0`)
        const content = Buffer.from(item.content ?? "")
        if (item.type === "file") hash.update(content)
        await put(
          item.type === "directory"
            ? { name: `${item.name}/`, type: "directory", mode: 0o755, mtime: new Date() }
            : { name: item.name, type: "file", size: content.length, mode: item.mode ?? 0o644, mtime: new Date() },
          item.type === "directory" ? Buffer.alloc(0) : content
        )
      }
      for (const [group, hash] of hashes) manifest.checksums[group] = hash.digest("hex")
      const text = Buffer.from(JSON.stringify(manifest))
      await put({ ...entry.header, size: text.length }, text)
    }
    await read
    writer.finalize()
    await written
    return output
  })

const repo = "repositories/acme/app.git"

describe("a dump's trust", () => {
  it.live("is written owner-only; restored, it brings back no hook, only allowed config keys, nothing executable, and stages rows owner-only", () =>
    Effect.gen(function*() {
      const archive = join(temporaryDirectory("kiln-dump-trust-"), "dump.tar.gz")
      yield* Effect.gen(function*() {
        const sql = yield* SqlClient.SqlClient
        yield* sql`INSERT INTO users (name, lower_name, email, kind, visibility, created_at, updated_at)
          VALUES ('Keeper', 'keeper', 'keeper@example.com', 'individual', 'public', 1, 1)`
        yield* dump({ output: archive, dataDir: temporaryDirectory("kiln-dump-trust-source-"), signingKey: Option.none(), progress: quiet })
      }).pipe(Effect.provide(migrated()))
      // Forgejo's dump is 0600 too; without the mode, the usual umask gives 0644.
      assert.strictEqual(statSync(archive).mode & 0o777, 0o600)

      const changed = yield* withEntries(archive, [
        { name: repo, type: "directory" },
        { name: `${repo}/HEAD`, type: "file", content: "ref: refs/heads/main\n" },
        { name: `${repo}/config`, type: "file", content: EVIL_CONFIG },
        { name: `${repo}/hooks`, type: "directory" },
        { name: `${repo}/hooks/post-receive`, type: "file", content: "#!/bin/sh\ntouch /tmp/kiln-pwned\n", mode: 0o755 },
        { name: `${repo}/objects/info/run-me`, type: "file", content: "#!/bin/sh\n", mode: 0o777 }
      ])

      const dataDir = join(temporaryDirectory("kiln-restore-trust-"), "data")
      yield* Effect.gen(function*() {
        // The rows staged while the archive is read are the owner's alone.
        yield* Effect.scoped(Effect.gen(function*() {
          const reading = yield* startReading({ input: changed, dataDir, progress: quiet })
          yield* reading.extracted
          const staging = join(dataDir, "tmp", "restore")
          assert.strictEqual(statSync(staging).mode & 0o777, 0o700)
          const users = join(staging, "users")
          for (const name of readdirSync(users)) assert.strictEqual(statSync(join(users, name)).mode & 0o777, 0o600, name)
          yield* reading.stop
        }))
        yield* Effect.promise(async () => {
          const { rm } = await import("node:fs/promises")
          await rm(dataDir, { recursive: true, force: true })
        })

        yield* restore({ input: changed, dataDir, progress: quiet })
        const gitdir = join(dataDir, repo)
        assert.isFalse(existsSync(join(gitdir, "hooks", "post-receive")), "no hook restored")
        const config = readFileSync(join(gitdir, "config"), "utf8")
        for (const refused of ["hooksPath", "hookspath", "fsmonitor", "include", "/etc/kiln-evil.conf"]) assert.notInclude(config, refused)
        assert.include(config, "bare = true")
        assert.include(config, "url = https://mirror.example/app.git")
        assert.include(config, "mirror = true")
        assert.strictEqual(statSync(join(gitdir, "objects", "info", "run-me")).mode & 0o777, 0o644)
        const sql = yield* SqlClient.SqlClient
        assert.deepStrictEqual((yield* sql<{ readonly name: string }>`SELECT name FROM users`).map((row) => row.name), ["Keeper"])
      }).pipe(Effect.provide(empty()))
    }), 120_000)
})
