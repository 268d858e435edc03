/** The test's view of parse-prometheus-text-format (it ships no types): metric families as parsed. */
declare module "parse-prometheus-text-format" {
  interface Sample {
    readonly value?: string
    readonly labels?: Readonly<Record<string, string>>
    readonly buckets?: Readonly<Record<string, string>>
    readonly count?: string
    readonly sum?: string
  }
  interface Family {
    readonly name: string
    readonly help: string
    readonly type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED"
    readonly metrics: ReadonlyArray<Sample>
  }
  const parsePrometheusTextFormat: (text: string) => ReadonlyArray<Family>
  export default parsePrometheusTextFormat
}
