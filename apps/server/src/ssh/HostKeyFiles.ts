/** Where the built-in SSH server's generated host keys are kept (HostKeys.ts); dump, restore and doctor read the same. */
import { join } from "node:path"

export const hostKeyDirectory = (dataDir: string): string => join(dataDir, "ssh")

export const generatedHostKeyFiles = (dataDir: string) => ({
  ed25519: join(hostKeyDirectory(dataDir), "ssh_host_ed25519_key"),
  rsa: join(hostKeyDirectory(dataDir), "ssh_host_rsa_key")
})
