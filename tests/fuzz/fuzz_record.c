/* fuzz_record.c — the store's record decoding (db/store_row.c's reader, db/store.c
 * store_read_detail and store_read_knobs: what `runs show`, `runs ls` and calibrate read from a
 * run's runs.detail and knobs BLOBs). Two valid records are encoded at start-up by the ingest's
 * own encoder (store_record_*): k3-dp16's stored knobs the way ingest writes them, and a run's
 * detail of three groups with their bars, two ranks and its env lines. The first byte picks the
 * record (bit 0) and whether the rest of the input is the record itself (bit 1); else the rest
 * is edits to the valid one, three bytes each (cut, flip a bit, set, insert or delete a byte, at
 * a position). A record decodes to an error (one line, naming the run) or to values within what
 * the encoder writes: every knob its own range and reading back from its canonical text, the
 * groups and ranks within their room, the target flag the target ordinal's. An unedited record
 * decodes to exactly what was encoded. */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "preset.h"
#include "run_derive.h"
#include "store_internal.h"

#define GROUPS 3
#define RANKS 2

static store fake = {.path = "fuzz.db"}; /* the decoders name the store in their errors only */
static store_record knobs_rec, detail_rec;
static engine_deployment want_values;
static engine_knob_origin want_origin[KNOB_COUNT];

static void encode_detail(store_record *d)
{
    static const char *const kinds[GROUPS] = {"decode", "", "draft_decode"};
    store_record_begin(d);
    store_record_count(d, GROUPS);
    for (int g = 0; g < GROUPS; g++) {
        store_group_row gr = {.ordinal = g,
                              .kind = kinds[g],
                              .role = g == 2 ? "draft" : "target",
                              .phase = "decode",
                              .step = g - 1,
                              .rank_label = "TP0",
                              .first_line = 100 * g + 1,
                              .begin_avail_gib = 71.23,
                              .tokens_per_req = g == 1 ? -1 : 4,
                              .sizes = "512,256,128,64,8,4,2,1",
                              .bar_total = 8,
                              .captured = true,
                              .has_begin = true,
                              .has_end = g != 1,
                              .end_elapsed_s = 12.5,
                              .end_usage_gib = 1.25,
                              .end_avail_gib = 69.98,
                              .failed = g == 2,
                              .failure = g == 2 ? "CUDA out of memory" : NULL,
                              .static_gib = 0.31,
                              .largest_gib = 0.52,
                              .buckets_gib = 0.42,
                              .total_gib = 1.25,
                              .registered_addresses = g == 0 ? 3712 : -1};
        store_record_row(d, &store_groups_table, &gr);
        store_record_count(d, 8);
        for (int b = 0; b < 8; b++) {
            store_bar_row br = {.ordinal = b,
                                .size = 512 >> b,
                                .position = b + 1,
                                .counter = 8,
                                .avail_gib = 71.0 - 0.07 * b,
                                .increment_gib = 0.1 / (b + 1)};
            store_record_row(d, &store_bars_table, &br);
        }
    }
    store_record_count(d, RANKS);
    for (int r = 0; r < RANKS; r++) {
        store_rank_row rr = {.ordinal = r,
                             .label = r ? "TP1" : "TP0",
                             .tp = r,
                             .weights_begin_avail_gib = 139.5,
                             .weights_end_avail_gib = 80.1,
                             .weights_usage_gib = 59.4,
                             .kv_tokens = 1234567,
                             .kv_gib = 40.0,
                             .state_gib = NAN,
                             .pool_avail_gib = 20.5,
                             .max_total_num_tokens = 1234567,
                             .available_gpu_mem_gib = 19.75};
        store_record_row(d, &store_ranks_table, &rr);
    }
    store_env_row env[] = {{.ordinal = 0, .key = "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK", .value = "128"},
                           {.ordinal = 1, .key = "NCCL_DEBUG", .value = ""}};
    store_record_count(d, 2);
    for (int e = 0; e < 2; e++)
        store_record_row(d, &store_env_table, &env[e]);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    setenv("CGPLAN_PRESETS", "/nonexistent/cgplan-fuzz", 1); /* the built-ins only */
    preset_catalog *cat = preset_catalog_open();
    char err[1024];
    static engine_deployment d;
    FUZZ_CHECK(cat && preset_load_deployment(cat, "k3-dp16", &d, err, sizeof err) == 0, "k3-dp16: %s", err);
    preset_catalog_free(cat);
    /* the knobs record as ingest writes it (store_ingest.c): each row knob with an origin */
    static char texts[KNOB_COUNT][ENGINE_TEXT_MAX * 4];
    uint64_t n = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        n += engine_knobs[k].store == KNOB_STORE_ROW;
    store_record_begin(&knobs_rec);
    store_record_count(&knobs_rec, n);
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (engine_knobs[k].store != KNOB_STORE_ROW)
            continue;
        engine_knob_text(&d, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, texts[k], sizeof texts[k]);
        engine_knob_origin o = (engine_knob_origin)(ORIGIN_LOG + k % (ORIGIN_COUNT - 1));
        store_knob_row kr = {engine_knobs[k].name, texts[k], engine_origin_name(o)};
        store_record_row(&knobs_rec, &store_knob_rows_table, &kr);
    }
    encode_detail(&detail_rec);
    FUZZ_CHECK(!knobs_rec.failed && !detail_rec.failed, "out of memory encoding");
    store_run_row row = {.id = 7, .knobs = {knobs_rec.p, knobs_rec.len}};
    FUZZ_CHECK(store_read_knobs(&fake, &row, &want_values, want_origin, err, sizeof err) == 0, "%s", err);
    for (int k = 0; k < KNOB_COUNT; k++)
        if (engine_knobs[k].store == KNOB_STORE_ROW)
            FUZZ_CHECK(engine_knob_equal(&want_values, &d, (engine_knob_id)k) && want_origin[k] != ORIGIN_UNKNOWN,
                       "knob %s does not decode to what was encoded", engine_knobs[k].name);
    return 0;
}

/* Applies the edits in [P, END) to a copy of REC, into BUF (of CAP bytes); returns its length. */
static size_t edit(const store_record *rec, const uint8_t *p, const uint8_t *end, uint8_t *buf, size_t cap)
{
    size_t len = rec->len;
    memcpy(buf, rec->p, len);
    for (; end - p >= 3; p += 3) {
        size_t at = len ? (size_t)(p[1] | p[2] << 8) % len : 0;
        switch (p[0] % 6) {
        case 0:
            len = at;
            break; /* cut */
        case 1:
            if (len)
                buf[at] ^= (uint8_t)(1u << (p[2] >> 5));
            break; /* flip a bit */
        case 2:
            if (len)
                buf[at] = p[2];
            break; /* set a byte */
        case 3:    /* insert a byte */
            if (len < cap) {
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = p[2];
                len++;
            }
            break;
        case 4: /* delete a byte */
            if (len) {
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
            }
            break;
        default:
            if (len)
                buf[at] = (uint8_t)(buf[at] + 1);
            break; /* a varint or count one larger */
        }
    }
    return len;
}

static void check_knobs(const uint8_t *rec, size_t len, bool pristine)
{
    static engine_deployment values, again;
    engine_knob_origin origin[KNOB_COUNT];
    char err[ENGINE_TEXT_MAX * 2] = "";
    /* a copy of exactly its bytes: a read past the record is a sanitizer report */
    uint8_t *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy, "out of memory");
    memcpy(copy, rec, len);
    store_run_row row = {.id = 7, .knobs = {copy, len}};
    int rc = store_read_knobs(&fake, &row, &values, origin, err, sizeof err);
    if (rc != 0) {
        FUZZ_CHECK(!pristine, "the encoder's own record is refused: %s", err);
        FUZZ_CHECK(rc == -1 && err[0] && !strchr(err, '\n') && strstr(err, "run 7"), "a refusal: '%s'", err);
        free(copy);
        return;
    }
    for (int k = 0; k < KNOB_COUNT; k++) {
        const engine_knob_info *ki = &engine_knobs[k];
        FUZZ_CHECK(origin[k] >= ORIGIN_UNKNOWN && origin[k] < ORIGIN_COUNT, "%s: origin %d", ki->name, (int)origin[k]);
        if (pristine)
            FUZZ_CHECK(engine_knob_equal(&values, &want_values, (engine_knob_id)k) && origin[k] == want_origin[k],
                       "the encoder's own record decodes %s to another value", ki->name);
        if (origin[k] == ORIGIN_UNKNOWN)
            continue;
        char text[ENGINE_TEXT_MAX * 4], why[ENGINE_TEXT_MAX];
        engine_knob_text(&values, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, text, sizeof text);
        memset(&again, 0, sizeof again);
        FUZZ_CHECK(engine_run_knob_set_text(&again, (engine_knob_id)k, text, why, sizeof why) == 0,
                   "%s: decoded, but its text '%s' does not read back: %s", ki->name, text, why);
        FUZZ_CHECK(engine_knob_equal(&values, &again, (engine_knob_id)k), "%s: '%s' reads back to another value",
                   ki->name, text);
    }
    free(copy);
}

static void check_detail(const uint8_t *rec, size_t len, bool pristine, unsigned room)
{
    static store_group_info groups[GROUPS + 2];
    static store_rank_info ranks[RANKS + 2];
    static store_run_extra extra;
    size_t cap = room % (GROUPS + 3), rcap = room / 8 % (RANKS + 3), n_groups = 99, n_ranks = 99;
    if (pristine)
        cap = GROUPS, rcap = RANKS;
    memset(&extra, 0, sizeof extra);
    char err[ENGINE_TEXT_MAX * 2] = "";
    uint8_t *copy = malloc(len ? len : 1);
    FUZZ_CHECK(copy, "out of memory");
    memcpy(copy, rec, len);
    int rc = store_read_detail(&fake, 7, (store_bytes){copy, len}, 1, groups, cap, &n_groups, ranks, rcap, &n_ranks,
                               &extra, err, sizeof err);
    free(copy);
    FUZZ_CHECK(n_groups <= cap && n_ranks <= rcap, "%zu groups in %zu, %zu ranks in %zu", n_groups, cap, n_ranks, rcap);
    FUZZ_CHECK(memchr(extra.env_dispatch, '\0', sizeof extra.env_dispatch), "env_dispatch is not a string");
    if (rc != 0) {
        FUZZ_CHECK(!pristine, "the encoder's own record is refused: %s", err);
        FUZZ_CHECK(rc == -1 && err[0] && !strchr(err, '\n') && strstr(err, "run 7"), "a refusal: '%s'", err);
        return;
    }
    for (size_t g = 0; g < n_groups; g++) {
        const store_group_info *gi = &groups[g];
        FUZZ_CHECK(gi->is_target == (gi->ordinal == 1), "group %zu: ordinal %d, is_target %d", g, gi->ordinal,
                   gi->is_target);
        FUZZ_CHECK(memchr(gi->kind, '\0', sizeof gi->kind) && memchr(gi->failure, '\0', sizeof gi->failure) &&
                       memchr(gi->rank, '\0', sizeof gi->rank),
                   "group %zu: a text is not a string", g);
        FUZZ_CHECK(gi->n_sizes <= len, "group %zu: %u sizes in a record of %zu bytes", g, gi->n_sizes, len);
        if (pristine)
            FUZZ_CHECK(gi->ordinal == (int)g && gi->n_bars == 8 && gi->n_sizes == 8 && gi->first_size == 512 &&
                           gi->failed == (g == 2) && gi->begin_avail_gib == 71.23 && gi->total_gib == 1.25 &&
                           gi->registered_addresses == (g == 0 ? 3712 : -1),
                       "the encoder's own group %zu decodes to other values", g);
    }
    if (pristine) {
        FUZZ_CHECK(n_groups == GROUPS && n_ranks == RANKS && strcmp(extra.env_dispatch, "128") == 0 &&
                       strcmp(ranks[1].label, "TP1") == 0 && ranks[0].kv_tokens == 1234567 &&
                       ranks[0].state_gib != ranks[0].state_gib,
                   "the encoder's own detail decodes to other values");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 8192)
        return 0;
    static uint8_t buf[16384];
    bool detail = data[0] & 1, raw = data[0] & 2;
    const store_record *rec = detail ? &detail_rec : &knobs_rec;
    size_t len;
    if (raw) {
        len = size - 1;
        memcpy(buf, data + 1, len);
    } else {
        len = edit(rec, data + 1, data + size, buf, sizeof buf);
    }
    bool pristine = len == rec->len && memcmp(buf, rec->p, len) == 0;
    if (detail)
        check_detail(buf, len, pristine, data[0] >> 2);
    else
        check_knobs(buf, len, pristine);
    return 0;
}
