/** `pnpm start`: the portal on PORT (3100), its data in PORTAL_DATA_DIR (./portal-data). */
import { startPortal } from "./Portal.ts"

const portal = await startPortal({
  dataDir: process.env["PORTAL_DATA_DIR"] ?? "./portal-data",
  port: Number(process.env["PORT"] ?? 3100)
})
console.log(`portal on ${portal.url}, Kiln under ${portal.url}/git-api/`)
process.once("SIGTERM", () => void portal.close())
process.once("SIGINT", () => void portal.close())
