// Ready-made views over the tables, for the questions asked of many traces at once.

/** A span's rank within its correlation group: the `rank` tag, else the run id. */
const RANK = "coalesce(runs.tags['rank'], runs.run_id)";

export const VIEWS: Readonly<Record<string, string>> = {
  // Per run and op name: calls, time and bytes. Percentiles are observed values (quantile_disc).
  op_stats: `
    SELECT run_id, op_name,
      count(*)::UBIGINT AS calls,
      sum(duration_ns) AS total_ns,
      avg(duration_ns) AS mean_ns,
      quantile_disc(duration_ns, 0.5) AS p50_ns,
      quantile_disc(duration_ns, 0.95) AS p95_ns,
      sum(storage_bytes) AS bytes
    FROM ops GROUP BY run_id, op_name`,
  // Per run: the measured total, the captured step and the tags.
  step_times: `
    SELECT run_id, correlation_id, entrypoint, phase, "timestamp", capture_step, warmup_steps,
      measured_ns, op_count, trusted, tags
    FROM runs`,
  // Runs sharing a correlation id: per span path, the spread over ranks and the slowest rank.
  rank_skew: `
    WITH per_rank AS (
      SELECT runs.correlation_id, ${RANK} AS rank, spans.run_id, spans.path,
        sum(spans.total_ns) AS total_ns
      FROM spans JOIN runs USING (run_id)
      GROUP BY runs.correlation_id, rank, spans.run_id, spans.path
    )
    SELECT correlation_id, path,
      count(*)::UBIGINT AS ranks,
      min(total_ns) AS min_ns,
      median(total_ns) AS median_ns,
      max(total_ns) AS max_ns,
      first(rank ORDER BY total_ns DESC, rank) AS slowest_rank,
      first(run_id ORDER BY total_ns DESC, rank) AS slowest_run_id,
      max(total_ns) / nullif(median(total_ns), 0) AS max_over_median
    FROM per_rank
    GROUP BY correlation_id, path
    HAVING count(*) > 1`,
  // Per run and device: the live-bytes peak of the alloc/free events (in timestamp order) and the
  // largest device-memory sample.
  memory_peaks: `
    WITH live AS (
      SELECT run_id, device, bytes, action,
        sum(CASE WHEN action = 'alloc' THEN bytes::HUGEINT ELSE -bytes::HUGEINT END)
          OVER (PARTITION BY run_id, device ORDER BY timestamp_ns, action ROWS UNBOUNDED PRECEDING) AS live_bytes
      FROM memory
    ),
    events AS (
      SELECT run_id, device,
        greatest(max(live_bytes), 0) AS peak_live_bytes,
        count(*) FILTER (WHERE action = 'alloc')::UBIGINT AS allocs,
        max(bytes) FILTER (WHERE action = 'alloc') AS largest_alloc_bytes
      FROM live GROUP BY run_id, device
    ),
    samples AS (
      SELECT run_id, device, max(used_bytes) AS peak_used_bytes, max(reserved_bytes) AS peak_reserved_bytes,
        count(*)::UBIGINT AS samples
      FROM device_memory GROUP BY run_id, device
    )
    SELECT run_id, device, peak_live_bytes, allocs, largest_alloc_bytes, peak_used_bytes,
      peak_reserved_bytes, samples
    FROM events FULL OUTER JOIN samples USING (run_id, device)`,
};

export function createViewsSql(): string[] {
  return Object.entries(VIEWS).map(([name, body]) => `CREATE OR REPLACE VIEW "${name}" AS ${body}`);
}
