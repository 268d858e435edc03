/**
 * Progress of a long operation on a terminal: one line rewritten in place with items, bytes, rate
 * and ETA (against an estimate of the total bytes). Nothing is drawn when standard error is not a
 * terminal, so logs and tests see only the summary.
 */
const units = ["B", "KiB", "MiB", "GiB", "TiB"]

export const formatBytes = (bytes: number): string => {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`
}

const formatSeconds = (seconds: number): string => {
  const whole = Math.max(0, Math.round(seconds))
  return whole >= 60 ? `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, "0")}s` : `${whole}s`
}

export interface ProgressLine {
  readonly update: (items: number, bytes: number) => void
  readonly done: () => void
}

export const progressLine = (
  label: string,
  estimatedBytes: number,
  stream: NodeJS.WriteStream = process.stderr
): ProgressLine => {
  if (!stream.isTTY) return { update: () => {}, done: () => {} }
  const started = Date.now()
  let last = 0
  let shown = false
  return {
    update: (items, bytes) => {
      const now = Date.now()
      if (now - last < 200) return
      last = now
      const elapsed = (now - started) / 1000
      const rate = elapsed > 0 ? bytes / elapsed : 0
      const eta = rate > 0 && estimatedBytes > bytes ? ` ETA ${formatSeconds((estimatedBytes - bytes) / rate)}` : ""
      stream.write(`\r\u001b[K${label}: ${items} items, ${formatBytes(bytes)}${estimatedBytes > 0 ? ` of ~${formatBytes(estimatedBytes)}` : ""}, ${formatBytes(rate)}/s${eta}`)
      shown = true
    },
    done: () => {
      if (shown) stream.write("\r\u001b[K")
    }
  }
}
