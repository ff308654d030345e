/* test_store.c — the SQLite store on real files in a private temporary directory: creation and
 * seeding, ingest in one transaction, dedup, knobs and their origins, deletion, calibrations,
 * and the refusals that must leave a file untouched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <glob.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "preset.h"
#include "seed_logs.h"
#include "sha256.h"
#include "store.h"
#include "store_internal.h"

#define DP2_LOG CGPLAN_FIXTURES "/sglang-logs/k3-dp2-dcp8-b200-article.log"
#define SCHEMA_SQL CGPLAN_FIXTURES "/../../db/schema.sql"
#define SCHEMA_V1_SQL CGPLAN_FIXTURES "/store/schema-v1.sql"
#define SCHEMA_V4_SQL CGPLAN_FIXTURES "/store/schema-v4.sql"

static char tmpdir[256];
static char err[8192];

static char *read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(data, 1, len, f), len);
    fclose(f);
}

static const char *tmp_path(const char *name)
{
    static char buf[4][512];
    static int i;
    i = (i + 1) % 4;
    snprintf(buf[i], sizeof buf[i], "%s/%s", tmpdir, name);
    return buf[i];
}

static int setup(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/cgplan-test-store-XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The seed's contexts from the presets, as the CLI builds them (each seed log's deployment preset
 * gives what the log lacks); the store itself knows no presets. */
typedef struct {
    preset_catalog *cat;
    engine_deployment given;
} seed_presets;

static const char *match_hf(void *arg, const char *model_path)
{
    const preset_entry *e = preset_match_hf_name(arg, model_path);
    return e ? e->name : NULL;
}

static int seed_context(void *arg, const store_seed_log *seed, engine_run_context *ctx, char *why, size_t len)
{
    seed_presets *p = arg;
    if (preset_load_deployment(p->cat, seed->preset, &p->given, why, len) != 0)
        return -1;
    ctx->given = &p->given;
    ctx->model_given = true;
    for (int k = 0; k < KNOB_COUNT; k++)
        ctx->given_origin[k] = ORIGIN_PRESET;
    ctx->match_model = match_hf;
    ctx->match_ctx = p->cat;
    return 0;
}

static store *open_seeded(const char *path, store_mode mode)
{
    static seed_presets p;
    p.cat = preset_catalog_open();
    assert_non_null(p.cat);
    store *s = store_open_seeded(path, mode, seed_context, &p, err, sizeof err);
    preset_catalog_free(p.cat);
    return s;
}

/* ---- SHA-256 (FIPS 180-4 examples) ---- */

/* init, with the CPU's SHA instructions (where it has them) or the portable code */
static void sha_init(store_sha256 *c, bool portable)
{
    store_sha256_init(c);
    if (portable)
        c->accelerated = false;
}

/* The ingest's runs as store_ingest_each_run walks them: ids and first lines, and the reports. */
typedef struct {
    int64_t *ids;
    uint32_t *lines;
    store_run_summary *runs; /* NULL: not kept */
    size_t n, cap;
} walked_runs;

static int walk_run(const store_run_summary *r, uint32_t first_line, void *ctx)
{
    walked_runs *w = ctx;
    assert_true(w->n < w->cap);
    w->ids[w->n] = r->id;
    w->lines[w->n] = first_line;
    if (w->runs)
        w->runs[w->n] = *r;
    w->n++;
    return 0;
}

static void walk_runs(const store_ingest *in, walked_runs *w)
{
    store_run_summary *scratch = calloc(1, sizeof *scratch);
    w->n = 0;
    assert_int_equal(store_ingest_each_run(in, scratch, walk_run, w, err, sizeof err), 0);
    free(scratch);
}

static void test_sha256_vectors(void **state)
{
    (void)state;
    for (int portable = 0; portable <= 1; portable++) {
        char hex[65];
        store_sha256 c;
        sha_init(&c, portable);
        store_sha256_final_hex(&c, hex);
        assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
        sha_init(&c, portable);
        store_sha256_update(&c, "abc", 3);
        store_sha256_final_hex(&c, hex);
        assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
        const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        sha_init(&c, portable);
        for (const char *p = two; *p; p++) /* byte by byte: chunking must not matter */
            store_sha256_update(&c, p, 1);
        store_sha256_final_hex(&c, hex);
        assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
        static char million[1000000];
        memset(million, 'a', sizeof million);
        sha_init(&c, portable);
        store_sha256_update(&c, million, 333333);
        store_sha256_update(&c, million + 333333, sizeof million - 333333);
        store_sha256_final_hex(&c, hex);
        assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    }
}

/* The SHA instructions' digest is the portable code's, for any length and chunking. */
static void test_sha256_accelerated_matches_portable(void **state)
{
    (void)state;
    static unsigned char data[20000];
    uint64_t x = 0x9e3779b97f4a7c15u;
    for (size_t i = 0; i < sizeof data; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        data[i] = (unsigned char)x;
    }
    for (size_t len = 0; len < sizeof data; len += 1 + len / 3) {
        store_sha256 fast, slow;
        sha_init(&fast, false);
        sha_init(&slow, true);
        for (size_t off = 0; off < len;) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            size_t n = (size_t)(x % 200) + 1;
            n = n < len - off ? n : len - off;
            store_sha256_update(&fast, data + off, n);
            store_sha256_update(&slow, data + off, n);
            off += n;
        }
        char a[65], b[65];
        store_sha256_final_hex(&fast, a);
        store_sha256_final_hex(&slow, b);
        assert_string_equal(a, b);
    }
}

/* ---- The content hash: XXH3-128, and SHA-256 beside it for an older store's runs ---- */

static void test_content_hash(void **state)
{
    (void)state;
    char text[STORE_HASH_TEXT_MAX], legacy[STORE_HASH_TEXT_MAX];
    store_content_hash h;
    /* XXH3-128 of no bytes (xxHash's own test vector), big-endian as xxhsum -H2 prints it */
    assert_int_equal(store_content_hash_init(&h, false), 0);
    store_content_hash_final(&h, text, legacy);
    store_content_hash_free(&h);
    assert_string_equal(text, "xxh3-128:99aa06d3014798d86001c324468d497f");
    assert_string_equal(legacy, "");
    /* chunking does not matter; the legacy hash is the file's SHA-256 */
    static char million[1000000];
    memset(million, 'a', sizeof million);
    char whole[STORE_HASH_TEXT_MAX];
    assert_int_equal(store_content_hash_init(&h, false), 0);
    store_content_hash_update(&h, million, sizeof million);
    store_content_hash_final(&h, whole, legacy);
    store_content_hash_free(&h);
    assert_int_equal(store_content_hash_init(&h, true), 0);
    for (size_t off = 0; off < sizeof million; off += 4093)
        store_content_hash_update(&h, million + off, sizeof million - off < 4093 ? sizeof million - off : 4093);
    store_content_hash_final(&h, text, legacy);
    store_content_hash_free(&h);
    assert_string_equal(text, whole);
    assert_string_equal(legacy, "sha256:cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    /* one byte more is another identity */
    assert_int_equal(store_content_hash_init(&h, false), 0);
    store_content_hash_update(&h, million, sizeof million - 1);
    store_content_hash_final(&h, text, legacy);
    store_content_hash_free(&h);
    assert_string_not_equal(text, whole);
}

/* ---- the embedded texts are the checked-in files ---- */

static void test_seed_and_schema_match_files(void **state)
{
    (void)state;
    int n = 0;
    for (const store_seed_log *s = store_seed_logs; s->text; s++, n++) {
        char path[512];
        size_t len;
        snprintf(path, sizeof path, "%s/sglang-logs/%s", CGPLAN_FIXTURES, s->file_name);
        char *text = read_file(path, &len);
        assert_int_equal(s->len, len);
        assert_memory_equal(s->text, text, len);
        free(text);
    }
    assert_int_equal(n, 2);
    size_t len;
    char *schema = read_file(SCHEMA_SQL, &len);
    assert_string_equal(store_schema_sql, schema);
    free(schema);
}

/* ---- a new store ---- */

static void test_new_store_is_seeded(void **state)
{
    (void)state;
    const char *path = tmp_path("new/deeper/runs.db");
    assert_null(open_seeded(path, STORE_READ_ONLY)); /* read-only never creates */
    assert_non_null(strstr(err, "does not exist"));
    store *s = open_seeded(path, STORE_READ_WRITE);
    assert_non_null(s);
    store_run_summary runs[8];
    size_t n = 0;
    assert_int_equal(store_list_runs(s, runs, 8, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(runs[0].id, 2); /* newest first */
    assert_true(runs[0].reconstructed && runs[1].reconstructed);
    assert_string_equal(runs[0].label, "article (reconstructed): K3 DP2 x DCP8");
    assert_string_equal(runs[1].label, "article (reconstructed): K3 DP16");
    assert_string_equal(runs[0].model, "kimi-k3");
    assert_string_equal(runs[0].gpu, "b200");
    assert_false(runs[0].gpu_inferred);
    assert_int_equal(runs[0].world, 16);
    assert_int_equal(runs[0].dp, 2);
    assert_int_equal(runs[0].dcp, 8);
    assert_int_equal(runs[0].mtp, 5);
    assert_int_equal(runs[0].max_bs, 192);
    assert_int_equal(runs[0].max_dispatch, 128);
    assert_int_equal(runs[0].n_buckets, 23);
    assert_float_equal(runs[0].static_gib, 1.33, 1e-9);
    assert_float_equal(runs[0].largest_gib, 10.24, 1e-9);
    assert_float_equal(runs[0].buckets_gib, 1.35, 1e-9);
    assert_float_equal(runs[0].draft_gib, 1.04, 1e-9);
    assert_float_equal(runs[0].target_total_gib, 12.92, 1e-9);
    assert_float_equal(runs[0].total_gib, 13.96, 1e-9);
    assert_float_equal(runs[1].total_gib, 8.16, 1e-9);
    assert_int_equal(runs[1].max_dispatch, 144);
    assert_null(store_run_calibration_exclusion(&runs[0]));

    static store_run_detail d;
    assert_int_equal(store_get_run(s, 2, &d, err, sizeof err), 0);
    assert_string_equal(d.preset, "k3-dp2-dcp8");
    assert_int_equal(d.origin[KNOB_MAX_DISPATCH], ORIGIN_ENV);
    assert_int_equal(d.origin[KNOB_DP], ORIGIN_LOG);
    assert_int_equal(d.origin[KNOB_GPU], ORIGIN_PRESET);
    assert_int_equal(d.origin[KNOB_MEM_FRACTION], ORIGIN_PRESET);
    assert_false(d.values.knobs.buckets_auto);
    assert_int_equal(d.values.knobs.n_buckets, 23);
    assert_int_equal(d.values.knobs.buckets[0], 16); /* ascending */
    assert_int_equal(d.values.knobs.buckets[22], 192);
    assert_int_equal(d.values.knobs.context_len, 1048576);
    assert_float_equal(d.values.knobs.mem_fraction_static, 0.874, 1e-9);
    assert_int_equal(d.a2a, A2A_DEEPEP);
    assert_int_equal(store_get_run(s, 99, &d, err, sizeof err), 1);
    store_close(s);

    /* the pragmas a second process relies on */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_string_equal((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), STORE_SCHEMA_VERSION);
    sqlite3_finalize(st);
    sqlite3_close(db);

    /* reopening does not seed again */
    s = open_seeded(path, STORE_READ_ONLY);
    assert_non_null(s);
    assert_int_equal(store_list_runs(s, runs, 8, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(store_delete_run(s, 1, err, sizeof err), -1); /* read-only */
    store_close(s);
}

/* ---- ingest ---- */

static size_t ingest_buffer_bytes; /* 0: the store's default */

static int ingest_text(store *s, const char *text, size_t len, size_t chunk, const char *preset_gpu,
                       store_ingest_result *res, store_ingest **keep)
{
    static engine_deployment given;
    static engine_run_context ctx; /* no presets: no hf_names match, no GPU inference */
    memset(&ctx, 0, sizeof ctx);
    store_ingest_opts o = {.source = "test.log", .derive = &ctx, .buffer_bytes = ingest_buffer_bytes};
    if (preset_gpu) {
        engine_deployment_defaults(&given);
        snprintf(given.gpu.name, sizeof given.gpu.name, "%s", preset_gpu);
        ctx.given = &given;
        ctx.given_origin[KNOB_GPU] = ORIGIN_SET;
    }
    store_ingest *in = store_ingest_begin(s, &o, err, sizeof err);
    assert_non_null(in);
    for (size_t off = 0; off < len; off += chunk)
        assert_int_equal(store_ingest_feed(in, text + off, len - off < chunk ? len - off : chunk, err, sizeof err), 0);
    int rc = store_ingest_finish(in, res, err, sizeof err);
    *keep = in;
    return rc;
}

static void test_ingest_dedup_delete(void **state)
{
    (void)state;
    store *s = open_seeded(tmp_path("ingest.db"), STORE_READ_WRITE);
    assert_non_null(s);
    size_t len;
    char *text = read_file(DP2_LOG, &len);
    store_ingest_result res;
    store_ingest *in;
    /* the seeded copy is already there: any chunking reports it */
    assert_int_equal(ingest_text(s, text, len, 7, NULL, &res, &in), 0);
    assert_int_equal(res.duplicate_of, 2);
    assert_int_equal(res.n_runs, 0);
    store_ingest_free(in);

    /* a different file (one more line) is a new run, whatever the chunking */
    char *copy = malloc(len + 32);
    int head = snprintf(copy, 32, "# copy\n");
    memcpy(copy + head, text, len);
    assert_int_equal(ingest_text(s, copy, len + (size_t)head, 1, "h200", &res, &in), 0);
    assert_int_equal(res.duplicate_of, 0);
    assert_int_equal(res.n_runs, 1);
    assert_int_equal(res.first_run_id, 3);
    int64_t one_id;
    uint32_t one_line;
    walked_runs one = {&one_id, &one_line, NULL, 0, 1};
    walk_runs(in, &one);
    assert_int_equal(one.n, 1);
    assert_int_equal(one_id, 3);
    assert_int_equal(one_line, 2);
    store_ingest_free(in);
    static store_run_detail d;
    assert_int_equal(store_get_run(s, 3, &d, err, sizeof err), 0);
    assert_string_equal(d.summary.gpu, "h200");
    assert_int_equal(d.origin[KNOB_GPU], ORIGIN_SET);
    assert_string_equal(d.summary.model, ""); /* no catalog, no preset: unknown */
    assert_non_null(store_run_calibration_exclusion(&d.summary));
    assert_float_equal(d.summary.total_gib, 13.96, 1e-9);
    store_group_info groups[8];
    store_rank_info ranks[8];
    size_t ng, nr;
    store_run_extra extra;
    assert_int_equal(store_get_run_parts(s, 3, groups, 8, &ng, ranks, 8, &nr, &extra, err, sizeof err), 0);
    assert_int_equal(ng, 2);
    assert_true(groups[0].is_target);
    assert_string_equal(groups[0].kind, "target verify");
    assert_int_equal(groups[0].n_bars, 23);
    assert_int_equal(groups[0].first_size, 192);
    assert_string_equal(groups[1].role, "draft");
    assert_float_equal(ranks[0].kv_gib, 34.60, 1e-9);
    assert_string_equal(extra.env_dispatch, "128");
    assert_int_equal(strlen(extra.content_hash), strlen(STORE_HASH_PREFIX) + 32);
    assert_int_equal(strncmp(extra.content_hash, STORE_HASH_PREFIX, strlen(STORE_HASH_PREFIX)), 0);

    /* ids are never reused; the cascade removes groups and bars */
    assert_int_equal(store_delete_run(s, 3, err, sizeof err), 0);
    assert_int_equal(store_delete_run(s, 3, err, sizeof err), 1);
    assert_int_equal(store_get_run_parts(s, 3, groups, 8, &ng, NULL, 0, NULL, NULL, err, sizeof err), 1);
    assert_int_equal(ingest_text(s, copy, len + (size_t)head, 4096, NULL, &res, &in), 0);
    assert_int_equal(res.first_run_id, 4);
    store_ingest_free(in);

    /* nothing recognisable: rolled back, reported */
    const char *vllm = "INFO 05-01 10:00:00 vLLM API server version 0.8.5\nnothing else\n";
    assert_int_equal(ingest_text(s, vllm, strlen(vllm), 64, NULL, &res, &in), 1);
    assert_false(res.recognised);
    store_ingest_free(in);

    /* abandoned midway (a failure or a kill): nothing of it remains */
    copy[1] = '!';
    static const engine_run_context nothing;
    store_ingest_opts o = {.source = "half.log", .derive = &nothing};
    in = store_ingest_begin(s, &o, err, sizeof err);
    assert_non_null(in);
    assert_int_equal(store_ingest_feed(in, copy, len, err, sizeof err), 0);
    store_ingest_free(in);
    store_run_summary runs[16];
    size_t n;
    assert_int_equal(store_list_runs(s, runs, 16, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    int64_t ids[8];
    assert_int_equal(store_runs_for(s, "kimi-k3", "b200", ids, 8, err, sizeof err), 2);
    store_close(s);
    free(copy);
    free(text);
}

/* A group's "Registering N cuda graph addresses" is kept with it and read back; a run whose log
 * has no such line reads it as not logged. */
static void test_ingest_registered_addresses(void **state)
{
    (void)state;
    store *s = open_seeded(tmp_path("registered.db"), STORE_READ_WRITE);
    assert_non_null(s);
    size_t len;
    char *text =
        read_file(CGPLAN_FIXTURES "/sglang-logs/28-2025-10-llama33-70b-tp8-registering-cuda-graph-addresses.log", &len);
    store_ingest_result res;
    store_ingest *in;
    assert_int_equal(ingest_text(s, text, len, 5, "h200", &res, &in), 0);
    assert_int_equal(res.n_runs, 1);
    int64_t id = res.first_run_id;
    store_ingest_free(in);
    store_group_info groups[4];
    size_t ng;
    assert_int_equal(store_get_run_parts(s, id, groups, 4, &ng, NULL, 0, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(ng, 1);
    assert_int_equal(groups[0].registered_addresses, 8372);
    assert_int_equal(groups[0].n_sizes, 52);
    assert_int_equal(store_get_run_parts(s, 2, groups, 4, &ng, NULL, 0, NULL, NULL, err, sizeof err), 0);
    assert_int_equal(ng, 2);
    assert_int_equal(groups[0].registered_addresses, -1); /* the seeded K3 log prints none */
    assert_int_equal(groups[1].registered_addresses, -1);
    store_close(s);
    free(text);
}

/* One integer of SQL over PATH (a second connection, as another program would read the file). */
static int64_t sql_int(const char *path, const char *sql)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

/* Found by fuzz_record: a damaged knobs record's value was quoted in the error as it was, so a
 * newline in it broke the one-line message (and an ESC would reach the terminal). */
static void test_damaged_knob_error_is_one_line(void **state)
{
    (void)state;
    store_record rec = {0};
    store_record_begin(&rec);
    store_record_count(&rec, 1);
    store_knob_row kr = {"ep", "au\no\x1b[2J", "log"};
    store_record_row(&rec, &store_knob_rows_table, &kr);
    assert_false(rec.failed);
    store fake = {.path = "fake.db"};
    store_run_row row = {.id = 7, .knobs = {rec.p, rec.len}};
    static engine_deployment values;
    engine_knob_origin origin[KNOB_COUNT];
    char why[1024] = "";
    assert_int_equal(store_read_knobs(&fake, &row, &values, origin, why, sizeof why), -1);
    assert_non_null(strstr(why, "run 7"));
    assert_null(strchr(why, '\n'));
    assert_null(strchr(why, '\x1b'));
    assert_non_null(strstr(why, "au\\no"));
    store_record_free(&rec);
}

/* Runs that repeat a server args line and knobs share one run_texts row each (with the texts of
 * an earlier file too), read back whole; the last run that uses a text takes it with it. */
static void test_ingest_texts_kept_once(void **state)
{
    (void)state;
    const char *path = tmp_path("texts.db");
    store *s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
#define ARGS_LINE(max_bs)                                                                                              \
    "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='x/y', tp_size=12, dp_size=12, "                          \
    "enable_dp_attention=True, mem_fraction_static=0.3, cuda_graph_max_bs=" max_bs ")\n"
    static const char args[] = ARGS_LINE("2048"), text2[] = "# again\n" ARGS_LINE("2048") ARGS_LINE("8");
#undef ARGS_LINE
    char text[2 * sizeof args];
    int len = snprintf(text, sizeof text, "%s%s", args, args);
    store_ingest_result res;
    store_ingest *in;
    assert_int_equal(ingest_text(s, text, (size_t)len, 64, NULL, &res, &in), 0);
    assert_int_equal(res.n_runs, 2);
    store_ingest_free(in);
    /* another file with the same line, and a run of its own: one more text of each kind */
    assert_int_equal(ingest_text(s, text2, strlen(text2), 4096, NULL, &res, &in), 0);
    assert_int_equal(res.n_runs, 2);
    store_ingest_free(in);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM run_texts"), 4);
    assert_int_equal(sql_int(path, "SELECT count(DISTINCT server_args_text) FROM runs"), 2);
    assert_int_equal(sql_int(path,
                             "SELECT count(*) FROM runs WHERE server_args_text = (SELECT server_args_text "
                             "FROM runs WHERE id = 1) AND knobs_text = (SELECT knobs_text FROM runs WHERE id = 1)"),
                     3);
    assert_int_equal(sql_int(path, "SELECT length(body) FROM run_texts WHERE id = (SELECT server_args_text FROM runs "
                                   "WHERE id = 3)"),
                     (int64_t)strlen(args) - 1 - (int64_t)strlen("[2026-01-01 00:00:00] server_args="));
    static store_run_detail d;
    for (int64_t id = 1; id <= 4; id++) {
        assert_int_equal(store_get_run(s, id, &d, err, sizeof err), 0);
        assert_float_equal(d.values.knobs.mem_fraction_static, 0.3, 0);
        assert_int_equal(d.values.knobs.max_bs, id == 4 ? 8 : 2048);
    }
    /* the shared texts stay while a run uses them; run 4's own go with it */
    for (int64_t id = 1; id <= 2; id++)
        assert_int_equal(store_delete_run(s, id, err, sizeof err), 0);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM run_texts"), 4);
    assert_int_equal(store_delete_run(s, 4, err, sizeof err), 0);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM run_texts"), 2);
    assert_int_equal(store_get_run(s, 3, &d, err, sizeof err), 0);
    assert_int_equal(d.values.knobs.max_bs, 2048);
    assert_int_equal(store_delete_run(s, 3, err, sizeof err), 0);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM run_texts"), 0);
    store_close(s);
}

/* A log may state what the planner's sliders do not offer: stored and read back as stated. */
static void test_knob_values_kept_as_stated(void **state)
{
    (void)state;
    store *s = store_open(tmp_path("stated.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    store_run_summary none[1];
    size_t n = 9;
    assert_int_equal(store_list_runs(s, none, 1, &n, err, sizeof err), 0);
    assert_int_equal(n, 0); /* store_open alone does not seed */
    const char *log = "[2026-01-01 00:00:00] server_args=ServerArgs(model_path='x/y', tp_size=12, dp_size=12, "
                      "enable_dp_attention=True, dcp_size=1, mem_fraction_static=0.3, speculative_algorithm='EAGLE', "
                      "speculative_num_draft_tokens=64, cuda_graph_max_bs=2048, context_length=33554432)\n";
    store_ingest_result res;
    store_ingest *in;
    assert_int_equal(ingest_text(s, log, strlen(log), 4096, NULL, &res, &in), 0);
    assert_int_equal(res.n_runs, 1);
    int64_t id = res.first_run_id;
    store_ingest_free(in);
    static store_run_detail d;
    assert_int_equal(store_get_run(s, id, &d, err, sizeof err), 0);
    assert_float_equal(d.values.knobs.mem_fraction_static, 0.3, 0);
    assert_int_equal(d.values.knobs.mtp, 64);
    assert_int_equal(d.values.knobs.max_bs, 2048);
    assert_int_equal(d.values.knobs.context_len, 33554432);
    assert_int_equal(d.values.knobs.world, 12);
    assert_int_equal(d.origin[KNOB_MEM_FRACTION], ORIGIN_LOG);
    assert_int_equal(d.origin[KNOB_MAX_DISPATCH], ORIGIN_UNKNOWN);
    assert_int_equal(d.summary.dp, 12);
    assert_int_equal(d.summary.max_dispatch, 0);
    store_close(s);
}

/* ---- schema version 1 -> 2: knob columns become knob rows ---- */

static void exec_ok(sqlite3 *db, const char *sql)
{
    char *msg = NULL;
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        fail_msg("%s: %s", sql, msg);
}

/* "name:type,..." of every table, from PRAGMA table_info, then the names of its indexes and
 * triggers. */
static void table_shapes(const char *path, char *buf, size_t len)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT m.name, p.name, p.type, p.\"notnull\", p.pk FROM sqlite_master m, "
                                        "pragma_table_info(m.name) p WHERE m.type = 'table' AND m.name NOT LIKE "
                                        "'sqlite_%' ORDER BY m.name, p.cid",
                                        -1, &st, NULL),
                     SQLITE_OK);
    size_t used = 0;
    buf[0] = '\0';
    while (sqlite3_step(st) == SQLITE_ROW && used < len)
        used += (size_t)snprintf(buf + used, len - used, "%s.%s:%s:%d:%d,", sqlite3_column_text(st, 0),
                                 sqlite3_column_text(st, 1), sqlite3_column_text(st, 2), sqlite3_column_int(st, 3),
                                 sqlite3_column_int(st, 4));
    sqlite3_finalize(st);
    assert_int_equal(sqlite3_prepare_v2(db,
                                        "SELECT type, name FROM sqlite_master WHERE type IN ('index', 'trigger') "
                                        "AND name NOT LIKE 'sqlite_%' ORDER BY type, name",
                                        -1, &st, NULL),
                     SQLITE_OK);
    while (sqlite3_step(st) == SQLITE_ROW && used < len)
        used +=
            (size_t)snprintf(buf + used, len - used, "%s %s,", sqlite3_column_text(st, 0), sqlite3_column_text(st, 1));
    sqlite3_finalize(st);
    sqlite3_close(db);
}

static void test_migrate_v1(void **state)
{
    (void)state;
    const char *path = tmp_path("v1.db");
    size_t len;
    char *v1 = read_file(SCHEMA_V1_SQL, &len);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    exec_ok(db, "PRAGMA journal_mode = WAL");
    exec_ok(db, v1);
    exec_ok(db, "PRAGMA application_id = 1667723313; PRAGMA user_version = 1");
    /* What cgplan 1 wrote: a value only with its origin; NULL with an origin read as 0 (as "auto"
     * for the bucket list); max_dispatch auto as a flag column. */
    exec_ok(db, "INSERT INTO runs (source, sha256, file_run, label, model, model_origin, gpu, gpu_origin, "
                "created_at, world, world_origin, dp, dp_origin, dcp, dcp_origin, max_bs, max_bs_origin, mtp, "
                "mtp_origin, max_dispatch, max_dispatch_auto, max_dispatch_origin, context_len, context_len_origin, "
                "mem_fraction_static, mem_fraction_static_origin, buckets, buckets_origin, attention_backend, a2a, "
                "target_group, static_gib, largest_gib, buckets_gib, target_total_gib, draft_gib, total_gib) VALUES "
                "('a.log', 'aa', 0, 'first', 'kimi-k3', 'log', 'b200', 'preset', '2026-01-01T00:00:00Z', 16, 'log', "
                "2, 'log', 8, 'log', 192, 'log', 5, 'log', 128, 0, 'env', 1048576, 'log', 0.874, 'preset', "
                "'16,24,32', 'log', 'flashmla', 'deepep', 0, 1.33, 10.24, 1.35, 12.92, 1.04, 13.96)");
    exec_ok(db, "INSERT INTO runs (source, sha256, file_run, created_at, max_bs, max_bs_origin, max_dispatch_auto, "
                "max_dispatch_origin, context_len_origin, buckets, buckets_origin, mem_fraction_static, "
                "mem_fraction_static_origin, gpu, gpu_origin, gpu_inferred) VALUES ('b.log', 'bb', 0, "
                "'2026-01-02T00:00:00Z', 32, 'log', 1, 'set', 'preset', NULL, 'preset', 0.1 + 0.2, 'set', 'h100', "
                "'inferred', 1)");
    exec_ok(db, "INSERT INTO runs (source, sha256, file_run, created_at) VALUES ('c.log', 'cc', 0, "
                "'2026-01-03T00:00:00Z')");
    exec_ok(db, "INSERT INTO groups (run_id, ordinal, kind, sizes) VALUES (1, 0, 'target verify', '32,24,16')");
    exec_ok(db, "INSERT INTO env (run_id, ordinal, key, value) VALUES "
                "(1, 0, 'SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK', '128')");
    sqlite3_close(db);
    free(v1);

    /* read-only: refused with the fix */
    assert_null(store_open(path, STORE_READ_ONLY, err, sizeof err));
    char want[64];
    snprintf(want, sizeof want, "schema version 1; this cgplan reads %d", STORE_SCHEMA_VERSION);
    assert_non_null(strstr(err, want));

    store *s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    store_run_summary runs[4];
    size_t n;
    assert_int_equal(store_list_runs(s, runs, 4, &n, err, sizeof err), 0);
    assert_int_equal(n, 3); /* not seeded: it was not new */
    const store_run_summary *a = &runs[2], *b = &runs[1], *c = &runs[0];
    assert_int_equal(a->world, 16);
    assert_int_equal(a->dp, 2);
    assert_int_equal(a->dcp, 8);
    assert_int_equal(a->max_bs, 192);
    assert_int_equal(a->mtp, 5);
    assert_int_equal(a->max_dispatch, 128);
    assert_int_equal(a->n_buckets, 3);
    assert_string_equal(a->gpu, "b200");
    assert_string_equal(a->created_at, "2026-01-01T00:00:00Z");
    assert_float_equal(a->total_gib, 13.96, 0);
    assert_int_equal(b->max_dispatch, 0); /* auto */
    assert_int_equal(b->n_buckets, 0);
    assert_true(b->gpu_inferred);
    assert_int_equal(c->max_bs, 0);
    assert_string_equal(c->gpu, "");

    static store_run_detail d;
    assert_int_equal(store_get_run(s, 1, &d, err, sizeof err), 0);
    assert_int_equal(d.origin[KNOB_MAX_DISPATCH], ORIGIN_ENV);
    assert_int_equal(d.origin[KNOB_MEM_FRACTION], ORIGIN_PRESET);
    assert_int_equal(d.origin[KNOB_GPU], ORIGIN_PRESET);
    assert_float_equal(d.values.knobs.mem_fraction_static, 0.874, 0);
    assert_int_equal(d.values.knobs.context_len, 1048576);
    assert_int_equal(d.values.knobs.n_buckets, 3);
    assert_int_equal(d.values.knobs.buckets[2], 32);
    assert_int_equal(d.backend, BACKEND_FLASHMLA);
    assert_int_equal(store_get_run(s, 2, &d, err, sizeof err), 0);
    assert_true(d.values.knobs.max_dispatch_auto);
    assert_int_equal(d.origin[KNOB_MAX_DISPATCH], ORIGIN_SET);
    assert_true(d.values.knobs.buckets_auto); /* NULL with an origin: v1 read it as auto */
    assert_int_equal(d.origin[KNOB_BUCKETS], ORIGIN_PRESET);
    assert_int_equal(d.values.knobs.context_len, 0); /* NULL with an origin: v1 read it as 0 */
    assert_int_equal(d.origin[KNOB_CONTEXT_LEN], ORIGIN_PRESET);
    assert_true(d.values.knobs.mem_fraction_static == 0.1 + 0.2); /* exact, not 15 digits */
    assert_int_equal(d.origin[KNOB_GPU], ORIGIN_INFERRED);
    assert_int_equal(d.origin[KNOB_WORLD], ORIGIN_UNKNOWN);
    assert_int_equal(store_get_run(s, 3, &d, err, sizeof err), 0);
    for (int k = 0; k < KNOB_COUNT; k++)
        assert_int_equal(d.origin[k], ORIGIN_UNKNOWN);
    store_group_info groups[2];
    size_t ng;
    store_run_extra extra;
    assert_int_equal(store_get_run_parts(s, 1, groups, 2, &ng, NULL, 0, NULL, &extra, err, sizeof err), 0);
    assert_int_equal(ng, 1);
    assert_true(groups[0].is_target);
    assert_int_equal(groups[0].first_size, 32);
    assert_string_equal(extra.env_dispatch, "128");
    assert_int_equal(store_delete_run(s, 1, err, sizeof err), 0);
    store_close(s);

    /* a migrated store has the tables and columns of a new one */
    store *fresh = store_open(tmp_path("v2.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(fresh);
    store_close(fresh);
    static char migrated_shape[16384], fresh_shape[16384];
    table_shapes(path, migrated_shape, sizeof migrated_shape);
    table_shapes(tmp_path("v2.db"), fresh_shape, sizeof fresh_shape);
    assert_string_equal(migrated_shape, fresh_shape);
    assert_non_null(strstr(fresh_shape, "runs.knobs_text:INTEGER"));
    assert_non_null(strstr(fresh_shape, "runs.server_args_text:INTEGER"));
    assert_non_null(strstr(fresh_shape, "run_texts.body:"));
    assert_non_null(strstr(fresh_shape, "trigger runs_texts_unused,"));
    assert_null(strstr(fresh_shape, "runs.knobs:"));
    assert_null(strstr(fresh_shape, "runs.server_args_raw:"));
    assert_non_null(strstr(fresh_shape, "runs.detail:BLOB"));
    assert_null(strstr(fresh_shape, "run_knobs"));
    assert_null(strstr(fresh_shape, "bars."));
    assert_null(strstr(fresh_shape, "runs.max_bs"));
}

static void test_calibration_roundtrip(void **state)
{
    (void)state;
    store *s = store_open(tmp_path("cal.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    engine_calibration cal = {0}, back;
    assert_int_equal(store_load_calibration(s, "kimi-k3", "b200", &back, err, sizeof err), 0);
    cal.has[COEF_LAZY_BYTES] = true;
    cal.value[COEF_LAZY_BYTES] = 794000357;
    cal.has[COEF_GRAPH_BYTES] = true;
    cal.value[COEF_GRAPH_BYTES] = 52706322;
    cal.n_runs = 2;
    cal.runs[0] = 1;
    cal.runs[1] = 2;
    assert_int_equal(store_save_calibration(s, "kimi-k3", "b200", NULL, &cal, 0, "report", err, sizeof err), 0);
    cal.value[COEF_LAZY_BYTES] = 1;
    assert_int_equal(store_save_calibration(s, "kimi-k3", "b200", NULL, &cal, 0, NULL, err, sizeof err), 0);
    assert_int_equal(store_load_calibration(s, "kimi-k3", "b200", &back, err, sizeof err), 1);
    assert_true(back.has[COEF_LAZY_BYTES]);
    assert_int_equal(back.value[COEF_LAZY_BYTES], 1); /* the newest */
    assert_false(back.has[COEF_ACT_BYTES_PER_ROW]);   /* NULL, not 0 */
    assert_int_equal(back.value[COEF_GRAPH_BYTES], 52706322);
    assert_int_equal(back.n_runs, 2);
    assert_int_equal(back.runs[1], 2);
    assert_int_equal(store_load_calibration(s, "kimi-k3", "h200", &back, err, sizeof err), 0);
    store_close(s);
}

/* v2 -> v3: calibrations gain their release and the static intercept; a v2 one applies to any
 * release. */
static void test_migrate_v2_calibrations(void **state)
{
    (void)state;
    const char *path = tmp_path("v2cal.db");
    size_t len;
    char *v4 = read_file(SCHEMA_V4_SQL, &len);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    exec_ok(db, "PRAGMA journal_mode = WAL");
    exec_ok(db, v4);
    free(v4);
    exec_ok(db, "DROP TABLE measured_terms; ALTER TABLE calibrations DROP COLUMN sglang; ALTER TABLE calibrations "
                "DROP COLUMN static_bytes; PRAGMA application_id = 1667723313; PRAGMA user_version = 2");
    exec_ok(db, "INSERT INTO calibrations (model, gpu, created_at, lazy_bytes, runs, report) VALUES "
                "('kimi-k3', 'b200', '2026-01-01T00:00:00Z', 42, '1,2', 'old')");
    sqlite3_close(db);
    store *s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    engine_calibration back;
    assert_int_equal(store_load_calibration_for(s, "kimi-k3", "b200", "main@2026-07-20", &back, err, sizeof err), 1);
    assert_int_equal(back.value[COEF_LAZY_BYTES], 42);
    assert_false(back.has_static);
    /* a release's own calibration wins over the v2 one; another release still gets the v2 one */
    engine_calibration cal = {0};
    cal.has[COEF_LAZY_BYTES] = true;
    cal.value[COEF_LAZY_BYTES] = 7;
    cal.has_static = true;
    cal.static_bytes = 99;
    assert_int_equal(store_save_calibration(s, "kimi-k3", "b200", "v0.5.3", &cal, 0, "r", err, sizeof err), 0);
    assert_int_equal(store_load_calibration_for(s, "kimi-k3", "b200", "v0.5.3", &back, err, sizeof err), 1);
    assert_int_equal(back.value[COEF_LAZY_BYTES], 7);
    assert_true(back.has_static);
    assert_int_equal(back.static_bytes, 99);
    assert_int_equal(store_load_calibration_for(s, "kimi-k3", "b200", "v0.5.4", &back, err, sizeof err), 1);
    assert_int_equal(back.value[COEF_LAZY_BYTES], 42);
    /* absurd values are refused by the store too */
    cal.has[COEF_ACT_BYTES_PER_ROW] = true; /* a per-row coefficient: multiplied by every row */
    cal.value[COEF_ACT_BYTES_PER_ROW] = ENGINE_COEF_MAX + 1;
    assert_int_equal(store_save_calibration(s, "kimi-k3", "b200", "v0.5.3", &cal, 0, "r", err, sizeof err), -1);
    assert_non_null(strstr(err, "act_bytes_per_row = 4294967297 B is out of bounds"));
    /* reset: one release, then everything */
    assert_int_equal(store_delete_calibrations(s, "kimi-k3", "b200", "v0.5.3", err, sizeof err), 1);
    assert_int_equal(store_delete_calibrations(s, NULL, NULL, NULL, err, sizeof err), 1);
    assert_int_equal(store_load_calibration(s, "kimi-k3", "b200", &back, err, sizeof err), 0);
    store_close(s);
    static char migrated[16384], fresh[16384];
    table_shapes(path, migrated, sizeof migrated);
    s = store_open(tmp_path("v3.db"), STORE_READ_WRITE, err, sizeof err);
    store_close(s);
    table_shapes(tmp_path("v3.db"), fresh, sizeof fresh);
    assert_string_equal(migrated, fresh);
}

typedef struct {
    int n;
    store_node_calibration rows[4];
} node_list;

static void collect_node(const store_node_calibration *row, void *ctx)
{
    node_list *l = ctx;
    if (l->n < 4)
        l->rows[l->n++] = *row;
}

static void collect_model(const store_calibration_info *c, void *ctx)
{
    *(store_calibration_info *)ctx = *c;
}

/* v7 -> v8: node_bytes gets its per-GPU table; a model's calibration stored before keeps its
 * graph_bytes (it still overrides the mechanism for that model) and reads as predating the GPU's
 * node_bytes. A plan loads its model's calibration and its GPU's node_bytes together, the
 * release's own node_bytes before one pooled over every release. */
static void test_migrate_v7_node_calibrations(void **state)
{
    (void)state;
    const char *path = tmp_path("v7cal.db");
    store *s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    exec_ok(db, "DROP TABLE gpu_calibrations; ALTER TABLE calibrations DROP COLUMN held_node_bytes; "
                "PRAGMA user_version = 7");
    exec_ok(db, "INSERT INTO calibrations (model, gpu, created_at, graph_bytes, runs, report) VALUES "
                "('qwq-32b', 'h200', '2026-01-01T00:00:00Z', 20971520, '3', 'old')");
    sqlite3_close(db);
    s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    if (!s)
        fail_msg("%s", err);
    engine_calibration back;
    assert_int_equal(store_load_calibration_for(s, "qwq-32b", "h200", "v0.5.3", &back, err, sizeof err), 1);
    assert_true(back.has[COEF_GRAPH_BYTES]); /* kept as it was */
    assert_int_equal(back.value[COEF_GRAPH_BYTES], 20971520);
    assert_false(back.has_node_bytes);
    store_calibration_info info;
    memset(&info, 0xff, sizeof info);
    assert_int_equal(store_each_calibration(s, collect_model, &info, err, sizeof err), 0);
    assert_int_equal(info.held_node_bytes, 0); /* fitted before node_bytes was per GPU */
    assert_int_equal(store_load_node_calibration(s, "h200", NULL, &back, err, sizeof err), 0);

    store_node_calibration c = {0};
    snprintf(c.gpu, sizeof c.gpu, "h200");
    c.node_bytes = (engine_range){16384, 15000, 18000};
    c.n_runs = 2;
    c.runs[0] = 3;
    c.runs[1] = 4;
    snprintf(c.run_releases, sizeof c.run_releases, "v0.5.3,v0.5.4");
    snprintf(c.run_models, sizeof c.run_models, "qwq-32b,llama-3.1-8b");
    assert_int_equal(store_save_node_calibration(s, &c, "report", err, sizeof err), 0);
    snprintf(c.release, sizeof c.release, "v0.5.3");
    c.node_bytes = (engine_range){17000, 16000, 18000};
    assert_int_equal(store_save_node_calibration(s, &c, NULL, err, sizeof err), 0);
    c.node_bytes.low = 17001; /* a range that does not hold the value */
    assert_int_equal(store_save_node_calibration(s, &c, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "not saved"));

    memset(&back, 0, sizeof back);
    assert_int_equal(store_load_node_calibration(s, "h200", "v0.5.3", &back, err, sizeof err), 1);
    assert_int_equal(back.node_bytes.expected, 17000);
    assert_int_equal(store_load_node_calibration(s, "h200", "v0.5.4", &back, err, sizeof err), 1);
    assert_int_equal(back.node_bytes.expected, 16384);
    assert_int_equal(back.node_bytes.low, 15000);
    assert_int_equal(back.node_runs, 2);
    assert_non_null(strstr(back.node_bytes_source, "calibrated from 2 runs on h200"));
    assert_int_equal(store_load_node_calibration(s, "b200", NULL, &back, err, sizeof err), 0);

    /* a plan of another model on the GPU: the GPU's node_bytes, none of qwq-32b's coefficients */
    static engine_deployment d;
    engine_deployment_defaults(&d);
    snprintf(d.model.name, sizeof d.model.name, "llama-3.1-8b");
    snprintf(d.gpu.name, sizeof d.gpu.name, "h200");
    assert_int_equal(engine_release_parse("0.5.4", &d.knobs.sglang, err, sizeof err), 0);
    assert_int_equal(store_load_plan_calibration(s, &d, &back, err, sizeof err), 1);
    assert_true(back.has_node_bytes);
    assert_int_equal(back.node_bytes.expected, 16384);
    for (int k = 0; k < COEF_COUNT; k++)
        assert_false(back.has[k]);
    snprintf(d.model.name, sizeof d.model.name, "qwq-32b"); /* both together */
    assert_int_equal(store_load_plan_calibration(s, &d, &back, err, sizeof err), 1);
    assert_true(back.has_node_bytes && back.has[COEF_GRAPH_BYTES]);

    /* the list: newest first, each the current one of its (GPU, release), runs and their models */
    node_list l = {0};
    assert_int_equal(store_each_node_calibration(s, collect_node, &l, err, sizeof err), 0);
    assert_int_equal(l.n, 2);
    assert_string_equal(l.rows[0].release, "v0.5.3");
    assert_string_equal(l.rows[1].release, "");
    assert_true(l.rows[0].current && l.rows[1].current);
    assert_int_equal(l.rows[1].n_runs, 2);
    assert_int_equal(l.rows[1].runs[1], 4);
    assert_string_equal(l.rows[1].run_models, "qwq-32b,llama-3.1-8b");
    assert_string_equal(l.rows[1].run_releases, "v0.5.3,v0.5.4");
    assert_int_equal(l.rows[1].node_bytes.high, 18000);

    /* reset one release, then the GPU's */
    assert_int_equal(store_delete_node_calibrations(s, "h200", "v0.5.3", err, sizeof err), 1);
    assert_int_equal(store_delete_node_calibrations(s, "h200", NULL, err, sizeof err), 1);
    assert_int_equal(store_load_node_calibration(s, "h200", NULL, &back, err, sizeof err), 0);
    store_close(s);

    /* the migrated store has the tables and columns of a new one */
    static char migrated[16384], fresh[16384];
    table_shapes(path, migrated, sizeof migrated);
    s = store_open(tmp_path("v8.db"), STORE_READ_WRITE, err, sizeof err);
    store_close(s);
    table_shapes(tmp_path("v8.db"), fresh, sizeof fresh);
    assert_string_equal(migrated, fresh);
    assert_non_null(strstr(fresh, "gpu_calibrations.node_bytes:INTEGER:1:0"));
    assert_non_null(strstr(fresh, "calibrations.held_node_bytes:INTEGER:0:0"));
    assert_non_null(strstr(fresh, "index gpu_calibrations_gpu,"));
}

/* A run an older store holds is known by its file's SHA-256 alone (schema 7 marks it so): while
 * any is left, an ingest hashes both ways and finds the file by either. */
static void test_ingest_finds_older_runs_by_sha256(void **state)
{
    (void)state;
    const char *path = tmp_path("legacy.db");
    store *s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    size_t len;
    char *text = read_file(DP2_LOG, &len);
    store_ingest_result res;
    store_ingest *in;
    assert_int_equal(ingest_text(s, text, len, 4096, NULL, &res, &in), 0);
    assert_int_equal(res.n_runs, 1);
    int64_t id = res.first_run_id;
    store_ingest_free(in);
    /* as migrate_6_to_7 leaves a run of version 6 */
    store_sha256 sha;
    char hex[65], sql[256];
    store_sha256_init(&sha);
    store_sha256_update(&sha, text, len);
    store_sha256_final_hex(&sha, hex);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    snprintf(sql, sizeof sql, "UPDATE runs SET content_hash = 'sha256:%s' WHERE id = %lld", hex, (long long)id);
    exec_ok(db, sql);
    sqlite3_close(db);
    /* the same bytes: found by their SHA-256, whatever the chunking (7: the hasher thread's path) */
    for (size_t chunk = 7; chunk <= 1 << 20; chunk <<= 17) {
        assert_int_equal(ingest_text(s, text, len, chunk, NULL, &res, &in), 0);
        assert_int_equal(res.duplicate_of, id);
        assert_int_equal(res.n_runs, 0);
        store_ingest_free(in);
    }
    /* other bytes: stored, known by their XXH3-128 */
    text[0] = '#';
    assert_int_equal(ingest_text(s, text, len, 4096, NULL, &res, &in), 0);
    assert_int_equal(res.duplicate_of, 0);
    assert_int_equal(res.n_runs, 1);
    assert_int_equal(strncmp(res.content_hash, STORE_HASH_PREFIX, strlen(STORE_HASH_PREFIX)), 0);
    store_ingest_free(in);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM runs WHERE content_hash LIKE 'xxh3-128:%'"), 1);
    store_close(s);
    free(text);
}

static void test_set_run_model(void **state)
{
    (void)state;
    store *s = store_open(tmp_path("setmodel.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(tmp_path("setmodel.db"), &db), SQLITE_OK);
    exec_ok(db, "INSERT INTO runs (source, content_hash, file_run, created_at) VALUES ('x.log', 'xx', 0, '2026')");
    sqlite3_close(db);
    assert_int_equal(store_set_run_model(s, 1, "kimi-k3", err, sizeof err), 0);
    assert_int_equal(store_set_run_model(s, 99, "kimi-k3", err, sizeof err), 1);
    store_run_detail d;
    assert_int_equal(store_get_run(s, 1, &d, err, sizeof err), 0);
    assert_string_equal(d.summary.model, "kimi-k3");
    store_close(s);
}

/* runs set: the knobs record replaced, the GPU column set, the old record gone when unused; a
 * run is pooled only once its model, GPU, world and max_bs are known */
static void test_set_run_knobs(void **state)
{
    (void)state;
    store *s = store_open(tmp_path("setknobs.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(tmp_path("setknobs.db"), &db), SQLITE_OK);
    exec_ok(db, "INSERT INTO runs (source, content_hash, file_run, created_at, model, model_origin, total_gib, "
                "target_total_gib) VALUES ('x.log', 'xx', 0, '2026', 'qwq-32b', 'set', 0.92, 0.92)");
    store_run_detail d;
    assert_int_equal(store_get_run(s, 1, &d, err, sizeof err), 0);
    assert_non_null(strstr(store_run_calibration_exclusion(&d.summary), "GPU unknown"));
    snprintf(d.values.gpu.name, sizeof d.values.gpu.name, "h100");
    d.origin[KNOB_GPU] = ORIGIN_SET;
    assert_int_equal(store_set_run_knobs(s, 1, &d.values, d.origin, err, sizeof err), 0);
    assert_int_equal(store_get_run(s, 1, &d, err, sizeof err), 0);
    assert_string_equal(d.summary.gpu, "h100");
    assert_non_null(strstr(store_run_calibration_exclusion(&d.summary), "world unknown"));
    d.values.knobs.world = 4;
    d.origin[KNOB_WORLD] = ORIGIN_SET;
    assert_int_equal(store_set_run_knobs(s, 1, &d.values, d.origin, err, sizeof err), 0);
    assert_int_equal(store_get_run(s, 1, &d, err, sizeof err), 0);
    assert_int_equal(d.summary.world, 4);
    assert_non_null(strstr(store_run_calibration_exclusion(&d.summary), "max_bs unknown"));
    d.values.knobs.max_bs = 80;
    d.origin[KNOB_MAX_BS] = ORIGIN_SET;
    assert_int_equal(store_set_run_knobs(s, 1, &d.values, d.origin, err, sizeof err), 0);
    assert_int_equal(store_get_run(s, 1, &d, err, sizeof err), 0);
    assert_int_equal(d.summary.max_bs, 80);
    assert_int_equal(d.origin[KNOB_MAX_BS], ORIGIN_SET);
    assert_null(store_run_calibration_exclusion(&d.summary));
    /* the records replaced went with the last run that used them: one left */
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT count(*) FROM run_texts", -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    assert_int_equal(sqlite3_column_int(st, 0), 1);
    sqlite3_finalize(st);
    sqlite3_close(db);
    assert_int_equal(store_set_run_knobs(s, 99, &d.values, d.origin, err, sizeof err), 1);
    store_close(s);
}

/* ---- refusals: reported, file untouched ---- */

static void assert_refused_untouched(const char *path, const char *needle)
{
    size_t before_len, after_len;
    char *before = read_file(path, &before_len);
    for (int mode = 0; mode < 2; mode++) {
        err[0] = '\0';
        assert_null(store_open(path, mode ? STORE_READ_WRITE : STORE_READ_ONLY, err, sizeof err));
        if (!strstr(err, needle))
            fail_msg("'%s' not in '%s'", needle, err);
        assert_non_null(strstr(err, path));
    }
    char *after = read_file(path, &after_len);
    assert_int_equal(before_len, after_len);
    assert_memory_equal(before, after, before_len);
    char wal[600];
    snprintf(wal, sizeof wal, "%s-wal", path);
    assert_int_not_equal(access(wal, F_OK), 0);
    free(before);
    free(after);
}

static void test_refusals(void **state)
{
    (void)state;
    /* random bytes */
    unsigned char junk[5000];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (unsigned char)(i * 131 + 7);
    write_file(tmp_path("junk.db"), junk, sizeof junk);
    assert_refused_untouched(tmp_path("junk.db"), "not a cgplan store");

    /* a truncated copy of a real store */
    store *s = store_open(tmp_path("real.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    store_close(s);
    size_t len;
    char *real = read_file(tmp_path("real.db"), &len);
    assert_true(len > 8192);
    write_file(tmp_path("cut.db"), real, 8192);
    free(real);
    assert_refused_untouched(tmp_path("cut.db"), "damaged");

    /* another program's database */
    sqlite3 *db;
    assert_int_equal(sqlite3_open(tmp_path("other.db"), &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE t (x); INSERT INTO t VALUES (1)", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_refused_untouched(tmp_path("other.db"), "not a cgplan store");

    /* a newer schema: both versions named */
    s = store_open(tmp_path("newer.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    store_close(s);
    assert_int_equal(sqlite3_open(tmp_path("newer.db"), &db), SQLITE_OK);
    char newer[64];
    snprintf(newer, sizeof newer, "PRAGMA user_version = %d", STORE_SCHEMA_VERSION + 1);
    assert_int_equal(sqlite3_exec(db, newer, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    snprintf(newer, sizeof newer, "version %d, newer than this cgplan's %d", STORE_SCHEMA_VERSION + 1,
             STORE_SCHEMA_VERSION);
    assert_refused_untouched(tmp_path("newer.db"), newer);

    /* a directory */
    assert_int_equal(mkdir(tmp_path("dir.db"), 0755), 0);
    assert_null(store_open(tmp_path("dir.db"), STORE_READ_WRITE, err, sizeof err));
    assert_non_null(strstr(err, "is a directory"));

    /* an empty SQLite file (version 0, no tables) is simply a new store */
    write_file(tmp_path("empty.db"), "", 0);
    s = store_open(tmp_path("empty.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    store_close(s);
}

/* ---- the write lock: taken only to write a file's parsed rows ---- */

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Every fixture log REPS times, each repetition behind its own comment line: runs of every
 * format, a few hundred KiB. */
static char *all_fixtures(int reps, size_t *len)
{
    glob_t g;
    assert_int_equal(glob(CGPLAN_FIXTURES "/sglang-logs/*.log", 0, NULL, &g), 0);
    size_t cap = 1 << 16, used = 0;
    char *out = malloc(cap);
    for (int r = 0; r < reps; r++)
        for (size_t i = 0; i < g.gl_pathc; i++) {
            size_t n;
            char *text = read_file(g.gl_pathv[i], &n);
            while (used + n + 64 > cap)
                out = realloc(out, cap *= 2);
            used += (size_t)sprintf(out + used, "# repetition %d\n", r);
            memcpy(out + used, text, n);
            used += n;
            if (n && text[n - 1] != '\n')
                out[used++] = '\n';
            free(text);
        }
    globfree(&g);
    *len = used;
    return out;
}

/* The rows of store A and store B are the same, table by table (created_at aside). */
static void assert_same_rows(const char *a, const char *b)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(a, &db), SQLITE_OK);
    char sql[1200];
    snprintf(sql, sizeof sql,
             "ATTACH '%s' AS b; UPDATE main.runs SET created_at = ''; UPDATE b.runs SET created_at = ''", b);
    assert_int_equal(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK);
    static const char *const tables[] = {"runs"}; /* its knobs and detail records too */
    for (size_t t = 0; t < sizeof tables / sizeof tables[0]; t++) {
        snprintf(sql, sizeof sql,
                 "SELECT (SELECT count(*) FROM main.%s), (SELECT count(*) FROM b.%s), "
                 "(SELECT count(*) FROM (SELECT * FROM main.%s EXCEPT SELECT * FROM b.%s))",
                 tables[t], tables[t], tables[t], tables[t]);
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_true(sqlite3_column_int64(st, 0) > 0);
        assert_int_equal(sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1));
        assert_int_equal(sqlite3_column_int64(st, 2), 0);
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
}

/* Rows kept in memory, spilled to a file many times, or each bigger than the bound: the same
 * rows are stored, with the same ids and first lines. */
static void test_ingest_spill_same_rows(void **state)
{
    (void)state;
    size_t len;
    char *text = all_fixtures(8, &len);
    static const size_t bounds[] = {0, 4096, 16};
    static const char *const names[] = {"spill-none.db", "spill-4k.db", "spill-16.db"};
    store_ingest_result first;
    int64_t ids[2048];
    uint32_t lines[2048];
    for (size_t b = 0; b < 3; b++) {
        store *s = store_open(tmp_path(names[b]), STORE_READ_WRITE, err, sizeof err);
        assert_non_null(s);
        ingest_buffer_bytes = bounds[b];
        store_ingest_result res;
        store_ingest *in;
        assert_int_equal(ingest_text(s, text, len, 777, "h200", &res, &in), 0);
        ingest_buffer_bytes = 0;
        assert_int_equal(res.duplicate_of, 0);
        assert_true(res.n_runs > 50 && res.n_runs <= 2048);
        /* a 16-byte buffer keeps one report in memory: every other comes back from its file */
        int64_t got_ids[2048];
        uint32_t got_lines[2048];
        walked_runs w = {got_ids, got_lines, NULL, 0, 2048};
        walk_runs(in, &w);
        assert_int_equal(w.n, res.n_runs);
        for (size_t i = 0; i < w.n; i++)
            assert_int_equal(got_ids[i], res.first_run_id + (int64_t)i);
        if (b == 0) {
            first = res;
            memcpy(ids, got_ids, res.n_runs * sizeof ids[0]);
            memcpy(lines, got_lines, res.n_runs * sizeof lines[0]);
        } else {
            assert_int_equal(res.n_runs, first.n_runs);
            assert_memory_equal(got_ids, ids, res.n_runs * sizeof ids[0]);
            assert_memory_equal(got_lines, lines, res.n_runs * sizeof lines[0]);
            assert_string_equal(res.content_hash, first.content_hash);
        }
        store_ingest_free(in);
        store_close(s);
    }
    assert_same_rows(tmp_path(names[0]), tmp_path(names[1]));
    assert_same_rows(tmp_path(names[0]), tmp_path(names[2]));
    free(text);
}

/* The kept rows' encoding (small integers in their tag, others as zigzag varints, texts by
 * length) gives back every value as it was: large, negative, at the small tag's edge, spilled
 * or not. */
static void test_ingest_kept_values_exact(void **state)
{
    (void)state;
    const char *log = "[2026-01-01 00:00:00 TP0] Capture cuda graph begin. This can take up to several minutes. "
                      "avail mem=10.00 GB\n"
                      "[cgplan-hook] capture seq=0 size=240 rank=0 reserved_before=0 reserved_after=35184372088832 "
                      "free_before=100 free_after=0 total=1\n"
                      "[cgplan-hook] term=moe.deepep bytes=239 size=239 rank=0\n"
                      "[cgplan-hook] term=moe.masked_gemm bytes=240 size=240 rank=0\n"
                      "[cgplan-hook] term=static.logits bytes=0 size=1 rank=0\n"
                      "[cgplan-hook] term=unattributed bytes=70368744177664 size=65536 rank=0\n"
                      "[2026-01-01 00:00:09 TP0] Capture cuda graph end. Time elapsed: 9.00 s. mem usage=-0.25 GB. "
                      "avail mem=10.25 GB.\n";
    static const char *const names[] = {"exact-memory.db", "exact-spilled.db"};
    for (int b = 0; b < 2; b++) {
        store *s = store_open(tmp_path(names[b]), STORE_READ_WRITE, err, sizeof err);
        assert_non_null(s);
        ingest_buffer_bytes = b ? 16 : 0;
        store_ingest_result res;
        store_ingest *in;
        assert_int_equal(ingest_text(s, log, strlen(log), 64, NULL, &res, &in), 0);
        ingest_buffer_bytes = 0;
        assert_int_equal(res.n_runs, 1);
        int64_t id = res.first_run_id;
        store_ingest_free(in);
        store_close(s);
        sqlite3 *db;
        assert_int_equal(sqlite3_open(tmp_path(names[b]), &db), SQLITE_OK);
        sqlite3_stmt *st;
        assert_int_equal(sqlite3_prepare_v2(db,
                                            "SELECT group_concat(method || ' ' || term || ' ' || bytes || ' ' || "
                                            "ifnull(size, 'null'), ', ') FROM (SELECT * FROM measured_terms ORDER "
                                            "BY method, term)",
                                            -1, &st, NULL),
                         SQLITE_OK);
        assert_int_equal(sqlite3_step(st), SQLITE_ROW);
        assert_string_equal(
            (const char *)sqlite3_column_text(st, 0),
            "snapshot moe.deepep 239 239, snapshot moe.masked_gemm 240 240, snapshot static.logits 0 1, "
            "snapshot unattributed 70368744177664 65536, split non_torch -35184372088732 240, split "
            "torch 35184372088832 240");
        sqlite3_finalize(st);
        sqlite3_close(db);
        s = store_open(tmp_path(names[b]), STORE_READ_ONLY, err, sizeof err);
        assert_non_null(s);
        store_group_info g[2];
        size_t ng;
        assert_int_equal(store_get_run_parts(s, id, g, 2, &ng, NULL, 0, NULL, NULL, err, sizeof err), 0);
        assert_int_equal(ng, 1);
        assert_true(g[0].end_usage_gib == -0.25);
        assert_true(g[0].end_elapsed_s == 9.0);
        assert_true(g[0].begin_avail_gib == 10.0);
        store_close(s);
    }
}

/* The runs store_each_run_range reads back, for test_ingest_batched_ids_and_report. */
typedef struct {
    store_run_summary *runs;
    size_t n, cap;
} read_back;

static void collect_run(const store_run_summary *r, void *ctx)
{
    read_back *b = ctx;
    if (b->n < b->cap)
        b->runs[b->n++] = *r;
}

static int64_t query_int(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_step(st), SQLITE_ROW);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static bool same_gib(double a, double b)
{
    return isnan(a) ? isnan(b) : memcmp(&a, &b, sizeof a) == 0;
}

/* A file's runs go in multi-row INSERTs, hooked runs' measured terms between them: each run gets
 * the id reported for it in file order, AUTOINCREMENT's (none reused after a delete), the file's
 * runs share one created_at, and the report kept for each run is what a listing reads back. */
static void test_ingest_batched_ids_and_report(void **state)
{
    (void)state;
    static const char hook[] = "[cgplan-hook] capture seq=0 size=8 rank=0 reserved_before=0 reserved_after=4096 "
                               "free_before=100 free_after=0 total=1\n"
                               "[cgplan-hook] term=moe.deepep bytes=239 size=8 rank=0\n";
    size_t part_len;
    char *part = all_fixtures(4, &part_len);
    size_t len = 0;
    char *text = malloc(3 * part_len + 3 * sizeof hook);
    for (int i = 0; i < 3; i++) { /* each fixture's last run hooked, some runs into a batch */
        memcpy(text + len, part, part_len / (i + 1));
        len += part_len / (i + 1);
        while (text[len - 1] != '\n')
            len--;
        memcpy(text + len, hook, sizeof hook - 1);
        len += sizeof hook - 1;
    }
    store *s = store_open(tmp_path("batched.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    store_ingest_result res;
    store_ingest *in;
    assert_int_equal(ingest_text(s, text, len, 4096, "h200", &res, &in), 0);
    assert_true(res.n_runs > 40); /* batches of runs, whole and cut short by a hooked run */

    sqlite3 *db;
    assert_int_equal(sqlite3_open(tmp_path("batched.db"), &db), SQLITE_OK);
    sqlite3_stmt *st;
    assert_int_equal(sqlite3_prepare_v2(db, "SELECT id, first_line FROM runs ORDER BY file_run", -1, &st, NULL),
                     SQLITE_OK);
    walked_runs w = {calloc(res.n_runs, sizeof(int64_t)), calloc(res.n_runs, sizeof(uint32_t)),
                     calloc(res.n_runs, sizeof(store_run_summary)), 0, res.n_runs};
    walk_runs(in, &w);
    assert_int_equal(w.n, res.n_runs);
    size_t n = 0;
    for (; sqlite3_step(st) == SQLITE_ROW; n++) {
        assert_true(n < res.n_runs);
        assert_int_equal(sqlite3_column_int64(st, 0), w.ids[n]);
        assert_int_equal(sqlite3_column_int64(st, 1), w.lines[n]);
        assert_int_equal(w.ids[n], res.first_run_id + (int64_t)n);
    }
    sqlite3_finalize(st);
    assert_int_equal(n, res.n_runs);
    assert_int_equal(query_int(db, "SELECT count(DISTINCT created_at) FROM runs WHERE created_at != ''"), 1);
    /* the three hooked runs: a snapshot term each and one split, as one run at a time stored them */
    assert_int_equal(query_int(db, "SELECT count(DISTINCT run_id) FROM measured_terms"), 3);
    assert_int_equal(query_int(db, "SELECT count(*) FROM measured_terms"), 5);
    assert_int_equal(query_int(db, "SELECT count(*) FROM measured_terms WHERE run_id NOT IN (SELECT id FROM runs)"), 0);

    read_back back = {calloc(res.n_runs, sizeof *back.runs), 0, res.n_runs};
    assert_int_equal(
        store_each_run_range(s, res.first_run_id, (res.first_run_id + (int64_t)res.n_runs - 1), collect_run, &back, err, sizeof err), 0);
    assert_int_equal(back.n, res.n_runs);
    int with_gpu = 0, with_total = 0;
    for (size_t i = 0; i < res.n_runs; i++) {
        const store_run_summary *r = &back.runs[i];
        const store_run_summary *kept = &w.runs[i];
        assert_int_equal(kept->id, r->id);
        assert_string_equal(kept->model, r->model);
        assert_string_equal(kept->gpu, r->gpu);
        assert_int_equal(kept->gpu_inferred, r->gpu_inferred);
        uint32_t want[] = {r->world, r->dp, r->dcp, r->mtp, r->max_bs};
        uint32_t got[] = {kept->world, kept->dp, kept->dcp, kept->mtp, kept->max_bs};
        assert_memory_equal(got, want, sizeof want);
        assert_true(same_gib(kept->target_total_gib, r->target_total_gib));
        assert_true(same_gib(kept->draft_gib, r->draft_gib));
        assert_true(same_gib(kept->total_gib, r->total_gib));
        assert_true(same_gib(kept->largest_gib, r->largest_gib));
        assert_ptr_equal(store_run_calibration_exclusion(kept), store_run_calibration_exclusion(r));
        with_gpu += r->gpu[0] != 0;
        with_total += !isnan(r->total_gib);
    }
    assert_true(with_gpu > 0 && with_total > 0);
    free(w.ids);
    free(w.lines);
    free(w.runs);
    free(back.runs);
    int64_t last = (res.first_run_id + (int64_t)res.n_runs - 1);
    store_ingest_free(in);

    /* the newest run deleted: the next file's first id is still past it */
    assert_int_equal(store_delete_run(s, last, err, sizeof err), 0);
    assert_int_equal(ingest_text(s, part, part_len, 4096, "h200", &res, &in), 0);
    assert_int_equal(res.first_run_id, last + 1);
    store_ingest_free(in);
    store_close(s);
    sqlite3_close(db);
    free(text);
    free(part);
}

/* ---- records (schema 5): a run's knobs and detail, one BLOB each ---- */

static void assert_same_real(double want, double got)
{
    if (isnan(want))
        assert_true(isnan(got));
    else
        assert_memory_equal(&want, &got, sizeof want); /* bit for bit: -0.0, 0.1 + 0.2 */
}

/* Every group, bar, rank and env column survives a record, set or NULL (texts NULL read back
 * "", POS 0, NONNEG -1, reals NaN, as a column does); an older record (fewer values) reads the
 * rest as NULL, a newer one's extra values are skipped. */
static void test_record_round_trip(void **state)
{
    (void)state;
    store_group_row full = {
        .ordinal = 3,
        .kind = "target verify",
        .role = "target",
        .phase = "decode",
        .step = 239,
        .rank_label = "DP1 TP3",
        .first_line = 4000000,
        .begin_avail_gib = 71.23,
        .tokens_per_req = 240,
        .sizes_are_num_tokens = true,
        .sizes = "192,184,8",
        .bar_total = 23,
        .captured = true,
        .has_begin = true,
        .has_end = true,
        .end_elapsed_s = 0.1 + 0.2,
        .end_usage_gib = -0.25,
        .end_avail_gib = 1e300,
        .failed = true,
        .failure = "CUDA out of memory",
        .static_gib = -0.0,
        .largest_gib = 10.24,
        .buckets_gib = 5e-324,
        .total_gib = -123456789.01,
        .registered_addresses = 8372,
    };
    store_group_row empty = {.ordinal = 0,
                             .step = -1,
                             .first_line = 0,
                             .begin_avail_gib = NAN,
                             .tokens_per_req = -1,
                             .bar_total = 0,
                             .end_elapsed_s = NAN,
                             .end_usage_gib = NAN,
                             .end_avail_gib = NAN,
                             .static_gib = NAN,
                             .largest_gib = NAN,
                             .buckets_gib = NAN,
                             .total_gib = NAN,
                             .registered_addresses = -1};
    store_bar_row bar = {
        .ordinal = 255, .size = 65536, .position = 0, .counter = 239, .avail_gib = 0.01, .increment_gib = 1.0 / 3};
    store_rank_row rank = {.ordinal = 1,
                           .label = "TP1",
                           .tp = -7,
                           .weights_begin_avail_gib = 80,
                           .kv_tokens = INT64_MAX,
                           .kv_gib = 34.6,
                           .state_gib = NAN,
                           .weights_end_avail_gib = NAN,
                           .weights_usage_gib = NAN,
                           .pool_avail_gib = NAN,
                           .max_total_num_tokens = -1,
                           .available_gpu_mem_gib = NAN};
    store_env_row env = {.ordinal = 0, .key = "SGLANG_X", .value = ""};
    store_knob_row knob = {.knob = "max_bs", .value = "1,2,4", .origin = "log"};
    store_record r = {0};
    store_record_begin(&r);
    store_record_count(&r, 2);
    store_record_row(&r, &store_groups_table, &full);
    store_record_count(&r, 1);
    store_record_row(&r, &store_bars_table, &bar);
    store_record_row(&r, &store_groups_table, &empty);
    store_record_count(&r, 0);
    store_record_row(&r, &store_ranks_table, &rank);
    store_record_row(&r, &store_env_table, &env);
    store_record_row(&r, &store_knob_rows_table, &knob);
    assert_false(r.failed);

    store_record_reader rd;
    uint64_t n;
    store_group_row g;
    store_bar_row b;
    store_rank_row k;
    store_env_row e;
    store_knob_row kn;
    assert_true(store_record_open(&rd, (store_bytes){r.p, r.len}));
    assert_true(store_record_get_count(&rd, &n));
    assert_int_equal(n, 2);
    assert_true(store_record_get_row(&rd, &store_groups_table, &g));
    assert_int_equal(g.ordinal, 3);
    assert_string_equal(g.kind, "target verify");
    assert_string_equal(g.role, "target");
    assert_string_equal(g.phase, "decode");
    assert_int_equal(g.step, 239);
    assert_string_equal(g.rank_label, "DP1 TP3");
    assert_int_equal(g.first_line, 4000000);
    assert_int_equal(g.tokens_per_req, 240);
    assert_true(g.sizes_are_num_tokens && g.captured && g.has_begin && g.has_end && g.failed);
    assert_string_equal(g.sizes, "192,184,8");
    assert_int_equal(g.bar_total, 23);
    assert_string_equal(g.failure, "CUDA out of memory");
    const double *want = &full.begin_avail_gib, *got = &g.begin_avail_gib;
    assert_same_real(*want, *got);
    assert_same_real(full.end_elapsed_s, g.end_elapsed_s);
    assert_same_real(full.end_usage_gib, g.end_usage_gib);
    assert_same_real(full.end_avail_gib, g.end_avail_gib);
    assert_same_real(full.static_gib, g.static_gib);
    assert_same_real(full.largest_gib, g.largest_gib);
    assert_same_real(full.buckets_gib, g.buckets_gib);
    assert_same_real(full.total_gib, g.total_gib);
    assert_int_equal(g.registered_addresses, 8372);
    assert_true(store_record_get_count(&rd, &n));
    assert_int_equal(n, 1);
    assert_true(store_record_get_row(&rd, &store_bars_table, &b));
    assert_int_equal(b.ordinal, 255);
    assert_int_equal(b.size, 65536);
    assert_int_equal(b.position, 0);
    assert_int_equal(b.counter, 239);
    assert_same_real(bar.avail_gib, b.avail_gib);
    assert_same_real(bar.increment_gib, b.increment_gib);
    assert_true(store_record_get_row(&rd, &store_groups_table, &g));
    assert_string_equal(g.kind, "");
    assert_string_equal(g.sizes, "");
    assert_string_equal(g.failure, "");
    assert_int_equal(g.step, -1);
    assert_int_equal(g.tokens_per_req, -1);
    assert_int_equal(g.first_line, 0);
    assert_int_equal(g.bar_total, 0);
    assert_false(g.captured || g.failed || g.sizes_are_num_tokens);
    assert_true(isnan(g.begin_avail_gib) && isnan(g.total_gib) && isnan(g.end_elapsed_s));
    assert_int_equal(g.registered_addresses, -1);
    assert_true(store_record_get_count(&rd, &n));
    assert_int_equal(n, 0);
    assert_true(store_record_get_row(&rd, &store_ranks_table, &k));
    assert_string_equal(k.label, "TP1");
    assert_int_equal(k.tp, -7);
    assert_int_equal(k.kv_tokens, INT64_MAX);
    assert_int_equal(k.max_total_num_tokens, -1);
    assert_same_real(34.6, k.kv_gib);
    assert_same_real(80, k.weights_begin_avail_gib);
    assert_true(isnan(k.state_gib) && isnan(k.available_gpu_mem_gib));
    assert_true(store_record_get_row(&rd, &store_env_table, &e));
    assert_string_equal(e.key, "SGLANG_X");
    assert_string_equal(e.value, ""); /* a KEY column keeps "" */
    assert_true(store_record_get_row(&rd, &store_knob_rows_table, &kn));
    assert_string_equal(kn.knob, "max_bs");
    assert_string_equal(kn.value, "1,2,4");
    assert_string_equal(kn.origin, "log");
    assert_true(store_record_done(&rd));

    /* cut anywhere, the record is refused, never read past (ASan watches) */
    for (size_t cut = 1; cut < r.len; cut++) {
        unsigned char *part = malloc(cut);
        memcpy(part, r.p, cut);
        store_record_open(&rd, (store_bytes){part, cut});
        bool ok = store_record_get_count(&rd, &n);
        for (uint64_t i = 0; ok && i < n; i++) {
            uint64_t nb = 0;
            ok = store_record_get_row(&rd, &store_groups_table, &g) && store_record_get_count(&rd, &nb);
            for (uint64_t j = 0; ok && j < nb; j++)
                ok = store_record_get_row(&rd, &store_bars_table, &b);
        }
        ok = ok && store_record_get_count(&rd, &n) && store_record_get_row(&rd, &store_ranks_table, &k) &&
             store_record_get_row(&rd, &store_env_table, &e) && store_record_get_row(&rd, &store_knob_rows_table, &kn);
        assert_false(ok && store_record_done(&rd));
        free(part);
    }
    /* any byte changed: decoded or refused, never a crash */
    for (size_t at = 0; at < r.len; at++)
        for (int bit = 0; bit < 8; bit++) {
            r.p[at] ^= (unsigned char)(1 << bit);
            store_record_open(&rd, (store_bytes){r.p, r.len});
            store_record_get_count(&rd, &n);
            for (uint64_t i = 0; i < n && !rd.bad; i++) {
                uint64_t nb = 0;
                store_record_get_row(&rd, &store_groups_table, &g);
                store_record_get_count(&rd, &nb);
                for (uint64_t j = 0; j < nb && !rd.bad; j++)
                    store_record_get_row(&rd, &store_bars_table, &b);
            }
            store_record_done(&rd);
            r.p[at] ^= (unsigned char)(1 << bit);
        }
    store_record_free(&r);

    /* a group an older cgplan wrote, before registered_addresses was appended: it reads as not
     * logged, and the values before it as they were */
    store_table before_registered = store_groups_table;
    before_registered.n_cols--;
    assert_string_equal(store_groups_table.cols[before_registered.n_cols].name, "registered_addresses");
    store_record_begin(&r);
    store_record_row(&r, &before_registered, &full);
    assert_true(store_record_open(&rd, (store_bytes){r.p, r.len}));
    g.registered_addresses = 0;
    assert_true(store_record_get_row(&rd, &store_groups_table, &g));
    assert_true(store_record_done(&rd));
    assert_int_equal(g.registered_addresses, -1);
    assert_same_real(full.total_gib, g.total_gib);
    assert_string_equal(g.failure, "CUDA out of memory");
    store_record_free(&r);

    /* an older cgplan's env row (ordinal only) and a newer one's (a fourth value) */
    static const unsigned char older[] = {STORE_RECORD_VERSION, 1, 16 + 4};
    assert_true(store_record_open(&rd, (store_bytes){older, sizeof older}));
    assert_true(store_record_get_row(&rd, &store_env_table, &e));
    assert_int_equal(e.ordinal, 4);
    assert_string_equal(e.key, "");
    assert_true(store_record_done(&rd));
    static const unsigned char newer[] = {STORE_RECORD_VERSION, 4, 16 + 1, 4, 2, 'k', 0, 0, 1, 0x80, 0x01};
    assert_true(store_record_open(&rd, (store_bytes){newer, sizeof newer}));
    assert_true(store_record_get_row(&rd, &store_env_table, &e));
    assert_int_equal(e.ordinal, 1);
    assert_string_equal(e.key, "k");
    assert_string_equal(e.value, "");
    assert_true(store_record_done(&rd));
    /* a text without its NUL, a type its column does not take, another version: refused */
    static const unsigned char no_nul[] = {STORE_RECORD_VERSION, 3, 16, 4, 1, 'k', 0};
    assert_true(store_record_open(&rd, (store_bytes){no_nul, sizeof no_nul}));
    assert_false(store_record_get_row(&rd, &store_env_table, &e));
    static const unsigned char wrong_type[] = {STORE_RECORD_VERSION, 1, 4, 2, 'k', 0};
    assert_true(store_record_open(&rd, (store_bytes){wrong_type, sizeof wrong_type}));
    assert_false(store_record_get_row(&rd, &store_env_table, &e));
    static const unsigned char other_version[] = {STORE_RECORD_VERSION + 1, 0};
    assert_false(store_record_open(&rd, (store_bytes){other_version, sizeof other_version}));
}

/* A damaged record in the store: the run's readers fail with a message naming it and the fix;
 * the other runs still read. */
static void test_damaged_record_named(void **state)
{
    (void)state;
    const char *path = tmp_path("damaged.db");
    store *s = open_seeded(path, STORE_READ_WRITE);
    assert_non_null(s);
    store_close(s);
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    /* run 1's knobs are its own text (runs share a run_texts row when theirs are the same) */
    exec_ok(db, "UPDATE runs SET detail = substr(detail, 1, 40) WHERE id = 2; "
                "INSERT INTO run_texts (body) VALUES (X'01FF'); "
                "UPDATE runs SET knobs_text = last_insert_rowid() WHERE id = 1");
    sqlite3_close(db);
    s = open_seeded(path, STORE_READ_WRITE);
    assert_non_null(s);
    store_group_info groups[8];
    size_t ng;
    assert_int_equal(store_get_run_parts(s, 2, groups, 8, &ng, NULL, 0, NULL, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, "run 2: its stored groups, ranks and environment lines are damaged"));
    assert_non_null(strstr(err, "cgplan runs rm 2"));
    static store_run_detail d;
    assert_int_equal(store_get_run(s, 2, &d, err, sizeof err), 0); /* its knobs are whole */
    assert_int_equal(store_get_run(s, 1, &d, err, sizeof err), -1);
    assert_non_null(strstr(err, "run 1: its stored knobs are damaged"));
    store_run_summary runs[4];
    size_t n;
    /* the list goes on past a damaged run, marked, and calibration leaves it out */
    assert_int_equal(store_list_runs(s, runs, 4, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(runs[0].id, 2);
    assert_false(runs[0].damaged);
    assert_int_equal(runs[1].id, 1);
    assert_true(runs[1].damaged);
    assert_int_equal(runs[1].max_bs, 0); /* its knobs unknown, not half-read */
    assert_non_null(strstr(store_run_calibration_exclusion(&runs[1]), "record damaged"));
    assert_int_equal(store_delete_run(s, 1, err, sizeof err), 0);
    assert_int_equal(store_list_runs(s, runs, 4, &n, err, sizeof err), 0);
    assert_int_equal(n, 1);
    store_close(s);
}

/* While a file is being read (a pipe, a slow disk) other writers go on: the lock is not held. */
static void test_ingest_reading_holds_no_lock(void **state)
{
    (void)state;
    setenv("CGPLAN_BUSY_TIMEOUT_MS", "100", 1); /* a held lock would fail the writer below at once */
    const char *path = tmp_path("reading.db");
    store *s = open_seeded(path, STORE_READ_WRITE);
    assert_non_null(s);
    size_t len;
    char *text = read_file(DP2_LOG, &len);
    text[0] = '!'; /* not the seeded copy */
    static const engine_run_context nothing;
    store_ingest_opts o = {.source = "slow.log", .derive = &nothing};
    store_ingest *in = store_ingest_begin(s, &o, err, sizeof err);
    assert_non_null(in);
    assert_int_equal(store_ingest_feed(in, text, len / 2, err, sizeof err), 0);

    store *other = store_open(path, STORE_READ_WRITE, err, sizeof err);
    assert_non_null(other);
    assert_int_equal(store_delete_run(other, 1, err, sizeof err), 0);
    engine_calibration cal = {0};
    assert_int_equal(store_save_calibration(other, "kimi-k3", "b200", NULL, &cal, 0, "r", err, sizeof err), 0);
    store_close(other);

    assert_int_equal(store_ingest_feed(in, text + len / 2, len - len / 2, err, sizeof err), 0);
    store_ingest_result res;
    assert_int_equal(store_ingest_finish(in, &res, err, sizeof err), 0);
    assert_int_equal(res.n_runs, 1);
    assert_int_equal(res.first_run_id, 3);
    store_ingest_free(in);
    store_close(s);
    free(text);
    unsetenv("CGPLAN_BUSY_TIMEOUT_MS");
}

/* Another process holds a write transaction: ingest waits its timeout, then fails saying why
 * and what to do, having written nothing; a stored copy is still reported (no lock needed);
 * a holder that finishes within the timeout is waited for. */
static void test_ingest_waits_for_the_lock(void **state)
{
    (void)state;
    const char *path = tmp_path("locked.db");
    store_close(open_seeded(path, STORE_READ_WRITE));
    size_t len;
    char *text = read_file(DP2_LOG, &len);

    sqlite3 *holder;
    assert_int_equal(sqlite3_open(path, &holder), SQLITE_OK);
    assert_int_equal(sqlite3_exec(holder, "BEGIN IMMEDIATE; DELETE FROM runs", NULL, NULL, NULL), SQLITE_OK);

    setenv("CGPLAN_BUSY_TIMEOUT_MS", "300", 1);
    store *s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    store_ingest_result res;
    store_ingest *in;
    double t0 = now_s();
    assert_int_equal(ingest_text(s, text, len, 4096, NULL, &res, &in), 0); /* the seeded copy */
    assert_int_equal(res.duplicate_of, 2);
    assert_true(now_s() - t0 < 0.25);
    store_ingest_free(in);

    text[0] = '!';
    t0 = now_s();
    assert_int_equal(ingest_text(s, text, len, 4096, NULL, &res, &in), -1);
    double waited = now_s() - t0;
    store_ingest_free(in);
    assert_true(waited >= 0.29);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "write lock"));
    assert_non_null(strstr(err, "0.3 s"));
    assert_non_null(strstr(err, "try again when it is done"));
    assert_non_null(strstr(err, "CGPLAN_BUSY_TIMEOUT_MS"));
    assert_non_null(strstr(err, "nothing of this file was stored"));
    store_close(s);
    assert_int_equal(sqlite3_exec(holder, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(holder);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM runs"), 2);

    /* a holder that commits after 0.4 s, within the 5 s waited */
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        sqlite3 *db;
        int ok = sqlite3_open(path, &db) == SQLITE_OK &&
                 sqlite3_exec(db, "BEGIN IMMEDIATE; UPDATE runs SET label = label", NULL, NULL, NULL) == SQLITE_OK;
        ssize_t w = write(ready[1], ok ? "1" : "0", 1);
        struct timespec nap = {0, 400 * 1000 * 1000};
        nanosleep(&nap, NULL);
        ok = ok && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) == SQLITE_OK;
        sqlite3_close(db);
        _exit(ok && w == 1 ? 0 : 1);
    }
    char c = 0;
    assert_int_equal(read(ready[0], &c, 1), 1);
    assert_int_equal(c, '1');
    setenv("CGPLAN_BUSY_TIMEOUT_MS", "5000", 1);
    s = store_open(path, STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    t0 = now_s();
    assert_int_equal(ingest_text(s, text, len, 4096, NULL, &res, &in), 0);
    assert_true(now_s() - t0 >= 0.2);
    assert_int_equal(res.n_runs, 1);
    store_ingest_free(in);
    store_close(s);
    int status;
    assert_int_equal(waitpid(child, &status, 0), child);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    close(ready[0]);
    close(ready[1]);
    assert_int_equal(sql_int(path, "SELECT count(*) FROM runs"), 3);
    unsetenv("CGPLAN_BUSY_TIMEOUT_MS");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),
        cmocka_unit_test(test_sha256_accelerated_matches_portable),
        cmocka_unit_test(test_content_hash),
        cmocka_unit_test(test_seed_and_schema_match_files),
        cmocka_unit_test(test_new_store_is_seeded),
        cmocka_unit_test(test_ingest_dedup_delete),
        cmocka_unit_test(test_ingest_registered_addresses),
        cmocka_unit_test(test_ingest_finds_older_runs_by_sha256),
        cmocka_unit_test(test_knob_values_kept_as_stated),
        cmocka_unit_test(test_migrate_v1),
        cmocka_unit_test(test_calibration_roundtrip),
        cmocka_unit_test(test_migrate_v2_calibrations),
        cmocka_unit_test(test_migrate_v7_node_calibrations),
        cmocka_unit_test(test_set_run_model),
        cmocka_unit_test(test_set_run_knobs),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_ingest_spill_same_rows),
        cmocka_unit_test(test_ingest_kept_values_exact),
        cmocka_unit_test(test_ingest_batched_ids_and_report),
        cmocka_unit_test(test_record_round_trip),
        cmocka_unit_test(test_damaged_record_named),
        cmocka_unit_test(test_ingest_texts_kept_once),
        cmocka_unit_test(test_damaged_knob_error_is_one_line),
        cmocka_unit_test(test_ingest_reading_holds_no_lock),
        cmocka_unit_test(test_ingest_waits_for_the_lock),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
