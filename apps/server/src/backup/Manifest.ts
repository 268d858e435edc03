/**
 * `manifest.json`, the last entry of a dump: what made it, the schema version its rows have, counts
 * and one checksum per group of entries (ChecksumGroups.ts). A restore checks every group against it.
 */
import { Schema } from "effect"

export const MANIFEST_PATH = "manifest.json"
/** 2: rows in COPY's text format, each table with its columns; 1 (still read): rows as JSON lines. */
export const FORMAT = 2

export const Manifest = Schema.Struct({
  format: Schema.Literals([1, FORMAT]),
  kilnVersion: Schema.String,
  schemaVersion: Schema.Int,
  createdAt: Schema.String,
  database: Schema.Struct({
    tables: Schema.Array(Schema.Struct({
      name: Schema.String,
      rows: Schema.Int,
      columns: Schema.optionalKey(Schema.Array(Schema.String))
    })),
    sequences: Schema.Array(Schema.Struct({ name: Schema.String, lastValue: Schema.NullOr(Schema.String) }))
  }),
  counts: Schema.Struct({
    repositories: Schema.Int,
    refs: Schema.Int,
    attachments: Schema.Int,
    packageFiles: Schema.Int,
    /** Absent in dumps made before LFS. */
    lfsObjects: Schema.optionalKey(Schema.Int),
    entries: Schema.Int,
    bytes: Schema.Int
  }),
  checksums: Schema.Record(Schema.String, Schema.String)
})
export type Manifest = typeof Manifest.Type

export const decodeManifest = Schema.decodeUnknownEffect(Schema.fromJsonString(Manifest))
