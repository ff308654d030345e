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
#include <sys/stat.h>
#include <unistd.h>

#include "seed_logs.h"
#include "sha256.h"
#include "store.h"
#include "store_internal.h"

#define DP2_LOG CGPLAN_FIXTURES "/sglang-logs/k3-dp2-dcp8-b200-article.log"
#define SCHEMA_SQL CGPLAN_FIXTURES "/../../db/schema.sql"

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

/* ---- SHA-256 (FIPS 180-4 examples) ---- */

static void test_sha256_vectors(void **state)
{
    (void)state;
    char hex[65];
    store_sha256 c;
    store_sha256_init(&c);
    store_sha256_final_hex(&c, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    store_sha256_init(&c);
    store_sha256_update(&c, "abc", 3);
    store_sha256_final_hex(&c, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    store_sha256_init(&c);
    for (const char *p = two; *p; p++) /* byte by byte: chunking must not matter */
        store_sha256_update(&c, p, 1);
    store_sha256_final_hex(&c, hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    static char million[1000000];
    memset(million, 'a', sizeof million);
    store_sha256_init(&c);
    store_sha256_update(&c, million, 333333);
    store_sha256_update(&c, million + 333333, sizeof million - 333333);
    store_sha256_final_hex(&c, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
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
    assert_string_equal(store_schema_v1, schema);
    free(schema);
}

/* ---- a new store ---- */

static void test_new_store_is_seeded(void **state)
{
    (void)state;
    const char *path = tmp_path("new/deeper/runs.db");
    assert_null(store_open(path, STORE_READ_ONLY, err, sizeof err)); /* read-only never creates */
    assert_non_null(strstr(err, "does not exist"));
    store *s = store_open(path, STORE_READ_WRITE, err, sizeof err);
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
    assert_false(d.knobs.buckets_auto);
    assert_int_equal(d.knobs.n_buckets, 23);
    assert_int_equal(d.knobs.buckets[0], 16); /* ascending */
    assert_int_equal(d.knobs.buckets[22], 192);
    assert_int_equal(d.knobs.context_len, 1048576);
    assert_float_equal(d.knobs.mem_fraction_static, 0.874, 1e-9);
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
    s = store_open(path, STORE_READ_ONLY, err, sizeof err);
    assert_non_null(s);
    assert_int_equal(store_list_runs(s, runs, 8, &n, err, sizeof err), 0);
    assert_int_equal(n, 2);
    assert_int_equal(store_delete_run(s, 1, err, sizeof err), -1); /* read-only */
    store_close(s);
}

/* ---- ingest ---- */

static int ingest_text(store *s, const char *text, size_t len, size_t chunk, const char *preset_gpu,
                       store_ingest_result *res, store_ingest **keep)
{
    static engine_deployment given;
    store_ingest_opts o = {.source = "test.log", .catalog = NULL};
    if (preset_gpu) {
        engine_deployment_defaults(&given);
        snprintf(given.gpu.name, sizeof given.gpu.name, "%s", preset_gpu);
        o.given = &given;
        o.given_origin[KNOB_GPU] = ORIGIN_SET;
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
    store *s = store_open(tmp_path("ingest.db"), STORE_READ_WRITE, err, sizeof err);
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
    assert_int_equal(res.run_ids[0], 3);
    assert_int_equal(res.first_lines[0], 2);
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
    assert_int_equal(strlen(extra.sha256), 64);

    /* ids are never reused; the cascade removes groups and bars */
    assert_int_equal(store_delete_run(s, 3, err, sizeof err), 0);
    assert_int_equal(store_delete_run(s, 3, err, sizeof err), 1);
    assert_int_equal(store_get_run_parts(s, 3, groups, 8, &ng, NULL, 0, NULL, NULL, err, sizeof err), 1);
    assert_int_equal(ingest_text(s, copy, len + (size_t)head, 4096, NULL, &res, &in), 0);
    assert_int_equal(res.run_ids[0], 4);
    store_ingest_free(in);

    /* nothing recognisable: rolled back, reported */
    const char *vllm = "INFO 05-01 10:00:00 vLLM API server version 0.8.5\nnothing else\n";
    assert_int_equal(ingest_text(s, vllm, strlen(vllm), 64, NULL, &res, &in), 1);
    assert_false(res.recognised);
    store_ingest_free(in);

    /* abandoned midway (a failure or a kill): nothing of it remains */
    copy[1] = '!';
    store_ingest_opts o = {.source = "half.log"};
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

static void test_calibration_roundtrip(void **state)
{
    (void)state;
    store *s = store_open(tmp_path("cal.db"), STORE_READ_WRITE, err, sizeof err);
    assert_non_null(s);
    engine_calibration cal = {0}, back;
    assert_false(store_load_calibration(s, "kimi-k3", "b200", &back));
    cal.has[COEF_LAZY_BYTES] = true;
    cal.value[COEF_LAZY_BYTES] = 794000357;
    cal.has[COEF_GRAPH_BYTES] = true;
    cal.value[COEF_GRAPH_BYTES] = 52706322;
    cal.n_runs = 2;
    cal.runs[0] = 1;
    cal.runs[1] = 2;
    assert_int_equal(store_save_calibration(s, "kimi-k3", "b200", &cal, "report", err, sizeof err), 0);
    cal.value[COEF_LAZY_BYTES] = 1;
    assert_int_equal(store_save_calibration(s, "kimi-k3", "b200", &cal, NULL, err, sizeof err), 0);
    assert_true(store_load_calibration(s, "kimi-k3", "b200", &back));
    assert_true(back.has[COEF_LAZY_BYTES]);
    assert_int_equal(back.value[COEF_LAZY_BYTES], 1); /* the newest */
    assert_false(back.has[COEF_ACT_BYTES_PER_ROW]);   /* NULL, not 0 */
    assert_int_equal(back.value[COEF_GRAPH_BYTES], 52706322);
    assert_int_equal(back.n_runs, 2);
    assert_int_equal(back.runs[1], 2);
    assert_false(store_load_calibration(s, "kimi-k3", "h200", &back));
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
    assert_int_equal(sqlite3_exec(db, "PRAGMA user_version = 7", NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
    assert_refused_untouched(tmp_path("newer.db"), "version 7, newer than this cgplan's 1");

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sha256_vectors),        cmocka_unit_test(test_seed_and_schema_match_files),
        cmocka_unit_test(test_new_store_is_seeded),   cmocka_unit_test(test_ingest_dedup_delete),
        cmocka_unit_test(test_calibration_roundtrip), cmocka_unit_test(test_refusals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
