-- schema.sql — cgplan's store, version 8 (PRAGMA user_version = 8). Embedded into the program at
-- build time (cmake/embed_schema.cmake): a new store runs it whole (with store_terms.c's
-- measured_terms). NULL means "not known". What queries filter or sort by are columns; what a
-- run's readers only ever take whole (its knobs, its groups with their bars, ranks, env lines)
-- is one record each (store_record_* in db/store_row.c): a row per bar and per knob cost SQLite
-- more than the rest of an ingest (version 4 had those tables; migrate_4_to_5 folds them in).
-- The texts a log's runs repeat (server args, knobs record) are kept once, in run_texts, and a
-- run holds their ids (version 5 kept a copy per run: a third of a big log's store).
-- A file is known by its XXH3-128 (content_hash.h); version 6 knew it by its SHA-256, a sixth
-- of a big log's ingest.
CREATE TABLE IF NOT EXISTS run_texts (
  id INTEGER PRIMARY KEY,
  body NOT NULL UNIQUE                           -- a TEXT or a BLOB, as the run's column was
);
CREATE TABLE IF NOT EXISTS runs (
  id INTEGER PRIMARY KEY AUTOINCREMENT,          -- ids are never reused after `runs rm`
  source TEXT NOT NULL,                          -- the log's file name
  path TEXT,                                     -- as given at ingest (NULL for the seed)
  content_hash TEXT NOT NULL,                    -- of the whole file, "xxh3-128:<hex>" ("sha256:<hex>" for
                                                 -- runs stored before version 7): re-ingest detection
  file_run INTEGER NOT NULL,                     -- 0-based position of the run in its file
  label TEXT,
  model TEXT, model_origin TEXT, model_path TEXT,
  gpu TEXT, gpu_origin TEXT, gpu_inferred INTEGER NOT NULL DEFAULT 0, -- the GPU: runs are pooled by it
  preset TEXT,
  reconstructed INTEGER NOT NULL DEFAULT 0,
  created_at TEXT NOT NULL,
  first_line INTEGER, last_line INTEGER,
  lines INTEGER, unknown_lines INTEGER, truncated_lines INTEGER, malformed_lines INTEGER,
  attention_backend TEXT, a2a TEXT,
  target_group INTEGER,                          -- ordinal of the target group
  static_gib REAL, largest_gib REAL, buckets_gib REAL,
  target_total_gib REAL, draft_gib REAL, total_gib REAL,
  detail BLOB,                                   -- its groups (each with its bars), ranks, env lines
  -- Last, where migrate_5_to_6 adds them. Deferred: checked at COMMIT, so an INSERT of runs
  -- needs no statement journal (an immediate foreign key made SQLite keep one for each).
  -- the server_args line, verbatim:
  server_args_text INTEGER REFERENCES run_texts(id) DEFERRABLE INITIALLY DEFERRED,
  -- its knobs record: each KNOB_STORE_ROW knob it knows, name, text, origin (a new knob needs
  -- no migration):
  knobs_text INTEGER REFERENCES run_texts(id) DEFERRABLE INITIALLY DEFERRED
);
-- a text no run refers to any more goes with the last run that did
CREATE TRIGGER IF NOT EXISTS runs_texts_unused AFTER DELETE ON runs BEGIN
  DELETE FROM run_texts WHERE id IN (old.server_args_text, old.knobs_text)
    AND NOT EXISTS (SELECT 1 FROM runs WHERE server_args_text = run_texts.id OR knobs_text = run_texts.id);
END;
CREATE INDEX IF NOT EXISTS runs_content_hash ON runs(content_hash);
CREATE INDEX IF NOT EXISTS runs_model_gpu ON runs(model, gpu);
-- A model's calibration. held_node_bytes NULL: fitted before node_bytes was calibrated per GPU
-- (v7 and older), so a graph_bytes in it carries the model's node cost; it still overrides the
-- mechanism for its own model, and calibrate list says so.
CREATE TABLE IF NOT EXISTS calibrations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  model TEXT NOT NULL, gpu TEXT NOT NULL,
  created_at TEXT NOT NULL,
  act_bytes_per_row INTEGER, lazy_bytes INTEGER, graph_bytes INTEGER,
  out_bytes_per_row INTEGER, draft_base_bytes INTEGER, draft_bytes_per_row INTEGER,
  runs TEXT,                                     -- "1,2": the run ids behind it
  report TEXT,
  sglang TEXT,                                   -- the release pooled (engine_release_text); NULL: any (v2)
  static_bytes INTEGER,                          -- the static layer's fitted intercept (v3)
  held_node_bytes INTEGER                        -- the node_bytes its fit held the node terms at (v8)
);
CREATE INDEX IF NOT EXISTS calibrations_model_gpu ON calibrations(model, gpu);
-- The driver's bytes per kernel node of a GPU, fitted over any model's runs on it (v8): every
-- model's estimate on that GPU prices its graphs' nodes at it. Columns: db/store_row.c.
CREATE TABLE IF NOT EXISTS gpu_calibrations (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  gpu TEXT NOT NULL,
  sglang TEXT,                                   -- the release its runs were pooled by; NULL: every release
  created_at TEXT NOT NULL,
  node_bytes INTEGER NOT NULL, node_bytes_low INTEGER NOT NULL, node_bytes_high INTEGER NOT NULL,
  n_runs INTEGER NOT NULL,
  runs TEXT NOT NULL,                            -- "3,4": the run ids behind it
  run_releases TEXT,                             -- "0.5.3,main@2026-07-20": the releases of those runs
  run_models TEXT,                               -- "qwq-32b,llama-3.1-8b": their models
  report TEXT
);
CREATE INDEX IF NOT EXISTS gpu_calibrations_gpu ON gpu_calibrations(gpu);
