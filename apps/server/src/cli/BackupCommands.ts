/**
 * `pnpm kiln dump --output FILE` and `pnpm kiln restore --input FILE`, on the configured data
 * directory and database (KILN_DATA_DIR, DATABASE_URL).
 */
import { existsSync } from "node:fs"
import { join, resolve } from "node:path"
import { Console, Effect, Layer, Option } from "effect"
import { Command, Flag } from "effect/cli"
import { BranchTableConsistency } from "@kiln/domain/git/BranchTableConsistency"
import { Database } from "@kiln/postgres"
import { generatedKeyPath } from "@kiln/openpgp"
import { dumpThroughServer } from "../backup/ControlClient.ts"
import { dump, type DumpSummary } from "../backup/Dump.ts"
import { formatBytes, progressLine } from "../backup/Progress.ts"
import { abandon, restoreRead, startReading } from "../backup/Restore.ts"
import * as Application from "../Application.ts"
import { KilnConfig } from "../config/KilnConfig.ts"
import * as KilnConfigLayer from "../config/KilnConfig.ts"
import { userFacing } from "./CommandFailure.ts"

/**
 * The database as it is: a dump copies it unmigrated, a restore migrates it itself. A new embedded
 * database for a restore is copied from the migrated template (DatabaseRestore's `fresh`).
 */
const UnmigratedDatabase = (embeddedSettings: ReadonlyArray<string> = [], embeddedTemplate: Database.Template = "empty") =>
  Layer.unwrap(Effect.gen(function*() {
    const config = yield* KilnConfig
    return Database.layer({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, embeddedSettings, embeddedTemplate })
  }))

/**
 * A restore creates (or truncates) the tables and fills them in one transaction: with `minimal`
 * WAL, PostgreSQL writes such tables' pages once at commit instead of logging every row (the
 * embedded database has no replicas to feed; the server starts again with its own settings). The
 * indexes set aside while rows load are built with more memory than a running server gives them.
 */
const restoreSettings = ["wal_level=minimal", "max_wal_senders=0", "maintenance_work_mem=256MB"]

const examples = (items: ReadonlyArray<string>) =>
  items.length === 0 ? "" : `: ${items.slice(0, 5).join(", ")}${items.length > 5 ? `, … (${items.length - 5} more)` : ""}`

export const printDumpSummary = (summary: DumpSummary) =>
  Effect.gen(function*() {
    const { counts, database } = summary.manifest
    const rows = database.tables.reduce((sum, table) => sum + table.rows, 0)
    yield* Console.log(`dump written to ${summary.output} (${formatBytes(summary.archiveBytes)})`)
    yield* Console.log(`  schema version ${summary.manifest.schemaVersion}, ${database.tables.length} tables, ${rows} rows`)
    yield* Console.log(`  ${counts.repositories} repositories with ${counts.refs} refs, ${counts.attachments} attachments, ${counts.packageFiles} package files, ${counts.lfsObjects ?? 0} LFS objects`)
    yield* Console.log(`  ${counts.entries} entries, ${formatBytes(counts.bytes)} before compression`)
    if (summary.missingFiles.length > 0) {
      yield* Console.log(`  rows whose files were missing (deleted after the snapshot, or damage): ${summary.missingFiles.length}${examples(summary.missingFiles)}`)
    }
    if (summary.filesWithoutRows.length > 0) {
      yield* Console.log(`  files without a row, not copied (made after the snapshot, or left over): ${summary.filesWithoutRows.length}${examples(summary.filesWithoutRows)}`)
    }
    yield* Console.log("  secrets in this file (keep it as safe as the server):")
    for (const secret of summary.secrets) {
      if (secret.rows > 0) yield* Console.log(`    - ${secret.what}: ${secret.rows} (${secret.where})`)
    }
    if (summary.signingKeyIncluded) yield* Console.log("    - the instance's OpenPGP signing key (signing-key.asc), unencrypted unless a passphrase protects it")
    if (summary.sshHostKeysIncluded > 0) yield* Console.log(`    - the SSH host keys (ssh/): ${summary.sshHostKeysIncluded}`)
  })

export const dumpCommand = Command.make(
  "dump",
  { output: Flag.String("output").pipe(Flag.withDescription("The archive to write (.tar.gz); it must not exist")) },
  Effect.fnUntraced(function*(flags) {
    const config = yield* KilnConfig
    const output = resolve(flags.output)
    const dataDir = resolve(config.dataDir)
    const progress = (estimate: number) => progressLine("dump", estimate)
    // A server running on the embedded database holds it: that server makes the dump.
    const throughServer = Option.isNone(config.databaseUrl)
      ? yield* dumpThroughServer(dataDir, output, progress)
      : Option.none()
    const summary = Option.isSome(throughServer) ? throughServer.value : yield* dump({
      output,
      dataDir,
      signingKey: config.signingKey === "generate" ? Option.some(generatedKeyPath(dataDir)) : Option.none(),
      progress
    }).pipe(Effect.provide(UnmigratedDatabase()))
    yield* printDumpSummary(summary)
    if (typeof config.signingKey === "object") {
      yield* Console.log(`  not included: the signing key file ${config.signingKey.path} (KILN_SIGNING_KEY names a file outside the data directory)`)
    }
  }, Effect.provide(KilnConfigLayer.layer), userFacing("dump"))
).pipe(Command.withDescription("Write a consistent archive of the database, repositories, attachments, packages and signing key"))

export const restoreCommand = Command.make(
  "restore",
  { input: Flag.String("input").pipe(Flag.withDescription("An archive written by kiln dump")) },
  Effect.fnUntraced(function*(flags) {
    const config = yield* KilnConfig
    const dataDir = resolve(config.dataDir)
    // An embedded database not there yet is made by this restore: from the migrated template.
    const fresh = Option.isNone(config.databaseUrl) && !existsSync(join(dataDir, "db", "PG_VERSION"))
    const options = { input: resolve(flags.input), dataDir, fresh, progress: (estimate: number) => progressLine("restore", estimate) }
    const { summary, resynced } = yield* Effect.scoped(Effect.gen(function*() {
      // Before the database is opened (opening an embedded one creates files in the data
      // directory), and read while it opens.
      const reading = yield* startReading(options)
      let restored = false
      return yield* Effect.gen(function*() {
        const summary = yield* restoreRead(options, reading)
        restored = true
        // The files were copied after the rows were read: a push in between left refs the branch
        // table lacks. On the same connection: reopening the database would cost as much again.
        const resynced = yield* Effect.gen(function*() {
          const consistency = yield* BranchTableConsistency
          const mismatches = yield* consistency.mismatches
          yield* consistency.repair(mismatches.map((mismatch) => mismatch.location))
          return mismatches.length
        }).pipe(Effect.provide(Application.layer))
        return { summary, resynced }
      }).pipe(
        Effect.provide(UnmigratedDatabase(restoreSettings, fresh ? "migrated" : "empty")),
        // A database that did not open leaves nothing of the restore behind either (a restore
        // that failed has cleared up itself; one that is done stays).
        Effect.onError(() => restored ? Effect.void : abandon(options, reading))
      )
    }))
    const { counts, database } = summary.manifest
    yield* Console.log(`restored ${flags.input} (made by Kiln ${summary.manifest.kilnVersion} at ${summary.manifest.createdAt})`)
    yield* Console.log(`  ${database.tables.reduce((sum, table) => sum + table.rows, 0)} rows, ${counts.repositories} repositories, ${counts.attachments} attachments, ${counts.packageFiles} package files, ${counts.lfsObjects ?? 0} LFS objects`)
    if (resynced > 0) yield* Console.log(`  branch table rewritten from git for ${resynced} repositories pushed to during the dump`)
    if (summary.schemaVersion !== summary.manifest.schemaVersion) {
      yield* Console.log(`  schema migrated from version ${summary.manifest.schemaVersion} to ${summary.schemaVersion}`)
    }
  }, Effect.provide(KilnConfigLayer.layer), userFacing("restore"))
).pipe(Command.withDescription("Restore an archive of kiln dump into an empty data directory and database"))
