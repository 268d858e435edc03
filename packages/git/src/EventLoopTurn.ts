/** Resolves once the event loop has let pending I/O and timers run: a pause in a long synchronous read. */
export const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))
