/**
 * The LFS scenario's baseline: a bare Node static file server on the same disk as Kiln's data
 * directory, in its own process. `PUT /<name>` streams the body into `<dir>/<name>`, `GET /<name>`
 * streams the file back; nothing else (no hashing, no database, no fsync).
 * Run as `node bareStaticServer.ts <dir> <port>`.
 */
import { createReadStream, createWriteStream, statSync } from "node:fs"
import { createServer } from "node:http"
import { join } from "node:path"
import { pipeline } from "node:stream/promises"

const [dir = ".", port = "0"] = process.argv.slice(2)

createServer((request, response) => {
  const name = (request.url ?? "/").slice(1).replace(/[^a-zA-Z0-9._-]/g, "")
  const path = join(dir, name)
  if (request.method === "PUT") {
    pipeline(request, createWriteStream(path)).then(
      () => response.writeHead(200).end(),
      () => response.writeHead(500).end()
    )
    return
  }
  try {
    const size = statSync(path).size
    response.writeHead(200, { "content-type": "application/octet-stream", "content-length": size })
    createReadStream(path).pipe(response)
  } catch {
    response.writeHead(404).end()
  }
}).listen(Number(port), "127.0.0.1", () => process.stdout.write("listening\n"))
