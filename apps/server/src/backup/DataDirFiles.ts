/**
 * The files a data directory holds for rows, listed from the disk: repository directories and the
 * blobs of attachments, packages and LFS objects, keyed as the rows name them (FileReferencesSql.ts). Shared by
 * the dump (files without rows are reported) and the consistency check.
 */
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import type { BlobReference } from "@kiln/postgres/backup/FileReferencesSql"
import { makeRepositoryDirectories } from "@kiln/git"
import { attempt, type BackupFailed } from "./BackupFailed.ts"

const absentAsEmpty = (error: unknown): Array<never> => {
  if (error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR")) return []
  throw error
}

const subdirectories = async (path: string): Promise<Array<string>> =>
  (await readdir(path, { withFileTypes: true }).catch(absentAsEmpty)).filter((entry) => entry.isDirectory()).map((entry) => entry.name)

const files = async (path: string): Promise<Array<string>> =>
  (await readdir(path, { withFileTypes: true }).catch(absentAsEmpty)).filter((entry) => entry.isFile()).map((entry) => entry.name)

/** `owner/name` (lower case) of every repository directory. */
export const repositoryDirectories = (dataDir: string) =>
  Effect.map(
    makeRepositoryDirectories(join(dataDir, "repositories")).list,
    (locations) => locations.map((location) => `${location.owner}/${location.name}`)
  )

export interface BlobFile extends Omit<BlobReference, "size"> {
  readonly path: string
}

/**
 * Every file in the two-level fan-out of `attachments/`, `packages/` and `lfs/` (whatever its
 * name); an LFS object's name is its whole oid, the fan-out's levels and the file's name together.
 */
export const blobFiles = (dataDir: string): Effect.Effect<ReadonlyArray<BlobFile>, BackupFailed> =>
  attempt("listing blob files", async () => {
    const found: Array<BlobFile> = []
    for (const area of ["attachments", "packages", "lfs"] as const) {
      const root = join(dataDir, area)
      for (const first of (await subdirectories(root)).sort()) {
        for (const second of (await subdirectories(join(root, first))).sort()) {
          for (const name of (await files(join(root, first, second))).sort()) {
            found.push({ area, name: area === "lfs" ? `${first}${second}${name}` : name, path: join(root, first, second, name) })
          }
        }
      }
    }
    return found
  })
