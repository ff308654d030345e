/* test_caplog.c — the SGLang log parser against every fixture log, and its streaming rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <glob.h>

#include "caplog.h"
#include "caplog_json.h" /* cli/: its dry-run JSON is checked here byte for byte */

#define LOGS CGPLAN_FIXTURES "/sglang-logs/"

/* ---------------------------------------------------------------- helpers */

typedef struct {
    caplog_run *runs;
    size_t n;
    bool recognised;
} parsed;

static void collect(const caplog_run *run, void *ctx)
{
    parsed *out = ctx;
    caplog_run *grown = realloc(out->runs, (out->n + 1) * sizeof *grown);
    assert_non_null(grown);
    out->runs = grown;
    memcpy(&out->runs[out->n++], run, sizeof *run);
}

static void parsed_free(parsed *r)
{
    free(r->runs);
    memset(r, 0, sizeof *r);
}

/* Parses BUF fed in chunks of CHUNK bytes (0: all at once). */
static parsed parse_bytes(const char *buf, size_t len, size_t chunk)
{
    parsed out = {0};
    caplog_parser *p = caplog_new();
    assert_non_null(p);
    caplog_set_callback(p, collect, &out);
    if (!chunk)
        chunk = len ? len : 1;
    for (size_t off = 0; off < len; off += chunk)
        assert_int_equal(caplog_feed(p, buf + off, off + chunk <= len ? chunk : len - off), 0);
    assert_int_equal(caplog_finish(p), 0);
    assert_int_equal(caplog_feed(p, "x\n", 2), -1); /* nothing after finish */
    out.recognised = caplog_recognised(p);
    assert_int_equal(caplog_runs_emitted(p), out.n);
    caplog_free(p);
    return out;
}

/* N bytes at SRC, then CAPLOG_LEX_PAD bytes of 'x' (not a NUL: the lexer must not need one
 * there), in read-only pages that end where the pad does, before a page nothing may touch. */
typedef struct {
    char *map;
    size_t size;
} read_only_copy;

static const char *read_only_copy_of(read_only_copy *c, const char *src, size_t n)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), data = (n + CAPLOG_LEX_PAD + page - 1) / page * page;
    c->size = data + page;
    c->map = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(c->map != MAP_FAILED);
    char *copy = c->map + data - n - CAPLOG_LEX_PAD;
    memcpy(copy, src, n);
    memset(copy + n, 'x', CAPLOG_LEX_PAD);
    assert_int_equal(mprotect(c->map, data, PROT_READ), 0);
    assert_int_equal(mprotect(c->map + data, page, PROT_NONE), 0);
    return copy;
}

static void read_only_copy_free(read_only_copy *c)
{
    if (c->map)
        munmap(c->map, c->size);
}

/* parse_bytes through the two stages ingest runs on two threads: caplog_lex of each chunk (in as
 * many calls as its tokens take), caplog_apply of each token buffer, then caplog_lex_end's.
 * IN_PLACE: caplog_lex_in_place of a read-only copy of each chunk, CAPLOG_LEX_PAD bytes past it
 * readable and no more (a write, or a read past them, faults). DEFER: every other chunk's keys are
 * found by the applier (caplog_lexer_defer_marks), as ingest's reader does while it is the slower. */
static parsed parse_staged_as(const char *buf, size_t len, size_t chunk, uint64_t *lines_read, bool in_place,
                              bool defer)
{
    parsed out = {0};
    caplog_parser *p = caplog_new();
    caplog_lexer *lx = caplog_lexer_new();
    caplog_tokens *t = caplog_tokens_new();
    assert_non_null(p);
    assert_non_null(lx);
    assert_non_null(t);
    caplog_set_callback(p, collect, &out);
    if (!chunk)
        chunk = len ? len : 1;
    for (size_t off = 0; off < len; off += chunk) {
        size_t n = off + chunk <= len ? chunk : len - off;
        caplog_lexer_defer_marks(lx, defer && (off / chunk) % 2 == 0);
        read_only_copy ro = {0};
        const char *copy = in_place ? read_only_copy_of(&ro, buf + off, n) : NULL;
        for (size_t done = 0; done < n;) {
            size_t took = in_place ? caplog_lex_in_place(lx, copy + done, n - done, t)
                                   : caplog_lex(lx, buf + off + done, n - done, t);
            assert_true(took > 0);
            done += took;
            assert_int_equal(caplog_apply(p, t), 0);
        }
        read_only_copy_free(&ro);
    }
    caplog_lex_end(lx, t);
    assert_int_equal(caplog_apply(p, t), 0);
    assert_int_equal(caplog_finish(p), 0);
    assert_int_equal(caplog_apply(p, t), -1); /* nothing after finish */
    out.recognised = caplog_recognised(p);
    *lines_read = caplog_lines_read(p);
    assert_int_equal(caplog_runs_emitted(p), out.n);
    caplog_tokens_free(t);
    caplog_lexer_free(lx);
    caplog_free(p);
    return out;
}

static parsed parse_staged(const char *buf, size_t len, size_t chunk, uint64_t *lines_read)
{
    return parse_staged_as(buf, len, chunk, lines_read, false, false);
}

static char *slurp(const char *name, size_t *len)
{
    char path[512];
    snprintf(path, sizeof path, LOGS "%s", name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open fixture %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static parsed parse_fixture(const char *name, size_t chunk)
{
    size_t len;
    char *buf = slurp(name, &len);
    parsed r = parse_bytes(buf, len, chunk);
    free(buf);
    return r;
}

static parsed parse_text(const char *text)
{
    return parse_bytes(text, strlen(text), 0);
}

#define assert_gib(actual, expected)                                                                                   \
    do {                                                                                                               \
        double a_ = (actual), e_ = (expected);                                                                         \
        if (!(fabs(a_ - e_) < 0.005))                                                                                  \
            fail_msg("%s = %.4f, expected %.2f", #actual, a_, e_);                                                     \
    } while (0)
#define assert_unknown(actual)                                                                                         \
    do {                                                                                                               \
        double a_ = (actual);                                                                                          \
        if (caplog_known(a_))                                                                                          \
            fail_msg("%s = %.4f, expected unknown", #actual, a_);                                                      \
    } while (0)

static void assert_bar(const caplog_group *g, uint32_t i, uint32_t size, double avail)
{
    if (i >= g->n_bars)
        fail_msg("bar %u missing (group has %u)", i, g->n_bars);
    assert_int_equal(g->bars[i].size, size);
    assert_gib(g->bars[i].avail_gib, avail);
}

static const caplog_rank *rank_of(const caplog_run *run, const char *label)
{
    const caplog_rank *r = caplog_run_rank(run, label);
    if (!r)
        fail_msg("rank %s not found", label);
    return r;
}

/* The run as JSON text (for byte-for-byte comparisons and null checks). */
static char *run_json(const caplog_run *run)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    assert_non_null(f);
    jsonw w;
    jsonw_init(&w, f, false);
    cli_write_caplog_run_json(&w, run, "server.log", NULL);
    fclose(f);
    return text;
}

/* ---------------------------------------------------------------- fixtures */

static void test_03_dp_attention_prefix(void **state)
{
    (void)state;
    parsed r = parse_fixture("03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1); /* four ranks' begin lines, one group */
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->kind, "cuda graph");
    assert_int_equal(g->role, CAPLOG_ROLE_TARGET);
    assert_int_equal(caplog_group_phase(run, g), CAPLOG_PHASE_NONE); /* no server_args to decide */
    assert_string_equal(g->rank_label, "DP0 TP0 EP0");
    assert_int_equal(g->rank_tp, 0);
    assert_gib(g->begin_avail_gib, 27.51); /* TP0's, not DP2's 27.46 printed first */
    const uint32_t bs[] = {32, 24, 16, 12, 8, 4, 2, 1};
    assert_int_equal(g->n_sizes, 8);
    assert_memory_equal(g->sizes, bs, sizeof bs);
    assert_int_equal(g->n_bars, 3);
    assert_bar(g, 0, 32, 27.49);
    assert_bar(g, 1, 24, 21.80);
    assert_bar(g, 2, 16, 21.80);
    assert_true(g->captured);
    assert_false(g->has_end);
    assert_gib(g->static_gib, 0.02);
    assert_gib(g->largest_gib, 5.69);
    assert_unknown(g->buckets_gib); /* no end line */
    assert_unknown(g->total_gib);
    assert_gib(g->bars[0].increment_gib, 5.69);
    assert_gib(g->bars[1].increment_gib, 0.00);
    assert_unknown(g->bars[2].increment_gib); /* bs 12's bar is not in the excerpt */
    const caplog_rank *dp2 = rank_of(run, "DP2 TP2 EP2");
    assert_int_equal(dp2->kv_tokens, 1029389);
    assert_gib(dp2->kv_gib, 94.24);
    assert_gib(dp2->pool_avail_gib, 27.55);
    assert_gib(rank_of(run, "DP3 TP3 EP3")->pool_avail_gib, 27.79);
    assert_int_equal(run->unknown_lines, 0);
    parsed_free(&r);
}

static void test_21_eagle_ladder(void **state)
{
    (void)state;
    parsed r = parse_fixture("21-2026-07-eagle-spec-target-verify-draft-decode-draft-extend-ladder.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 5);
    const char *kinds[] = {"target verify", "draft decode", "draft extend", "draft decode", "draft extend"};
    const caplog_role roles[] = {CAPLOG_ROLE_TARGET, CAPLOG_ROLE_DRAFT, CAPLOG_ROLE_DRAFT, CAPLOG_ROLE_DRAFT,
                                 CAPLOG_ROLE_DRAFT};
    const caplog_phase phases[] = {CAPLOG_PHASE_VERIFY, CAPLOG_PHASE_DECODE, CAPLOG_PHASE_EXTEND, CAPLOG_PHASE_DECODE,
                                   CAPLOG_PHASE_EXTEND};
    const int tokens[] = {6, 1, 6, 1, 5};
    const double usage[] = {0.38, 0.38, 0.14, 0.09, 0.08};
    const double begin[] = {7.77, 7.39, 7.01, 6.77, 6.68};
    const double end[] = {7.39, 7.01, 6.87, 6.68, 6.60};
    const double elapsed[] = {4.56, 1.56, 0.74, 0.85, 0.74};
    for (int i = 0; i < 5; i++) {
        const caplog_group *g = &run->groups[i];
        assert_string_equal(g->kind, kinds[i]);
        assert_int_equal(g->role, roles[i]);
        assert_int_equal(caplog_group_phase(run, g), phases[i]);
        assert_int_equal(g->tokens_per_req, tokens[i]);
        assert_int_equal(g->step, -1);
        assert_gib(g->end_usage_gib, usage[i]);
        assert_gib(g->begin_avail_gib, begin[i]);
        assert_gib(g->end_avail_gib, end[i]);
        assert_gib(g->end_elapsed_s, elapsed[i]);
        assert_gib(g->total_gib, usage[i]);
        assert_int_equal(g->n_sizes, 6);
        assert_int_equal(g->sizes[0], 6); /* bs=[1, ..., 6] captured largest first */
        assert_int_equal(g->sizes[5], 1);
        assert_int_equal(g->n_bars, 0);
        assert_unknown(g->static_gib); /* no bars in this log */
        assert_false(g->failed);
    }
    parsed_free(&r);
}

static void test_16_three_bar_only_groups(void **state)
{
    (void)state;
    parsed r = parse_fixture("16-eagle-llama2-docs-ci-cr-separated-tqdm-three-captures.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->first_line, 1);
    assert_int_equal(run->n_groups, 3);
    const double avail[3][4] = {
        {23.09, 22.78, 22.27, 21.15}, {18.44, 18.25, 18.25, 18.22}, {53.64, 53.58, 53.58, 53.56}};
    for (int i = 0; i < 3; i++) {
        const caplog_group *g = &run->groups[i];
        assert_string_equal(g->kind, "");
        assert_int_equal(g->role, CAPLOG_ROLE_NONE);
        assert_string_equal(g->rank_label, ""); /* the bars' rank, TP0, printed no tag here */
        assert_int_equal(g->n_bars, 4);
        for (uint32_t k = 0; k < 4; k++)
            assert_bar(g, k, 4 - k, avail[i][k]);
        assert_int_equal(g->bar_total, 4);
        assert_false(g->has_begin);
        assert_unknown(g->static_gib);
        assert_unknown(g->total_gib);
    }
    /* the sequence starts at 0/4, so bar 0 is the largest bucket even without a list */
    assert_gib(run->groups[0].largest_gib, 0.31);
    assert_gib(run->groups[0].bars[2].increment_gib, 1.12);
    assert_gib(run->groups[1].largest_gib, 0.19);
    assert_gib(run->groups[2].largest_gib, 0.06);
    assert_unknown(run->groups[0].buckets_gib); /* no end line */
    assert_unknown(run->groups[0].bars[3].increment_gib);
    parsed_free(&r);
}

static void test_20_only_final_frame(void **state)
{
    (void)state;
    parsed r = parse_fixture("20-2026-08-ling3-tiny-newest-format-capture-target-decode-to-ready.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->kind, "target decode");
    assert_int_equal(g->phase, CAPLOG_PHASE_DECODE);
    assert_int_equal(g->tokens_per_req, 1);
    assert_gib(g->begin_avail_gib, 73.10);
    assert_int_equal(g->n_sizes, 2);
    assert_int_equal(g->sizes[0], 2);
    assert_int_equal(g->n_bars, 1);
    assert_bar(g, 0, 1, 72.47);
    assert_int_equal(g->bars[0].index, 1); /* the LAST bucket, not the first */
    assert_gib(g->end_avail_gib, 72.65);
    assert_gib(g->end_usage_gib, 0.45);
    assert_gib(g->end_elapsed_s, 2.58);
    /* bs 2's frame is lost: static and largest must not come from bs 1's bar */
    assert_unknown(g->static_gib);
    assert_unknown(g->largest_gib);
    /* the end (72.65) is read after empty_cache, above the bar (72.47) read before it: bar - end
     * would be -0.18, not a cost; the layers that subtract the end are unknown, with the reason */
    assert_unknown(g->buckets_gib);
    assert_unknown(g->bars[0].increment_gib);
    assert_non_null(strstr(g->note, "empty_cache"));
    assert_non_null(strstr(g->note, "72.65"));
    assert_gib(g->total_gib, 0.45); /* begin - end: both after empty_cache */
    assert_string_equal(run->architecture, "BailingMoeV3ForCausalLM");
    const caplog_rank *tp0 = rank_of(run, "TP0");
    assert_string_equal(tp0->label, "");
    assert_gib(tp0->state_gib, 0.38 + 10.81);
    assert_gib(tp0->kv_gib, 12.45);
    assert_int_equal(tp0->kv_tokens, 1933682);
    assert_gib(tp0->weights_end_avail_gib, 97.27);
    assert_gib(tp0->weights_usage_gib, 15.47);
    assert_unknown(tp0->pool_avail_gib);
    char *json = run_json(run);
    assert_non_null(strstr(json, "\"static_gib\":null"));
    assert_non_null(strstr(json, "\"largest_gib\":null"));
    assert_non_null(strstr(json, "\"rank\":\"\"")); /* the log has no tags */
    assert_non_null(strstr(json, "\"buckets_gib\":null"));
    assert_non_null(strstr(json, "\"note\":\"end avail 72.65 GiB is above"));
    assert_non_null(strstr(json, "\"architecture\":\"BailingMoeV3ForCausalLM\""));
    assert_non_null(strstr(json, "\"pool_avail_gib\":null"));
    free(json);
    parsed_free(&r);
}

static void test_k3_dp2_dcp8(void **state)
{
    (void)state;
    parsed r = parse_fixture("k3-dp2-dcp8-b200-article.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->first_line, 1); /* the echoed env line belongs to the run */
    assert_int_equal(run->n_env, 1);
    assert_string_equal(run->env[0].key, "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK");
    assert_string_equal(run->env[0].value, "128");
    const caplog_server_args *a = &run->args;
    assert_true(a->present);
    assert_true(a->model_path.has);
    assert_string_equal(a->model_path.v, "moonshotai/Kimi-K3");
    assert_true(a->tp_size.has && a->tp_size.v == 16);
    assert_true(a->dp_size.has && a->dp_size.v == 2);
    assert_true(a->dcp_size.has && a->dcp_size.v == 8);
    assert_true(a->ep_size.has && a->ep_size.v == 16);
    assert_true(a->cuda_graph_max_bs.has && a->cuda_graph_max_bs.v == 192);
    assert_true(a->cuda_graph_bs.has);
    assert_int_equal(a->cuda_graph_bs.n, 23);
    assert_int_equal(a->cuda_graph_bs.v[0], 16);
    assert_int_equal(a->cuda_graph_bs.v[22], 192);
    assert_true(a->speculative_algorithm.has);
    assert_string_equal(a->speculative_algorithm.v, "EAGLE");
    assert_true(a->speculative_num_steps.has && a->speculative_num_steps.v == 4);
    assert_true(a->speculative_num_draft_tokens.has && a->speculative_num_draft_tokens.v == 5);
    assert_true(a->enable_dp_attention.has && a->enable_dp_attention.v);
    assert_string_equal(a->moe_a2a_backend.v, "deepep");
    assert_true(a->context_length.has && a->context_length.v == 1048576);
    assert_false(a->mem_fraction_static.has);
    assert_false(a->attention_backend.has);
    assert_non_null(strstr(a->raw, "deepep_mode='auto'"));

    assert_int_equal(run->n_groups, 2);
    const caplog_group *t = &run->groups[0];
    assert_string_equal(t->kind, "target verify");
    assert_int_equal(t->tokens_per_req, 5);
    assert_int_equal(t->n_sizes, 23);
    assert_int_equal(t->sizes[0], 192);
    assert_int_equal(t->n_bars, 23); /* the closing 100% frame of bs 16 is not a new bar */
    assert_bar(t, 0, 192, 21.00);
    assert_bar(t, 1, 184, 10.76);
    assert_bar(t, 22, 16, 9.47);
    assert_gib(t->static_gib, 1.33);
    assert_gib(t->largest_gib, 10.24);
    assert_gib(t->bars[1].increment_gib, 0.37);  /* bs 184 */
    assert_gib(t->bars[22].increment_gib, 0.06); /* last bucket: last bar - end avail */
    assert_gib(t->buckets_gib, 1.35);
    assert_gib(t->total_gib, 12.92);
    assert_gib(t->end_usage_gib, 12.92);
    assert_gib(t->end_elapsed_s, 61.35);
    assert_int_equal(caplog_group_phase(run, t), CAPLOG_PHASE_VERIFY);
    const caplog_group *d = &run->groups[1];
    assert_string_equal(d->kind, "draft decode");
    assert_int_equal(d->role, CAPLOG_ROLE_DRAFT);
    assert_gib(d->total_gib, 1.04);
    assert_gib(d->static_gib, 0.06);

    const caplog_rank *tp0 = rank_of(run, "DP0 TP0 EP0");
    assert_gib(tp0->kv_gib, 34.60);
    assert_int_equal(tp0->kv_tokens, 1343488);
    assert_gib(tp0->pool_avail_gib, 22.45);
    parsed_free(&r);
}

static void test_k3_dp16(void **state)
{
    (void)state;
    parsed r = parse_fixture("k3-dp16-b200-article.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_env, 1);
    assert_string_equal(run->env[0].value, "144");
    assert_true(run->args.dcp_size.has && run->args.dcp_size.v == 1);
    assert_true(run->args.cuda_graph_max_bs.has && run->args.cuda_graph_max_bs.v == 24);
    assert_int_equal(run->n_groups, 2);
    const caplog_group *t = &run->groups[0];
    assert_gib(t->begin_avail_gib, 14.09);
    assert_gib(t->static_gib, 0.18);
    assert_gib(t->largest_gib, 7.17);
    assert_gib(t->buckets_gib, 0.25);
    assert_gib(t->total_gib, 7.60);
    assert_int_equal(t->n_bars, 6);
    assert_bar(t, 5, 1, 6.52);
    assert_gib(run->groups[1].total_gib, 0.56);
    assert_gib(run->groups[1].static_gib, 0.00);
    parsed_free(&r);
}

static void test_08_failed_2024_prefix(void **state)
{
    (void)state;
    parsed r = parse_fixture("08-2024-time-only-prefix-deepseek-v25-capture-failed.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1); /* eight ranks' begin lines */
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->kind, "cuda graph");
    assert_string_equal(g->rank_label, "TP0");
    assert_true(g->has_begin);
    assert_unknown(g->begin_avail_gib); /* 2024's begin has no avail */
    assert_true(g->failed);             /* the traceback inside capture */
    assert_false(g->has_end);
    assert_int_equal(run->n_ranks, 8);
    assert_gib(rank_of(run, "TP7")->weights_end_avail_gib, 22.01);
    assert_unknown(rank_of(run, "TP7")->weights_usage_gib);
    assert_gib(rank_of(run, "TP0")->pool_avail_gib, 18.66);
    assert_gib(rank_of(run, "TP1")->pool_avail_gib, 18.61);
    char *json = run_json(run);
    assert_non_null(strstr(json, "\"begin_avail_gib\":null"));
    assert_non_null(strstr(json, "\"failed\":true"));
    free(json);
    parsed_free(&r);
}

static void test_24_oom_without_begin(void **state)
{
    (void)state;
    parsed r = parse_fixture("24-2026-04-dsv4-pro-h200-2node-dp16-eagle-capture-oom-rewrapped.log", 0);
    assert_true(r.recognised);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_true(g->failed);
    assert_false(g->has_begin);
    assert_unknown(g->begin_avail_gib);
    assert_string_equal(g->kind, "cuda graph");
    assert_int_equal(g->first_line, 1);
    assert_non_null(strstr(g->failure, "CUDA out of memory"));
    parsed_free(&r);
}

static void test_12_bar_without_bs_glued(void **state)
{
    (void)state;
    parsed r = parse_fixture("12-pd-decode-dp-tp-avail-only-tqdm-joined-with-log.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1); /* the list line alone makes the group */
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->rank_label, "DP0 TP0");
    assert_int_equal(g->n_sizes, 34);
    assert_int_equal(g->sizes[0], 256);
    assert_int_equal(g->sizes[33], 2);
    assert_int_equal(g->n_bars, 1);
    assert_bar(g, 0, 256, 27.97); /* no bs= in the frame: the largest bucket of the list */
    assert_int_equal(g->bar_total, 34);
    /* the log line glued after the bar was read: its rank exists */
    assert_non_null(caplog_run_rank(run, "DP2 TP2"));
    assert_non_null(caplog_run_rank(run, "DP1 TP1"));
    assert_int_equal(run->unknown_lines, 4); /* the four DeepGEMM lines, the glued one included */
    parsed_free(&r);
}

static void test_15_plain_bar_end_avail_first(void **state)
{
    (void)state;
    parsed r = parse_fixture("15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->rank_label, "TP0");
    assert_gib(g->begin_avail_gib, 1.45);
    assert_gib(g->end_avail_gib, 0.53);
    assert_gib(g->end_usage_gib, 0.93);
    assert_gib(g->end_elapsed_s, 7.23); /* TP0's, not TP3's 7.22 */
    assert_true(g->captured);
    assert_int_equal(g->n_bars, 0); /* plain bars carry no avail */
    assert_int_equal(g->bar_total, 13);
    assert_unknown(g->static_gib);
    assert_gib(g->total_gib, 0.92);
    const caplog_rank *tp0 = rank_of(run, "TP0");
    assert_gib(tp0->weights_begin_avail_gib, 21.63);
    assert_gib(tp0->weights_end_avail_gib, 6.09);
    assert_gib(tp0->weights_usage_gib, 15.54);
    assert_gib(tp0->kv_gib, 2.84);
    assert_int_equal(tp0->max_total_num_tokens, 46611);
    /* TP1's begin line was glued to the 0% frame and still counted as TP1's */
    assert_non_null(caplog_run_rank(run, "TP1"));
    parsed_free(&r);
}

static void test_27_kv_without_tokens(void **state)
{
    (void)state;
    parsed r = parse_fixture("27-2025-01-docs-llama31-8b-h100-kv-no-tokens-end-no-mem.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_true(g->has_begin && g->has_end);
    assert_unknown(g->begin_avail_gib);
    assert_gib(g->end_elapsed_s, 6.57);
    assert_unknown(g->end_usage_gib);
    assert_unknown(g->end_avail_gib);
    assert_unknown(g->total_gib);
    assert_int_equal(g->bar_total, 23);
    const caplog_rank *tp0 = rank_of(run, "TP0");
    assert_int_equal(tp0->kv_tokens, -1);
    assert_gib(tp0->kv_gib, 54.26);
    assert_gib(tp0->weights_begin_avail_gib, 78.81);
    assert_gib(tp0->weights_end_avail_gib, 63.72);
    assert_unknown(tp0->weights_usage_gib);
    assert_gib(tp0->pool_avail_gib, 8.34);
    assert_int_equal(tp0->max_total_num_tokens, 444500);
    assert_unknown(tp0->available_gpu_mem_gib);
    char *json = run_json(run);
    assert_non_null(strstr(json, "\"kv_tokens\":null"));
    assert_non_null(strstr(json, "\"end_usage_gib\":null"));
    free(json);
    parsed_free(&r);
}

/* Custom all-reduce's "Registering N cuda graph addresses" joins the group its capture ends:
 * 8372 = (2 x 80 + 1) x 52, Llama-3.3-70B at TP8. A log without the line leaves it unknown. */
static void test_28_registering(void **state)
{
    (void)state;
    parsed r = parse_fixture("28-2025-10-llama33-70b-tp8-registering-cuda-graph-addresses.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_int_equal(g->registered_addresses, 8372);
    assert_int_equal(g->registered_addresses, (2 * 80 + 1) * (int32_t)g->n_sizes);
    assert_true(g->has_end);
    assert_gib(g->end_usage_gib, 1.98);
    assert_int_equal(run->unknown_lines, 0); /* the line is read, not skipped */
    assert_int_equal(run->malformed_lines, 0);
    char *json = run_json(run);
    assert_non_null(strstr(json, "\"registered_addresses\":8372"));
    free(json);
    parsed_free(&r);

    r = parse_fixture("15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log", 0);
    assert_int_equal(r.runs[0].groups[0].registered_addresses, -1);
    json = run_json(&r.runs[0]);
    assert_non_null(strstr(json, "\"registered_addresses\":null"));
    free(json);
    parsed_free(&r);
}

/* TP0's line came with no begin line before it: it waits for TP0's end line, and TP1's end
 * line, printed between them, does not take it. 3492 = (2 x 48 + 1) x 36. */
static void test_29_registering_waits_for_its_end(void **state)
{
    (void)state;
    parsed r = parse_fixture("29-2025-11-qwen3-30b-a3b-fp8-tp2-registering-before-two-end-lines.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 2);
    assert_string_equal(run->groups[0].kind, ""); /* the bars, before any capture line */
    assert_int_equal(run->groups[0].registered_addresses, -1);
    const caplog_group *g = &run->groups[1];
    assert_string_equal(g->kind, "cuda graph");
    assert_string_equal(g->rank_label, "TP0");
    assert_int_equal(g->registered_addresses, 3492);
    assert_gib(g->end_usage_gib, 1.00);
    parsed_free(&r);
}

/* Which group and which rank's line a count is, and the lines that are not one. */
static void test_registering_rules(void **state)
{
    (void)state;
    /* the lowest rank's, whichever printed first; the next group gets none of it */
    parsed r = parse_text("[2026-01-01 00:00:00 TP1] Capture cuda graph begin. avail mem=9.00 GB\n"
                          "[2026-01-01 00:00:00 TP0] Capture cuda graph begin. avail mem=9.00 GB\n"
                          "[2026-01-01 00:00:01 TP1] Registering 1000 cuda graph addresses\n"
                          "[2026-01-01 00:00:01 TP0] Registering 1001 cuda graph addresses\n"
                          "[2026-01-01 00:00:02 TP1] Capture cuda graph end. Time elapsed: 1.00 s. avail mem=8.00 GB.\n"
                          "[2026-01-01 00:00:02 TP0] Capture cuda graph end. Time elapsed: 1.00 s. avail mem=8.00 GB.\n"
                          "[2026-01-01 00:00:03 TP0] Capture draft cuda graph begin. avail mem=8.00 GB\n"
                          "[2026-01-01 00:00:04 TP0] Capture draft cuda graph end. Time elapsed: 1.00 s.\n");
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_groups, 2);
    assert_int_equal(r.runs[0].groups[0].registered_addresses, 1001);
    assert_int_equal(r.runs[0].groups[1].registered_addresses, -1);
    parsed_free(&r);
    /* only TP1 printed it: TP1's; a line before a failed capture registers nothing */
    r = parse_text("[2026-01-01 00:00:00 TP0] Capture cuda graph begin. avail mem=9.00 GB\n"
                   "[2026-01-01 00:00:00 TP1] Capture cuda graph begin. avail mem=9.00 GB\n"
                   "[2026-01-01 00:00:01 TP1] Registering 77 cuda graph addresses\n"
                   "[2026-01-01 00:00:02 TP0] Capture cuda graph end. Time elapsed: 1.00 s. avail mem=8.00 GB.\n"
                   "[2026-01-01 00:00:03 TP0] Registering 5 cuda graph addresses\n"
                   "[2026-01-01 00:00:04 TP0] Capture cuda graph failed: out of memory\n"
                   "[2026-01-01 00:00:05 TP0] Capture cuda graph end. Time elapsed: 1.00 s.\n");
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].groups[0].registered_addresses, 77);
    for (uint32_t i = 1; i < r.runs[0].n_groups; i++)
        assert_int_equal(r.runs[0].groups[i].registered_addresses, -1);
    parsed_free(&r);
    /* a count out of range is malformed and not kept; other "Registering" lines are not read */
    r = parse_text("[2026-01-01 00:00:00 TP0] Capture cuda graph begin. avail mem=9.00 GB\n"
                   "[2026-01-01 00:00:01 TP0] Registering 16777217 cuda graph addresses\n"
                   "[2026-01-01 00:00:01 TP0] Registering -3 cuda graph addresses\n"
                   "[2026-01-01 00:00:01 TP0] Registering 12 buffers\n"
                   "[2026-01-01 00:00:01 TP0] Registering 1.5 cuda graph addresses\n"
                   "[2026-01-01 00:00:02 TP0] Capture cuda graph end. Time elapsed: 1.00 s.\n");
    assert_int_equal(r.runs[0].groups[0].registered_addresses, -1);
    assert_int_equal(r.runs[0].malformed_lines, 2);
    assert_int_equal(r.runs[0].first_malformed_line, 2);
    assert_int_equal(r.runs[0].unknown_lines, 2);
    parsed_free(&r);
    /* the bound itself is kept */
    r = parse_text("[2026-01-01 00:00:00 TP0] Capture cuda graph begin. avail mem=9.00 GB\n"
                   "[2026-01-01 00:00:01 TP0] Registering 16777216 cuda graph addresses\n");
    assert_int_equal(r.runs[0].groups[0].registered_addresses, CAPLOG_GRAPH_ADDRESSES_MAX);
    parsed_free(&r);
}

static void test_06_two_kv_pools(void **state)
{
    (void)state;
    parsed r = parse_fixture("06-mimo-v2-flash-swa-two-kv-pools-capture-begin.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    assert_gib(run->groups[0].begin_avail_gib, 22.52);
    assert_false(run->groups[0].captured);
    /* TP2 printed both pools (41.76 + 27.84 + 4.82 + 3.21 = SWAKVPool's 77.63) */
    assert_gib(rank_of(run, "TP2")->kv_gib, 77.63);
    assert_gib(rank_of(run, "TP1")->kv_gib, 77.63);
    /* TP0's full-pool line did not survive: only its 4.82 + 3.21 */
    assert_gib(rank_of(run, "TP0")->kv_gib, 8.03);
    assert_int_equal(rank_of(run, "TP0")->kv_tokens, 1496958);
    assert_gib(rank_of(run, "TP0")->pool_avail_gib, 22.59);
    assert_gib(rank_of(run, "TP3")->pool_avail_gib, 22.71);
    /* ranks come out in rank order */
    assert_string_equal(run->ranks[0].label, "TP0");
    assert_string_equal(run->ranks[3].label, "TP3");
    parsed_free(&r);
}

static void test_17_rank_rule(void **state)
{
    (void)state;
    parsed r = parse_fixture("17-ktransformers-deepseekv3-tp2-mla-kv-size-single-value.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    assert_string_equal(run->groups[0].rank_label, "TP0");
    assert_gib(run->groups[0].begin_avail_gib, 33.07); /* TP1 printed 30.10 first */
    assert_gib(rank_of(run, "TP0")->kv_gib, 0.65);
    assert_int_equal(rank_of(run, "TP0")->kv_tokens, 10000);
    assert_gib(rank_of(run, "TP0")->weights_end_avail_gib, 33.80);
    assert_gib(rank_of(run, "TP0")->pool_avail_gib, 33.08);
    assert_gib(rank_of(run, "TP1")->pool_avail_gib, 30.11);
    parsed_free(&r);
}

static void test_02_middle_of_capture(void **state)
{
    (void)state;
    parsed r = parse_fixture("02-tp8-tqdm-newline-per-bs-avail.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->kind, "");
    assert_int_equal(g->n_bars, 7); /* 14 frames, one entry per bucket */
    const uint32_t bs[] = {216, 208, 200, 192, 184, 176, 168};
    const double avail[] = {10.30, 10.29, 10.27, 10.26, 10.24, 10.23, 10.21};
    for (uint32_t i = 0; i < 7; i++)
        assert_bar(g, i, bs[i], avail[i]);
    assert_int_equal(g->bar_total, 52);
    assert_int_equal(g->bars[0].index, 21); /* its frame says 21/52: not the largest bucket */
    assert_unknown(g->largest_gib);
    assert_unknown(g->static_gib);
    assert_unknown(g->buckets_gib);
    assert_gib(g->bars[0].increment_gib, 0.01);
    assert_gib(g->bars[5].increment_gib, 0.02);
    assert_unknown(g->bars[6].increment_gib);
    parsed_free(&r);
}

/* The lines of fixture NAME (1-based, ascending, 0-terminated) as one text: an excerpt of a real
 * log such as a paste that lost some lines. The caller frees it. */
static char *fixture_lines(const char *name, const int *keep)
{
    size_t len;
    char *buf = slurp(name, &len);
    char *out = malloc(len + 1);
    assert_non_null(out);
    size_t o = 0;
    int line = 1;
    for (const char *s = buf; *s; line++) {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) + 1 : strlen(s);
        if (*keep && *keep == line) {
            memcpy(out + o, s, n);
            o += n;
            keep++;
        }
        s += n;
    }
    out[o] = '\0';
    free(buf);
    return out;
}

/* Fixture 03 as posted by DP3 alone plus TP0's bars: DP3's begin line, TP0's list and bars (lines
 * 1, 5, 8-15). TP0 printed no begin, so the begin is DP3's and the static layer is kept. */
static void test_03_begin_of_dp3_only(void **state)
{
    (void)state;
    const int keep[] = {1, 5, 8, 9, 10, 11, 12, 13, 14, 15, 0};
    char *text = fixture_lines("03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log", keep);
    parsed r = parse_text(text);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1); /* TP0's list and bars join DP3's group */
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->rank_label, "DP0 TP0 EP0"); /* the bars' rank */
    assert_string_equal(g->begin_rank_label, "DP3 TP3 EP3");
    assert_true(g->has_begin);
    assert_gib(g->begin_avail_gib, 27.70);
    assert_int_equal(g->n_sizes, 8);
    assert_int_equal(g->n_bars, 3);
    assert_gib(g->static_gib, 0.21); /* DP3's 27.70 - TP0's first bar 27.49, said so */
    assert_non_null(strstr(g->note, "DP3 TP3 EP3"));
    assert_gib(g->largest_gib, 5.69);
    char *json = run_json(run);
    assert_non_null(strstr(json, "\"rank\":\"TP0\",\"rank_label\":\"DP0 TP0 EP0\""));
    assert_non_null(strstr(json, "\"begin_rank_label\":\"DP3 TP3 EP3\""));
    assert_non_null(strstr(json, "\"rank\":\"TP3\",\"rank_label\":\"DP3 TP3 EP3\""));
    free(json);
    /* any chunking gives the same */
    parsed odd = parse_bytes(text, strlen(text), 3);
    char *a = run_json(run), *b = run_json(&odd.runs[0]);
    assert_string_equal(a, b);
    free(a);
    free(b);
    parsed_free(&odd);
    parsed_free(&r);
    free(text);
}

/* Fixture 03 without TP0's begin line (line 7): the begin is the lowest rank's that printed one,
 * DP1's 27.46, below TP0's first bar (27.49): ranks differ by more than this static layer, so
 * it is unknown with the reason, and the begin value is kept. */
static void test_03_begin_lost_lowest_rank(void **state)
{
    (void)state;
    const int keep[] = {1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15, 0};
    char *text = fixture_lines("03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log", keep);
    parsed r = parse_text(text);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->rank_label, "DP0 TP0 EP0");
    assert_string_equal(g->begin_rank_label, "DP1 TP1 EP1"); /* not DP2's, printed first */
    assert_gib(g->begin_avail_gib, 27.46);
    assert_unknown(g->static_gib);
    assert_non_null(strstr(g->note, "static unknown"));
    assert_gib(g->largest_gib, 5.69);
    parsed_free(&r);
    free(text);
}

/* Fixture 17 without TP0's begin (line 9): TP1's begin, and no line of TP0's names the group. */
static void test_17_begin_of_tp1(void **state)
{
    (void)state;
    const int keep[] = {1, 2, 3, 4, 5, 6, 7, 8, 0};
    char *text = fixture_lines("17-ktransformers-deepseekv3-tp2-mla-kv-size-single-value.log", keep);
    parsed r = parse_text(text);
    assert_int_equal(r.n, 1);
    const caplog_group *g = &r.runs[0].groups[0];
    assert_string_equal(g->rank_label, "TP1");
    assert_string_equal(g->begin_rank_label, "TP1");
    assert_gib(g->begin_avail_gib, 30.10);
    assert_string_equal(g->note, "");
    parsed_free(&r);
    free(text);
}

static void test_rank_names_and_architecture(void **state)
{
    (void)state;
    char name[CAPLOG_LABEL_MAX];
    const char *cases[][2] = {{"DP3 TP3 EP3", "TP3"}, {"", ""}, {"TP12", "TP12"}, {"DP0", "TP0"},
                              {"DP15 PP0 ATTN_CP0 MOE_DP0 TP127 EP127", "TP127"}, {"ATTN_CP1 TP2", "TP2"}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        caplog_rank_name(cases[i][0], name, sizeof name);
        assert_string_equal(name, cases[i][1]);
    }
    const char *logs[][2] = {{"17-ktransformers-deepseekv3-tp2-mla-kv-size-single-value.log", "DeepseekV3ForCausalLM"},
                             {"15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log", "Qwen2ForCausalLM"},
                             {"08-2024-time-only-prefix-deepseek-v25-capture-failed.log", "DeepseekV2ForCausalLM"},
                             {"03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log", ""}};
    for (size_t i = 0; i < sizeof logs / sizeof logs[0]; i++) {
        parsed r = parse_fixture(logs[i][0], 0);
        assert_string_equal(r.runs[0].architecture, logs[i][1]);
        parsed_free(&r);
    }
    /* "dtype=" is not the class; a draft model's load after the target's does not replace it */
    parsed r = parse_text("[2026-01-01 00:00:00] Load weight end. dtype=torch.bfloat16, type=Qwen3ForCausalLM, avail "
                          "mem=10.00 GB\n"
                          "[2026-01-01 00:00:05] Load weight end. type=Qwen3ForCausalLMEagle3, avail mem=9.00 GB\n");
    assert_string_equal(r.runs[0].architecture, "Qwen3ForCausalLM");
    parsed_free(&r);
}

/* The one-pass key scan finds a key at any offset, after capitals and '_' (its anchors) and
 * across its eight-byte blocks, as a search would. */
static void test_keys_at_any_offset(void **state)
{
    (void)state;
    const char *filler = "aZ_ Mx_Ly CcKk_DdTtOo server max_ ";
    for (size_t k = 0; k < 20; k++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[2026-01-01 00:00:00 TP0] %.*sKV Cache is allocated. #tokens: 7, KV size: 1.00 GB\n"
                 "[2026-01-01 00:00:00 TP0] %.*sMemory pool end. avail mem=3.00 GB\n"
                 "[2026-01-01 00:00:00 TP0] %.*smax_total_num_tokens=5, available_gpu_mem=2.00 GB\n"
                 "[2026-01-01 00:00:01 TP0] %.*sCapture cuda graph begin. This can take up to several minutes. "
                 "avail mem=9.00 GB\n"
                 "[2026-01-01 00:00:02 TP0] %.*sCUDA out of memory. Tried to allocate 2.00 GiB\n",
                 (int)k, filler, (int)k, filler, (int)k, filler, (int)k, filler, (int)k, filler);
        parsed r = parse_text(text);
        assert_int_equal(r.n, 1);
        const caplog_run *run = &r.runs[0];
        const caplog_rank *tp0 = rank_of(run, "TP0");
        assert_int_equal(tp0->kv_tokens, 7);
        assert_gib(tp0->pool_avail_gib, 3.00);
        assert_int_equal(tp0->max_total_num_tokens, 5);
        assert_int_equal(run->n_groups, 1);
        assert_gib(run->groups[0].begin_avail_gib, 9.00);
        assert_true(run->groups[0].failed);
        assert_int_equal(run->unknown_lines, 0);
        parsed_free(&r);
        snprintf(text, sizeof text, "[2026-01-01 00:00:00] %.*sserver_args=ServerArgs(tp_size=2)\n", (int)k, filler);
        r = parse_text(text);
        assert_true(r.runs[0].args.present);
        assert_int_equal(r.runs[0].args.tp_size.v, 2);
        parsed_free(&r);
    }
}

/* A line's rule is named by any of its "Capture "s, the second (which the lexer finds with the
 * first) or a later one (searched for from the second). */
static void test_capture_named_later_in_line(void **state)
{
    (void)state;
    parsed r = parse_text("[2026-01-01 00:00:00 TP0] Capture cuda graph begin. avail mem=9.00 GB "
                          "Capture cuda graph bs [1, 2, 4]\n");
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_groups, 1);
    assert_int_equal(r.runs[0].groups[0].n_sizes, 3);
    assert_int_equal(r.runs[0].groups[0].sizes[0], 4);
    parsed_free(&r);
    r = parse_text("[2026-01-01 00:00:00 TP0] Capture cuda graph begin. avail mem=9.00 GB\n"
                   "[2026-01-01 00:00:01 TP0] Capture a. Capture b. Capture cuda graph failed: out of memory\n");
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_groups, 1);
    assert_true(r.runs[0].groups[0].failed);
    assert_string_equal(r.runs[0].groups[0].failure, "out of memory");
    parsed_free(&r);
}

/* A key is found wherever it lies in a message, among capitals, '_'s and bytes past 0x7f (the
 * scan takes 16 bytes at a time), and a key with one byte changed is not: random text of random
 * length before and after each key, over block boundaries. The text holds no space, '=' or 'O',
 * so it cannot spell a key itself. */
static void test_keys_in_random_text(void **state)
{
    (void)state;
    static const char alphabet[] = "aZ_CUDAMeLoKVturT0189.-\x80\xe2\x96\x88\xff";
    static const struct {
        const char *text; /* the key and what follows it */
        size_t key_len;   /* the bytes a change in which must hide the line */
    } lines[] = {
        {"Memory pool end. avail mem=3.00 GB", 16},
        {"KV Cache is allocated. #tokens: 7, KV size: 1.00 GB", 22},
        {"max_total_num_tokens=5, available_gpu_mem=2.00 GB", 21},
    };
    uint32_t seed = 777;
    for (int trial = 0; trial < 3000; trial++) {
        char line[512];
        size_t k = (size_t)trial % 3, used = (size_t)snprintf(line, sizeof line, "[2026-01-01 00:00:00 TP0] ");
        seed = seed * 1103515245u + 12345u;
        size_t before = (seed >> 16) % 48, after = (seed >> 8) % 24;
        for (size_t i = 0; i < before; i++) {
            seed = seed * 1103515245u + 12345u;
            line[used++] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        if (before)
            line[used++] = ' ';
        size_t key_at = used;
        used += (size_t)snprintf(line + used, sizeof line - used, "%s ", lines[k].text);
        for (size_t i = 0; i < after; i++) {
            seed = seed * 1103515245u + 12345u;
            line[used++] = alphabet[(seed >> 16) % (sizeof alphabet - 1)];
        }
        line[used++] = '\n';
        line[used] = '\0';
        bool intact = trial % 4 != 3;
        if (!intact) {
            seed = seed * 1103515245u + 12345u;
            line[key_at + (seed >> 16) % lines[k].key_len] ^= 0x01; /* a letter's case, or another byte */
        }
        parsed r = parse_text(line);
        assert_int_equal(r.n, intact ? 1 : 0); /* a line no rule reads gives no run */
        if (intact) {
            const caplog_rank *tp0 = rank_of(&r.runs[0], "TP0");
            if (k == 0)
                assert_gib(tp0->pool_avail_gib, 3.00);
            else if (k == 1)
                assert_int_equal(tp0->kv_tokens, 7);
            else
                assert_int_equal(tp0->max_total_num_tokens, 5);
            assert_int_equal(r.runs[0].unknown_lines, 0);
        }
        parsed_free(&r);
    }
}

/* hook/cgplan_capture_hook.py's lines: the capture line joins the group being captured (its
 * first, the largest bucket, gives the split), terms join the run, the lowest rank's win, and a
 * line without its values is malformed, not guessed. */
static void test_hook_lines(void **state)
{
    (void)state;
    const char *text =
        "[2026-08-20 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=60.00 GB\n"
        "[cgplan-hook] capture seq=0 size=8 rank=1 reserved_before=0 reserved_after=100 free_before=1000 "
        "free_after=500 total=2000\n"
        "[cgplan-hook] term=moe.deepep bytes=77 size=8 rank=1\n"
        "Capturing batches (bs=8 avail_mem=59.90 GB):   0%|          | 0/2 [00:00<?, ?it/s]\n"
        "[cgplan-hook] capture seq=0 size=8 rank=0 reserved_before=10 reserved_after=210 free_before=1000 "
        "free_after=400 total=2000\n"
        "[cgplan-hook] capture seq=0 size=8 rank=2 reserved_before=0 reserved_after=1 free_before=9 free_after=1 "
        "total=9\n"
        "[cgplan-hook] term=moe.deepep bytes=300 size=8 rank=0\n"
        "[cgplan-hook] term=unattributed bytes=5 size=8 rank=0\n"
        "[cgplan-hook] term=moe.deepep bytes=400 size=8 rank=0\n"
        "Capturing batches (bs=4 avail_mem=59.30 GB):  50%|#####     | 1/2 [00:01<00:01,  1.00it/s]\n"
        "[cgplan-hook] capture seq=1 size=4 rank=0 reserved_before=210 reserved_after=220 free_before=400 "
        "free_after=390 total=2000\n"
        "[cgplan-hook] capture seq=2 size=2 rank=0 reserved_before=220\n"
        "[cgplan-hook] term=Bad.Term bytes=1\n"
        "[cgplan-hook] snapshot size=8 rank=0 file=/tmp/x.pickle\n"
        "[2026-08-20 10:00:02 TP0] Capture cuda graph end. Time elapsed: 2.00 s. mem usage=0.71 GB. avail mem=59.29 "
        "GB.\n";
    parsed r = parse_text(text);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_int_equal(g->hook_captures, 2); /* rank 0's two whole lines */
    assert_int_equal(g->hook_size, 8);
    assert_int_equal(g->hook_torch_bytes, 200);
    assert_int_equal(g->hook_device_bytes, 600);
    assert_true(run->has_hook);
    assert_int_equal(run->hook_rank, 0);
    assert_int_equal(run->n_hook_terms, 2); /* rank 1's term went with rank 1 */
    assert_string_equal(run->hook_terms[0].term, "moe.deepep");
    assert_int_equal(run->hook_terms[0].bytes, 400); /* printed again: the later one */
    assert_string_equal(run->hook_terms[1].term, "unattributed");
    assert_int_equal(run->malformed_lines, 2); /* the cut capture line, the bad term */
    assert_gib(g->total_gib, 0.71);
    /* chunked the same */
    parsed odd = parse_bytes(text, strlen(text), 5);
    char *a = run_json(run), *b = run_json(&odd.runs[0]);
    assert_string_equal(a, b);
    assert_non_null(strstr(a, "\"hook\":{\"captures\":2,\"size\":8,\"torch_bytes\":200,\"device_bytes\":600,"
                              "\"non_torch_bytes\":400}"));
    free(a);
    free(b);
    parsed_free(&odd);
    parsed_free(&r);
}

/* Every fixture: one byte at a time and one chunk give the same JSON. */
static void test_streaming_chunks_agree(void **state)
{
    (void)state;
    const char *names[] = {
        "02-tp8-tqdm-newline-per-bs-avail.log",
        "03-dp-attn-ep4-dp-tp-ep-prefix-bs32.log",
        "06-mimo-v2-flash-swa-two-kv-pools-capture-begin.log",
        "08-2024-time-only-prefix-deepseek-v25-capture-failed.log",
        "12-pd-decode-dp-tp-avail-only-tqdm-joined-with-log.log",
        "15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log",
        "16-eagle-llama2-docs-ci-cr-separated-tqdm-three-captures.log",
        "17-ktransformers-deepseekv3-tp2-mla-kv-size-single-value.log",
        "20-2026-08-ling3-tiny-newest-format-capture-target-decode-to-ready.log",
        "21-2026-07-eagle-spec-target-verify-draft-decode-draft-extend-ladder.log",
        "24-2026-04-dsv4-pro-h200-2node-dp16-eagle-capture-oom-rewrapped.log",
        "27-2025-01-docs-llama31-8b-h100-kv-no-tokens-end-no-mem.log",
        "28-2025-10-llama33-70b-tp8-registering-cuda-graph-addresses.log",
        "29-2025-11-qwen3-30b-a3b-fp8-tp2-registering-before-two-end-lines.log",
        "k3-dp16-b200-article.log",
        "k3-dp2-dcp8-b200-article.log",
        "absurd-values.log",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        parsed whole = parse_fixture(names[i], 0);
        parsed bytes = parse_fixture(names[i], 1);
        parsed odd = parse_fixture(names[i], 7);
        assert_true(whole.recognised);
        assert_int_equal(whole.n, 1);
        assert_int_equal(bytes.n, whole.n);
        assert_int_equal(odd.n, whole.n);
        char *a = run_json(&whole.runs[0]), *b = run_json(&bytes.runs[0]), *c = run_json(&odd.runs[0]);
        assert_string_equal(a, b);
        assert_string_equal(a, c);
        free(a);
        free(b);
        free(c);
        parsed_free(&whole);
        parsed_free(&bytes);
        parsed_free(&odd);
    }
}

/* BUF gives through the two stages the runs caplog_feed gives, whatever the chunks: the same
 * JSON and the same counters. */
static void assert_stages_agree(const char *buf, size_t len)
{
    parsed fed = parse_bytes(buf, len, 0);
    static const size_t chunks[] = {0, 1, 7, 4096, 300000};
    for (size_t c = 0; c < 2 * sizeof chunks / sizeof chunks[0]; c++) {
        uint64_t lines_read;
        bool in_place = c % 2; /* caplog_lex and caplog_lex_in_place, each chunking */
        bool defer = in_place && c / 2 % 2 == 0; /* all of it (one chunk), or every other chunk */
        parsed staged = parse_staged_as(buf, len, chunks[c / 2], &lines_read, in_place, defer);
        assert_int_equal(staged.n, fed.n);
        assert_int_equal(staged.recognised, fed.recognised);
        for (size_t r = 0; r < fed.n; r++) {
            const caplog_run *a = &fed.runs[r], *b = &staged.runs[r];
            char *ja = run_json(a), *jb = run_json(b);
            assert_string_equal(ja, jb);
            free(ja);
            free(jb);
            assert_int_equal(a->first_line, b->first_line);
            assert_int_equal(a->last_line, b->last_line);
            assert_int_equal(a->lines, b->lines);
            assert_int_equal(a->unknown_lines, b->unknown_lines);
            assert_int_equal(a->truncated_lines, b->truncated_lines);
            assert_int_equal(a->malformed_lines, b->malformed_lines);
            assert_int_equal(a->first_malformed_line, b->first_malformed_line);
        }
        parsed_free(&staged);
    }
    parsed_free(&fed);
}

/* Every fixture, and all of them one after another eight times (past what one token buffer
 * holds, so caplog_lex takes a chunk in several calls). */
static void test_two_stages_agree(void **state)
{
    (void)state;
    glob_t g;
    assert_int_equal(glob(LOGS "*.log", 0, NULL, &g), 0);
    size_t all_len = 0, cap = 0;
    char *all = NULL;
    for (size_t i = 0; i < g.gl_pathc; i++) {
        size_t len;
        char *buf = slurp(strrchr(g.gl_pathv[i], '/') + 1, &len);
        assert_stages_agree(buf, len);
        if (all_len + 8 * (len + 1) > cap) {
            cap = 2 * (all_len + 8 * (len + 1));
            all = realloc(all, cap);
            assert_non_null(all);
        }
        for (int rep = 0; rep < 8; rep++) {
            memcpy(all + all_len, buf, len);
            all_len += len;
            all[all_len++] = '\n';
        }
        free(buf);
    }
    assert_true(all_len > 256 * 1024);
    assert_stages_agree(all, all_len);
    globfree(&g);
    free(all);

    /* lines at and past CAPLOG_LINE_MAX, a NUL inside a line, '\r' frames, trailing spaces, an
     * echoed variable and a last line cut: read in place as when copied */
    const char *memory = "[2026-01-01 00:00:00 TP0] Memory pool end. avail mem=22.59 GB";
    size_t memory_len = strlen(memory), edge_cap = 4 * CAPLOG_LINE_MAX + 4096, edge_len = 0;
    char *edge = malloc(edge_cap);
    assert_non_null(edge);
    for (size_t extra = 0; extra < 3; extra++) {
        size_t line_len = CAPLOG_LINE_MAX - 1 + extra; /* the last one is truncated */
        memcpy(edge + edge_len, memory, memory_len);
        memset(edge + edge_len + memory_len, ' ', line_len - memory_len - 1);
        edge[edge_len + line_len - 1] = 'x';
        edge_len += line_len;
        edge[edge_len++] = '\n';
    }
    static const char tail[] = "[2026-01-01 00:00:01 TP0] KV Cache is allocated. #tokens: 7,\0 KV size: 1.00 GB\n"
                               "Capturing batches (bs=8 avail_mem=6.65 GB):  33%|###| 2/6 [00:02<00:00]\r"
                               "Capturing batches (bs=4 avail_mem=6.60 GB):  50%|###| 3/6 [00:03<00:00]   \r\n"
                               "export SGLANG_X='1'  \n"
                               "[2026-01-01 00:00:02 TP0] Load weight begin. avail mem=30.00 GB";
    memcpy(edge + edge_len, tail, sizeof tail - 1);
    edge_len += sizeof tail - 1;
    assert_stages_agree(edge, edge_len);
    free(edge);
}

/* A token buffer fills before a large input is all lexed: caplog_lex says how much it took, the
 * rest goes into the next buffer, and no line is lost or counted twice. */
static void test_lex_takes_what_fits(void **state)
{
    (void)state;
    const char *line = "[2026-01-01 00:00:00 TP0] Memory pool end. avail mem=22.59 GB\n";
    size_t line_len = strlen(line), n_lines = 20000;
    char *buf = malloc(line_len * n_lines);
    assert_non_null(buf);
    for (size_t i = 0; i < n_lines; i++)
        memcpy(buf + i * line_len, line, line_len);
    caplog_lexer *lx = caplog_lexer_new();
    caplog_tokens *t = caplog_tokens_new();
    assert_non_null(lx);
    assert_non_null(t);
    size_t took = caplog_lex(lx, buf, line_len * n_lines, t);
    assert_true(took > 0 && took < line_len * n_lines);
    caplog_tokens_free(t);
    caplog_lexer_free(lx);
    uint64_t lines_read;
    parsed r = parse_staged(buf, line_len * n_lines, 0, &lines_read);
    assert_int_equal(lines_read, n_lines);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].lines, n_lines);
    assert_gib(rank_of(&r.runs[0], "TP0")->pool_avail_gib, 22.59);
    parsed_free(&r);
    free(buf);
}

static void test_cut_mid_line(void **state)
{
    (void)state;
    size_t len;
    char *buf = slurp("k3-dp2-dcp8-b200-article.log", &len);
    /* cut inside "mem usage=12.92" of the target's end line: "12.9" must not be read */
    char *cut = strstr(buf, "mem usage=12.92");
    assert_non_null(cut);
    size_t cut_len = (size_t)(cut - buf) + strlen("mem usage=12.9");
    parsed r = parse_bytes(buf, cut_len, 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_false(g->has_end);
    assert_unknown(g->end_usage_gib);
    assert_unknown(g->total_gib);
    assert_int_equal(g->n_bars, 23); /* everything up to the last whole line is kept */
    assert_gib(g->static_gib, 1.33);
    assert_gib(g->largest_gib, 10.24);
    assert_int_equal(run->last_line, 30); /* the end line (31) was cut */
    parsed_free(&r);

    /* a cut inside a \r-separated bar line keeps the frames already ended by \r */
    size_t len16;
    char *buf16 = slurp("16-eagle-llama2-docs-ci-cr-separated-tqdm-three-captures.log", &len16);
    char *frame = strstr(buf16, "Capturing batches (bs=2 avail_mem=22.27");
    assert_non_null(frame);
    r = parse_bytes(buf16, (size_t)(frame - buf16) + 30, 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_groups, 1);
    assert_int_equal(r.runs[0].groups[0].n_bars, 2); /* bs 4 and 3; bs 2's frame is cut */
    parsed_free(&r);
    free(buf16);
    free(buf);
}

static void test_unrecognisable_input(void **state)
{
    (void)state;
    parsed r = parse_bytes("", 0, 0);
    assert_false(r.recognised);
    assert_int_equal(r.n, 0);
    parsed_free(&r);

    unsigned char garbage[8192];
    uint32_t x = 2463534242u;
    for (size_t i = 0; i < sizeof garbage; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        garbage[i] = (unsigned char)x;
    }
    r = parse_bytes((const char *)garbage, sizeof garbage, 0);
    assert_false(r.recognised);
    assert_int_equal(r.n, 0);
    parsed_free(&r);

    r = parse_text("INFO 06-26 09:47:18 [gpu_model_runner.py:1234] Graph capturing finished in 12 secs, took 0.52 GiB\n"
                   "INFO 06-26 09:47:18 [kv_cache_utils.py:716] GPU KV cache size: 1,234,567 tokens\n"
                   "Capturing CUDA graph shapes: 100%|##########| 67/67 [00:12<00:00,  5.40it/s]\n");
    assert_false(r.recognised); /* a vLLM log */
    assert_int_equal(r.n, 0);
    parsed_free(&r);

    r = parse_text("SGLANG_X=1\nexport NVSHMEM_QP_DEPTH=1024\n");
    assert_false(r.recognised); /* echoed settings alone are not a server start */
    assert_int_equal(r.n, 0);
    parsed_free(&r);
}

static void test_very_long_line(void **state)
{
    (void)state;
    size_t big = 3 * CAPLOG_LINE_MAX;
    const char *tail = "\n[2025-12-19 07:42:57 TP0] Memory pool end. avail mem=22.59 GB\n";
    char *buf = malloc(big + strlen(tail) + 1);
    assert_non_null(buf);
    memset(buf, 'A', big);
    memcpy(buf + 20, "Memory pool end. avail mem=99.99 GB", 35); /* inside the long line: not read */
    strcpy(buf + big, tail);
    parsed r = parse_bytes(buf, strlen(buf), 4096);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].truncated_lines, 1);
    assert_gib(rank_of(&r.runs[0], "TP0")->pool_avail_gib, 22.59);
    parsed_free(&r);
    free(buf);
}

/* ---------------------------------------------------------------- synthetic variants */

static void test_prefix_variants(void **state)
{
    (void)state;
    parsed r = parse_text(
        "sglang-1  | [2025-12-11 10:20:30.123 DP3 PP0 TP3 EP3] Memory pool end. avail mem=10.00 GB\n"
        "2025-12-11 10:20:30 TP1] Memory pool end. avail mem=11.00 GB\n" /* lost '[' */
        "[2026-07-01 10:20:30 DP1 ATTN_CP0 MOE_DP1 TP5 EP5] Memory pool end. avail mem=12.00 GB\n"
        "[2025-12-11 10:20:30 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=9.00 GB\n"
        "sglang-1  | Capturing batches (bs=8 avail_mem=8.50 GB):   0%|          | 0/2 [00:00<?, ?it/s]\r"
        "Capturing batches (bs=4 avail_mem=8.00 GB):  50%|#####     | 1/2 [00:01<00:01,  1.0it/s]"
        "[2025-12-11 10:20:31 TP1] Capture cuda graph begin. This can take up to several minutes. avail mem=9.50 GB\n"
        "Capturing batches (bs=4 avail_mem=8.00 GB): 100%|##########| 2/2 [00:02<00:00,  1.0it/s]\n"
        "[2025-12-11 10:20:40 TP1] Capture cuda graph end. Time elapsed: 9.00 s. mem usage=2.00 GB. avail mem=7.50 "
        "GB.\n"
        "[2025-12-11 10:20:40 TP0] Capture cuda graph end. Time elapsed: 10.00s. mem usage=1.50 GB. avail mem=7.50 "
        "GB.\n");
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_gib(rank_of(run, "DP3 PP0 TP3 EP3")->pool_avail_gib, 10.00);
    assert_int_equal(rank_of(run, "DP3 PP0 TP3 EP3")->tp, 3);
    assert_gib(rank_of(run, "TP1")->pool_avail_gib, 11.00);
    assert_gib(rank_of(run, "DP1 ATTN_CP0 MOE_DP1 TP5 EP5")->pool_avail_gib, 12.00);
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_string_equal(g->rank_label, "TP0");
    assert_gib(g->begin_avail_gib, 9.00);
    assert_int_equal(g->n_bars, 2);
    assert_bar(g, 0, 8, 8.50);
    assert_bar(g, 1, 4, 8.00);
    assert_gib(g->end_elapsed_s, 10.00); /* "10.00s" (Dec 2024) read; TP1's 9.00 not taken */
    assert_gib(g->end_usage_gib, 1.50);
    assert_gib(g->static_gib, 0.50);
    assert_gib(g->largest_gib, 0.50);
    assert_gib(g->buckets_gib, 0.50);
    assert_gib(g->total_gib, 1.50);
    parsed_free(&r);
}

static void test_end_without_begin_and_other_rank_only(void **state)
{
    (void)state;
    /* TP0's begin is lost; TP1's begin and end exist, then TP0's end arrives */
    parsed r = parse_text(
        "[2025-12-11 10:20:30 TP1] Capture cuda graph begin. This can take up to several minutes. avail mem=9.50 GB\n"
        "[2025-12-11 10:20:40 TP1] Capture cuda graph end. Time elapsed: 9.00 s. mem usage=2.00 GB. avail mem=7.50 "
        "GB.\n"
        "[2025-12-11 10:20:41 TP2] Capture draft cuda graph end. Time elapsed: 1.00 s. mem usage=0.20 GB. avail "
        "mem=7.30 GB.\n");
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->n_groups, 2);
    assert_string_equal(run->groups[0].rank_label, "TP1"); /* the lowest rank that printed it */
    assert_gib(run->groups[0].begin_avail_gib, 9.50);
    assert_gib(run->groups[0].total_gib, 2.00);
    assert_string_equal(run->groups[1].kind, "draft cuda graph");
    assert_int_equal(run->groups[1].role, CAPLOG_ROLE_DRAFT);
    assert_int_equal(run->groups[1].phase, CAPLOG_PHASE_DECODE);
    assert_false(run->groups[1].has_begin);
    assert_true(run->groups[1].has_end);
    assert_unknown(run->groups[1].begin_avail_gib);
    assert_gib(run->groups[1].total_gib, 0.20); /* from the end line's usage */
    parsed_free(&r);
}

static void test_old_bars_without_bs(void **state)
{
    (void)state;
    /* 2025-04 style: bars name only avail_mem; update frames repeat the old description */
    parsed r = parse_text(
        "[2025-04-01 10:00:00 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 GB\n"
        "[2025-04-01 10:00:00 TP0] Capture cuda graph bs [1, 2, 4]\n"
        "Capturing batches (avail_mem=19.50 GB):   0%|          | 0/3 [00:00<?, ?it/s]\n"
        "Capturing batches (avail_mem=19.50 GB):  33%|###       | 1/3 [00:01<00:02,  1.0it/s]\n"
        "Capturing batches (avail_mem=17.00 GB):  33%|###       | 1/3 [00:01<00:02,  1.0it/s]\n"
        "Capturing batches (avail_mem=16.80 GB):  67%|######    | 2/3 [00:02<00:01,  1.0it/s]\n"
        "Capturing batches (avail_mem=16.80 GB): 100%|##########| 3/3 [00:03<00:00,  1.0it/s]\n"
        "[2025-04-01 10:00:03 TP0] Capture cuda graph end. Time elapsed: 3.00 s. avail mem=16.60 GB. mem usage=3.40 "
        "GB.\n");
    assert_int_equal(r.n, 1);
    const caplog_group *g = &r.runs[0].groups[0];
    assert_int_equal(g->n_bars, 3);
    assert_bar(g, 0, 4, 19.50);
    assert_bar(g, 1, 2, 17.00); /* the later frame at 1/3 is bucket 1's */
    assert_bar(g, 2, 1, 16.80);
    assert_gib(g->static_gib, 0.50);
    assert_gib(g->largest_gib, 2.50);
    assert_gib(g->buckets_gib, 0.40);
    assert_gib(g->bars[2].increment_gib, 0.20);
    assert_gib(g->total_gib, 3.40);
    assert_gib(g->end_avail_gib, 16.60);
    parsed_free(&r);
}

static void test_runs_split(void **state)
{
    (void)state;
    /* two server starts concatenated: server_args starts the second, with its env line */
    size_t l1, l2;
    char *a = slurp("k3-dp16-b200-article.log", &l1), *b = slurp("k3-dp2-dcp8-b200-article.log", &l2);
    char *both = malloc(l1 + l2 + 1);
    assert_non_null(both);
    memcpy(both, a, l1);
    memcpy(both + l1, b, l2 + 1);
    parsed r = parse_bytes(both, l1 + l2, 1000);
    assert_int_equal(r.n, 2);
    assert_int_equal(r.runs[0].first_line, 1);
    assert_int_equal(r.runs[0].last_line, 22);
    assert_string_equal(r.runs[0].env[0].value, "144");
    assert_int_equal(r.runs[1].first_line, 23);
    assert_string_equal(r.runs[1].env[0].value, "128");
    assert_int_equal(r.runs[1].n_env, 1);
    assert_gib(r.runs[1].groups[0].static_gib, 1.33);
    parsed_free(&r);
    free(both);
    free(a);
    free(b);

    /* no server_args: a rank-0 Load weight begin after a finished capture group restarts... */
    const char *target =
        "[2025-05-01 10:00:00 TP0] Load weight begin. avail mem=70.00 GB\n"
        "[2025-05-01 10:00:01 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 GB\n"
        "[2025-05-01 10:00:02 TP0] Capture cuda graph end. Time elapsed: 1.00 s. mem usage=1.00 GB. avail mem=19.00 "
        "GB.\n";
    char text[2048];
    snprintf(text, sizeof text, "%s%s", target,
             "[2025-05-01 10:01:00 TP0] Load weight begin. avail mem=71.00 GB\n"
             "[2025-05-01 10:01:01 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=21.00 "
             "GB\n");
    r = parse_text(text);
    assert_int_equal(r.n, 2);
    assert_gib(rank_of(&r.runs[1], "TP0")->weights_begin_avail_gib, 71.00);
    assert_gib(r.runs[1].groups[0].begin_avail_gib, 21.00);
    assert_int_equal(r.runs[1].first_line, 4);
    assert_int_equal(r.runs[0].last_line, 3);
    parsed_free(&r);

    /* ...but the EAGLE draft model loading after the target's capture does not */
    snprintf(text, sizeof text, "%s%s", target,
             "[2025-05-01 10:00:03 TP0] Load weight begin. avail mem=18.90 GB\n"
             "[2025-05-01 10:00:04 TP0] KV Cache is allocated. #tokens: 100, K size: 0.10 GB, V size: 0.10 GB\n"
             "[2025-05-01 10:00:05 TP0] Capture draft cuda graph begin. This can take up to several minutes. avail "
             "mem=18.00 GB\n"
             "[2025-05-01 10:00:06 TP0] Capture draft cuda graph end. Time elapsed: 1.00 s. mem usage=0.50 GB. avail "
             "mem=17.50 GB.\n");
    r = parse_text(text);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_groups, 2);
    assert_gib(rank_of(&r.runs[0], "TP0")->weights_begin_avail_gib, 70.00); /* the target's */
    assert_unknown(rank_of(&r.runs[0], "TP0")->kv_gib);                     /* the draft's pool is not the target's */
    parsed_free(&r);
}

static void test_phase_from_server_args(void **state)
{
    (void)state;
    parsed r = parse_text(
        "[2025-09-01 10:00:00] server_args=ServerArgs(model_path='x/y', tp_size=2, speculative_algorithm='EAGLE', "
        "json_model_override_args='{\"a\": [1, 2], \"b\": \"c, d\"}', cuda_graph_bs=None, mem_fraction_static=0.85)\n"
        "[2025-09-01 10:00:05 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 "
        "GB\n");
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_true(run->args.tp_size.has && run->args.tp_size.v == 2);
    assert_false(run->args.cuda_graph_bs.has); /* None */
    assert_true(run->args.mem_fraction_static.has);
    assert_gib(run->args.mem_fraction_static.v, 0.85); /* read past the quoted commas */
    assert_int_equal(run->groups[0].phase, CAPLOG_PHASE_NONE);
    assert_int_equal(caplog_group_phase(run, &run->groups[0]), CAPLOG_PHASE_VERIFY);
    assert_int_equal(r.n, 1);
    parsed_free(&r);

    /* speculative server_args: the draft's load after capture is neither a restart nor KV */
    r = parse_text(
        "[2025-09-01 10:00:00] server_args=ServerArgs(model_path='x/y', speculative_algorithm='EAGLE')\n"
        "[2025-09-01 10:00:01 TP0] KV Cache is allocated. #tokens: 1000, K size: 1.00 GB, V size: 1.00 GB\n"
        "[2025-09-01 10:00:01 TP0] Memory pool end. avail mem=30.00 GB\n"
        "[2025-09-01 10:00:05 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 GB\n"
        "[2025-09-01 10:00:06 TP0] Capture cuda graph end. Time elapsed: 1.00 s. mem usage=1.00 GB. avail mem=19.00 "
        "GB.\n"
        "[2025-09-01 10:00:07 TP0] Load weight begin. avail mem=19.00 GB\n"
        "[2025-09-01 10:00:08 TP0] KV Cache is allocated. #tokens: 9, K size: 0.50 GB, V size: 0.50 GB\n"
        "[2025-09-01 10:00:08 TP0] Memory pool end. avail mem=17.00 GB\n");
    assert_int_equal(r.n, 1);
    run = &r.runs[0];
    assert_gib(rank_of(run, "TP0")->kv_gib, 2.00);
    assert_int_equal(rank_of(run, "TP0")->kv_tokens, 1000);
    assert_gib(rank_of(run, "TP0")->pool_avail_gib, 30.00);
    assert_gib(rank_of(run, "TP0")->weights_begin_avail_gib, 19.00); /* the only one in the log */
    parsed_free(&r);

    r = parse_text(
        "[2025-09-01 10:00:00] server_args=ServerArgs(model_path='x/y', tp_size=2, speculative_algorithm='EAGLE', "
        "json_model_override_args='{\"a\": [1, 2], \"b\": \"c, d\"}', cuda_graph_bs=None, mem_fraction_static=0.85)\n"
        "[2025-09-01 10:00:05 TP0] Capture cuda graph begin. This can take up to several minutes. avail mem=20.00 "
        "GB\n");
    run = &r.runs[0];
    char *json = run_json(run);
    assert_non_null(strstr(json, "\"phase\":\"verify\""));
    assert_non_null(strstr(json, "\"dp_size\":null"));
    assert_non_null(strstr(json, "\"model_path\":\"x/y\""));
    free(json);
    parsed_free(&r);
}

static void test_group_cap(void **state)
{
    (void)state;
    char *text = malloc(64 * 1024);
    assert_non_null(text);
    size_t o = 0;
    for (int i = 0; i < CAPLOG_MAX_GROUPS + 8; i++)
        o += (size_t)sprintf(text + o,
                             "[2026-07-21 08:21:55 TP0] Capture draft decode CUDA graph begin. backend=full, "
                             "num_tokens_per_req=1, bs=[1], avail mem=%d.00 GB\n",
                             100 - i);
    parsed r = parse_bytes(text, o, 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_groups, CAPLOG_MAX_GROUPS);
    assert_int_equal(r.runs[0].dropped_groups, 8);
    assert_gib(r.runs[0].groups[CAPLOG_MAX_GROUPS - 1].begin_avail_gib, 100 - (CAPLOG_MAX_GROUPS - 1));
    parsed_free(&r);
    free(text);
}

static void test_rank_cap_and_late_oom(void **state)
{
    (void)state;
    char *text = malloc(64 * 1024);
    assert_non_null(text);
    size_t o = 0;
    for (int i = CAPLOG_MAX_RANKS + 5; i >= 1; i--) /* TP0 comes last, after the table is full */
        o += (size_t)sprintf(text + o, "[2025-12-11 10:20:30 TP%d] Memory pool end. avail mem=%d.00 GB\n", i, i);
    o += (size_t)sprintf(text + o,
                         "[2025-12-11 10:20:31 TP0] Capture cuda graph begin. This can take up to several minutes. "
                         "avail mem=5.00 GB\n"
                         "Capturing batches (bs=2 avail_mem=4.00 GB):   0%%|          | 0/1 [00:00<?, ?it/s]\n"
                         "Traceback (most recent call last):\n"
                         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n");
    parsed r = parse_bytes(text, o, 0);
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_ranks, CAPLOG_MAX_RANKS);
    /* TP5..TP1's lines, TP0's begin, the bar (TP0's), the traceback and the OOM line */
    assert_int_equal(r.runs[0].dropped_rank_lines, 9);
    assert_int_equal(r.runs[0].n_groups, 0);
    assert_gib(rank_of(&r.runs[0], "TP6")->pool_avail_gib, 6.00);
    parsed_free(&r);
    free(text);

    /* a warning-level log: bars only, then an OOM while serving is not a capture failure */
    r = parse_text("Capturing batches (bs=2 avail_mem=4.00 GB):   0%|          | 0/2 [00:00<?, ?it/s]\n"
                   "Capturing batches (bs=1 avail_mem=3.00 GB): 100%|##########| 2/2 [00:01<00:00,  1.0it/s]\n"
                   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n");
    assert_int_equal(r.n, 1);
    assert_int_equal(r.runs[0].n_groups, 1);
    assert_false(r.runs[0].groups[0].failed);
    parsed_free(&r);

    /* while a begun capture is open, the same text fails it */
    r = parse_text("[2026-08-17 16:52:13] Capture target decode CUDA graph begin. backend=full, "
                   "num_tokens_per_req=1, bs=[1, 2], avail mem=73.10 GB\n"
                   "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n");
    assert_true(r.runs[0].groups[0].failed);
    assert_non_null(strstr(r.runs[0].groups[0].failure, "Tried to allocate 2.00 GiB"));
    parsed_free(&r);
}

/* The server_args table drives the parser and the JSON writer alike: a line giving every field
 * fills every one, and the JSON writes each under its name, in the table's order. */
static void test_server_arg_table(void **state)
{
    (void)state;
    size_t n = caplog_server_arg_count();
    assert_true(n > 0);
    assert_null(caplog_server_arg_at(n));
    const char *const values[] = {
        [CAPLOG_ARG_INT] = "7",     [CAPLOG_ARG_REAL] = "0.5",    [CAPLOG_ARG_STR] = "'x'",
        [CAPLOG_ARG_BOOL] = "True", [CAPLOG_ARG_LIST] = "[1, 2]",
    };
    char line[2048];
    size_t used = (size_t)snprintf(line, sizeof line, "[2026-08-17 16:52:13] server_args=ServerArgs(");
    for (size_t i = 0; i < n; i++) {
        const caplog_server_arg_info *arg = caplog_server_arg_at(i);
        assert_non_null(arg);
        assert_true(arg->offset + sizeof(caplog_opt_int) <= sizeof(caplog_server_args));
        used +=
            (size_t)snprintf(line + used, sizeof line - used, "%s%s=%s", i ? ", " : "", arg->name, values[arg->type]);
        assert_true(used < sizeof line);
    }
    snprintf(line + used, sizeof line - used, ")\n");
    parsed r = parse_text(line);
    assert_int_equal(r.n, 1);
    const caplog_server_args *a = &r.runs[0].args;
    assert_true(a->present);
    char *json = run_json(&r.runs[0]);
    const char *at = strstr(json, "\"server_args\":{");
    assert_non_null(at);
    for (size_t i = 0; i < n; i++) {
        const caplog_server_arg_info *arg = caplog_server_arg_at(i);
        /* every caplog_opt_* starts with its bool has */
        if (!*(const bool *)((const char *)a + arg->offset))
            fail_msg("server_args field %s not read", arg->name);
        char key[96];
        snprintf(key, sizeof key, "\"%s\":", arg->name);
        const char *k = strstr(at, key);
        if (!k)
            fail_msg("server_args key %s missing or out of order in %s", arg->name, json);
        assert_true(strncmp(k + strlen(key), "null", 4) != 0);
        at = k + strlen(key);
    }
    free(json);
    parsed_free(&r);
}

/* A server_args name is read up to its first byte outside [A-Za-z0-9_] (SSE2 reads 16 bytes at a
 * time): random names of every length up to 40, at every alignment, cut by random bytes, read as
 * a plain byte loop would. A name cut before its '=' ends the reading, so tp_size after it is set
 * only when the name is whole. */
static bool is_arg_name_byte(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}

static void test_server_arg_name_scan(void **state)
{
    (void)state;
    static const char name_bytes[] = "abcxyzABCXYZ0189_";
    uint32_t seed = 12345;
    for (int trial = 0; trial < 3000; trial++) {
        char line[256];
        size_t pad = (size_t)(trial % 17), len = (size_t)(trial / 17 % 41);
        int used = snprintf(line, sizeof line, "[2026-01-01 00:00:00] %.*sserver_args=ServerArgs(", (int)pad,
                            "                 ");
        size_t at = (size_t)used;
        for (size_t i = 0; i < len; i++) {
            seed = seed * 1103515245u + 12345u;
            line[at++] = name_bytes[(seed >> 16) % (sizeof name_bytes - 1)];
        }
        seed = seed * 1103515245u + 12345u;
        /* half the names end at '=', the others at a random byte (a name byte too, sometimes) */
        unsigned char cut = (trial & 1) ? (unsigned char)(seed >> 16) : '=';
        if (cut == '\0' || cut == '\n' || cut == '\r')
            cut = '@';
        line[at++] = (char)cut;
        snprintf(line + at, sizeof line - at, "%s1, tp_size=2)\n", cut == '=' ? "" : "=");
        /* a name byte extends the name, which then ends at the '=' put after it */
        bool whole = (cut == '=' && len > 0) || is_arg_name_byte(cut);
        parsed r = parse_text(line);
        assert_int_equal(r.n, 1);
        const caplog_server_args *a = &r.runs[0].args;
        assert_true(a->present);
        if (a->tp_size.has != whole)
            fail_msg("name of %zu bytes cut by 0x%02x at offset %zu: tp_size %s", len, cut, pad,
                     a->tp_size.has ? "read" : "not read");
        if (whole)
            assert_int_equal(a->tp_size.v, 2);
        parsed_free(&r);
    }
}

/* ---------------------------------------------------------------- plausibility bounds (issue 11) */

/* Every value a knob accepts is plausible: the bounds only refuse what no knob (and no real
 * deployment) holds. */
static void test_bounds_are_the_knob_ranges(void **state)
{
    (void)state;
    assert_true(CAPLOG_BS_MAX >= engine_knobs[KNOB_MAX_BS].max);
    assert_true(CAPLOG_BS_MAX >= engine_knobs[KNOB_BUCKETS].max);
    assert_true(CAPLOG_RANKS_MAX >= engine_knobs[KNOB_WORLD].max);
    assert_true(CAPLOG_RANKS_MAX >= engine_knobs[KNOB_DP].max);
    assert_true(CAPLOG_RANKS_MAX >= engine_knobs[KNOB_DCP].max);
    assert_true(CAPLOG_RANKS_MAX >= engine_knobs[KNOB_EP].max);
    assert_true(CAPLOG_NUM_TOKENS_MAX >= engine_knobs[KNOB_CONTEXT_LEN].max);
    assert_true(CAPLOG_REQUESTS_MAX >= engine_knobs[KNOB_MAX_RUNNING_REQUESTS].max);
    assert_true(CAPLOG_SPEC_MAX >= engine_knobs[KNOB_MTP].max);
    assert_true(CAPLOG_BS_MAX <= UINT32_MAX && CAPLOG_NUM_TOKENS_MAX <= UINT32_MAX); /* uint32_t sizes */
}

/* tests/fixtures/sglang-logs/absurd-values.log: every number out of range (INDEX.md). Each line
 * that holds one is malformed; none of its values is kept. */
static void test_absurd_values(void **state)
{
    (void)state;
    parsed r = parse_fixture("absurd-values.log", 0);
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_int_equal(run->malformed_lines, 13); /* every line but the last */
    assert_int_equal(run->first_malformed_line, 1);
    assert_int_equal(run->unknown_lines, 1);
    const caplog_server_args *a = &run->args;
    assert_true(a->present);
    assert_true(a->model_path.has && a->enable_dp_attention.has && a->speculative_algorithm.has);
    assert_false(a->tp_size.has); /* 26 digits */
    assert_false(a->dp_size.has); /* 0 */
    assert_false(a->dcp_size.has); /* -1, and the DCP line's 4294967296 */
    assert_false(a->ep_size.has);
    assert_false(a->cuda_graph_max_bs.has); /* 4294967295 */
    assert_false(a->cuda_graph_bs.has);
    assert_int_equal(a->cuda_graph_bs.n, 0);
    assert_false(a->speculative_num_steps.has || a->speculative_eagle_topk.has || a->speculative_num_draft_tokens.has);
    assert_false(a->context_length.has); /* 26 digits: not clipped to 18 */
    assert_false(a->mem_fraction_static.has); /* 7.5 */
    assert_false(a->max_running_requests.has); /* 1e309 */
    for (uint32_t i = 0; i < run->n_ranks; i++) {
        const caplog_rank *k = &run->ranks[i];
        assert_true(k->tp <= CAPLOG_TAG_MAX && k->tp == 0); /* TP99999999999's line is not a rank */
        assert_false(k->has_data);
        assert_unknown(k->weights_begin_avail_gib); /* 400 digits */
        assert_unknown(k->weights_end_avail_gib);   /* 1e309: not 1.00 */
        assert_unknown(k->weights_usage_gib);       /* negative */
        assert_unknown(k->kv_gib);
        assert_int_equal(k->kv_tokens, -1);
        assert_unknown(k->pool_avail_gib); /* -5.00 */
        assert_int_equal(k->max_total_num_tokens, -1);
        assert_unknown(k->available_gpu_mem_gib);
    }
    assert_int_equal(run->n_groups, 1);
    const caplog_group *g = &run->groups[0];
    assert_true(g->has_begin && g->has_end);
    assert_unknown(g->begin_avail_gib);
    assert_int_equal(g->tokens_per_req, -1);
    assert_int_equal(g->step, -1);
    assert_int_equal(g->n_sizes, 0);
    assert_int_equal(g->n_bars, 0); /* bs 4294967295, avail 1e309, counter 4294967295/3 */
    assert_int_equal(g->bar_total, 0);
    assert_unknown(g->end_elapsed_s);
    assert_unknown(g->end_usage_gib);
    assert_gib(g->end_avail_gib, 6.49); /* the one plausible number on its line */
    assert_unknown(g->static_gib);
    assert_unknown(g->total_gib);
    parsed_free(&r);
}

/* The bounds themselves are plausible values: kept, and one past them is not. */
/* A bar's position is the first entry of the capture list with its size, whatever the list's
 * order (in capture order it is monotonic, and the search starts at the last bar's position);
 * the bars of one capture come largest first. */
static void test_bar_positions(void **state)
{
    (void)state;
    static const struct {
        const char *list;
        uint32_t bars[3];
        int32_t want[3];
    } cases[] = {
        {"[8, 4, 2]", {8, 4, 2}, {0, 1, 2}},
        {"[2, 4, 8]", {8, 4, 2}, {0, 1, 2}},  /* kept in capture order: [8, 4, 2] */
        {"[4, 8, 4]", {8, 4, 2}, {1, 0, -1}}, /* a repeated size: its first entry */
        {"[1, 8, 2]", {8, 2, 1}, {1, 0, 2}},  /* kept as [2, 8, 1] */
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char text[1024];
        snprintf(text, sizeof text,
                 "[2026-08-19 21:40:45 TP0] Capture cuda graph begin. bs=%s, avail mem=75.00 GB\n"
                 "Capturing batches (bs=%u avail_mem=74.00 GB):  33%%|###       | 1/3 [00:01<00:02, 1.0it/s]\n"
                 "Capturing batches (bs=%u avail_mem=73.00 GB):  67%%|######    | 2/3 [00:02<00:01, 1.0it/s]\n"
                 "Capturing batches (bs=%u avail_mem=72.00 GB): 100%%|##########| 3/3 [00:03<00:00, 1.0it/s]\n"
                 "[2026-08-19 21:40:46 TP0] Capture cuda graph end. Time elapsed: 3.00 s, mem usage=3.50 GB, "
                 "avail mem=71.50 GB.\n",
                 cases[c].list, cases[c].bars[0], cases[c].bars[1], cases[c].bars[2]);
        parsed r = parse_text(text);
        assert_int_equal(r.n, 1);
        const caplog_group *g = &r.runs[0].groups[0];
        assert_int_equal(g->n_bars, 3);
        for (int i = 0; i < 3; i++)
            if (g->bars[i].index != cases[c].want[i])
                fail_msg("list %s, bar %d (bs %u): position %d, want %d", cases[c].list, i, cases[c].bars[i],
                         g->bars[i].index, cases[c].want[i]);
        parsed_free(&r);
    }
}

/* A number is read as the double nearest to what the log printed (summing digit by digit gave
 * 0.29 as 0.29000000000000004), and a bar's words after a number are still read, in any order. */
static void test_numbers_exact(void **state)
{
    (void)state;
    parsed r = parse_text("[2026-08-19 21:40:10 TP0] Load weight begin. avail mem=0.29 GB\n"
                          "[2026-08-19 21:40:45 TP0] Capture cuda graph begin. bs=[2, 1], avail mem=75.31 GB\n"
                          "Capturing batches (bs=2 avail_mem= 75.15 GB):  50%|█████     | 1/2 [00:01<00:01, 1.0it/s]\n"
                          "Capturing batches (avail_mem=75.02 GB bs=1): 100%|██████████| 2/2 [00:02<00:00, 1.0it/s]\n"
                          "[2026-08-19 21:40:46 TP0] Capture cuda graph end. Time elapsed: 2.00 s, mem usage=0.31 GB, "
                          "avail mem=75.00 GB.\n");
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    assert_true(rank_of(run, "TP0")->weights_begin_avail_gib == 0.29);
    const caplog_group *g = &run->groups[0];
    assert_true(g->begin_avail_gib == 75.31);
    assert_int_equal(g->n_bars, 2);
    assert_true(g->bars[0].size == 2 && g->bars[0].avail_gib == 75.15);
    assert_true(g->bars[1].size == 1 && g->bars[1].avail_gib == 75.02); /* a word after "GB" */
    assert_int_equal(run->malformed_lines, 0);
    assert_true(g->end_usage_gib == 0.31);
    parsed_free(&r);
}

static void test_bounds_inclusive(void **state)
{
    (void)state;
    parsed r = parse_text(
        "[2026-08-19 21:40:02] server_args=ServerArgs(tp_size=65536, dp_size=1, cuda_graph_max_bs=65536, "
        "cuda_graph_bs=[1, 65536], context_length=1073741824, mem_fraction_static=1.0, "
        "max_running_requests=16777216)\n"
        "[2026-08-19 21:40:10 TP65535] Load weight begin. avail mem=65536.00 GB\n"
        "[2026-08-19 21:40:10 TP0] Load weight begin. avail mem=65536.01 GB\n"
        "[2026-08-19 21:40:45 TP0] Capture cuda graph begin. bs=[1, 65536], avail mem=80.00 GB\n"
        "[2026-08-19 21:40:45 TP0] Capture cuda graph bs [1, 65537]\n"
        "[2026-08-19 21:40:46 TP0] Capture cuda graph end. Time elapsed: 1000000.00 s, mem usage=-0.10 GB, "
        "avail mem=0.00 GB.\n");
    assert_int_equal(r.n, 1);
    const caplog_run *run = &r.runs[0];
    const caplog_server_args *a = &run->args;
    assert_true(a->tp_size.has && a->tp_size.v == 65536);
    assert_true(a->cuda_graph_max_bs.has && a->cuda_graph_max_bs.v == 65536);
    assert_true(a->cuda_graph_bs.has && a->cuda_graph_bs.n == 2);
    assert_true(a->context_length.has && a->context_length.v == 1073741824);
    assert_true(a->mem_fraction_static.has);
    assert_true(a->max_running_requests.has && a->max_running_requests.v == 16777216);
    assert_gib(rank_of(run, "TP65535")->weights_begin_avail_gib, 65536.0);
    assert_unknown(rank_of(run, "TP0")->weights_begin_avail_gib);
    assert_int_equal(run->malformed_lines, 2); /* 65536.01 GiB and bs 65537 */
    assert_int_equal(run->first_malformed_line, 3);
    const caplog_group *g = &run->groups[0];
    assert_int_equal(g->n_sizes, 2);
    assert_int_equal(g->sizes[0], 65536);
    assert_true(g->end_elapsed_s == 1e6);
    assert_gib(g->end_usage_gib, -0.10);
    assert_gib(g->end_avail_gib, 0.0);
    parsed_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_03_dp_attention_prefix),
        cmocka_unit_test(test_21_eagle_ladder),
        cmocka_unit_test(test_16_three_bar_only_groups),
        cmocka_unit_test(test_20_only_final_frame),
        cmocka_unit_test(test_03_begin_of_dp3_only),
        cmocka_unit_test(test_03_begin_lost_lowest_rank),
        cmocka_unit_test(test_17_begin_of_tp1),
        cmocka_unit_test(test_rank_names_and_architecture),
        cmocka_unit_test(test_keys_at_any_offset),
        cmocka_unit_test(test_keys_in_random_text),
        cmocka_unit_test(test_capture_named_later_in_line),
        cmocka_unit_test(test_hook_lines),
        cmocka_unit_test(test_k3_dp2_dcp8),
        cmocka_unit_test(test_k3_dp16),
        cmocka_unit_test(test_08_failed_2024_prefix),
        cmocka_unit_test(test_24_oom_without_begin),
        cmocka_unit_test(test_12_bar_without_bs_glued),
        cmocka_unit_test(test_15_plain_bar_end_avail_first),
        cmocka_unit_test(test_27_kv_without_tokens),
        cmocka_unit_test(test_28_registering),
        cmocka_unit_test(test_29_registering_waits_for_its_end),
        cmocka_unit_test(test_registering_rules),
        cmocka_unit_test(test_06_two_kv_pools),
        cmocka_unit_test(test_17_rank_rule),
        cmocka_unit_test(test_02_middle_of_capture),
        cmocka_unit_test(test_streaming_chunks_agree),
        cmocka_unit_test(test_two_stages_agree),
        cmocka_unit_test(test_lex_takes_what_fits),
        cmocka_unit_test(test_cut_mid_line),
        cmocka_unit_test(test_unrecognisable_input),
        cmocka_unit_test(test_very_long_line),
        cmocka_unit_test(test_prefix_variants),
        cmocka_unit_test(test_end_without_begin_and_other_rank_only),
        cmocka_unit_test(test_old_bars_without_bs),
        cmocka_unit_test(test_runs_split),
        cmocka_unit_test(test_phase_from_server_args),
        cmocka_unit_test(test_group_cap),
        cmocka_unit_test(test_rank_cap_and_late_oom),
        cmocka_unit_test(test_server_arg_table),
        cmocka_unit_test(test_server_arg_name_scan),
        cmocka_unit_test(test_bounds_are_the_knob_ranges),
        cmocka_unit_test(test_absurd_values),
        cmocka_unit_test(test_bounds_inclusive),
        cmocka_unit_test(test_numbers_exact),
        cmocka_unit_test(test_bar_positions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
