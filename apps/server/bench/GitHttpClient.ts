/**
 * Git fetches and pushes spoken over smart HTTP from this process, as the GitLab Performance Tool
 * does for its reference-architecture runs (its git_pull and git_push tests send the protocol's
 * requests with prepared bodies, no git client): the server does all a `git fetch` or `git push`
 * makes it do, while the load generator spends no git processes of its own on this 2-core machine.
 *
 * A fetch is what git 2.39 sends in protocol v2: the capability advertisement, `ls-refs`, and,
 * when a ref moved, one `fetch` round with every known tip as a have. A push is protocol v0 as git
 * sends it: the ref advertisement, then the command and a pack made beforehand (PushLanes.ts).
 */

export interface Remote {
  /** `http://127.0.0.1:<port>/<owner>/<repo>.git` */
  readonly url: string
  /** `Basic …` */
  readonly authorization: string
}

const AGENT = "agent=git/2.39.5-kiln-bench\n"

/** A pkt-line: four hex digits of length (their own included), then the data. */
const pkt = (text: string): string => `${(Buffer.byteLength(text) + 4).toString(16).padStart(4, "0")}${text}`
const DELIMITER = "0001"
const FLUSH = "0000"

/** The data lines of a pkt-line stream up to its first flush. */
const pktLines = (body: Buffer): Array<string> => {
  const lines: Array<string> = []
  let at = 0
  while (at + 4 <= body.length) {
    const length = Number.parseInt(body.subarray(at, at + 4).toString("latin1"), 16)
    if (length === 0) break
    if (!(length >= 4)) throw new Error(`bad pkt-line length at ${at}`)
    lines.push(body.subarray(at + 4, at + length).toString("utf8"))
    at += length
  }
  return lines
}

const request = async (url: string, init: RequestInit): Promise<Buffer> => {
  const response = await fetch(url, init)
  const body = Buffer.from(await response.arrayBuffer())
  if (response.status !== 200) throw new Error(`${init.method ?? "GET"} ${url}: ${response.status} ${body.toString("utf8").slice(0, 200)}`)
  return body
}

const uploadPack = (remote: Remote, body: string) =>
  request(`${remote.url}/git-upload-pack`, {
    method: "POST",
    headers: {
      authorization: remote.authorization,
      "content-type": "application/x-git-upload-pack-request",
      accept: "application/x-git-upload-pack-result",
      "git-protocol": "version=2"
    },
    body
  })

/** The branches and tags of a remote, ref → object id. */
export const listRefs = async (remote: Remote): Promise<Map<string, string>> => {
  await request(`${remote.url}/info/refs?service=git-upload-pack`, {
    headers: { authorization: remote.authorization, "git-protocol": "version=2" }
  })
  const answer = await uploadPack(
    remote,
    pkt("command=ls-refs\n") + pkt(AGENT) + DELIMITER + pkt("peel\n") + pkt("symrefs\n") +
      pkt("ref-prefix HEAD\n") + pkt("ref-prefix refs/heads/\n") + pkt("ref-prefix refs/tags/\n") + FLUSH
  )
  const refs = new Map<string, string>()
  for (const line of pktLines(answer)) {
    const [id = "", ref = ""] = line.trimEnd().split(" ")
    if (ref !== "HEAD" && /^[0-9a-f]{40}$/.test(id)) refs.set(ref, id)
  }
  return refs
}

/**
 * A `git fetch` into a copy that knows `known` (ref → id, updated in place): lists the refs, and
 * fetches the pack of what moved. Returns the pack's response size (0 when nothing moved).
 */
export const fetchChanges = async (remote: Remote, known: Map<string, string>): Promise<number> => {
  const refs = await listRefs(remote)
  const wants = new Set([...refs].filter(([ref, id]) => known.get(ref) !== id).map(([, id]) => id))
  if (wants.size === 0) return 0
  const haves = new Set(known.values())
  const answer = await uploadPack(
    remote,
    pkt("command=fetch\n") + pkt(AGENT) + DELIMITER + pkt("thin-pack\n") + pkt("no-progress\n") + pkt("ofs-delta\n") +
      [...wants].map((id) => pkt(`want ${id}\n`)).join("") + [...haves].map((id) => pkt(`have ${id}\n`)).join("") +
      pkt("done\n") + FLUSH
  )
  if (!answer.includes("packfile\n")) throw new Error(`fetch from ${remote.url} answered no packfile`)
  known.clear()
  for (const [ref, id] of refs) known.set(ref, id)
  return answer.length
}

/** A push of `pack` moving `ref` from `oldId` to `newId`; fails unless the server reports the ref updated. */
export const push = async (remote: Remote, ref: string, oldId: string, newId: string, pack: Uint8Array): Promise<void> => {
  await request(`${remote.url}/info/refs?service=git-receive-pack`, { headers: { authorization: remote.authorization } })
  const command = pkt(`${oldId} ${newId} ${ref}\0report-status ${AGENT.trimEnd()}\n`) + FLUSH
  const answer = await request(`${remote.url}/git-receive-pack`, {
    method: "POST",
    headers: {
      authorization: remote.authorization,
      "content-type": "application/x-git-receive-pack-request",
      accept: "application/x-git-receive-pack-result"
    },
    body: Buffer.concat([Buffer.from(command), pack])
  })
  const report = pktLines(answer)
  if (report[0] !== "unpack ok\n" || report[1] !== `ok ${ref}\n`) throw new Error(`push of ${ref} to ${remote.url}: ${report.join("")}`)
}
