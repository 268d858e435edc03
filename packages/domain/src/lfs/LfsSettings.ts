/**
 * `KILN_LFS_*`: whether the LFS API is served, the largest object accepted, the most objects one
 * batch may name, and how many locks a page lists (Forgejo's `LFS_MAX_FILE_SIZE`,
 * `LFS_MAX_BATCH_SIZE`, `LFS_LOCKS_PAGING_NUM`); and how long an object nothing references stays
 * before the collection removes it.
 */
import { Context } from "effect"

export interface LfsSettingsShape {
  readonly enabled: boolean
  /** Bytes; 0 for no limit. */
  readonly maxFileSize: number
  /** Objects per batch request; 0 for no limit. */
  readonly maxBatchSize: number
  readonly locksPageSize: number
  /** Milliseconds an unreferenced object is kept. */
  readonly collectionGraceMillis: number
}

export class LfsSettings extends Context.Reference<LfsSettingsShape>("@kiln/domain/lfs/LfsSettings", {
  defaultValue: () => ({
    enabled: true,
    maxFileSize: 0,
    maxBatchSize: 0,
    locksPageSize: 50,
    collectionGraceMillis: 24 * 60 * 60 * 1000
  })
}) {}
