/**
 * `kiln doctor`: the rows and the data directory checked against each other, each check with how
 * many problems it found and a few examples. With `fix`, what is safe is repaired (directory steps a
 * stopped process left, settled as a start would; the branch table from git, totals from their items, the search epoch, shadowed redirects, blob files without a row
 * older than the grace period, LFS objects no repository references) and the rest is named with the decision it needs.
 */
import { readFile, rm, stat } from "node:fs/promises"
import { Effect, Option } from "effect"
import type { SqlClient, SqlError } from "effect/sql"
import { BranchTableConsistency } from "@kiln/domain/git/BranchTableConsistency"
import { repositoryDirectoryKey } from "@kiln/domain/coordination/WriteLocks"
import { DirectorySteps } from "@kiln/domain/repo/DirectorySteps"
import { PendingDirectorySteps } from "@kiln/domain/repo/PendingDirectorySteps"
import { RepositoryInventory } from "@kiln/domain/repo/RepositoryInventory"
import { blobPath } from "@kiln/blobs"
import * as DerivedRows from "@kiln/postgres/consistency/DerivedRowsSql"
import * as SshKeys from "@kiln/postgres/consistency/SshKeysSql"
import ssh2 from "ssh2"
import * as LfsConsistency from "@kiln/postgres/consistency/LfsConsistencySql"
import { fileReferences } from "@kiln/postgres/backup/FileReferencesSql"
import { attempt, type BackupFailed } from "../backup/BackupFailed.ts"
import { blobFiles, repositoryDirectories } from "../backup/DataDirFiles.ts"
import { generatedHostKeyFiles } from "../ssh/HostKeyFiles.ts"

export interface CheckResult {
  readonly check: string
  readonly problems: ReadonlyArray<string>
  /** Present when the problems can be repaired safely. */
  readonly repair: Option.Option<Effect.Effect<string, BackupFailed | SqlError.SqlError, SqlClient.SqlClient>>
  /** What an operator must decide when nothing is repaired automatically. */
  readonly decision: Option.Option<string>
}

export interface DoctorOptions {
  readonly dataDir: string
  /** Files without a row younger than this are left alone (an upload may be committing its row). */
  readonly graceMillis: number
}

const result = (
  check: string,
  problems: ReadonlyArray<string>,
  options: { readonly repair?: CheckResult["repair"] extends Option.Option<infer R> ? R : never; readonly decision?: string }
): CheckResult => ({
  check,
  problems,
  repair: problems.length > 0 && options.repair !== undefined ? Option.some(options.repair) : Option.none(),
  decision: problems.length > 0 && options.decision !== undefined ? Option.some(options.decision) : Option.none()
})

export const checks = (options: DoctorOptions) =>
  Effect.gen(function*() {
    const inventory = yield* RepositoryInventory
    const branchTable = yield* BranchTableConsistency
    const pending = yield* PendingDirectorySteps
    const steps = yield* DirectorySteps
    const results: Array<CheckResult> = []

    // First: settling them puts directories and rows back in step, which the next two checks compare.
    const marks = yield* pending.list(undefined)
    results.push(result(
      "repository directory steps a stopped process left unfinished",
      marks.map((mark) => `${mark.key.slice(mark.key.indexOf(":") + 1)}: ${mark.undo.map((step) => step._tag).join(", ")}`),
      { repair: Effect.map(steps.settleAll, (settled) => `settled ${settled} directory steps (undone, or their deletion finished)`) }
    ))
    const marked = new Set(marks.map((mark) => mark.key))

    const rows = new Set((yield* inventory.locations).map((location) => `${location.owner}/${location.name}`))
    const directories = new Set(yield* repositoryDirectories(options.dataDir).pipe(Effect.orDie))
    results.push(result("repository rows without a directory", [...rows].filter((name) => !directories.has(name)).sort(), {
      decision: "restore the directory from a backup, or delete the repository (DELETE /api/v1/repos/{owner}/{repo})"
    }))
    // A marked directory is the first check's: reporting it unadopted would ask for the wrong decision.
    const isMarked = (path: string) => {
      const [owner = "", name = ""] = path.split("/")
      return marked.has(repositoryDirectoryKey({ owner, name }))
    }
    const unadopted = [...directories].filter((path) => !rows.has(path) && !isMarked(path))
    results.push(result("repository directories without a row (unadopted)", unadopted.sort(), {
      decision: "adopt or delete each (POST or DELETE /api/v1/admin/unadopted/{owner}/{repo})"
    }))

    const mismatches = yield* branchTable.mismatches
    results.push(result(
      "branch tables differing from git",
      mismatches.map((m) => `${m.location.owner}/${m.location.name} (${[...m.differing, ...m.extra].join(", ")})`),
      {
        repair: Effect.as(branchTable.repair(mismatches.map((m) => m.location)), `rewrote the branch table of ${mismatches.length} repositories from git`)
      }
    ))

    const totals = yield* DerivedRows.totalMismatches
    results.push(result("usage totals and release counts differing from their items", totals.map((t) => `${t.total} of ${t.key}: kept ${t.kept}, items ${t.fresh}`), {
      repair: Effect.as(DerivedRows.recomputeTotals, "recomputed the usage totals and release counts from their items")
    }))

    const references = yield* fileReferences
    const missingBlobs: Array<string> = []
    for (const blob of references.blobs) {
      const present = yield* attempt("reading the blobs", () => stat(blobPath(options.dataDir, blob)).then(() => true, () => false))
      if (!present) missingBlobs.push(`${blob.area}/${blob.name}`)
    }
    results.push(result("attachment, package and LFS object rows without a file", missingBlobs, {
      decision: "restore the files from a backup, or delete the attachments or package versions (LFS: see below)"
    }))

    const missingLfs = new Set(missingBlobs.filter((name) => name.startsWith("lfs/")).map((name) => name.slice("lfs/".length)))
    const brokenReferences = missingLfs.size === 0
      ? []
      : (yield* LfsConsistency.references).filter((reference) => missingLfs.has(reference.oid))
    results.push(result(
      "LFS references to an object without a file",
      brokenReferences.map((reference) => `${reference.owner}/${reference.name} ${reference.oid}`),
      { decision: "push the objects again from a clone that has them (git lfs push --all origin), or restore them from a backup" }
    ))

    const unreferenced = yield* LfsConsistency.unreferencedObjects
    results.push(result("LFS objects without a reference", unreferenced, {
      repair: Effect.gen(function*() {
        const removed = yield* LfsConsistency.removeUnreferenced
        yield* Effect.forEach(removed, (oid) =>
          attempt(`removing LFS object ${oid}`, () => rm(blobPath(options.dataDir, { area: "lfs", name: oid }), { force: true })), { discard: true })
        return `removed ${removed.length} LFS objects without a reference`
      })
    }))

    const referenced = new Set(references.blobs.map((blob) => `${blob.area}/${blob.name}`))
    const now = Date.now()
    const orphans: Array<{ readonly name: string; readonly path: string; readonly old: boolean }> = []
    for (const file of yield* blobFiles(options.dataDir)) {
      if (referenced.has(`${file.area}/${file.name}`)) continue
      const path = file.path
      const modified = yield* attempt("reading the blobs", () => stat(path).then((info) => info.mtimeMs, () => now))
      orphans.push({ name: `${file.area}/${file.name}`, path, old: now - modified >= options.graceMillis })
    }
    const removable = orphans.filter((orphan) => orphan.old)
    results.push(result(
      "attachment, package and LFS files without a row",
      orphans.map((orphan) => orphan.old ? orphan.name : `${orphan.name} (recent, left for now)`),
      {
        repair: Effect.as(
          Effect.forEach(removable, (orphan) => attempt(`removing ${orphan.name}`, () => rm(orphan.path, { force: true })), { discard: true }),
          `removed ${removable.length} files without a row${orphans.length > removable.length ? `; ${orphans.length - removable.length} within the grace period left` : ""}`
        )
      }
    ))

    const epochMissing = yield* DerivedRows.searchEpochMissing
    results.push(result("repository search epoch", epochMissing ? ["the epoch row is missing"] : [], {
      repair: Effect.as(DerivedRows.restoreSearchEpoch, "put the search epoch row back")
    }))
    const shadowed = yield* DerivedRows.shadowedRedirects
    results.push(result("redirects from a name a repository has taken", shadowed.map((r) => `${r.owner}/${r.name}`), {
      repair: Effect.as(DerivedRows.removeShadowedRedirects, `removed ${shadowed.length} shadowed redirects`)
    }))

    const ungranted = yield* SshKeys.deployKeysWithoutGrant
    results.push(result("deploy keys added to no repository", ungranted.map((id) => `key ${id}`), {
      repair: Effect.as(SshKeys.removeDeployKeysWithoutGrant, `removed ${ungranted.length} deploy keys added to no repository`)
    }))
    results.push(result("SSH keys sharing a fingerprint (a sign-in speaks for the oldest)", yield* SshKeys.sharedFingerprints, {
      decision: "delete all but the right owner's key (DELETE /api/v1/admin/users/{username}/keys/{id})"
    }))

    // The built-in SSH server's generated host keys, when there are any: each must be a private key ssh2 reads.
    const hostKeyProblems: Array<string> = []
    const hostKeys = Object.values(generatedHostKeyFiles(options.dataDir))
    const present = yield* Effect.forEach(hostKeys, (path) =>
      attempt("reading the SSH host keys", () => readFile(path, "utf8").then((text) => ({ path, text }), () => ({ path, text: undefined }))))
    if (present.some((file) => file.text !== undefined)) {
      for (const file of present) {
        if (file.text === undefined) {
          hostKeyProblems.push(`${file.path} is missing (the next start makes a new one)`)
          continue
        }
        const parsed = ssh2.utils.parseKey(file.text)
        const key = parsed instanceof Error ? undefined : Array.isArray(parsed) ? parsed[0] : parsed
        if (key === undefined || !key.isPrivateKey()) hostKeyProblems.push(`${file.path} is not a private key`)
      }
    }
    results.push(result("SSH host keys", hostKeyProblems, {
      decision: "restore the host keys from a backup (kiln dump carries them), or remove the damaged file to have a new key made (clients will warn of the changed host key)"
    }))
    return results
  })
