/**
 * `kiln restore`: a dump (Dump.ts) into an empty data directory and an empty database.
 *
 * The archive is read once: files go to their places in the data directory, the rows to a staging
 * directory beside them, and every entry counts in its checksum group. Only when the manifest (the
 * last entry) has confirmed every group and a schema this Kiln can run are the rows loaded, in one
 * transaction that also brings an older schema up to date (DatabaseRestore.ts). Any failure removes
 * what the restore wrote, so the targets are as empty as they were.
 *
 * A dump must be trusted (README): its checksums find damage, not a change made with the checksums
 * recomputed. Still, nothing in it becomes a program Kiln runs: repository `hooks/` are not
 * written, a repository's `config` is rewritten through git from an allow-list
 * (`writeRestoredConfig`), no file is restored executable or writable by others, and the staged
 * rows are readable by the owner only.
 */
import { createHash, type Hash } from "node:crypto"
import { createReadStream, createWriteStream } from "node:fs"
import { mkdir, readdir, readFile, rm } from "node:fs/promises"
import { dirname, join } from "node:path"
import { finished, pipeline } from "node:stream/promises"
import { once } from "node:events"
import { createGunzip } from "node:zlib"
import { Effect, type Scope, Stream } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import * as DatabaseRestore from "@kiln/postgres/backup/DatabaseRestore"
import type { Migrations as MigrationRun } from "@kiln/postgres"
import * as Migrations from "@kiln/postgres/migrations"
import * as TarStream from "tar-stream"
import { writeRestoredConfig } from "@kiln/git"
import { attempt, BackupFailed } from "./BackupFailed.ts"
import { checksumGroup } from "./ChecksumGroups.ts"
import { decodeManifest, type Manifest, MANIFEST_PATH } from "./Manifest.ts"
import type { ProgressLine } from "./Progress.ts"

/** Entries a data directory may already hold and still count as empty: an embedded database (checked to have no tables) and its lock. */
const toleratedEntries = new Set(["db", "kiln.lock"])

const stagingDirectory = (dataDir: string) => join(dataDir, "tmp", "restore")

/** Fails unless `dataDir` is absent or holds nothing but an (empty) embedded database. */
export const ensureEmptyDataDir = (dataDir: string): Effect.Effect<void, BackupFailed> =>
  Effect.flatMap(
    attempt("reading the data directory", () =>
      readdir(dataDir).catch((error: unknown) => {
        if (error instanceof Error && "code" in error && error.code === "ENOENT") return []
        throw error
      })),
    (entries) => {
      const other = entries.filter((entry) => !toleratedEntries.has(entry))
      return other.length === 0 ? Effect.void : Effect.fail(
        new BackupFailed({
          message: `the data directory ${dataDir} is not empty (${other.slice(0, 5).join(", ")}${other.length > 5 ? ", …" : ""}); restore only into an empty one`
        })
      )
    }
  )

/** Where an entry goes, or a failure for a name that could leave the data directory or is not Kiln's. */
const targetOf = (dataDir: string, name: string): string | undefined => {
  const path = name.replace(/\/+$/, "")
  const parts = path.split("/")
  if (path === "" || path.startsWith("/") || parts.some((part) => part === "" || part === "." || part === "..")) return undefined
  if (parts[0] === "database") return parts.length === 3 ? join(stagingDirectory(dataDir), parts[1] ?? "", parts[2] ?? "") : undefined
  if (parts[0] === "repositories" || parts[0] === "attachments" || parts[0] === "packages" || parts[0] === "lfs") {
    return join(dataDir, ...parts)
  }
  if (path === "signing-key.asc") return join(dataDir, path)
  // The built-in SSH server's generated host keys (ssh/HostKeys.ts): clients know the server by them.
  if (path === "ssh/ssh_host_ed25519_key" || path === "ssh/ssh_host_rsa_key") return join(dataDir, path)
  return undefined
}

/** What a repository's entry is, by its path inside `repositories/<owner>/<name>.git/`. */
const repositoryPart = (name: string): "hooks" | "config" | "other" => {
  const parts = name.replace(/\/+$/, "").split("/")
  if (parts[0] !== "repositories" || parts.length < 4) return "other"
  if (parts[3] === "hooks") return "hooks"
  return parts.length === 4 && parts[3] === "config" ? "config" : "other"
}

/** Restored files are never executable, nor writable by others, whatever mode the archive gives. */
const RESTORED_MODE_MASK = 0o644

interface Extracted {
  readonly manifest: Manifest
  readonly checksums: ReadonlyMap<string, string>
}

const extract = (input: string, dataDir: string, progress: ProgressLine, signal: AbortSignal): Promise<Extracted> =>
  (async () => {
    const groups = new Map<string, Hash>()
    const hashOf = (path: string) => {
      const group = checksumGroup(path)
      let hash = groups.get(group)
      if (hash === undefined) {
        hash = createHash("sha256")
        groups.set(group, hash)
      }
      hash.update(`${path}\0`)
      return hash
    }
    let manifestText: string | undefined
    let items = 0
    let bytes = 0
    let configs = 0
    const staging = stagingDirectory(dataDir)
    // Owner-only from the start: the rows hold password hashes and secrets.
    await mkdir(staging, { recursive: true, mode: 0o700 })
    const reader = TarStream.extract()
    // Large chunks: the archive is mostly a few big entries, and each chunk costs a turn of the
    // main thread, which the database's start and its loading need too.
    const reading = pipeline(createReadStream(input, { highWaterMark: 1 << 20 }), createGunzip({ chunkSize: 1 << 18 }), reader, { signal })
    reading.catch(() => {})
    for await (const entry of reader) {
      signal.throwIfAborted()
      const name = entry.header.name
      if (name === MANIFEST_PATH) {
        const chunks: Array<Buffer> = []
        for await (const chunk of entry) chunks.push(chunk as Buffer)
        manifestText = Buffer.concat(chunks).toString("utf8")
        continue
      }
      if (manifestText !== undefined) throw new Error(`${name} follows the manifest; the archive is not a Kiln dump`)
      const target = targetOf(dataDir, name)
      if (target === undefined) throw new Error(`unexpected entry ${JSON.stringify(name)}; the archive is not a Kiln dump`)
      const path = name.replace(/\/+$/, "")
      const hash = hashOf(path)
      const part = repositoryPart(name)
      if (entry.header.type !== "directory" && entry.header.type !== "file") {
        throw new Error(`unexpected entry type ${String(entry.header.type)} for ${name}`)
      }
      if (part === "hooks") {
        // Counted in its checksum, never written: git would run it at the next push.
        for await (const chunk of entry) hash.update(chunk as Buffer)
      } else if (entry.header.type === "directory") {
        await mkdir(target, { recursive: true })
        entry.resume()
      } else {
        const isDatabase = target.startsWith(staging)
        // A repository's config is staged, then rewritten (below); rows are staged owner-only.
        const written = part === "config" ? join(staging, `config-${++configs}`) : target
        await mkdir(dirname(written), { recursive: true, ...(isDatabase ? { mode: 0o700 } : {}) })
        const mode = isDatabase || part === "config" ? 0o600 : (entry.header.mode ?? 0o644) & RESTORED_MODE_MASK
        const file = createWriteStream(written, { flags: "wx", mode })
        const closed = finished(file)
        for await (const chunk of entry) {
          const bytesRead = chunk as Buffer
          hash.update(bytesRead)
          bytes += bytesRead.length
          if (!file.write(bytesRead)) await once(file, "drain")
        }
        file.end()
        await closed
        if (part === "config") {
          await mkdir(dirname(target), { recursive: true })
          await writeRestoredConfig({ gitBinary: "git" }, staging, written, target)
        }
      }
      progress.update(++items, bytes)
    }
    await reading
    if (manifestText === undefined) throw new Error("the archive has no manifest (cut short?)")
    const text = manifestText
    const manifest = await Effect.runPromise(decodeManifest(text).pipe(
      Effect.mapError((error) => new Error(`the manifest is not valid: ${error.message}`))
    ))
    return { manifest, checksums: new Map([...groups].map(([group, hash]) => [group, hash.digest("hex")])) }
  })()

/** Every group the manifest names was read with the same checksum, and nothing else was read. */
const verify = (extracted: Extracted): Effect.Effect<void, BackupFailed> => {
  const expected = Object.entries(extracted.manifest.checksums)
  const wrong = expected.filter(([group, sum]) => extracted.checksums.get(group) !== sum).map(([group]) => group)
  const extra = [...extracted.checksums.keys()].filter((group) => !(group in extracted.manifest.checksums))
  const problems = [...wrong, ...extra]
  return problems.length === 0 ? Effect.void : Effect.fail(
    new BackupFailed({ message: `checksums do not match the manifest for ${problems.slice(0, 5).join(", ")}${problems.length > 5 ? ` and ${problems.length - 5} more` : ""}` })
  )
}

/** The staged rows of a table, one chunk per file (whole lines), in the order they were dumped. */
const stagedRows = (dataDir: string, table: string): Stream.Stream<Uint8Array, BackupFailed> => {
  const directory = join(stagingDirectory(dataDir), table)
  return Stream.fromEffect(attempt("reading staged rows", () =>
    readdir(directory).then((names) => names.sort(), (error: unknown) => {
      if (error instanceof Error && "code" in error && error.code === "ENOENT") return []
      throw error
    }))).pipe(
      Stream.flatMap((names) => Stream.fromIterable(names)),
      Stream.mapEffect((name) => attempt("reading staged rows", () => readFile(join(directory, name))))
    )
}

/** The manifest's format as DatabaseRestore reads rows: format 1 has JSON lines, 2 COPY text with the columns named. */
const rowFormat = (manifest: Manifest): Effect.Effect<DatabaseRestore.RowFormat, BackupFailed> => {
  if (manifest.format === 1) return Effect.succeed({ _tag: "json" })
  const columns = new Map(manifest.database.tables.map((table) => [table.name, table.columns]))
  const without = manifest.database.tables.filter((table) => table.columns === undefined).map((table) => table.name)
  return without.length > 0
    ? Effect.fail(new BackupFailed({ message: `the manifest names no columns for ${without.join(", ")}` }))
    : Effect.succeed({ _tag: "copy", columns: (table) => columns.get(table) ?? [] })
}

export interface RestoreOptions {
  readonly input: string
  readonly dataDir: string
  readonly progress: (estimatedBytes: number) => ProgressLine
  /** The database was made for this restore from the migrated template (DatabaseRestore's `fresh`). */
  readonly fresh?: boolean
}

export interface RestoreSummary {
  readonly manifest: Manifest
  /** The schema version after the restore (newer than the dump's when it was migrated). */
  readonly schemaVersion: number
}

/** Removes what a failed restore wrote, keeping an embedded database's own files. */
const clearDataDir = (dataDir: string) =>
  Effect.promise(async () => {
    const entries = await readdir(dataDir).catch(() => [])
    for (const entry of entries) if (!toleratedEntries.has(entry)) await rm(join(dataDir, entry), { recursive: true, force: true })
  })

/** An archive being read into the data directory while the database opens (startReading). */
export interface Reading {
  /** The manifest and the checksums read, once the whole archive is in. */
  readonly extracted: Effect.Effect<Extracted, BackupFailed>
  /** Stops reading and waits until nothing more is written. */
  readonly stop: Effect.Effect<void>
}

/**
 * Checks that the data directory is empty and starts reading the archive into it: the files go to
 * their places, the rows to the staging directory. Reading needs no database, so it goes on while
 * one opens (an embedded one takes a second). Stopped when the scope closes.
 */
export const startReading = (options: RestoreOptions): Effect.Effect<Reading, BackupFailed, Scope.Scope> =>
  Effect.gen(function*() {
    yield* ensureEmptyDataDir(options.dataDir)
    const progress = options.progress(0)
    const controller = new AbortController()
    const extracting = extract(options.input, options.dataDir, progress, controller.signal).finally(() => progress.done())
    const settled = extracting.then(() => undefined, () => undefined)
    const stop = Effect.promise(() => {
      controller.abort()
      return settled
    })
    yield* Effect.addFinalizer(() => stop)
    return { extracted: attempt(`reading ${options.input}`, () => extracting), stop }
  })

/** Stops a reading and removes what the restore wrote: for a restore that failed, or whose database did not open. */
export const abandon = (options: RestoreOptions, reading: Reading): Effect.Effect<void> =>
  Effect.andThen(reading.stop, clearDataDir(options.dataDir))

/**
 * Finishes a restore whose archive is being read: refuses a database that is not empty, waits for
 * the archive, checks it and loads the rows. On failure, everything written is removed.
 */
export const restoreRead = (
  options: RestoreOptions,
  reading: Reading
): Effect.Effect<RestoreSummary, BackupFailed | SqlError.SqlError | MigrationRun.MigrationError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (options.fresh !== true && !(yield* DatabaseRestore.isEmpty)) {
      return yield* new BackupFailed({ message: "the database is not empty (it has tables); restore only into an empty one" })
    }
    return yield* loadRead(options, reading)
  }).pipe(Effect.onError(() => abandon(options, reading)))

/** Restores into `dataDir` and the SqlClient's database, already open (an embedded one must have been opened in `dataDir` after it was found empty). */
export const restore = (
  options: RestoreOptions
): Effect.Effect<RestoreSummary, BackupFailed | SqlError.SqlError | MigrationRun.MigrationError, SqlClient.SqlClient> =>
  Effect.scoped(Effect.flatMap(startReading(options), (reading) => restoreRead(options, reading)))

/** After the targets were found empty. */
const loadRead = (options: RestoreOptions, reading: Reading) =>
  Effect.gen(function*() {
    const extracted = yield* reading.extracted
    const { manifest } = extracted
    const latest = yield* DatabaseRestore.latestVersion(Migrations.loader)
    if (manifest.schemaVersion > latest) {
      return yield* new BackupFailed({
        message: `the dump's schema version ${manifest.schemaVersion} is newer than this Kiln's (${latest}); restore it with a Kiln at least as new as ${manifest.kilnVersion}`
      })
    }
    yield* verify(extracted)
    yield* DatabaseRestore.restore({
      loader: Migrations.loader,
      schemaVersion: manifest.schemaVersion,
      tables: manifest.database.tables.map((table) => table.name),
      sequences: manifest.database.sequences,
      format: yield* rowFormat(manifest),
      fresh: options.fresh === true,
      rows: (table) => stagedRows(options.dataDir, table)
    }).pipe(Effect.catchTags({
      UnknownTables: (error) => Effect.fail(new BackupFailed({ message: error.message })),
      UnknownColumns: (error) => Effect.fail(new BackupFailed({ message: error.message }))
    }))
    yield* attempt("removing the staged rows", () => rm(join(options.dataDir, "tmp"), { recursive: true, force: true }))
    return { manifest, schemaVersion: latest } satisfies RestoreSummary
  })
