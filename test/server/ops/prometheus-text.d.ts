declare module 'parse-prometheus-text-format' {
  /** One metric family of a parsed exposition. */
  interface Family {
    name: string;
    help: string;
    type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    metrics: Array<{ value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }>;
  }
  /** Parses Prometheus's text format; throws on a malformed line. */
  export default function parsePrometheusTextFormat(text: string): Family[];
}
