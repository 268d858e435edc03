/** A TCP port on 127.0.0.1 that nothing listens on right now, for the servers a benchmark starts. */
import * as Net from "node:net"

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const probe = Net.createServer()
    probe.once("error", reject)
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address()
      probe.close(() => {
        if (address !== null && typeof address === "object") resolve(address.port)
        else reject(new Error("no port assigned"))
      })
    })
  })
