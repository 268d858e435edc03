/**
 * `kiln dump`: one `.tar.gz` with everything Kiln keeps, consistent while the server serves.
 *
 * The rows come first, from one snapshot (DatabaseSnapshot.ts), and with them the list of files
 * those rows need. Only then are files copied: each row's repository (RepositorySnapshot.ts, never a
 * half-written ref or pack), attachment and package blob. A file the snapshot has no row for was
 * made after it (or left by a crash) and is reported, not copied; a row whose file is gone was
 * deleted after the snapshot (or is damage) and is reported too. The manifest goes last.
 */
import { rm, stat } from "node:fs/promises"
import { basename, join } from "node:path"
import { Effect, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { blobPath } from "@kiln/blobs"
import { repositoryPath, snapshotRepository } from "@kiln/git"
import * as DatabaseSnapshot from "@kiln/postgres/backup/DatabaseSnapshot"
import { fileReferences, type SecretCount, secretCounts } from "@kiln/postgres/backup/FileReferencesSql"
import { KILN_VERSION } from "../KilnVersion.ts"
import { generatedHostKeyFiles } from "../ssh/HostKeyFiles.ts"
import { ArchiveWriter } from "./ArchiveWriter.ts"
import { attempt, BackupFailed } from "./BackupFailed.ts"
import { blobFiles, repositoryDirectories } from "./DataDirFiles.ts"
import { FORMAT, type Manifest, MANIFEST_PATH } from "./Manifest.ts"
import type { ProgressLine } from "./Progress.ts"

export interface DumpOptions {
  readonly output: string
  readonly dataDir: string
  /** The signing key file when Kiln generated it into the data dir. */
  readonly signingKey: Option.Option<string>
  readonly progress: (estimatedBytes: number) => ProgressLine
}

export interface DumpSummary {
  readonly output: string
  readonly archiveBytes: number
  readonly manifest: Manifest
  /** Rows whose files were not on disk. */
  readonly missingFiles: ReadonlyArray<string>
  /** Files on disk without a row in the snapshot (not copied). */
  readonly filesWithoutRows: ReadonlyArray<string>
  readonly secrets: ReadonlyArray<SecretCount>
  readonly signingKeyIncluded: boolean
  /** The generated SSH host keys copied (0 to 2). */
  readonly sshHostKeysIncluded: number
}

const chunkName = (table: string, index: number) => `database/${table}/${String(index).padStart(6, "0")}.copy`

const exists = (path: string) => stat(path).then((info) => info, () => undefined)

export const dump = (
  options: DumpOptions
): Effect.Effect<DumpSummary, BackupFailed | SqlError.SqlError, SqlClient.SqlClient> =>
  Effect.gen(function*() {
    if (yield* attempt("checking the output", () => exists(options.output).then((info) => info !== undefined))) {
      return yield* new BackupFailed({ message: `${options.output} exists; a dump never overwrites a file` })
    }
    let progress: ProgressLine = { update: () => {}, done: () => {} }
    const writer = new ArchiveWriter(options.output, (totals) => progress.update(totals.entries, totals.bytes))
    const written = Effect.gen(function*() {
      const chunks = new Map<string, number>()
      const { contents, references, secrets } = yield* DatabaseSnapshot.inSnapshot(Effect.all({
        contents: DatabaseSnapshot.exportTables((table, batch) => {
          const index = (chunks.get(table) ?? 0) + 1
          chunks.set(table, index)
          return attempt("writing rows", () => writer.buffer(chunkName(table, index), Buffer.from(`${batch.join("\n")}\n`)))
        }),
        references: fileReferences,
        secrets: secretCounts
      }))
      const estimate = writer.totals.bytes +
        references.repositories.reduce((sum, repository) => sum + repository.size, 0) +
        references.blobs.reduce((sum, blob) => sum + blob.size, 0)
      progress = options.progress(estimate)

      const missingFiles: Array<string> = []
      const repositoriesRoot = join(options.dataDir, "repositories")
      let repositories = 0
      let refs = 0
      const git = { gitBinary: "git" }
      for (const reference of references.repositories) {
        const gitdir = repositoryPath(repositoriesRoot, reference)
        const prefix = `repositories/${reference.owner}/${reference.name}.git`
        if ((yield* attempt("reading the repositories", () => exists(join(gitdir, "HEAD")))) === undefined) {
          missingFiles.push(prefix)
          continue
        }
        const snapshot = yield* attempt(`reading ${prefix}`, () => snapshotRepository(git, gitdir))
        yield* attempt(`copying ${prefix}`, async () => {
          try {
            await writer.directory(prefix)
            for (const directory of snapshot.directories) await writer.directory(`${prefix}/${directory}`)
            for (const file of snapshot.written) await writer.buffer(`${prefix}/${file.path}`, file.content)
            for (const file of snapshot.files) await writer.file(`${prefix}/${file.path}`, file.source, file.size, file.mode)
          } finally {
            await snapshot.release()
          }
        })
        repositories++
        refs += snapshot.refs.size
      }
      const rowRepositories = new Set(references.repositories.map((repository) => `${repository.owner}/${repository.name}`))
      const filesWithoutRows = (yield* repositoryDirectories(options.dataDir).pipe(
        Effect.mapError((error) => new BackupFailed({ message: `listing the repositories: ${error.message}` }))
      ))
        .filter((name) => !rowRepositories.has(name))
        .map((name) => `repositories/${name}.git`)

      let attachments = 0
      let packageFiles = 0
      let lfsObjects = 0
      for (const blob of references.blobs) {
        const source = blobPath(options.dataDir, blob)
        const relative = source.slice(options.dataDir.length).replace(/^[/\\]+/, "").split(/[/\\]/).join("/")
        const info = yield* attempt("reading the blobs", () => exists(source))
        if (info === undefined) {
          missingFiles.push(relative)
          continue
        }
        yield* attempt(`copying ${relative}`, () => writer.file(relative, source, info.size))
        if (blob.area === "attachments") attachments++
        else if (blob.area === "lfs") lfsObjects++
        else packageFiles++
      }
      const rowBlobs = new Set(references.blobs.map((blob) => `${blob.area}/${blob.name}`))
      for (const file of yield* blobFiles(options.dataDir)) {
        if (!rowBlobs.has(`${file.area}/${file.name}`)) filesWithoutRows.push(`${file.area}/${file.name}`)
      }

      let signingKeyIncluded = false
      if (Option.isSome(options.signingKey)) {
        const source = options.signingKey.value
        const info = yield* attempt("reading the signing key", () => exists(source))
        if (info !== undefined) {
          yield* attempt("copying the signing key", () => writer.file("signing-key.asc", source, info.size, 0o600))
          signingKeyIncluded = true
        }
      }

      // The built-in SSH server's host keys: a restored server keeps the identity clients know.
      let sshHostKeysIncluded = 0
      for (const source of Object.values(generatedHostKeyFiles(options.dataDir))) {
        const info = yield* attempt("reading the SSH host keys", () => exists(source))
        if (info === undefined) continue
        const relative = `ssh/${basename(source)}`
        yield* attempt("copying the SSH host keys", () => writer.file(relative, source, info.size, 0o600))
        sshHostKeysIncluded++
      }

      const manifest: Manifest = {
        format: FORMAT,
        kilnVersion: KILN_VERSION,
        schemaVersion: contents.schemaVersion,
        createdAt: new Date().toISOString(),
        database: { tables: contents.tables, sequences: contents.sequences },
        counts: { repositories, refs, attachments, packageFiles, lfsObjects, entries: writer.totals.entries, bytes: writer.totals.bytes },
        checksums: writer.checksums()
      }
      yield* attempt("finishing the archive", () => writer.finish(MANIFEST_PATH, Buffer.from(JSON.stringify(manifest, null, 2))))
      progress.done()
      const archive = yield* attempt("reading the archive", () => stat(options.output))
      return {
        output: options.output,
        archiveBytes: archive.size,
        manifest,
        missingFiles,
        filesWithoutRows,
        secrets,
        signingKeyIncluded,
        sshHostKeysIncluded
      } satisfies DumpSummary
    })
    return yield* written.pipe(Effect.onError(() =>
      Effect.promise(async () => {
        progress.done()
        await writer.abort()
        await rm(options.output, { force: true })
      })
    ))
  })
