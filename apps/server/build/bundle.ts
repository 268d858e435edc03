/** `pnpm build`: writes the server's bundle (ServerBundle.ts). */
import { bundleServer } from "./ServerBundle.ts"

await bundleServer()
