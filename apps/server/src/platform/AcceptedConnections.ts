/**
 * Whether any connection accepted by a server of this process (HTTP, SSH, the git processes'
 * sockets, the control socket) is open, told as it changes: Node publishes every accepted socket on
 * its `net.server.socket` channel, whichever server accepted it.
 */
import { subscribe, unsubscribe } from "node:diagnostics_channel"
import type { Socket } from "node:net"

const ACCEPTED = "net.server.socket"

export interface ConnectionsOpen {
  /** The first connection opened (none was open). */
  readonly first: () => void
  /** The last open connection closed. */
  readonly last: () => void
}

/** Calls `first` and `last` as connections open and close, until the returned function stops it. */
export const watchAcceptedConnections = (on: ConnectionsOpen): () => void => {
  let open = 0
  const closed = () => {
    if (--open === 0) on.last()
  }
  const accepted = (message: unknown) => {
    const { socket } = message as { readonly socket: Socket }
    if (open++ === 0) on.first()
    socket.once("close", closed)
  }
  subscribe(ACCEPTED, accepted)
  return () => unsubscribe(ACCEPTED, accepted)
}
