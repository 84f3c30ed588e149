/**
 * The samples of a `/metrics` page by series, with the `node` label every series carries left
 * out, so that a series is named as on a server alone: `name{a="b",node="x"}` is read as
 * `name{a="b"}`, and `name{node="x"}` as `name`.
 */
export function metricSamples(text: string): Map<string, number> {
  const samples = new Map<string, number>();
  for (const line of text.split('\n')) {
    const sample = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!sample) continue;
    const labels = (sample[2] ?? '').split(/,(?=[a-zA-Z_]\w*=")/).filter((label) => label !== '' && !label.startsWith('node='));
    samples.set(labels.length > 0 ? `${sample[1]}{${labels.join(',')}}` : sample[1]!, Number(sample[3]));
  }
  return samples;
}

/** One series (named as in {@link metricSamples}) of the `/metrics` page of the server at `url`; undefined when it has none. */
export async function metricValue(server: { url: string }, series: string): Promise<number | undefined> {
  return metricSamples(await (await fetch(`${server.url}/metrics`)).text()).get(series);
}
