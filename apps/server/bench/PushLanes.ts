/**
 * Pushes made ready before they are timed: each lane is a branch of its own in one repository,
 * with a chain of commits (three per push, a file of the lane changed each time) written by
 * `git fast-import` into a local copy, and each push's pack (`git pack-objects` of its commits
 * against the lane's previous tip). A push then costs the load generator one HTTP exchange
 * (GitHttpClient.ts), and lanes never race each other for a branch.
 */
import { execFile, spawn } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { promisify } from "node:util"

const run = promisify(execFile)

const ZERO_ID = "0".repeat(40)
const COMMITS_PER_PUSH = 3

export interface PreparedPush {
  readonly ref: string
  readonly oldId: string
  readonly newId: string
  readonly pack: Uint8Array
}

/** Runs git with `input` on its stdin; its stdout as bytes. */
const gitWithInput = (args: ReadonlyArray<string>, input: string): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const child = spawn("git", [...args], { stdio: ["pipe", "pipe", "pipe"] })
    const out: Array<Buffer> = []
    const err: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk))
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk))
    child.on("error", reject)
    child.on("close", (code) =>
      code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${args.join(" ")}: ${Buffer.concat(err).toString("utf8")}`)))
    child.stdin.end(input)
  })

export class PushLane {
  /** The repository's name (its owner is the workload's). */
  readonly repository: string
  readonly ref: string
  /** What the server's tip will be once every push made ready so far went through (the zero id before the first). */
  #plannedTip = ZERO_ID
  /** The lane's tip in the local copy: where the next prepared commits go. */
  #localTip: string
  readonly #ready: Array<PreparedPush> = []
  /** A push that failed leaves the server's tip unknown: the lane takes no more. */
  #broken = false

  constructor(repository: string, ref: string, base: string) {
    this.repository = repository
    this.ref = ref
    this.#localTip = base
  }

  get broken(): boolean {
    return this.#broken
  }

  get readyCount(): number {
    return this.#ready.length
  }

  /** The next push, taken off the lane. */
  take(): PreparedPush | undefined {
    return this.#broken ? undefined : this.#ready.shift()
  }

  /** A failed push: the lane's later pushes would start from a tip the server does not have. */
  failed(): void {
    this.#broken = true
  }

  /** Adds prepared pushes: their commits appended to the lane's local chain, `tips` the last commit of each. */
  addReady(tips: ReadonlyArray<string>, packs: ReadonlyArray<Uint8Array>): void {
    tips.forEach((tip, index) => {
      this.#ready.push({ ref: this.ref, oldId: this.#plannedTip, newId: tip, pack: packs[index] ?? new Uint8Array() })
      this.#plannedTip = tip
    })
    this.#localTip = tips.at(-1) ?? this.#localTip
  }

  get localTip(): string {
    return this.#localTip
  }
}

/**
 * A local bare copy per repository (cloned once) where the lanes' commits are made. `base` of each
 * lane is the repository's `main` at the time of the clone, which the server has.
 */
export class PushLanes {
  readonly lanes: ReadonlyArray<PushLane>
  /** Repository name → its local bare copy. */
  readonly #copies: ReadonlyMap<string, string>
  #made = 0

  private constructor(lanes: ReadonlyArray<PushLane>, copies: ReadonlyMap<string, string>) {
    this.lanes = lanes
    this.#copies = copies
  }

  /** `lanesPerRepository` lanes in each repository, cloned into `workDir` from its `cloneUrl`. */
  static async make(
    repositories: ReadonlyArray<{ readonly name: string; readonly cloneUrl: string }>,
    lanesPerRepository: number,
    workDir: string
  ): Promise<PushLanes> {
    const lanes: Array<PushLane> = []
    const copies = new Map<string, string>()
    for (const [index, { name, cloneUrl }] of repositories.entries()) {
      const copy = Path.join(workDir, `lanes-${index}.git`)
      Fs.rmSync(copy, { recursive: true, force: true })
      await run("git", ["clone", "-q", "--bare", cloneUrl, copy])
      const base = (await run("git", ["--git-dir", copy, "rev-parse", "refs/heads/main"])).stdout.trim()
      copies.set(name, copy)
      for (let lane = 0; lane < lanesPerRepository; lane++) lanes.push(new PushLane(name, `refs/heads/lane-${lane}`, base))
    }
    return new PushLanes(lanes, copies)
  }

  /** Makes ready pushes until every usable lane has `perLane`. */
  async prepare(perLane: number): Promise<void> {
    for (const [repository, copy] of this.#copies) {
      const lanes = this.lanes.filter((lane) => lane.repository === repository && !lane.broken)
      let stream = ""
      const marks: Array<{ readonly lane: PushLane; readonly pushMarks: Array<number> }> = []
      for (const lane of lanes) {
        const missing = Math.max(0, perLane - lane.readyCount)
        if (missing === 0) continue
        const pushMarks: Array<number> = []
        let first = true
        for (let push = 0; push < missing; push++) {
          for (let commit = 0; commit < COMMITS_PER_PUSH; commit++) {
            const mark = ++this.#made
            const message = `change ${mark}\n`
            const content = `${lane.ref} ${mark}\n`
            stream += `commit ${lane.ref}\nmark :${mark}\ncommitter bench <bench@bench.invalid> ${1_700_000_000 + mark} +0000\n` +
              `data ${Buffer.byteLength(message)}\n${message}` + (first ? `from ${lane.localTip}\n` : "") +
              `M 100644 inline ${Path.basename(lane.ref)}.txt\ndata ${Buffer.byteLength(content)}\n${content}\n`
            first = false
            if (commit === COMMITS_PER_PUSH - 1) pushMarks.push(mark)
          }
        }
        marks.push({ lane, pushMarks })
      }
      if (marks.length === 0) continue
      const marksFile = Path.join(copy, "bench-marks")
      await gitWithInput(["--git-dir", copy, "fast-import", "--quiet", "--force", `--export-marks=${marksFile}`], stream)
      const ids = new Map(Fs.readFileSync(marksFile, "utf8").trim().split("\n").map((line) => {
        const [mark = "", id = ""] = line.split(" ")
        return [Number(mark.slice(1)), id] as const
      }))
      for (const { lane, pushMarks } of marks) {
        const tips = pushMarks.map((mark) => ids.get(mark) ?? "")
        const packs: Array<Uint8Array> = []
        let previous = lane.localTip
        for (const tip of tips) {
          packs.push(await gitWithInput(["--git-dir", copy, "pack-objects", "--revs", "--stdout", "-q"], `${tip}\n^${previous}\n`))
          previous = tip
        }
        lane.addReady(tips, packs)
      }
    }
  }
}
