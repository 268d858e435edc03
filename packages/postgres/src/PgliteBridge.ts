/**
 * A Node `Duplex` that speaks the PostgreSQL wire protocol to an in-process PGlite, so that
 * `@effect/sql-pg` (which only knows sockets) can use PGlite through `PgClient.layer({ stream })`.
 *
 * PGlite is a single backend session. Every connection opened here shares it, so:
 * - a per-PGlite lock is taken by a connection's first batch and held until the backend reports
 *   ReadyForQuery with status `I` (idle). While one connection is inside a transaction (`T`/`E`)
 *   or in the middle of an extended-protocol exchange, other connections wait;
 * - closing a connection rolls back whatever it left open and runs `DISCARD ALL`, so a replacement
 *   connection does not inherit its prepared statements or settings. `DISCARD ALL` is session
 *   wide: with several live connections it also drops theirs, which is why callers use one;
 * - notifications are the session's too: `listen` keeps the session listening on a channel (across
 *   `DISCARD ALL`) and is called for each notification a commit of any connection raises. No
 *   connection of the client has to be held for it, as a server's listener holds one.
 */
import type { PGlite } from "@electric-sql/pglite"
import { Duplex } from "node:stream"

/** Hands the per-PGlite lock to one connection at a time, in arrival order; re-entrant for its holder. */
class SessionLock {
  private holder: object | undefined = undefined
  private readonly queue: Array<{ readonly owner: object; readonly resume: () => void }> = []

  acquire(owner: object): Promise<void> {
    if (this.holder === undefined || this.holder === owner) {
      this.holder = owner
      return Promise.resolve()
    }
    return new Promise((resume) => this.queue.push({ owner, resume }))
  }

  holds(owner: object): boolean {
    return this.holder === owner
  }

  /** Whether a connection holds the session (a statement or transaction under way). */
  get held(): boolean {
    return this.holder !== undefined
  }

  /** Connections waiting for the session. */
  get waiting(): number {
    return this.queue.length
  }

  release(owner: object): void {
    if (this.holder !== owner) return
    const next = this.queue.shift()
    this.holder = next?.owner
    next?.resume()
  }
}

interface Session {
  readonly lock: SessionLock
  /** What `listen` was given, by channel: the session listens on each channel here. */
  readonly listeners: Map<string, Set<(payload: string) => void>>
  /** Clean-ups of connections that are closing, so the owner can wait for them before `db.close()`. */
  readonly closing: Set<Promise<void>>
  /** Connections opened and not yet closed. */
  open: number
}

const sessions = new WeakMap<PGlite, Session>()

const sessionOf = (db: PGlite): Session => {
  const existing = sessions.get(db)
  if (existing !== undefined) return existing
  const created: Session = { lock: new SessionLock(), listeners: new Map(), closing: new Set(), open: 0 }
  sessions.set(db, created)
  return created
}

// Request codes of the untyped messages a client may send before startup.
const SSL_REQUEST = 80877103
const GSSENC_REQUEST = 80877104
const CANCEL_REQUEST = 80877102

const TERMINATE = 0x58 // 'X'
const READY_FOR_QUERY = 0x5a // 'Z'
const NOTIFICATION_RESPONSE = 0x41 // 'A'

const frontendQuery = (text: string): Buffer => {
  const body = Buffer.from(`${text}\0`, "utf8")
  const header = Buffer.alloc(5)
  header.writeUInt8(0x51, 0) // 'Q'
  header.writeInt32BE(body.length + 4, 1)
  return Buffer.concat([header, body])
}
const frontendSync = Buffer.from([0x53, 0, 0, 0, 4]) // 'S'

/**
 * The status byte of the last ReadyForQuery in a block of whole backend messages; the listeners of
 * the notifications among them are called on the way (the client's connection ignores them: it
 * listens on no channel).
 */
const readOutput = (session: Session, output: Buffer): number | undefined => {
  let status: number | undefined
  let offset = 0
  while (offset + 5 <= output.length) {
    const length = output.readInt32BE(offset + 1)
    const type = output[offset]
    if (type === READY_FOR_QUERY) status = output[offset + 5]
    else if (type === NOTIFICATION_RESPONSE) {
      // The backend's process id (4 bytes), then the channel's name and the payload, each ending in a zero byte.
      const channelStart = offset + 9
      const channelEnd = output.indexOf(0, channelStart)
      const channel = output.toString("utf8", channelStart, channelEnd)
      const payload = output.toString("utf8", channelEnd + 1, output.indexOf(0, channelEnd + 1))
      for (const listener of session.listeners.get(channel) ?? []) listener(payload)
    }
    offset += 1 + length
  }
  return status
}

/** A channel name `LISTEN` takes as it is: a lower-case identifier. */
const isChannelName = (channel: string): boolean => /^[a-z_][a-z0-9_]*$/.test(channel)

const listenQueries = (session: Session): Array<Buffer> => [...session.listeners.keys()].map((channel) => frontendQuery(`LISTEN ${channel}`))

const IDLE = 0x49 // 'I'

/** Runs protocol bytes on the backend and returns its whole answer (copied: PGlite reuses its buffer). */
const execute = async (db: PGlite, batch: Uint8Array): Promise<Buffer> => {
  const chunks: Array<Buffer> = []
  await db.runExclusive(() =>
    db.execProtocolRawStream(batch, { onRawData: (data) => chunks.push(Buffer.from(data)) })
  )
  return chunks.length === 1 && chunks[0] !== undefined ? chunks[0] : Buffer.concat(chunks)
}

/** Opens one protocol connection to `db`. */
export const connect = (db: PGlite): Duplex => {
  const session = sessionOf(db)
  // The lock's owner token: this connection.
  const self = {}
  let buffered: Buffer = Buffer.alloc(0)
  let started = false
  let closing = false
  let inFlight: Promise<void> = Promise.resolve()
  let cleanup: Promise<void> | undefined

  const runBatch = async (batch: Uint8Array): Promise<void> => {
    await session.lock.acquire(self)
    if (closing) return
    const output = await execute(db, batch)
    // Read before handing the answer over: the client may go on to its next statement from within
    // `duplex.push`, and the listeners must have heard this batch's commit by then.
    const status = readOutput(session, output)
    if (output.length > 0) duplex.push(output)
    // Without a ReadyForQuery (a batch that ended before Sync) the exchange is still open: keep the lock.
    if (status === IDLE) session.lock.release(self)
  }

  /** Splits the buffered bytes into whole messages and runs them; a trailing partial message waits. */
  const drain = async (): Promise<void> => {
    while (!started) {
      if (buffered.length < 8) return
      const length = buffered.readInt32BE(0)
      if (buffered.length < length) return
      const message = buffered.subarray(0, length)
      buffered = buffered.subarray(length)
      const code = message.readInt32BE(4)
      if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
        duplex.push(Buffer.from("N"))
      } else if (code === CANCEL_REQUEST) {
        // PGlite runs each batch to completion synchronously: there is never anything to cancel.
        duplex.destroy()
        return
      } else {
        // PGlite treats a buffer starting with byte 0 as a startup packet, so it must go alone.
        await runBatch(message)
        started = true
      }
    }
    const messages: Array<Buffer> = []
    let offset = 0
    while (offset + 5 <= buffered.length) {
      const end = offset + 1 + buffered.readInt32BE(offset + 1)
      if (end > buffered.length) break
      // Terminate would shut the shared backend down for everyone; closing is handled in cleanup.
      if (buffered[offset] !== TERMINATE) messages.push(buffered.subarray(offset, end))
      offset = end
    }
    buffered = buffered.subarray(offset)
    if (messages.length > 0) await runBatch(Buffer.concat(messages))
  }

  /** Leaves the shared session as a fresh connection would find it, then lets others in. */
  const reset = async (): Promise<void> => {
    closing = true
    await inFlight.catch(() => undefined)
    const midExchange = session.lock.holds(self)
    if (!started && !midExchange) return
    await session.lock.acquire(self)
    try {
      if (started && !db.closed) {
        const statements = midExchange ? [frontendSync, frontendQuery("ROLLBACK")] : []
        // DISCARD ALL also stops listening: the channels listened on are listened on again.
        await execute(db, Buffer.concat([...statements, frontendQuery("DISCARD ALL"), ...listenQueries(session)]))
      }
    } catch {
      // The database is going away: there is no session left to reset.
    } finally {
      session.lock.release(self)
    }
  }

  const resetOnce = (): Promise<void> => {
    if (cleanup === undefined) {
      session.open--
      const pending = reset()
      cleanup = pending
      session.closing.add(pending)
      void pending.finally(() => session.closing.delete(pending))
    }
    return cleanup
  }

  session.open++
  const duplex = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      // A copy: the batch may run after the writer has reused its buffer.
      buffered = Buffer.concat([buffered, chunk])
      const run = drain()
      inFlight = run
      run.then(() => callback(), (error: Error) => callback(error))
    },
    final(callback) {
      resetOnce().then(() => {
        duplex.push(null)
        callback()
      })
    },
    destroy(error, callback) {
      resetOnce().then(() => callback(error))
    }
  })
  return duplex
}

/** What the metrics report of a PGlite's one session. */
export interface SessionUse {
  readonly connections: number
  readonly busy: boolean
  readonly waiting: number
}

const connectors = new WeakMap<() => Duplex, PGlite>()

/** `connect` for `PgClient`'s `stream` option, recognised by `sessionUse`. */
export const connector = (db: PGlite): (() => Duplex) => {
  const open = () => connect(db)
  connectors.set(open, db)
  return open
}

/** The session use behind a client's `stream` option, when it is a `connector`. */
export const sessionUse = (stream: (() => Duplex) | undefined): SessionUse | undefined => {
  const db = stream === undefined ? undefined : connectors.get(stream)
  if (db === undefined) return undefined
  const session = sessionOf(db)
  return { connections: session.open, busy: session.lock.held, waiting: session.lock.waiting }
}

/**
 * The PGlite behind a client's `stream` option, when it is a `connector`: for what the protocol
 * bridge cannot carry (COPY from a blob), run on the same session, so inside the caller's
 * transaction. Only for a caller that holds the session (its transaction is open) and awaits the
 * call before its next statement.
 */
export const embeddedOf = (stream: (() => Duplex) | undefined): PGlite | undefined =>
  stream === undefined ? undefined : connectors.get(stream)

/** Runs simple queries on the session between the connections' exchanges. */
const runOnSession = async (db: PGlite, queries: ReadonlyArray<Buffer>): Promise<void> => {
  const session = sessionOf(db)
  const self = {}
  await session.lock.acquire(self)
  try {
    readOutput(session, await execute(db, Buffer.concat(queries)))
  } finally {
    session.lock.release(self)
  }
}

/**
 * Calls `listener` with the payload of each notification on `channel` raised by what any connection to `db` commits,
 * from once the returned promise resolves; the function it resolves to stops that.
 */
export const listen = async (db: PGlite, channel: string, listener: (payload: string) => void): Promise<() => Promise<void>> => {
  if (!isChannelName(channel)) throw new Error(`not a channel name: ${channel}`)
  const session = sessionOf(db)
  const listeners = session.listeners.get(channel) ?? new Set()
  const first = listeners.size === 0
  listeners.add(listener)
  session.listeners.set(channel, listeners)
  if (first) {
    await runOnSession(db, [frontendQuery(`LISTEN ${channel}`)]).catch((error: unknown) => {
      listeners.delete(listener)
      if (listeners.size === 0) session.listeners.delete(channel)
      throw error
    })
  }
  return async () => {
    listeners.delete(listener)
    if (listeners.size > 0 || session.listeners.get(channel) !== listeners) return
    session.listeners.delete(channel)
    if (!db.closed) await runOnSession(db, [frontendQuery(`UNLISTEN ${channel}`)])
  }
}

/** Resolves once every connection that has started closing has reset the session. */
export const whenClosed = (db: PGlite): Promise<void> =>
  Promise.all(sessionOf(db).closing).then(() => undefined)
