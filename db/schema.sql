-- schema.sql — cgplan's store, version 2 (PRAGMA user_version = 2). Embedded into the program at
-- build time (cmake/embed_schema.cmake): a new store runs it whole; a migration runs it again to
-- add what an older store lacks, hence IF NOT EXISTS throughout. NULL means "not known".
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,          -- ids are never reused after `runs rm`
  source TEXT NOT NULL,                          -- the log's file name
  path TEXT,                                     -- as given at ingest (NULL for the seed)
  sha256 TEXT NOT NULL,                          -- of the whole file: re-ingest detection
  file_run INTEGER NOT NULL,                     -- 0-based position of the run in its file
  label TEXT,
  model TEXT, model_origin TEXT, model_path TEXT,
  gpu TEXT, gpu_origin TEXT, gpu_inferred INTEGER NOT NULL DEFAULT 0, -- the GPU: runs are pooled by it
  preset TEXT,
  reconstructed INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  first_line INTEGER, last_line INTEGER,
  lines INTEGER, unknown_lines INTEGER, truncated_lines INTEGER, malformed_lines INTEGER,
  server_args_raw TEXT,
  attention_backend TEXT, a2a TEXT,
  target_group INTEGER,                          -- ordinal of the target group
  static_gib REAL, largest_gib REAL, buckets_gib REAL,
  target_total_gib REAL, draft_gib REAL, total_gib REAL
);
CREATE INDEX IF NOT EXISTS runs_sha256 ON runs(sha256);
CREATE INDEX IF NOT EXISTS runs_model_gpu ON runs(model, gpu);
-- One row per knob a run knows (engine_knobs[] with KNOB_STORE_ROW): a new knob needs no migration.
CREATE TABLE IF NOT EXISTS run_knobs (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  knob TEXT NOT NULL,                            -- engine_knobs[].name: "max_bs"
  value TEXT NOT NULL,                           -- canonical knob text: "24", "auto", "0.874", "1,2,4"
  origin TEXT NOT NULL,                          -- log, env, preset, set, inferred
  PRIMARY KEY (run_id, knob)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS groups (
  id INTEGER PRIMARY KEY,
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  kind TEXT, role TEXT, phase TEXT, step INTEGER,
  rank_label TEXT, first_line INTEGER,
  begin_avail_gib REAL, tokens_per_req INTEGER,
  sizes_are_num_tokens INTEGER NOT NULL DEFAULT 0,
  sizes TEXT,                                    -- capture order, largest first
  bar_total INTEGER, captured INTEGER, has_begin INTEGER, has_end INTEGER,
  end_elapsed_s REAL, end_usage_gib REAL, end_avail_gib REAL,
  failed INTEGER NOT NULL DEFAULT 0, failure TEXT,
  static_gib REAL, largest_gib REAL, buckets_gib REAL, total_gib REAL,
  UNIQUE (run_id, ordinal)
);
CREATE TABLE IF NOT EXISTS bars (
  group_id INTEGER NOT NULL REFERENCES groups(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  size INTEGER, position INTEGER, counter INTEGER,
  avail_gib REAL, increment_gib REAL,
  PRIMARY KEY (group_id, ordinal)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS ranks (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  label TEXT NOT NULL, tp INTEGER,
  weights_begin_avail_gib REAL, weights_end_avail_gib REAL, weights_usage_gib REAL,
  kv_tokens INTEGER, kv_gib REAL, state_gib REAL, pool_avail_gib REAL,
  max_total_num_tokens INTEGER, available_gpu_mem_gib REAL,
  PRIMARY KEY (run_id, ordinal)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS env (
  run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  ordinal INTEGER NOT NULL,
  key TEXT NOT NULL, value TEXT,
  PRIMARY KEY (run_id, ordinal)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS calibrations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  model TEXT NOT NULL, gpu TEXT NOT NULL,
  created_at TEXT NOT NULL,
  act_bytes_per_row INTEGER, lazy_bytes INTEGER, graph_bytes INTEGER,
  out_bytes_per_row INTEGER, draft_base_bytes INTEGER, draft_bytes_per_row INTEGER,
  runs TEXT,                                     -- "1,2": the run ids behind it
  report TEXT
);
CREATE INDEX IF NOT EXISTS calibrations_model_gpu ON calibrations(model, gpu);
