/**
 * A PGlite data directory made once (initdb takes seconds) and restored for every test file
 * (a fraction of a second). Kept under node_modules/.cache, keyed by the PGlite version and by
 * what the snapshot contains, so it is remade exactly when either changes.
 */
import { PGlite } from "@electric-sql/pglite"
import { pg_trgm } from "@electric-sql/pglite/contrib/pg_trgm"
import { createHash } from "node:crypto"
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

declare module "vitest" {
  interface ProvidedContext {
    /** Path of the PGlite snapshot tar; absent when tests run against a real server. */
    kilnPgliteSnapshot?: string
  }
}

/** What a fresh database contains beyond initdb: the same as Database's start-up. */
const setupSql = "CREATE EXTENSION IF NOT EXISTS pg_trgm"

const pgliteVersion = (): string => {
  const entry = createRequire(import.meta.url).resolve("@electric-sql/pglite")
  const manifest: unknown = JSON.parse(Fs.readFileSync(Path.join(Path.dirname(entry), "..", "package.json"), "utf8"))
  return typeof manifest === "object" && manifest !== null && "version" in manifest && typeof manifest.version === "string"
    ? manifest.version
    : "unknown"
}

const cacheDirectory = fileURLToPath(new URL("../../node_modules/.cache/kiln-pglite/", import.meta.url))

export const file = (): string => {
  const key = createHash("sha256").update(setupSql).digest("hex").slice(0, 12)
  return Path.join(cacheDirectory, `pglite-${pgliteVersion()}-${key}.tar`)
}

/** The snapshot's path, made first if missing. Safe to race: the file appears whole or not at all. */
export const ensure = async (): Promise<string> => {
  const target = file()
  if (Fs.existsSync(target)) return target
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
