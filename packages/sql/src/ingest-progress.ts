// What an ingest reports after each trace: shared by the ingest on one thread (trace-database.ts),
// the ingest on two (ingest-on-worker.ts) and the export, so none of them imports another for it.
export interface IngestProgress {
  /** Traces handled so far, and in all. */
  done: number;
  total: number;
  file: string;
}
