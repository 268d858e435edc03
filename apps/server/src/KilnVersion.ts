/** Kiln's own version (the package's), as the CLI and a dump's manifest name it. */
export const KILN_VERSION = "0.1.0"
