/**
 * A migration with `lfs: true` (Forgejo's StoreMissingLfsObjectsInRepository): after the clone, the
 * LFS pointers of every object in the new repository are read with git, the source's LFS API (the
 * clone address's `/info/lfs`, or `lfs_endpoint`) is asked for them in batches, and each object is
 * downloaded and stored as an upload is (hashed, size checked, referenced by the new repository).
 * Objects stored already that the migrating user may read are referenced without a download.
 *
 * Every host contacted (the endpoint and each download's href) is held to the migration host
 * policy (KILN_MIGRATIONS_*), as the clone was.
 */
import { execFile, spawn } from "node:child_process"
import { Data, Effect, Option, Stream } from "effect"
import { LfsObjects } from "@kiln/domain/lfs/LfsObjects"
import { isValidPointer, type LfsPointer } from "@kiln/domain/lfs/LfsPointer"
import { isHostAllowed, MigrationSettings } from "@kiln/domain/repo/MigrationHostPolicy"
import { GitTransfers } from "@kiln/domain/git/GitTransfers"
import type { OwnedRepository } from "@kiln/domain/repo/Repository"
import type { User } from "@kiln/domain/user/User"
import { LFS_MEDIA_TYPE } from "./LfsJson.ts"

export class LfsMigrationFailed extends Data.TaggedError("LfsMigrationFailed")<{ readonly message: string }> {}

export interface LfsSource {
  /** The clone address, without credentials. */
  readonly cloneAddress: string
  /** `lfs_endpoint`, when given. */
  readonly endpoint: string | undefined
  readonly credentials: { readonly username: string; readonly password: string } | undefined
}

/** Objects asked for per batch request. */
const BATCH = 100
/** A pointer file is small; larger blobs are not read. */
const POINTER_MAX_SIZE = 1024

const pointerPattern = /^version https:\/\/git-lfs\.github\.com\/spec\/v1\noid sha256:([0-9a-f]{64})\nsize (\d{1,15})\n/

/** Forgejo's lfs.DetermineEndpoint: the given endpoint, else the clone address's `.git/info/lfs`. */
export const lfsEndpoint = (source: LfsSource): string => {
  if (source.endpoint !== undefined && source.endpoint !== "") return source.endpoint.replace(/\/+$/, "")
  const address = source.cloneAddress.replace(/\/+$/, "")
  return `${address.endsWith(".git") ? address : `${address}.git`}/info/lfs`
}

const run = (args: ReadonlyArray<string>) =>
  new Promise<string>((resolve, reject) =>
    execFile("git", [...args], { maxBuffer: 512 * 1024 * 1024 }, (error, stdout) => (error === null ? resolve(stdout) : reject(error))))

/** `git cat-file --batch` over `ids`: each blob's content. */
const readBlobs = (gitDir: string, ids: ReadonlyArray<string>) =>
  new Promise<ReadonlyArray<Buffer>>((resolve, reject) => {
    const child = spawn("git", ["--git-dir", gitDir, "cat-file", "--batch"], { stdio: ["pipe", "pipe", "ignore"] })
    const chunks: Array<Buffer> = []
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk))
    child.on("error", reject)
    child.on("close", () => {
      const output = Buffer.concat(chunks)
      const blobs: Array<Buffer> = []
      let at = 0
      while (at < output.length) {
        const newline = output.indexOf(10, at)
        if (newline < 0) break
        const size = Number(output.subarray(at, newline).toString("utf8").split(" ")[2] ?? "0")
        blobs.push(output.subarray(newline + 1, newline + 1 + size))
        at = newline + 1 + size + 1
      }
      resolve(blobs)
    })
    child.stdin.end(ids.map((id) => `${id}\n`).join(""))
  })

/** Every LFS pointer among the repository's objects, once each. */
export const scanPointers = (gitDir: string): Effect.Effect<ReadonlyArray<LfsPointer>, LfsMigrationFailed> =>
  Effect.tryPromise({
    try: async () => {
      const listed = await run(["--git-dir", gitDir, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype) %(objectsize)"])
      const small = listed.split("\n").flatMap((line) => {
        const [id = "", type, size] = line.split(" ")
        return type === "blob" && Number(size) <= POINTER_MAX_SIZE ? [id] : []
      })
      const found = new Map<string, LfsPointer>()
      for (const blob of small.length === 0 ? [] : await readBlobs(gitDir, small)) {
        const match = pointerPattern.exec(blob.toString("utf8"))
        if (match !== null) found.set(match[1] ?? "", { oid: match[1] ?? "", size: Number(match[2]) })
      }
      return [...found.values()].filter(isValidPointer)
    },
    catch: (error) => new LfsMigrationFailed({ message: `reading LFS pointers: ${error instanceof Error ? error.message : String(error)}` })
  })

interface BatchAnswerObject {
  readonly oid: string
  readonly size: number
  readonly href: string | undefined
  readonly header: Readonly<Record<string, string>>
  readonly error: string | undefined
}

const record = (value: unknown): Readonly<Record<string, unknown>> =>
  typeof value === "object" && value !== null && !Array.isArray(value) ? value as Record<string, unknown> : {}

const answerObjects = (body: unknown): ReadonlyArray<BatchAnswerObject> => {
  const listed = record(body)["objects"]
  return (Array.isArray(listed) ? listed : []).map((item) => {
    const fields = record(item)
    const download = record(record(fields["actions"])["download"])
    const header = Object.fromEntries(Object.entries(record(download["header"])).filter((entry): entry is [string, string] => typeof entry[1] === "string"))
    const error = record(fields["error"])
    return {
      oid: typeof fields["oid"] === "string" ? fields["oid"] : "",
      size: typeof fields["size"] === "number" ? fields["size"] : -1,
      href: typeof download["href"] === "string" ? download["href"] : undefined,
      header,
      error: typeof error["message"] === "string" ? error["message"] : undefined
    }
  })
}

export const make = Effect.gen(function*() {
  const objects = yield* LfsObjects
  const transfers = yield* GitTransfers
  const settings = yield* MigrationSettings

  const failed = (message: string) => new LfsMigrationFailed({ message })

  /** The URL, when its host passes the migration host policy. */
  const allowed = Effect.fnUntraced(function*(url: string) {
    let parsed: URL
    try {
      parsed = new URL(url)
    } catch {
      return yield* failed(`not a URL: ${url}`)
    }
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return yield* failed(`not an HTTP URL: ${parsed.origin}`)
    const host = parsed.hostname.replace(/^\[|\]$/g, "")
    if (!isHostAllowed(settings, host, yield* transfers.resolveHost(host))) return yield* failed(`the LFS host ${host} is not allowed`)
    return parsed
  })

  const request = (url: URL, init: RequestInit) =>
    Effect.tryPromise({ try: () => fetch(url, { ...init, redirect: "error" }), catch: (error) => failed(`${url.origin}: ${String(error)}`) })

  /** Fetches the objects the new repository's history points at; how many were stored. */
  const fetchObjects = Effect.fnUntraced(function*(target: OwnedRepository, doer: User, gitDir: string, source: LfsSource) {
    const pointers = yield* scanPointers(gitDir)
    if (pointers.length === 0) return 0
    const endpoint = yield* allowed(lfsEndpoint(source))
    const authorization = source.credentials === undefined
      ? {}
      : { authorization: `Basic ${Buffer.from(`${source.credentials.username}:${source.credentials.password}`).toString("base64")}` }
    // Objects the doer may read elsewhere are linked without a download (the batch links them).
    const present = yield* objects.batch(target, Option.some(doer), "upload", pointers).pipe(Effect.mapError((error) => failed(error._tag)))
    const missing = present.filter((item) => item._tag === "Upload").map((item) => item.pointer)
    let stored = 0
    for (let start = 0; start < missing.length; start += BATCH) {
      const chunk = missing.slice(start, start + BATCH)
      const answer = yield* request(new URL(`${endpoint.href}/objects/batch`), {
        method: "POST",
        headers: { accept: LFS_MEDIA_TYPE, "content-type": LFS_MEDIA_TYPE, ...authorization },
        body: JSON.stringify({ operation: "download", transfers: ["basic"], objects: chunk })
      })
      if (answer.status !== 200) return yield* failed(`the LFS batch answered ${answer.status}`)
      const body: unknown = yield* Effect.tryPromise({ try: () => answer.json(), catch: () => failed("the LFS batch answer is not JSON") })
      for (const item of answerObjects(body)) {
        const pointer = chunk.find((candidate) => candidate.oid === item.oid)
        if (pointer === undefined) continue
        if (item.error !== undefined || item.href === undefined) return yield* failed(`LFS object ${item.oid}: ${item.error ?? "no download action"}`)
        const href = yield* allowed(item.href)
        const download = yield* request(href, { headers: item.header })
        if (download.status !== 200 || download.body === null) return yield* failed(`LFS object ${item.oid}: ${download.status}`)
        const content = Stream.fromReadableStream({ evaluate: () => download.body ?? new ReadableStream(), onError: (error) => failed(String(error)) })
        yield* objects.upload(target, Option.some(doer), pointer, content).pipe(
          Effect.mapError((error) => error instanceof LfsMigrationFailed ? error : failed(`LFS object ${item.oid}: ${error._tag}`))
        )
        stored++
      }
    }
    return stored
  })

  return { fetchObjects }
})
