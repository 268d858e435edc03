/**
 * git's output without the capability advertisement it starts with: for a protocol v2 session whose
 * advertisement (and first requests) were answered from kept listings before git was started
 * (GitStreams.ts), git's own advertisement, the same text, is not the client's to read twice.
 * Everything from the flush that ends it on passes through as git wrote it; output that is not
 * pkt-lines from the start passes whole.
 */
import { Transform } from "node:stream"
import { pktLength } from "./PktLine.ts"

export const withoutLeadingAdvertisement = (): Transform => {
  let pending: Buffer = Buffer.alloc(0)
  let passing = false
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (passing) return done(null, chunk)
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      let offset = 0
      while (pending.length >= offset + 4) {
        const length = pktLength(pending, offset)
        if (length === undefined || length < 4) {
          passing = true
          // The flush that ends it; anything else means this was not an advertisement: nothing is dropped.
          const rest = length === 0 ? pending.subarray(offset + 4) : pending
          pending = Buffer.alloc(0)
          return done(null, rest.length > 0 ? rest : undefined)
        }
        if (pending.length < offset + length) break
        offset += length
      }
      return done()
    },
    flush(done) {
      // git ended inside its advertisement: what it wrote reaches the client as it is.
      done(null, passing || pending.length === 0 ? undefined : pending)
    }
  })
}
