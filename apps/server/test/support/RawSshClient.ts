/**
 * An `ssh2` client for tests that need what OpenSSH's client never does: sending on a channel past
 * the window the server gave (a client ignoring flow control).
 */
import { readFileSync } from "node:fs"
import { Client, type ClientChannel } from "ssh2"
import type { SshKeyPair } from "./SshClient.ts"

/** Signs in as `git` on 127.0.0.1:`port` with `key`. */
export const connectSsh = (key: SshKeyPair, port: number): Promise<Client> =>
  new Promise((resolve, reject) => {
    const client = new Client()
    client.once("ready", () => resolve(client))
    client.once("error", reject)
    client.connect({ host: "127.0.0.1", port, username: "git", privateKey: readFileSync(key.privateFile) })
  })

/** `command` on a new session channel. */
export const execChannel = (client: Client, command: string): Promise<ClientChannel> =>
  new Promise((resolve, reject) => client.exec(command, (error, channel) => error === undefined ? resolve(channel) : reject(error)))

interface RawProtocol {
  readonly channelData: (channel: number, data: Buffer) => void
}

const isRawProtocol = (value: unknown): value is RawProtocol =>
  typeof value === "object" && value !== null && "channelData" in value && typeof value.channelData === "function"

/** The server's id of `channel` (ssh2 keeps it as `outgoing.id`). */
const remoteId = (channel: ClientChannel): number => {
  const outgoing: unknown = Reflect.get(channel, "outgoing")
  const id = typeof outgoing === "object" && outgoing !== null && "id" in outgoing ? outgoing.id : undefined
  if (typeof id !== "number") throw new Error("ssh2 channel without an outgoing id")
  return id
}

/** Sends `bytes` on `channel` in packets of 30,000 bytes straight through ssh2's protocol, whatever window is left. */
export const sendIgnoringWindow = (client: Client, channel: ClientChannel, bytes: number): void => {
  const protocol: unknown = Reflect.get(client, "_protocol")
  if (!isRawProtocol(protocol)) throw new Error("ssh2 client without its protocol")
  const packet = Buffer.alloc(30_000, 0x41)
  for (let sent = 0; sent < bytes; sent += packet.length) protocol.channelData(remoteId(channel), packet)
}

/** Resolves true once `client`'s connection closed, false after `millis`. */
export const closedWithin = (client: Client, millis: number): Promise<boolean> =>
  new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), millis)
    client.once("close", () => {
      clearTimeout(timer)
      resolve(true)
    })
  })
