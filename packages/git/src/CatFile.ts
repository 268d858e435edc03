/**
 * `git cat-file --batch`: many objects read by one git process. Git maps pack files and reads
 * only the objects asked for, so memory stays at the size of what is read, whatever the packs.
 * Started through the launcher, as every git of the server is (forking the server itself holds its
 * event loop for milliseconds).
 */
import type { GitCommandOptions } from "./GitCommand.ts"
import { gitEnvironment } from "./GitEnvironment.ts"
import { startGit } from "./launcher/GitLauncher.ts"

export interface BatchObject {
  readonly oid: string
  readonly type: string
  readonly content: Buffer
}

/**
 * The objects `names` name (ids or revisions such as `refs/heads/x^{commit}`), in order;
 * undefined for a name that names nothing (or more than one object). Names must not contain a
 * newline; callers pass ids and validated ref names only.
 */
export const catFileBatch = (
  options: GitCommandOptions,
  gitdir: string,
  names: ReadonlyArray<string>,
  /** Ids and types only (`--batch-check`): nothing read, however large the objects. */
  contents: "with contents" | "without contents" = "with contents"
): Promise<ReadonlyArray<BatchObject | undefined>> =>
  names.length === 0 ? Promise.resolve([]) : startGit(
    options.gitBinary,
    ["--git-dir", gitdir, "cat-file", contents === "with contents" ? "--batch" : "--batch-check"],
    gitEnvironment(options.env)
  ).then((child) => new Promise((resolve, reject) => {
    const stdout: Array<Buffer> = []
    const stderr: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => stdout.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => stderr.push(chunk))
    child.on("error", reject)
    // git exits (EPIPE here) when it cannot read the repository; the exit code tells.
    child.stdin.on("error", () => undefined)
    child.stdin.end(`${names.join("\n")}\n`)
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`git cat-file exited ${code}: ${Buffer.concat(stderr).toString("utf8").trim()}`))
      const output = Buffer.concat(stdout)
      const objects: Array<BatchObject | undefined> = []
      let position = 0
      for (let index = 0; index < names.length; index++) {
        const end = output.indexOf(0x0a, position)
        if (end < 0) return reject(new Error("git cat-file: output ended early"))
        const header = output.subarray(position, end).toString("utf8")
        position = end + 1
        const match = /^([0-9a-f]{40,64}) (\S+) (\d+)$/.exec(header)
        if (match === null) {
          // `<name> missing` or `<name> ambiguous`.
          objects.push(undefined)
          continue
        }
        const [, oid = "", type = "", sizeText = "0"] = match
        if (contents === "without contents") {
          objects.push({ oid, type, content: Buffer.alloc(0) })
          continue
        }
        const size = Number(sizeText)
        objects.push({ oid, type, content: output.subarray(position, position + size) })
        position += size + 1
      }
      resolve(objects)
    })
  }))
