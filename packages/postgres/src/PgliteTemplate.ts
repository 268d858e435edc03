/**
 * An empty embedded database made once and copied for every new one: PGlite's initdb takes 3–5 s
 * of CPU. Kept under this package's node_modules/.cache, keyed by the PGlite version and by what a
 * new database holds beyond initdb, so it is made again exactly when either changes; twice: as an
 * archive, which in-memory databases load (tests restore it per file), and as a data directory,
 * which Database copies into every new data directory (copying is file creation, 0.05-0.9 s as the
 * disk allows, where loading the archive into a directory took ~1.2 s of CPU).
 */
import { execFile } from "node:child_process"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"
import type { PGlite } from "@electric-sql/pglite"
import { createExtensions } from "./Extensions.ts"

/** What a new database contains beyond initdb: what Database's start-up would add to it. */
const setupSql = createExtensions

const pgliteVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const manifest: unknown = JSON.parse(Fs.readFileSync(Path.join(Path.dirname(entry), "..", "package.json"), "utf8"))
  return typeof manifest === "object" && manifest !== null && "version" in manifest && typeof manifest.version === "string"
    ? manifest.version
    : "unknown"
}

// From src/ and from a build's dist/ alike: one level below the package.
const cacheDirectory = fileURLToPath(new URL("../node_modules/.cache/kiln-pglite/", import.meta.url))

export const file = (): string => {
  const key = createHash("sha256").update(setupSql).digest("hex").slice(0, 12)
  return Path.join(cacheDirectory, `pglite-${pgliteVersion()}-${key}.tar`)
}

/** The template's path, made first if missing. Safe to race: the file appears whole or not at all. */
export const ensure = async (): Promise<string> => {
  const target = file()
  if (Fs.existsSync(target)) return target
  // Imported here: a server on a PostgreSQL server never loads PGlite.
  const [{ PGlite }, { pg_trgm }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm")
  ])
  const db = await PGlite.create({ extensions: { pg_trgm } })
  try {
    await db.exec(setupSql)
    const tar = await db.dumpDataDir("none")
    Fs.mkdirSync(cacheDirectory, { recursive: true })
    const partial = `${target}.${process.pid}.partial`
    Fs.writeFileSync(partial, new Uint8Array(await tar.arrayBuffer()))
    Fs.renameSync(partial, target)
  } finally {
    await db.close()
  }
  return target
}

/** What a template directory holds beyond the empty database: its name and how it is made. */
export interface Variant {
  readonly name: string
  readonly prepare: (db: PGlite) => Promise<void>
}

/**
 * The template as a data directory (closed cleanly, so PGlite opens a copy as its own), with
 * `variant`'s additions when given, made first if missing. Safe to race: the directory appears
 * whole or not at all.
 */
export const ensureDirectory = async (variant?: Variant): Promise<string> => {
  const target = file().replace(/\.tar$/, variant === undefined ? "" : `-${variant.name}`)
  if (Fs.existsSync(Path.join(target, "PG_VERSION"))) return target
  const archive = await ensure()
  const [{ PGlite: Pglite }, { pg_trgm }] = await Promise.all([
    import("@electric-sql/pglite"),
    import("@electric-sql/pglite/contrib/pg_trgm")
  ])
  const partial = `${target}.${process.pid}.partial`
  Fs.rmSync(partial, { recursive: true, force: true })
  Fs.mkdirSync(partial, { recursive: true })
  try {
    const db = await Pglite.create({ dataDir: partial, extensions: { pg_trgm }, loadDataDir: new Blob([Fs.readFileSync(archive)]) })
    try {
      if (variant !== undefined) await variant.prepare(db)
    } finally {
      await db.close()
    }
    Fs.renameSync(partial, target)
  } catch (error) {
    Fs.rmSync(partial, { recursive: true, force: true })
    // Another process made it first.
    if (!Fs.existsSync(Path.join(target, "PG_VERSION"))) throw error
  }
  return target
}

/**
 * Copies a template directory to `target`, replacing whatever is there. Creating its ~1,200 files
 * is the cost (0.05-0.9 s on this machine's disk, as busy as it is); the system's `cp` does it in
 * two thirds of the time Node's fs.cp takes (0.87 s against 1.33 s, measured alternately), whose
 * ~5,000 calls each take a turn through libuv's few threads. fs.cp where there is no `cp`.
 */
export const copyDirectory = async (source: string, target: string): Promise<void> => {
  // `cp -R` copies into a target that exists instead of as it.
  await Fs.promises.rm(target, { recursive: true, force: true })
  await new Promise<void>((resolve, reject) => execFile("cp", ["-R", source, target], (error) => (error === null ? resolve() : reject(error))))
    .catch(async () => {
      await Fs.promises.rm(target, { recursive: true, force: true })
      await Fs.promises.cp(source, target, { recursive: true })
    })
}
