/**
 * A repository's `config` as a restore writes it: never the file found in the archive. git reads
 * a repository's config with the trust of the process that runs it (Kiln's `receive-pack`), so a
 * dump changed on shared storage could otherwise bring `core.hooksPath`, `core.fsmonitor`,
 * `include.path` and the like. The archived file is read through git (`git config --file`, which
 * follows no include) and only an allow-list of keys, with checked values, is written through git
 * into Kiln's own bare config.
 */
import { writeFile } from "node:fs/promises"
import { type GitCommandOptions, runGit } from "./GitCommand.ts"

/** What Kiln writes for a new bare repository (GitStorageLive's `initBare`). */
export const BARE_CONFIG = "[core]\n\trepositoryformatversion = 0\n\tfilemode = true\n\tbare = true\n"

/** The keys kept, each with the values it may have (undefined: any single-line value). */
const ALLOWED: ReadonlyMap<string, ReadonlySet<string> | undefined> = new Map([
  ["core.repositoryformatversion", new Set(["0", "1"])],
  ["extensions.objectformat", new Set(["sha1", "sha256"])],
  // A migrated mirror's remote (`git clone --mirror`), for fetching it again.
  ["remote.origin.url", undefined],
  ["remote.origin.fetch", undefined],
  ["remote.origin.mirror", new Set(["true", "false"])]
])

/** The allowed `key value` pairs of a config file, in its order (`git config --list -z`). */
export const allowedSettings = async (
  options: GitCommandOptions,
  scratchGitdir: string,
  archived: string
): Promise<ReadonlyArray<readonly [string, string]>> => {
  const listed = await runGit(options, scratchGitdir, ["config", "--file", archived, "--no-includes", "--list", "-z"])
  // A file git cannot read keeps nothing: the repository gets Kiln's own config.
  if (listed.exitCode !== 0) return []
  return listed.stdout.split("\0").flatMap((item): Array<readonly [string, string]> => {
    const newline = item.indexOf("\n")
    const key = (newline < 0 ? item : item.slice(0, newline)).toLowerCase()
    const value = newline < 0 ? "" : item.slice(newline + 1)
    if (!ALLOWED.has(key) || value.includes("\n")) return []
    const values = ALLOWED.get(key)
    return values === undefined || values.has(value) ? [[key, value]] : []
  })
}

/** Writes `target` as Kiln's bare config plus the allowed settings of `archived` (a file of the archive). */
export const writeRestoredConfig = async (
  options: GitCommandOptions,
  scratchGitdir: string,
  archived: string,
  target: string
): Promise<void> => {
  const settings = await allowedSettings(options, scratchGitdir, archived)
  await writeFile(target, BARE_CONFIG, { flag: "wx", mode: 0o644 })
  for (const [key, value] of settings) {
    const args = key === "remote.origin.fetch" ? ["config", "--file", target, "--add", key, value] : ["config", "--file", target, key, value]
    const result = await runGit(options, scratchGitdir, args)
    if (result.exitCode !== 0) throw new Error(`writing ${key} into ${target}: ${result.stderr.trim()}`)
  }
}
