/* test_release.c — SGLang release facts: parsing, ordering, capture lists per release against
 * reference/sglang.md §4 and the printed lists of shared/fixtures/measured/deployments.json. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "engine.h" /* engine_release_default_backend reads the model and the GPU */
#include "release.h"

/* nvidia-smi memory.total, MiB (reference/sglang.md §1, typical values). */
#define H100_MIB 81559u
#define H200_MIB 143771u
#define B200_MIB 183359u
#define L40S_MIB 46068u
#define A10_MIB 23028u
#define RTX4090_MIB 24564u
#define GB10_MIB 124610u

static engine_release rel(const char *text)
{
    engine_release r;
    char err[128];
    int rc = engine_release_parse(text, &r, err, sizeof err);
    if (rc != 0)
        fail_msg("parse %s: %s", text, err);
    return r;
}

static engine_capture_params params(uint32_t gpu_mem, uint32_t tp)
{
    engine_capture_params p;
    memset(&p, 0, sizeof p);
    p.gpu_mem_mib = gpu_mem;
    p.tp_size = tp;
    return p;
}

#define MAXN 2048
static uint32_t got[MAXN];

static size_t list(const char *release, const engine_capture_params *p, engine_capture_notes *n)
{
    engine_release r = rel(release);
    memset(got, 0, sizeof got);
    return engine_release_capture_list(&r, p, got, MAXN, n);
}

static void assert_list(size_t n, const uint32_t *want, size_t n_want)
{
    assert_int_equal(n, n_want);
    for (size_t i = 0; i < n_want; i++)
        if (got[i] != want[i])
            fail_msg("size %zu: got %u, want %u", i, got[i], want[i]);
}

/* Builds an expected list from {from, to, step} segments. */
static size_t segments(uint32_t *out, const uint32_t (*seg)[3], size_t n_seg)
{
    size_t n = 0;
    for (size_t s = 0; s < n_seg; s++)
        for (uint32_t v = seg[s][0]; v <= seg[s][1]; v += seg[s][2])
            out[n++] = v;
    return n;
}

static void test_parse(void **state)
{
    (void)state;
    engine_release r;
    char err[128], text[ENGINE_RELEASE_TEXT_MAX];
    const char *round[] = {"v0.3.0",    "v0.3.6.post3", "v0.4.3.post4", "v0.4.6",         "v0.4.10.post1",
                           "v0.5.3rc2", "v0.5.6.post2", "v0.5.15",      "main@2026-07-20"};
    for (size_t i = 0; i < sizeof round / sizeof round[0]; i++) {
        assert_int_equal(engine_release_parse(round[i], &r, err, sizeof err), 0);
        engine_release_text(&r, text, sizeof text);
        assert_string_equal(text, round[i]);
        assert_false(r.beyond_model);
    }
    assert_int_equal(engine_release_parse("0.5.3.rc0", &r, err, sizeof err), 0);
    assert_int_equal(r.stage, ENGINE_RELEASE_RC);
    assert_int_equal(r.number, 0);
    assert_int_equal(engine_release_parse("V0.4.9.post6", &r, err, sizeof err), 0);
    assert_int_equal(r.patch, 9);
    assert_int_equal(r.stage, ENGINE_RELEASE_POST);
    assert_int_equal(r.number, 6);
    assert_int_equal(engine_release_parse("main", &r, err, sizeof err), 0);
    assert_int_equal(r.stage, ENGINE_RELEASE_MAIN);

    /* Older than modelled: an error naming the oldest. */
    const char *old[] = {"0.2.15", "v0.3.0rc1", "0.2.9.post1", "0.0.0"};
    for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) {
        err[0] = '\0';
        assert_int_equal(engine_release_parse(old[i], &r, err, sizeof err), -1);
        assert_non_null(strstr(err, "v0.3.0"));
    }
    /* Every release of the 0.3 and early 0.4 lines parses, unflagged. */
    const char *early[] = {"0.3.0",       "0.3.1.post3", "0.3.4.post2", "0.3.6.post3", "0.4.0",      "0.4.1.post7",
                           "0.4.2.post4", "0.4.3.post4", "0.4.4.post4", "0.4.5",       "0.4.5.post3"};
    for (size_t i = 0; i < sizeof early / sizeof early[0]; i++) {
        assert_int_equal(engine_release_parse(early[i], &r, err, sizeof err), 0);
        assert_false(r.beyond_model);
        assert_false(engine_release_model_note(&r, text, sizeof text));
        assert_string_equal(text, "");
    }
    const char *bad[] = {"", "0.5", "0.5.x", "0.5.3post1", "0.5.3.post", "0.5.3rc", "0.5.3rc2x",
                         "main@2026-01-01", "0.0.0.dev11582+g4df60434d", "latest", "0.5.99999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(engine_release_parse(bad[i], &r, err, sizeof err), -1);
        assert_true(strlen(err) > 0);
    }
    assert_int_equal(engine_release_parse(NULL, &r, err, sizeof err), -1);

    /* Newer than modelled: accepted, flagged, printed as given. */
    const char *newer[] = {"0.5.16", "v0.5.19.post1", "0.6.0rc0", "1.0.0"};
    for (size_t i = 0; i < sizeof newer / sizeof newer[0]; i++) {
        assert_int_equal(engine_release_parse(newer[i], &r, err, sizeof err), 0);
        assert_true(r.beyond_model);
    }
    r = rel("0.5.19.post1");
    engine_release_text(&r, text, sizeof text);
    assert_string_equal(text, "v0.5.19.post1");
    engine_release_text(&r, text, 4); /* truncated, terminated */
    assert_string_equal(text, "v0.");
    /* ... and the note says main stands in for it. */
    char note[160];
    r = rel("0.6.0");
    assert_true(engine_release_model_note(&r, note, sizeof note));
    assert_string_equal(note, "SGLang v0.6.0 is newer than the newest modelled release main@2026-07-20: planned as "
                              "main@2026-07-20");
    r = rel("main");
    assert_false(engine_release_model_note(&r, note, sizeof note));
}

static void test_order(void **state)
{
    (void)state;
    const char *asc[] = {"0.3.0",       "0.3.1",       "0.3.1.post3", "0.3.6.post3", "0.4.0",       "0.4.0.post2",
                         "0.4.3.post4", "0.4.5",       "0.4.5.post3", "0.4.6",       "0.4.6.post1", "0.4.6.post5",
                         "0.4.7",       "0.4.9.post6", "0.4.10",      "0.5.0rc0",    "0.5.0rc2",    "0.5.1",
                         "0.5.3rc0",    "0.5.3rc2",    "0.5.3",       "0.5.3.post3", "0.5.10",      "0.5.15.post9",
                         "main",        "0.5.16rc0",   "0.5.16",      "0.6.0"};
    size_t n = sizeof asc / sizeof asc[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            engine_release a = rel(asc[i]), b = rel(asc[j]);
            int c = engine_release_cmp(&a, &b);
            if ((i < j && c >= 0) || (i > j && c <= 0) || (i == j && c != 0))
                fail_msg("cmp(%s, %s) = %d", asc[i], asc[j], c);
        }
    engine_release oldest = engine_release_oldest(), newest = engine_release_newest(), r = rel("v0.3.0");
    assert_int_equal(engine_release_cmp(&oldest, &r), 0);
    r = rel("main");
    assert_int_equal(engine_release_cmp(&newest, &r), 0);
}

/* §4.1 examples on main: sizes and the off-grid append of PR #21005. */
static void test_server_generator(void **state)
{
    (void)state;
    engine_capture_params p = params(H200_MIB, 8);
    engine_capture_notes n;
    p.pool_size = 4096;
    const struct {
        uint32_t max_bs;
        bool spec;
        size_t count;
    } cases[] = {{256, false, 36}, {512, false, 52}, {256, true, 51}, {512, true, 67}};
    for (size_t i = 0; i < 4; i++) {
        p.max_bs = cases[i].max_bs;
        p.speculative = cases[i].spec;
        size_t k = list("main", &p, &n);
        assert_int_equal(k, cases[i].count);
        assert_int_equal(got[k - 1], cases[i].max_bs);
        assert_false(n.appended_max_bs);
        assert_false(n.clamped_to_pool);
    }
    /* v0.5.3: the speculative grid stops at 60 before 64 (PR #12002): one size fewer. */
    p.max_bs = 256;
    p.speculative = true;
    assert_int_equal(list("0.5.3", &p, &n), 50);
    assert_int_equal(list("0.5.4.post1", &p, &n), 50);
    assert_int_equal(list("0.5.4.post2", &p, &n), 51);

    p.speculative = false;
    p.max_bs = 500;
    size_t k = list("main", &p, &n);
    assert_int_equal(k, 52);
    assert_int_equal(got[k - 3], 480);
    assert_int_equal(got[k - 2], 496);
    assert_int_equal(got[k - 1], 500);
    assert_true(n.appended_max_bs);
    k = list("0.5.6.post2", &p, &n);
    assert_int_equal(k, 51);
    assert_int_equal(got[k - 1], 496);
    assert_false(n.appended_max_bs);
    assert_int_equal(n.max_bs, 500);

    /* max_bs 24 / 192 examples, and padding disabled: 1..max_bs. */
    const uint32_t want24[] = {1, 2, 4, 8, 12, 16, 24};
    p.max_bs = 24;
    assert_list(list("main", &p, &n), want24, 7);
    p.speculative = true;
    const uint32_t want24s[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24};
    p.max_bs = 24;
    p.max_running_requests = 256;
    assert_list(list("main", &p, &n), want24s, 16);
    p.max_bs = 192;
    assert_int_equal(list("main", &p, &n), 43);
    p.speculative = false;
    assert_int_equal(list("main", &p, &n), 28);
    p.disable_padding = true;
    p.max_bs = 100;
    k = list("0.5.6", &p, &n);
    assert_int_equal(k, 100);
    assert_int_equal(got[0], 1);
    assert_int_equal(got[99], 100);

    /* An explicit list sets max_bs to its max; the user's max_bs is not applied to it. */
    p = params(H200_MIB, 8);
    const uint32_t explicit_bs[] = {64, 8, 1, 8, 32};
    p.explicit_bs = explicit_bs;
    p.n_explicit = 5;
    p.max_bs = 16;
    const uint32_t want_explicit[] = {1, 8, 32, 64};
    assert_list(list("main", &p, &n), want_explicit, 4);
    assert_int_equal(n.max_bs, 64);
}

/* v0.4.8 .. v0.5.2 runner-built list with GPU tiers (PR #7053) and the max_bs extension (PR #6201). */
static void test_runner_generator(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 8);
    size_t k = list("0.5.2", &p, &n);
    assert_int_equal(k, 23);
    assert_int_equal(got[k - 1], 160);
    assert_int_equal(n.max_bs, 160);
    assert_false(n.max_bs_defaulted);
    p.gpu_mem_mib = H200_MIB;
    k = list("0.4.8", &p, &n);
    assert_int_equal(k, 35);
    assert_int_equal(got[k - 1], 256);
    p.gpu_mem_mib = B200_MIB;
    k = list("0.5.3rc0", &p, &n); /* the server generator arrives in rc2 */
    assert_int_equal(k, 51);
    assert_int_equal(got[k - 1], 512);

    /* Tier thresholds moved: v0.4.7 had 98304 / 180000 MiB, v0.4.7.post1 92160 / 160000. */
    p.gpu_mem_mib = 95000;
    assert_int_equal(list("0.4.7", &p, &n), 23);
    assert_int_equal(list("0.4.7.post1", &p, &n), 35);
    p.gpu_mem_mib = 170000;
    assert_int_equal(list("0.4.7", &p, &n), 35);
    assert_int_equal(list("0.4.7.post1", &p, &n), 51);

    /* v0.4.6: 160..256 only above 81920 MiB and with dp_size 1. */
    p.gpu_mem_mib = H200_MIB;
    assert_int_equal(list("0.4.6", &p, &n), 35);
    p.dp = 2;
    assert_int_equal(list("0.4.6", &p, &n), 23);
    assert_int_equal(list("0.4.6.post2", &p, &n), 35);
    p.dp = 1;
    p.gpu_mem_mib = 90000;
    assert_int_equal(list("0.4.6", &p, &n), 35);
    assert_int_equal(list("0.4.6.post2", &p, &n), 23);

    /* Speculative runner lists. */
    p = params(H100_MIB, 8);
    p.speculative = true;
    p.max_running_requests = 1024;
    const uint32_t want_spec047[] = {1,  2,  3,  4,  5,  6,  7,  8,  10,  12,  14,  16,  18,  20,  22,
                                     24, 26, 28, 30, 32, 40, 48, 56, 80, 96, 112, 128, 144, 160};
    assert_list(list("0.5.2", &p, &n), want_spec047, 29);
    const uint32_t want_spec046[] = {1,  2,  3,  4,  5,  6,  7,  8,  10, 12,  14,  16,  18,  20,
                                     22, 24, 26, 28, 30, 32, 40, 56, 72, 88, 104, 120, 136, 152};
    assert_list(list("0.4.6", &p, &n), want_spec046, 28);

    /* Small GPUs: cuda_graph_max_bs 8 (tp<4) / 80; threshold 25000 MiB until v0.4.7, 35840 after. */
    p = params(RTX4090_MIB, 2);
    const uint32_t want8[] = {1, 2, 4, 8};
    assert_list(list("0.4.6", &p, &n), want8, 4);
    assert_true(n.max_bs_defaulted);
    p.gpu_mem_mib = 30000;
    assert_int_equal(list("0.4.7", &p, &n), 23);
    assert_list(list("0.4.7.post1", &p, &n), want8, 4);
    p.tp_size = 4;
    k = list("0.5.0", &p, &n);
    assert_int_equal(k, 13); /* [1,2,4,8] + 16..80 step 8 */
    assert_int_equal(got[k - 1], 80);

    /* An explicit max_bs above the list: v0.4.6 only cuts, v0.4.6.post4+ extends by 16. */
    p = params(H100_MIB, 8);
    p.max_bs = 256;
    k = list("0.5.2", &p, &n);
    assert_int_equal(k, 29);
    assert_int_equal(got[22], 160);
    assert_int_equal(got[23], 176);
    assert_int_equal(got[k - 1], 256);
    assert_true(n.extended_to_max_bs);
    k = list("0.4.6.post3", &p, &n);
    assert_int_equal(k, 23);
    assert_false(n.extended_to_max_bs);
    assert_int_equal(list("0.4.6.post4", &p, &n), 29);
    p.max_bs = 100;
    k = list("0.5.2", &p, &n);
    assert_int_equal(k, 15);
    assert_int_equal(got[k - 1], 96);
    p.max_bs = 500;
    k = list("0.5.2", &p, &n);
    assert_int_equal(got[k - 1], 496);
}

/* ---- Releases before v0.4.6, one test a family: the list each captures for a given max_bs.
 * Lines are of python/sglang/srt/model_executor/cuda_graph_runner.py (model_runner.py for
 * v0.3.0) and server_args.py at the release's version.py bump commit. ---- */

/* [1, 2, 4] + [i * 8 for i in range(1, 21)], the padded list from v0.3.0 to v0.4.6. */
static const uint32_t want_pad160[] = {1,  2,  4,  8,   16,  24,  32,  40,  48,  56,  64, 72,
                                       80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160};

/* v0.3.0 .. v0.3.1.post1: model_runner.py init_cuda_graphs at a63c8275c, lines 499-502
 * ("batch_size_list = [1, 2, 4] + [i * 8 for i in range(1, 21)]"), list(range(1, 32)) + [64, 128]
 * without padding; no --cuda-graph-max-bs and no clamp to the request pool. */
static void test_family_v030(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 1);
    p.max_bs = 64; /* no flag to give it with: the list stays whole */
    p.max_running_requests = 32;
    assert_list(list("0.3.0", &p, &n), want_pad160, 23);
    assert_true(n.no_max_bs_flag);
    assert_false(n.clamped_to_pool);
    assert_list(list("0.3.1.post1", &p, &n), want_pad160, 23);
    p.disable_padding = true;
    uint32_t want[40];
    const uint32_t seg[][3] = {{1, 31, 1}, {64, 128, 64}};
    size_t nw = segments(want, seg, 2);
    assert_list(list("0.3.0", &p, &n), want, nw);
    assert_int_equal(nw, 33);
    /* No speculative decoding yet: the plain list, and a note. */
    p = params(H100_MIB, 1);
    p.speculative = true;
    assert_list(list("0.3.0", &p, &n), want_pad160, 23);
    assert_true(n.no_speculative);
    engine_release r = rel("0.3.0");
    assert_int_equal(engine_release_default_max_bs(&r, H100_MIB, 1, false), 160);
    assert_int_equal(engine_release_default_max_bs(&r, RTX4090_MIB, 1, false), 160); /* no small-GPU rule */
}

/* v0.3.1.post2 .. v0.3.4.post2: CudaGraphRunner.__init__ drops sizes above req_to_token_pool.size
 * (PR #1469; at v0.3.2, 37c5899fc, lines 116-118 "bs for bs in self.capture_bs if bs <=
 * model_runner.req_to_token_pool.size"), nothing added; v0.3.4.post2 (30643fed7, line 119) lists
 * [1, 2, 3, 4] + [i * 8 for i in range(1, 21)]. Still no --cuda-graph-max-bs. */
static void test_family_v031(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 1);
    p.max_running_requests = 100;
    const uint32_t want100[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96};
    assert_list(list("0.3.2", &p, &n), want100, 15);
    assert_true(n.clamped_to_pool);
    assert_false(n.added_pool_minus_one);
    assert_int_equal(n.pool_size, 101); /* ReqToTokenPool(size=max_num_reqs + 1) */
    assert_list(list("0.3.1.post2", &p, &n), want100, 15);
    const uint32_t want3[] = {1, 2, 3, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96};
    assert_list(list("0.3.4.post2", &p, &n), want3, 16);
    assert_list(list("0.3.4.post1", &p, &n), want100, 15);
    p.max_running_requests = 0;
    p.max_bs = 160;
    assert_list(list("0.3.3", &p, &n), want_pad160, 23);
    assert_false(n.no_max_bs_flag); /* 160 is the list's own top: nothing to cut */
    engine_release r = rel("0.3.4.post2");
    assert_false(engine_release_has_flag(&r, ENGINE_FLAG_CUDA_GRAPH_MAX_BS));
    assert_true(engine_release_has_flag(&r, ENGINE_FLAG_ATTENTION_BACKEND));
    r = rel("0.3.0");
    assert_false(engine_release_has_flag(&r, ENGINE_FLAG_ATTENTION_BACKEND)); /* PR #1380 is v0.3.1 */
}

/* v0.3.5 .. v0.3.6.post3: the filter adds "and bs <= model_runner.server_args.cuda_graph_max_bs"
 * (at v0.3.6, 9a00e6f45, lines 124-129), default 160 (server_args.py "cuda_graph_max_bs: int = 160").
 * From v0.3.5.post2 a GPU under 25000 MiB gets 4 whatever was given (server_args.py at v0.3.6, lines
 * 173-175); from v0.3.6 DP attention takes min(cuda_graph_max_bs, 96) (line 192). */
static void test_family_v035(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 1);
    p.max_bs = 64;
    const uint32_t want64[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64};
    assert_list(list("0.3.5", &p, &n), want64, 11);
    assert_list(list("0.3.6.post3", &p, &n), want64, 11);
    assert_false(n.no_max_bs_flag);
    p.max_bs = 0;
    assert_list(list("0.3.6", &p, &n), want_pad160, 23);
    assert_true(n.max_bs_defaulted);
    assert_int_equal(n.max_bs, 160);
    /* An RTX 4090 (24564 MiB): 4, even over --cuda-graph-max-bs 64; v0.3.5.post1 had no such rule. */
    p = params(RTX4090_MIB, 4);
    p.max_bs = 64;
    const uint32_t want4[] = {1, 2, 4};
    assert_list(list("0.3.6", &p, &n), want4, 3);
    assert_true(n.max_bs_forced);
    assert_list(list("0.3.5.post2", &p, &n), want4, 3);
    assert_list(list("0.3.5.post1", &p, &n), want64, 11);
    /* DP attention: 96 over a given 160. */
    p = params(H100_MIB, 8);
    p.dp = 8;
    p.max_bs = 160;
    const uint32_t want96[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96};
    assert_list(list("0.3.6", &p, &n), want96, 15);
    assert_true(n.max_bs_forced);
    assert_int_equal(list("0.3.5.post2", &p, &n), 23);
    engine_release r = rel("0.3.6");
    assert_int_equal(engine_release_default_max_bs(&r, RTX4090_MIB, 1, false), 4);
    assert_int_equal(engine_release_default_max_bs(&r, H200_MIB, 8, false), 160);
}

/* v0.4.0 .. v0.4.0.post2: an unset cuda_graph_max_bs is 8 below 25000 MiB (server_args.py at
 * v0.4.0, f8b032693, lines 178-182), 80 at tp >= 4 from v0.4.0.post1 (e5f227c0e, lines 189-197);
 * v0.4.0.post1 adds N-1 and N when the list passes the pool (cuda_graph_runner.py at e5f227c0e,
 * lines 134-145, "if max(self.capture_bs) > model_runner.req_to_token_pool.size"); v0.4.0.post2
 * lists range(1, 33) + [64, 128] without padding and drops the DP-attention cap. */
static void test_family_v040(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 1);
    p.max_bs = 128;
    p.max_running_requests = 100;
    /* N = 100 + 1: N-1 and N are 100 and 101 */
    const uint32_t want100[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80, 88, 96, 100, 101};
    assert_list(list("0.4.0.post1", &p, &n), want100, 17);
    assert_true(n.added_pool_minus_one);
    assert_int_equal(list("0.4.0", &p, &n), 15); /* dropped, nothing added */
    /* An L4 (23034 MiB) at tp 4: 8 in v0.4.0, 80 from v0.4.0.post1; a given max_bs stays. */
    p = params(23034, 4);
    const uint32_t want8[] = {1, 2, 4, 8};
    assert_list(list("0.4.0", &p, &n), want8, 4);
    assert_int_equal(list("0.4.0.post1", &p, &n), 13); /* [1, 2, 4, 8] + 16..80 step 8 */
    assert_int_equal(got[12], 80);
    p.max_bs = 32;
    assert_int_equal(list("0.4.0", &p, &n), 7);
    assert_false(n.max_bs_forced);
    /* Without padding. */
    p = params(H100_MIB, 1);
    p.disable_padding = true;
    p.max_bs = 64;
    assert_int_equal(list("0.4.0.post1", &p, &n), 32); /* 1..31, 64 */
    assert_int_equal(list("0.4.0.post2", &p, &n), 33); /* 1..32, 64 */
    /* DP attention's 96 holds to v0.4.0.post1. */
    p = params(H100_MIB, 8);
    p.dp = 8;
    assert_int_equal(list("0.4.0.post1", &p, &n), 15);
    assert_int_equal(list("0.4.0.post2", &p, &n), 23);
}

/* v0.4.1 .. v0.4.3.post2: EAGLE (PR #2150, v0.4.1.post4) has no list of its own and sets
 * disable_cuda_graph_padding (server_args.py at v0.4.3, e0b9a423c, line 267), so it captures
 * list(range(1, 33)) + [64, 128] (cuda_graph_runner.py at e0b9a423c, lines 112-116); max_running_requests
 * stays unset. On AMD, v0.4.3 appends [i * 8 for i in range(21, 33)] after both filters (lines
 * 135-136, PR #3420), so an explicit max_bs does not stop them. --cuda-graph-bs from v0.4.1.post5. */
static void test_family_v041(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 8);
    p.speculative = true;
    p.width = 4;
    uint32_t want[40];
    const uint32_t seg[][3] = {{1, 32, 1}, {64, 128, 64}};
    size_t nw = segments(want, seg, 2);
    assert_list(list("0.4.3", &p, &n), want, nw);
    assert_int_equal(nw, 34);
    assert_true(n.pool_defaulted);
    assert_int_equal(n.pool_size, 2049);
    assert_false(n.no_speculative);
    assert_list(list("0.4.1.post4", &p, &n), want, nw);
    assert_int_equal(list("0.4.1.post3", &p, &n), 23); /* no EAGLE yet: the plain list */
    assert_true(n.no_speculative);
    engine_release r = rel("0.4.1.post4");
    assert_int_equal(engine_release_eagle_runner(&r), ENGINE_EAGLE_SHARED_RUNNER);
    assert_int_equal(engine_release_default_max_bs(&r, H100_MIB, 8, true), 160);
    r = rel("0.4.2.post2");
    assert_int_equal(engine_release_eagle_runner(&r), ENGINE_EAGLE_DRAFT_RUNNER);
    r = rel("0.4.1.post3");
    assert_int_equal(engine_release_eagle_runner(&r), ENGINE_EAGLE_NONE);
    assert_false(engine_release_has_flag(&r, ENGINE_FLAG_SPECULATIVE));

    /* AMD at v0.4.3 with --cuda-graph-max-bs 64: 1..64's padded sizes, then 168..256 step 8. */
    p = params(196592, 8);
    p.rocm = true;
    p.max_bs = 64;
    uint32_t want_hip[40];
    const uint32_t seg_hip[][3] = {{1, 2, 1}, {4, 8, 4}, {16, 64, 8}, {168, 256, 8}};
    nw = segments(want_hip, seg_hip, 4);
    assert_list(list("0.4.3", &p, &n), want_hip, nw);
    assert_int_equal(nw, 23);
    assert_list(list("0.4.3.post2", &p, &n), want_hip, nw);
    assert_int_equal(list("0.4.2.post4", &p, &n), 11); /* no AMD sizes before PR #3420 */
    p.rocm = false;
    assert_int_equal(list("0.4.3", &p, &n), 11);

    /* --cuda-graph-bs: from v0.4.1.post5; before it the default list, and a note. */
    const uint32_t explicit_bs[] = {1, 8, 32};
    p = params(H100_MIB, 1);
    p.explicit_bs = explicit_bs;
    p.n_explicit = 3;
    assert_list(list("0.4.1.post5", &p, &n), explicit_bs, 3);
    assert_list(list("0.4.1.post4", &p, &n), want_pad160, 23);
    assert_true(n.no_explicit_flag);
}

/* v0.4.3.post3 .. v0.4.4.post3: speculation gets its own list, list(range(1, 33)) (cuda_graph_runner.py
 * at v0.4.3.post3, fc671f66c, line 120, PR #3988), then list(range(1, 9)) + list(range(9, 33, 2)) +
 * [64, 96, 128, 160] (at v0.4.4.post2, 1099f6c97, line 125, PR #4363, which also stops EAGLE setting
 * disable_cuda_graph_padding); without padding list(range(1, 33)) + [64, 96, 128, 160] (line 116/119);
 * EAGLE sets max_running_requests 32 (server_args.py at fc671f66c, line 284). AMD's 168..256 move
 * before the filters (PR #3857), then to the default list only (PR #4638, v0.4.4.post3). */
static void test_family_v043_post3(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 8);
    p.speculative = true;
    p.max_running_requests = 256;
    uint32_t want[40];
    const uint32_t seg32[][3] = {{1, 32, 1}};
    size_t nw = segments(want, seg32, 1);
    assert_list(list("0.4.3.post3", &p, &n), want, nw);
    assert_list(list("0.4.4.post1", &p, &n), want, nw);
    const uint32_t want_odd[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  11, 13,  15,
                                 17, 19, 21, 23, 25, 27, 29, 31, 64, 96, 128, 160};
    assert_list(list("0.4.4.post2", &p, &n), want_odd, 24);
    assert_list(list("0.4.4.post3", &p, &n), want_odd, 24);
    /* The default pool under EAGLE: 32 requests, N = 33, which adds 32 and 33. */
    p.max_running_requests = 0;
    const uint32_t want32[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 32, 33};
    assert_list(list("0.4.4.post2", &p, &n), want32, 22);
    assert_true(n.pool_defaulted);
    assert_int_equal(n.pool_size, 33);
    /* Without padding. */
    p = params(H100_MIB, 1);
    p.disable_padding = true;
    const uint32_t seg_np[][3] = {{1, 32, 1}, {64, 160, 32}};
    nw = segments(want, seg_np, 2);
    assert_list(list("0.4.4", &p, &n), want, nw);
    assert_int_equal(nw, 36);
    /* AMD, explicit sizes: v0.4.4.post2 still adds 168..256, v0.4.4.post3 does not. */
    const uint32_t explicit_bs[] = {1, 2, 4};
    p = params(196592, 8);
    p.rocm = true;
    p.explicit_bs = explicit_bs;
    p.n_explicit = 3;
    p.max_bs = 256;
    assert_int_equal(list("0.4.4.post2", &p, &n), 15);
    assert_list(list("0.4.4.post3", &p, &n), explicit_bs, 3);
    /* ... and the default list, cut at the default 160 (v0.4.3.post3 on: the filter comes after). */
    p.explicit_bs = NULL;
    p.n_explicit = 0;
    p.max_bs = 0;
    assert_list(list("0.4.4.post3", &p, &n), want_pad160, 23);
    assert_list(list("0.4.3.post3", &p, &n), want_pad160, 23);
}

/* v0.4.4.post4 .. v0.4.5.post3: the v0.4.6 lists (cuda_graph_runner.py at v0.4.5, 57f99608f,
 * lines 121 and 125-127, PR #4908); EAGLE's pool is 48 (server_args.py at 35e0856b9, line 334). The
 * unpadded one is list(range(1, 33)) + range(40, 161, 16) (line 119), a TypeError, until PR #5412
 * (v0.4.5.post1). v0.4.5.post3 leaves cuda_graph_max_bs unset and adds 160..256 above 81920 MiB
 * (at b9c87e781, lines 136-138 and 151-152) where v0.4.5.post2 kept 160 (and AMD's 168..256 fell
 * to it). */
static void test_family_v044_post4(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H100_MIB, 8);
    p.speculative = true;
    p.max_running_requests = 1024;
    const uint32_t want_spec[] = {1,  2,  3,  4,  5,  6,  7,  8,  10, 12, 14,  16,  18,  20,
                                  22, 24, 26, 28, 30, 32, 40, 56, 72, 88, 104, 120, 136, 152};
    assert_list(list("0.4.4.post4", &p, &n), want_spec, 28);
    assert_list(list("0.4.5", &p, &n), want_spec, 28);
    p.max_running_requests = 0;
    assert_int_equal(list("0.4.5", &p, &n), 23); /* ..., 40, 48, 49: N = 48 + 1 */
    assert_int_equal(n.pool_size, 49);
    assert_int_equal(got[22], 49);
    assert_int_equal(got[21], 48);

    p = params(H100_MIB, 1);
    p.disable_padding = true;
    assert_int_equal(list("0.4.5", &p, &n), 0);
    assert_true(n.capture_fails);
    assert_int_equal(list("0.4.4.post4", &p, &n), 0);
    uint32_t want[48];
    const uint32_t seg[][3] = {{1, 32, 1}, {40, 160, 16}};
    size_t nw = segments(want, seg, 2);
    assert_list(list("0.4.5.post1", &p, &n), want, nw);
    assert_false(n.capture_fails);

    /* An H200: 160 through v0.4.5.post2, then 160..256 step 8 (35 sizes). */
    p = params(H200_MIB, 8);
    assert_list(list("0.4.5.post2", &p, &n), want_pad160, 23);
    assert_int_equal(n.max_bs, 160);
    assert_int_equal(list("0.4.5.post3", &p, &n), 35);
    assert_int_equal(got[34], 256);
    assert_false(n.max_bs_defaulted);
    engine_release r = rel("0.4.5.post2");
    assert_int_equal(engine_release_default_max_bs(&r, H200_MIB, 8, false), 160);
    r = rel("0.4.5.post3");
    assert_int_equal(engine_release_default_max_bs(&r, H200_MIB, 8, false), 256);
    /* AMD (MI300X, 196592 MiB): the default list gains 168..256, the default max_bs cuts them. */
    p = params(196592, 8);
    p.rocm = true;
    assert_list(list("0.4.5", &p, &n), want_pad160, 23);
    p.max_bs = 256;
    assert_int_equal(list("0.4.5", &p, &n), 35);
}

/* The default --mem-fraction-static of the tp-fraction heuristic (server_args.py __post_init__
 * "Mem fraction depends on the tensor parallelism size": 0.83 at tp 8 at v0.3.0, 0.82 at v0.3.6,
 * 0.81 at v0.4.0; "(gpu_mem - 1024 * 13) / gpu_mem" above 81920 MiB from v0.4.5.post3). */
static void test_default_mem_fraction(void **state)
{
    (void)state;
    const struct {
        const char *release;
        uint32_t gpu, tp;
        double want;
    } c[] = {
        {"0.3.0", H100_MIB, 1, 0.88},       {"0.3.0", H100_MIB, 2, 0.87},
        {"0.3.0", H100_MIB, 4, 0.85},       {"0.3.0", H100_MIB, 8, 0.83},
        {"0.3.5.post2", H100_MIB, 8, 0.83}, {"0.3.6", H100_MIB, 8, 0.82},
        {"0.4.0", H100_MIB, 8, 0.81},       {"0.4.3.post4", H100_MIB, 16, 0.79},
        {"0.4.5.post2", H200_MIB, 8, 0.81}, {"0.4.5.post3", H200_MIB, 8, (143771.0 - 13312.0) / 143771.0},
        {"0.4.6", H100_MIB, 4, 0.85},       {"0.4.6.post2", H100_MIB, 4, 0.0}, /* another variant */
        {"main", H100_MIB, 4, 0.0},
    };
    for (size_t i = 0; i < sizeof c / sizeof c[0]; i++) {
        engine_release r = rel(c[i].release);
        double got_f = engine_release_default_mem_fraction(&r, c[i].gpu, c[i].tp);
        if (got_f < c[i].want - 1e-9 || got_f > c[i].want + 1e-9)
            fail_msg("%s gpu %u tp %u: %f, want %f", c[i].release, c[i].gpu, c[i].tp, got_f, c[i].want);
    }
}

/* bench/data's qwq-32b-tp4-l4-pcie: QwQ-32B at TP4 on 4 x L4 (23034 MiB), v0.4.3.post4, no
 * --cuda-graph-max-bs, no --max-running-requests; its log captures 13 graphs. The list, as
 * cuda_graph_runner.py get_batch_sizes_to_capture writes it at v0.4.3.post3 (fc671f66c, the
 * runner v0.4.3.post4 ships): [1, 2, 4] + [i * 8 for i in range(1, 21)]; "if max(capture_bs) >
 * model_runner.req_to_token_pool.size" adds size - 1 and size (PR #2359); then keeps bs <= size
 * and bs <= cuda_graph_max_bs, which server_args.py sets to 80 below 25000 MiB at tp >= 4
 * (PR #2360). ReqToTokenPool is built with size=max_num_reqs + 1 (model_runner.py
 * init_memory_pool), so a plan's --max-running-requests 80 makes size 81: 80 and 81 are added
 * and 81 is cut, 13 sizes. Counting size as 80 gave 79 too: 14 graphs. */
static void test_qwq_l4_point(void **state)
{
    (void)state;
    engine_capture_notes n;
    const uint32_t want[] = {1, 2, 4, 8, 16, 24, 32, 40, 48, 56, 64, 72, 80};
    engine_capture_params p = params(23034, 4);
    assert_list(list("0.4.3.post4", &p, &n), want, 13); /* the log's own setting: pool 2048 + 1 */
    assert_int_equal(n.pool_size, 2049);
    assert_false(n.clamped_to_pool);
    p.max_running_requests = 80; /* what a plan (and launch) passes: dp x max_bs */
    assert_list(list("0.4.3.post4", &p, &n), want, 13);
    assert_true(n.clamped_to_pool);
    assert_true(n.added_pool_minus_one);
    assert_int_equal(n.pool_size, 81);
    assert_int_equal(n.max_bs, 80);
    /* The same through v0.4.0.post1 .. v0.4.6, the window of the N-1 rule. */
    assert_list(list("0.4.0.post1", &p, &n), want, 13);
    /* v0.4.6 writes [1, 2, 4, 8] + range(16, 161, 8): the same sizes to 80. */
    assert_list(list("0.4.6", &p, &n), want, 13);
}

/* Request-pool clamp (§3.4, §4.3). */
static void test_pool_clamp(void **state)
{
    (void)state;
    engine_capture_notes n;
    /* H200 tp8 DeepSeek + NEXTN, no --max-running-requests: pool 48. */
    engine_capture_params p = params(H200_MIB, 8);
    p.speculative = true;
    p.width = 4;
    uint32_t want[32];
    const uint32_t seg[][3] = {{1, 8, 1}, {10, 32, 2}, {40, 48, 4}};
    size_t nw = segments(want, seg, 3);
    assert_list(list("main", &p, &n), want, nw);
    assert_int_equal(nw, 23);
    assert_true(n.clamped_to_pool);
    assert_true(n.pool_defaulted);
    assert_int_equal(n.pool_size, 48);
    assert_int_equal(n.max_bs, 512);
    assert_list(list("0.5.3", &p, &n), want, nw);
    assert_list(list("0.5.6.post2", &p, &n), want, nw);

    /* v0.4.6 adds N-1 too, and N is 48 + 1 (ReqToTokenPool(size=max_num_reqs + 1)). */
    const uint32_t want046[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 40, 48, 49};
    assert_list(list("0.4.6", &p, &n), want046, 23);
    assert_true(n.added_pool_minus_one);
    const uint32_t want048[] = {1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30, 32, 40, 48};
    assert_list(list("0.4.8", &p, &n), want048, 22);
    assert_false(n.added_pool_minus_one);

    /* Same with DP attention dp8 (attn_tp 1): pool 48 // 8 = 6 since PR #20063, 48 before. */
    p.dp = 8;
    p.attn_tp = 1;
    p.require_gathered = true;
    const uint32_t want6[] = {1, 2, 3, 4, 5, 6};
    assert_list(list("main", &p, &n), want6, 6);
    assert_int_equal(n.pool_size, 6);
    assert_list(list("0.5.6.post2", &p, &n), want, nw);
    /* An explicit --max-running-requests is divided too. */
    p.max_running_requests = 64;
    assert_int_equal(list("main", &p, &n), 8); /* 1..8 */
    assert_false(n.pool_defaulted);

    /* No speculation: the default pool (>= 2048) never clamps the default grid. */
    p = params(B200_MIB, 8);
    assert_int_equal(list("main", &p, &n), 52);
    assert_false(n.clamped_to_pool);
    assert_int_equal(n.pool_size, 2048);
}

/* deployments.json qwen3-next-80b-fp8-dp4-deepep-b200 (v0.5.6.post2, tp4 dp4, DP attention +
 * DeepEP): the pool of 159 is appended; attn_tp 1 imposes nothing. accuracy-audit.md. */
static void test_dp4_pool_159(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(B200_MIB, 4);
    p.dp = 4;
    p.attn_tp = 1;
    p.require_gathered = true;
    p.pool_size = 159;
    const uint32_t want[] = {1,  2,  4,  8,  12, 16,  24,  32,  40,  48,  56,  64,
                             72, 80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 159};
    assert_list(list("0.5.6.post2", &p, &n), want, 24);
    assert_true(n.clamped_to_pool);
    assert_int_equal(n.mul_base, 1);
    assert_int_equal(n.max_bs, 512);

    /* With attn_tp 4 the odd pool is filtered out in v0.5.6 but padded to 160 on main (PR #20978). */
    p.tp_size = 8;
    p.dp = 2;
    p.attn_tp = 4;
    size_t k = list("0.5.6.post2", &p, &n);
    assert_int_equal(n.mul_base, 4);
    assert_int_equal(got[k - 1], 152);
    assert_true(n.filtered_out > 0);
    k = list("main", &p, &n);
    assert_int_equal(got[k - 1], 160);
    assert_int_equal(n.pool_size, 160);
}

/* mul_base: bs % base (v0.4.9.post4 .. v0.5.7) vs (bs * width) % base (PR #16961), attn_cp, tbo. */
static void test_mul_base(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H200_MIB, 8);
    p.dp = 2;
    p.attn_tp = 4;
    p.require_gathered = true;
    p.speculative = true;
    p.width = 4;
    p.max_running_requests = 512; /* pool 256 per DP on main, 512 before */
    p.max_bs = 64;
    uint32_t want_main[32];
    const uint32_t seg[][3] = {{1, 8, 1}, {10, 32, 2}, {40, 64, 4}};
    size_t nw = segments(want_main, seg, 3);
    assert_list(list("main", &p, &n), want_main, nw); /* bs * 4 always divisible by 4 */
    assert_int_equal(n.filtered_out, 0);
    const uint32_t want_056[] = {4, 8, 12, 16, 20, 24, 28, 32, 40, 44, 48, 52, 56, 60, 64};
    assert_list(list("0.5.6", &p, &n), want_056, 15);
    assert_int_equal(n.mul_base, 4);
    p.width = 1;
    assert_list(list("main", &p, &n), want_056, 15);

    /* Runner era v0.4.10: bs % attn_tp, then the max_bs cut. */
    p.width = 4;
    p.max_bs = 0;
    const uint32_t want_0410[] = {4, 8, 12, 16, 20, 24, 28, 32, 40, 48, 56, 80, 96, 112, 128, 144, 160, 168, 176,
                                  184, 192, 200, 208, 216, 224, 232, 240, 248, 256};
    assert_list(list("0.4.10", &p, &n), want_0410, 29);
    assert_int_equal(list("0.4.9.post3", &p, &n), 41); /* no gathered filter yet */

    /* Two-batch overlap: even sizes (x2 in mul_base on main; width ignored). */
    p = params(H200_MIB, 8);
    p.tbo = true;
    p.max_bs = 24;
    const uint32_t want_even[] = {2, 4, 8, 12, 16, 24};
    assert_list(list("main", &p, &n), want_even, 6);
    assert_int_equal(n.mul_base, 2);
    assert_int_equal(n.filtered_out, 1);
    const uint32_t want_even_runner[] = {2, 4, 8, 16, 24}; /* the runner list has no 12 */
    assert_list(list("0.4.9", &p, &n), want_even_runner, 5);
    p.speculative = true;
    p.max_running_requests = 256;
    const uint32_t want_ge2[] = {2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16, 18, 20, 22, 24};
    assert_list(list("0.4.7", &p, &n), want_ge2, 15);
    assert_int_equal(n.filtered_out, 1);
    assert_int_equal(list("0.4.6", &p, &n), 16); /* no two-batch overlap yet */

    /* Attention CP 2 without gathered buffers: mul_base 1 -> 2 (PR #17213); not in v0.5.8. */
    p = params(H200_MIB, 8);
    p.attn_cp = 2;
    p.max_bs = 24;
    assert_list(list("main", &p, &n), want_even, 6);
    assert_int_equal(list("0.5.8", &p, &n), 7);
    /* attn_tp 2 x attn_cp 2: 2 % 2 == 0, so the base stays 2. */
    p.require_gathered = true;
    p.attn_tp = 2;
    list("main", &p, &n);
    assert_int_equal(n.mul_base, 2);
    p.attn_tp = 3;
    list("main", &p, &n);
    assert_int_equal(n.mul_base, 6);
}

static void test_nothing_survives(void **state)
{
    (void)state;
    engine_capture_notes n;
    engine_capture_params p = params(H200_MIB, 8);
    const uint32_t explicit_bs[] = {1, 2, 3};
    p.explicit_bs = explicit_bs;
    p.n_explicit = 3;
    p.require_gathered = true;
    p.attn_tp = 8;
    assert_int_equal(list("0.5.6", &p, &n), 0);
    assert_true(n.capture_fails);
    assert_int_equal(list("main", &p, &n), 0);
    assert_true(n.capture_fails);
    assert_int_equal(n.filtered_out, 3);
    p.max_bs = 3; /* runner era: the max_bs step fails on the empty list */
    assert_int_equal(list("0.4.10", &p, &n), 0);
    assert_true(n.capture_fails);
    /* A pool smaller than mul_base: main pads it, so 8 survives there. */
    p.explicit_bs = NULL;
    p.n_explicit = 0;
    p.max_bs = 0;
    p.pool_size = 5;
    assert_int_equal(list("0.5.6", &p, &n), 0);
    assert_true(n.capture_fails);
    const uint32_t want8[] = {8};
    assert_list(list("main", &p, &n), want8, 1);
    assert_false(n.capture_fails);
}

/* Printed (or stated) lists of shared/fixtures/measured/deployments.json. */
static void test_deployments(void **state)
{
    (void)state;
    engine_capture_notes n;
    /* qwen3-30b-a3b-tp8-b200-bs512: main of 2025-07-22 (v0.4.9.post2/.post3), 51 sizes. */
    uint32_t want[64];
    const uint32_t seg_b200[][3] = {{1, 2, 1}, {4, 8, 4}, {16, 256, 8}, {272, 512, 16}};
    size_t nw = segments(want, seg_b200, 4);
    assert_int_equal(nw, 51);
    engine_capture_params p = params(B200_MIB, 8);
    assert_list(list("0.4.9.post2", &p, &n), want, nw);
    assert_list(list("0.4.9.post3", &p, &n), want, nw);
    /* dsr1-tp8-ep8-b200-bs512: v0.4.10.post1, 51 graphs (stated, not printed). */
    assert_list(list("0.4.10.post1", &p, &n), want, nw);

    /* grok2-fp8-tp8-h100-bs160: v0.5.2rc2 on H100. */
    const uint32_t grok[] = {1,  2,  4,  8,  16, 24, 32,  40,  48,  56,  64, 72,
                             80, 88, 96, 104, 112, 120, 128, 136, 144, 152, 160};
    p = params(H100_MIB, 8);
    assert_list(list("0.5.2rc2", &p, &n), grok, 23);

    /* qwen3-30b-a3b-fp8-tp2-hopper-bs256: main of 2025-11-10 (v0.5.5), tp2 -> 256, 36 graphs. */
    p = params(H100_MIB, 2);
    size_t k = list("0.5.5", &p, &n);
    assert_int_equal(k, 36);
    assert_int_equal(got[4], 12);
    assert_int_equal(got[k - 1], 256);
    p.gpu_mem_mib = H200_MIB;
    assert_int_equal(list("0.5.5", &p, &n), 36);

    /* qwen3.5-9b-tp2-rtx4090-bs24: a 2026-04 main build, --max-running-requests 62. */
    const uint32_t rtx[] = {1, 2, 4, 8, 12, 16, 24};
    p = params(RTX4090_MIB, 2);
    p.max_running_requests = 62;
    assert_list(list("0.5.10", &p, &n), rtx, 7);
    assert_int_equal(n.max_bs, 24);
    assert_list(list("main", &p, &n), rtx, 7);
    assert_int_equal(list("0.5.3", &p, &n), 6); /* 16 at tp<4 before PR #12124 */

    /* dsv4.1-flash-tp3-gb10-dspark: 2026-09 build (beyond the model), DSPARK, 6 tokens, 4 requests. */
    const uint32_t gb10[] = {1, 2, 3, 4};
    p = params(GB10_MIB, 3);
    p.speculative = true;
    p.width = 6;
    p.max_running_requests = 4;
    assert_list(list("0.5.19", &p, &n), gb10, 4);
    assert_true(n.beyond_model);
    p.max_bs = 4;
    assert_list(list("main", &p, &n), gb10, 4);
    assert_false(n.beyond_model);

    /* dsv4-flash-base-tp8-h20: about v0.5.10, --cuda-graph-max-bs 320, 256 running requests. */
    p = params(97871, 8);
    p.max_bs = 320;
    p.max_running_requests = 256;
    k = list("0.5.10", &p, &n);
    assert_int_equal(got[k - 1], 256);
    assert_true(n.clamped_to_pool);
    assert_int_equal(k, 36);
}

static void test_queries(void **state)
{
    (void)state;
    engine_release r = rel("0.4.10.post1");
    assert_false(engine_release_has_shared_logits(&r));
    r = rel("0.4.10.post2");
    assert_true(engine_release_has_shared_logits(&r));
    r = rel("main");
    assert_true(engine_release_has_shared_logits(&r));
    r = rel("0.5.13");
    assert_false(engine_release_has_decode_graph_flags(&r));
    r = rel("0.5.14");
    assert_true(engine_release_has_decode_graph_flags(&r));
    r = rel("0.5.20");
    assert_true(engine_release_has_decode_graph_flags(&r));

    const struct {
        const char *release;
        engine_heuristic_variant variant;
        uint32_t eagle_mib;
        engine_grid_kind grid;
    } v[] = {
        {"0.4.6", ENGINE_HEURISTIC_TP_FRACTION, 0, ENGINE_GRID_RUNNER_V046},
        {"0.4.6.post2", ENGINE_HEURISTIC_TP_FRACTION_H200, 0, ENGINE_GRID_RUNNER_V046},
        {"0.4.7", ENGINE_HEURISTIC_TP_FRACTION_H200, 0, ENGINE_GRID_RUNNER_V047},
        {"0.4.7.post1", ENGINE_HEURISTIC_GPU_TIER_RESERVE, 2048, ENGINE_GRID_RUNNER_V047},
        {"0.5.3rc0", ENGINE_HEURISTIC_GPU_TIER_RESERVE, 2048, ENGINE_GRID_RUNNER_V047},
        {"0.5.3rc2", ENGINE_HEURISTIC_INLINE_FORMULA, 2048, ENGINE_GRID_SERVER},
        {"0.5.10", ENGINE_HEURISTIC_INLINE_FORMULA, 4096, ENGINE_GRID_SERVER},
        {"0.5.13", ENGINE_HEURISTIC_INLINE_FORMULA, 4096, ENGINE_GRID_SERVER},
        {"0.5.15.post1", ENGINE_HEURISTIC_INLINE_FORMULA, 0, ENGINE_GRID_SERVER},
        {"main", ENGINE_HEURISTIC_RESERVE_METHODS, 0, ENGINE_GRID_SERVER},
        {"0.6.0", ENGINE_HEURISTIC_RESERVE_METHODS, 0, ENGINE_GRID_SERVER},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        r = rel(v[i].release);
        assert_int_equal(engine_release_heuristic_variant(&r), v[i].variant);
        assert_int_equal(engine_release_eagle_reserve_mib(&r), v[i].eagle_mib);
        assert_int_equal(engine_release_grid(&r), v[i].grid);
    }

    const struct {
        const char *release;
        uint32_t gpu, tp;
        bool spec;
        uint32_t max_bs;
    } d[] = {
        {"main", H200_MIB, 8, false, 512},   {"main", H200_MIB, 2, true, 256},   {"main", B200_MIB, 1, false, 512},
        {"main", H100_MIB, 4, false, 512},   {"main", L40S_MIB, 2, false, 32},   {"main", L40S_MIB, 8, false, 160},
        {"main", A10_MIB, 1, false, 24},     {"main", A10_MIB, 4, false, 80},    {"main", 16000, 8, false, 8},
        {"main", 0, 8, false, 160},          {"0.5.3", A10_MIB, 1, false, 16},   {"0.5.4.post1", A10_MIB, 1, false, 24},
        {"0.5.2", H100_MIB, 8, false, 160},  {"0.5.2", H200_MIB, 8, false, 256}, {"0.5.2", B200_MIB, 8, true, 512},
        {"0.5.2", A10_MIB, 2, false, 8},     {"0.5.2", 30000, 4, false, 80},     {"0.4.6", A10_MIB, 1, false, 8},
        {"0.4.6", 30000, 1, false, 160},     {"0.4.6", H100_MIB, 8, true, 152},  {"0.4.6", H200_MIB, 8, false, 256},
        {"0.4.7", B200_MIB, 8, false, 512},  {"0.4.6.post5", B200_MIB, 8, false, 256},
    };
    for (size_t i = 0; i < sizeof d / sizeof d[0]; i++) {
        r = rel(d[i].release);
        uint32_t got_bs = engine_release_default_max_bs(&r, d[i].gpu, d[i].tp, d[i].spec);
        if (got_bs != d[i].max_bs)
            fail_msg("%s gpu %u tp %u: max_bs %u, want %u", d[i].release, d[i].gpu, d[i].tp, got_bs, d[i].max_bs);
    }
}

static void test_facts_table(void **state)
{
    (void)state;
    size_t count = engine_release_fact_count();
    assert_true(count >= 40);
    engine_release prev = engine_release_oldest(), since;
    const char *what, *source;
    bool verified;
    size_t unverified = 0;
    for (size_t i = 0; i < count; i++) {
        assert_true(engine_release_fact(i, &since, &what, &source, &verified));
        assert_true(engine_release_cmp(&since, &prev) >= 0); /* rows in release order */
        assert_true(strlen(what) > 0);
        assert_true(strlen(source) > 0);
        if (!verified)
            unverified++;
        prev = since;
    }
    /* The v0.5.8 .. v0.5.10 placements (v0.5.8: two), and the default attention backend's eleven:
     * its baseline rows not read at each cut and the PRs whose first release is placed by date. */
    /* + the pool's extra row from v0.4.7: its value read, its cut placed; + the hybrid models' radix
     * cache's baseline (PR #11214 itself is in v0.5.3.post2's history); + the sliding-window pools
     * placed by date: PR #15877 (v0.5.7), #16399 and #17261 (v0.5.8), #19079 (v0.5.10); + Gemma 4's
     * SM100 rule (PR #25006, placed by date) and its baseline;
     * + DeepSeek-V4's KV sum: its baseline and PRs #25750 and #28612, placed by date; its wo_a default
     * (PR #25181, by date) and baseline */
    assert_int_equal(unverified, 31);
    assert_false(engine_release_fact(count, &since, &what, &source, &verified));
}

/* Sliding-window pools by family and release, each cut's two sides (release.c RF_SWA_*). */
static engine_swa_pool_rule swa_rule(const char *release, engine_swa_family family)
{
    engine_release r;
    char err[128];
    assert_int_equal(engine_release_parse(release, &r, err, sizeof err), 0);
    return engine_release_swa_pool(&r, family);
}

static void test_swa_pool_windows(void **state)
{
    (void)state;
    /* PR #7367 (in v0.4.9.post3) pools any windowed model; PR #15877 (placed at v0.5.7) stops that */
    assert_int_equal(swa_rule("0.4.9.post2", ENGINE_SWA_FAMILY_OTHER), ENGINE_SWA_ONE_POOL);
    assert_int_equal(swa_rule("0.4.9.post3", ENGINE_SWA_FAMILY_OTHER), ENGINE_SWA_POOLED);
    assert_int_equal(swa_rule("0.5.6.post2", ENGINE_SWA_FAMILY_OTHER), ENGINE_SWA_POOLED);
    assert_int_equal(swa_rule("0.5.7", ENGINE_SWA_FAMILY_OTHER), ENGINE_SWA_ONE_POOL);
    /* Gemma 3: pooled from PR #7367 until PR #8895 (v0.5.0rc0) */
    assert_int_equal(swa_rule("0.4.9.post2", ENGINE_SWA_FAMILY_GEMMA3), ENGINE_SWA_ONE_POOL);
    assert_int_equal(swa_rule("0.4.10.post2", ENGINE_SWA_FAMILY_GEMMA3), ENGINE_SWA_POOLED);
    assert_int_equal(swa_rule("0.5.0rc0", ENGINE_SWA_FAMILY_GEMMA3), ENGINE_SWA_ONE_POOL);
    assert_int_equal(swa_rule("main", ENGINE_SWA_FAMILY_GEMMA3), ENGINE_SWA_ONE_POOL);
    /* Llama 4: one pool by default until PR #16399 (v0.5.8), whatever the generic rule says */
    assert_int_equal(swa_rule("0.5.0", ENGINE_SWA_FAMILY_LLAMA4), ENGINE_SWA_ONE_POOL);
    assert_int_equal(swa_rule("0.5.7", ENGINE_SWA_FAMILY_LLAMA4), ENGINE_SWA_ONE_POOL);
    assert_int_equal(swa_rule("0.5.8", ENGINE_SWA_FAMILY_LLAMA4), ENGINE_SWA_POOLED);
    /* gpt-oss: off (PR #8839), on but not under trtllm_mha (PRs #17261, #17429), on (PR #19079) */
    assert_int_equal(swa_rule("0.5.1", ENGINE_SWA_FAMILY_GPTOSS), ENGINE_SWA_ONE_POOL);
    assert_int_equal(swa_rule("0.5.7", ENGINE_SWA_FAMILY_GPTOSS), ENGINE_SWA_ONE_POOL);
    assert_int_equal(swa_rule("0.5.8", ENGINE_SWA_FAMILY_GPTOSS), ENGINE_SWA_POOLED_UNLESS_TRTLLM_MHA);
    assert_int_equal(swa_rule("0.5.9", ENGINE_SWA_FAMILY_GPTOSS), ENGINE_SWA_POOLED_UNLESS_TRTLLM_MHA);
    assert_int_equal(swa_rule("0.5.10", ENGINE_SWA_FAMILY_GPTOSS), ENGINE_SWA_POOLED);
    assert_int_equal(swa_rule("main", ENGINE_SWA_FAMILY_GPTOSS), ENGINE_SWA_POOLED);
    /* the listed architectures (Gemma 4, DeepSeek-V4, ...) are pooled from their first support */
    assert_int_equal(swa_rule("0.5.10", ENGINE_SWA_FAMILY_LISTED), ENGINE_SWA_POOLED);
}

/* SWAChunkCapPoolConfigurator: PR #28755 (6d4ca9bc5) is in v0.5.14's cut (7e6587c94), not v0.5.13's (0f8673851). */
static void test_swa_chunk_cap_cut(void **state)
{
    (void)state;
    engine_release r;
    char err[128];
    assert_int_equal(engine_release_parse("0.5.13", &r, err, sizeof err), 0);
    assert_false(engine_release_swa_chunk_cap(&r));
    assert_int_equal(engine_release_parse("0.5.14", &r, err, sizeof err), 0);
    assert_true(engine_release_swa_chunk_cap(&r));
    assert_int_equal(engine_release_parse("main", &r, err, sizeof err), 0);
    assert_true(engine_release_swa_chunk_cap(&r));
}

/* The hybrid GDN models' radix cache: PR #11214 is in v0.5.3.post2's history, not v0.5.3.post1's. */
static void test_mamba_radix_cut(void **state)
{
    (void)state;
    engine_release r;
    char err[128];
    assert_int_equal(engine_release_parse("0.5.3.post1", &r, err, sizeof err), 0);
    assert_false(engine_release_mamba_radix(&r));
    assert_int_equal(engine_release_parse("0.5.3.post2", &r, err, sizeof err), 0);
    assert_true(engine_release_mamba_radix(&r));
}

/* ---- The default attention backend (server_args.py _get_default_attn_backend and
 * _handle_model_specific_adjustments; release.c's facts name the PRs). ---- */

static engine_model attn_model(const char *architecture, engine_attn_kind kind, uint32_t heads, uint32_t kv_heads)
{
    engine_model m;
    memset(&m, 0, sizeof m);
    snprintf(m.architecture, sizeof m.architecture, "%s", architecture);
    m.attn_kind = kind;
    m.heads = heads;
    m.kv_heads = kv_heads;
    return m;
}

/* One expectation: release, model, GPU class, tp, speculation, --page-size (0: none), and the
 * backend and page size SGLang's source gives. */
typedef struct {
    const char *release;
    const engine_model *model;
    engine_gpu_arch arch;
    uint32_t tp;
    bool spec;
    uint32_t page;
    engine_backend want;
    uint32_t want_page;
} backend_case;

static void check_backend_cases(const backend_case *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        engine_release r = rel(c[i].release);
        engine_gpu g;
        memset(&g, 0, sizeof g);
        g.arch = c[i].arch;
        engine_backend_choice got_c =
            engine_release_default_backend(&r, c[i].model, &g, c[i].tp, c[i].spec, true, c[i].page);
        if (got_c.backend != c[i].want || got_c.page_size != c[i].want_page)
            fail_msg("case %zu (%s, %s on %s, tp %u%s, page %u): got %s page %u (%s), want %s page %u", i, c[i].release,
                     c[i].model->architecture, engine_gpu_arch_names[c[i].arch], c[i].tp, c[i].spec ? ", spec" : "",
                     c[i].page, engine_backend_names[got_c.backend], got_c.page_size, got_c.rule,
                     engine_backend_names[c[i].want], c[i].want_page);
        assert_non_null(got_c.rule);
    }
}

/* Gemma 4 (arg_groups/model_overrides/gemma4.py _gemma4_overrides): triton unless --attention-backend is
 * given, trtllm_mha on SM100 from PR #25006 (placed at v0.5.12); its 512-wide global heads are past what
 * fa3 and flashinfer serve, so the generic Hopper rule (fa3) never applies. */
static void test_default_backend_gemma4(void **state)
{
    (void)state;
    engine_model gemma4 = attn_model("Gemma4ForConditionalGeneration", ATTN_GQA, 16, 8);
    engine_model gemma4_text = attn_model("Gemma4ForCausalLM", ATTN_GQA, 32, 16);
    const backend_case cases[] = {
        {"main", &gemma4, GPU_ARCH_SM90, 1, false, 0, BACKEND_TRITON, 1},
        {"main", &gemma4_text, GPU_ARCH_SM90, 8, true, 0, BACKEND_TRITON, 1},
        {"main", &gemma4, GPU_ARCH_SM89, 2, false, 0, BACKEND_TRITON, 1},
        {"main", &gemma4, GPU_ARCH_SM100, 1, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"main", &gemma4, GPU_ARCH_SM103, 4, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"0.5.12", &gemma4, GPU_ARCH_SM100, 1, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"0.5.11", &gemma4, GPU_ARCH_SM100, 1, false, 0, BACKEND_TRITON, 1},
    };
    check_backend_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_default_backend_mha(void **state)
{
    (void)state;
    engine_model qwen3 = attn_model("Qwen3ForCausalLM", ATTN_GQA, 32, 8);
    engine_model qwq = attn_model("Qwen2ForCausalLM", ATTN_GQA, 40, 8);
    engine_model next = attn_model("Qwen3NextForCausalLM", ATTN_GQA, 16, 2);
    engine_model llama4 = attn_model("Llama4ForConditionalGeneration", ATTN_GQA, 40, 8);
    engine_model gpt_oss = attn_model("GptOssForCausalLM", ATTN_GQA, 64, 8);
    engine_model glm45 = attn_model("Glm4MoeForCausalLM", ATTN_GQA, 96, 8);
    engine_model qwen3_moe = attn_model("Qwen3MoeForCausalLM", ATTN_GQA, 64, 4);
    engine_model llama = attn_model("LlamaForCausalLM", ATTN_GQA, 64, 8);
    const backend_case cases[] = {
        /* Hopper: fa3 without speculation, or with topk 1 at page size 1 (is_no_spec_infer_or_topk_one),
         * for the is_fa3_default_architecture models: Qwen3 joins it in v0.4.6.post1 (PR #5854; utils.py
         * at v0.4.6, 84022c0e5, lists Qwen2, Llama 4, Llama, Mistral, Gemma2, Gemma3). */
        {"0.4.6", &qwen3, GPU_ARCH_SM90, 1, false, 0, BACKEND_FLASHINFER, 1},
        {"0.4.6.post1", &qwen3, GPU_ARCH_SM90, 1, false, 0, BACKEND_FA3, 1},
        {"0.4.6", &qwq, GPU_ARCH_SM90, 4, false, 0, BACKEND_FA3, 1},
        /* No fa3 default before PR #5344 (v0.4.5.post1): "flashinfer if is_flashinfer_available()
         * else triton" (model_runner.py model_specific_adjustment at v0.4.5, 57f99608f). */
        {"0.4.5", &qwq, GPU_ARCH_SM90, 4, false, 0, BACKEND_FLASHINFER, 1},
        {"0.4.5.post1", &qwq, GPU_ARCH_SM90, 4, false, 0, BACKEND_FA3, 1},
        {"0.4.3", &qwen3, GPU_ARCH_SM90, 1, false, 0, BACKEND_FLASHINFER, 1},
        {"0.3.6", &llama, GPU_ARCH_SM90, 8, false, 0, BACKEND_FLASHINFER, 1},
        {"0.3.0", &qwq, GPU_ARCH_CDNA3, 4, false, 0, BACKEND_TRITON, 1},
        /* GLM-4.5 joins the list in v0.4.9.post5 (PR #8224). */
        {"0.4.9.post4", &glm45, GPU_ARCH_SM90, 8, false, 0, BACKEND_FLASHINFER, 1},
        {"0.4.9.post5", &glm45, GPU_ARCH_SM90, 8, false, 0, BACKEND_FA3, 1},
        {"main", &qwen3, GPU_ARCH_SM90, 1, true, 0, BACKEND_FA3, 1},
        {"main", &qwen3, GPU_ARCH_SM90, 1, true, 1, BACKEND_FA3, 1},
        {"main", &qwen3, GPU_ARCH_SM90, 1, true, 64, BACKEND_FLASHINFER, 64},
        {"0.5.7", &glm45, GPU_ARCH_SM90, 8, false, 0, BACKEND_FA3, 1},
        {"0.5.7", &qwen3_moe, GPU_ARCH_SM90, 4, false, 0, BACKEND_FA3, 1},
        {"0.5.7", &llama, GPU_ARCH_SM90, 8, false, 0, BACKEND_FA3, 1},
        {"0.5.7", &qwq, GPU_ARCH_SM90, 4, false, 0, BACKEND_FA3, 1},
        {"0.5.7", &llama4, GPU_ARCH_SM90, 8, false, 0, BACKEND_FA3, 1},
        /* ... for the is_fa3_default_architecture models only until PR #17425 (v0.5.8). */
        {"0.5.7", &next, GPU_ARCH_SM90, 4, false, 0, BACKEND_FLASHINFER, 1},
        {"0.5.8", &next, GPU_ARCH_SM90, 4, false, 0, BACKEND_FA3, 1},
        /* SM100: flashinfer, then trtllm_mha (PR #14291), which moves the page size to 64. */
        {"0.5.6.post1", &qwen3, GPU_ARCH_SM100, 1, false, 0, BACKEND_FLASHINFER, 1},
        {"0.5.6.post2", &qwen3, GPU_ARCH_SM100, 1, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"main", &qwen3, GPU_ARCH_SM100, 1, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"main", &qwq, GPU_ARCH_SM100, 4, true, 0, BACKEND_TRTLLM_MHA, 64},
        {"main", &qwen3, GPU_ARCH_SM100, 1, false, 32, BACKEND_TRTLLM_MHA, 32},
        {"main", &qwen3, GPU_ARCH_SM100, 1, false, 128, BACKEND_TRTLLM_MHA, 64},
        {"main", &qwen3, GPU_ARCH_SM100, 1, true, 16, BACKEND_FLASHINFER, 16},
        /* SM103 (B300) is SM100 to is_sm100_supported (major 10). */
        {"main", &qwen3, GPU_ARCH_SM103, 8, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"0.5.6.post1", &qwen3, GPU_ARCH_SM103, 1, false, 0, BACKEND_FLASHINFER, 1},
        /* ROCm: aiter from PR #6381 (v0.4.6.post5; before it "flashinfer if available", which it
         * never is off CUDA: triton), whatever the CDNA or RDNA generation (is_hip). */
        {"0.4.6", &qwen3, GPU_ARCH_CDNA3, 1, false, 0, BACKEND_TRITON, 1},
        {"0.4.6.post4", &qwen3, GPU_ARCH_CDNA3, 1, false, 0, BACKEND_TRITON, 1},
        {"0.4.6.post5", &qwen3, GPU_ARCH_CDNA3, 1, false, 0, BACKEND_AITER, 1},
        {"main", &qwen3, GPU_ARCH_CDNA4, 8, true, 0, BACKEND_AITER, 1},
        {"main", &qwen3, GPU_ARCH_CDNA2, 2, false, 0, BACKEND_AITER, 1},
        {"main", &qwen3, GPU_ARCH_RDNA4, 1, false, 0, BACKEND_AITER, 1},
        /* Turing, Ampere, Ada and the major-12 Blackwell parts: flashinfer, in every release
         * (trtllm_mha is major 10 only: "trtllm_mha does not support SM120"). */
        {"0.4.6", &qwen3, GPU_ARCH_SM80, 1, false, 0, BACKEND_FLASHINFER, 1},
        {"main", &qwen3, GPU_ARCH_SM75, 1, false, 0, BACKEND_FLASHINFER, 1},
        {"main", &qwen3, GPU_ARCH_SM80, 1, false, 0, BACKEND_FLASHINFER, 1},
        {"main", &qwq, GPU_ARCH_SM86, 2, true, 0, BACKEND_FLASHINFER, 1},
        {"main", &llama, GPU_ARCH_SM89, 4, false, 0, BACKEND_FLASHINFER, 1},
        {"main", &qwen3, GPU_ARCH_SM120, 1, false, 0, BACKEND_FLASHINFER, 1},
        {"main", &qwen3, GPU_ARCH_SM121, 1, true, 0, BACKEND_FLASHINFER, 1},
        {"main", &next, GPU_ARCH_SM120, 2, true, 0, BACKEND_FLASHINFER, 1},
        /* Llama 4: trtllm_mha on SM100 from PR #12003; elsewhere the generic rule. */
        {"0.5.4", &llama4, GPU_ARCH_SM100, 8, false, 0, BACKEND_FLASHINFER, 1},
        {"0.5.4.post1", &llama4, GPU_ARCH_SM100, 8, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"0.5.4.post1", &llama4, GPU_ARCH_SM90, 8, false, 0, BACKEND_FA3, 1},
        /* ... and its own rule from PR #13421 (v0.5.6): fa3 on Hopper whatever the speculation,
         * aiter on ROCm, triton on every other GPU (an A100 or an RTX 5090 included). */
        {"0.5.6", &llama4, GPU_ARCH_SM90, 8, true, 64, BACKEND_FA3, 64},
        {"0.5.6", &llama4, GPU_ARCH_SM80, 8, false, 0, BACKEND_TRITON, 1},
        {"main", &llama4, GPU_ARCH_SM120, 4, false, 0, BACKEND_TRITON, 1},
        {"main", &llama4, GPU_ARCH_CDNA3, 8, false, 0, BACKEND_AITER, 1},
        {"main", &llama4, GPU_ARCH_SM103, 8, false, 0, BACKEND_TRTLLM_MHA, 64},
        /* gpt-oss: its own rule, whatever the generic one says. */
        {"0.5.0", &gpt_oss, GPU_ARCH_SM100, 1, false, 0, BACKEND_TRTLLM_MHA, 64},
        {"0.5.0", &gpt_oss, GPU_ARCH_SM90, 1, true, 64, BACKEND_FA3, 64},
        {"0.5.15", &gpt_oss, GPU_ARCH_CDNA3, 1, false, 0, BACKEND_TRITON, 1},
        {"main", &gpt_oss, GPU_ARCH_CDNA3, 1, false, 0, BACKEND_AITER, 1},
        {"main", &gpt_oss, GPU_ARCH_SM80, 1, false, 0, BACKEND_TRITON, 1},
        {"main", &gpt_oss, GPU_ARCH_SM120, 1, false, 0, BACKEND_TRITON, 1},
        {"main", &gpt_oss, GPU_ARCH_SM103, 1, false, 0, BACKEND_TRTLLM_MHA, 64},
        /* Qwen3-Next on SM100: triton at page 1; from PR #19030 trtllm_mha at 64 under speculation. */
        {"0.5.9", &next, GPU_ARCH_SM100, 4, true, 0, BACKEND_TRITON, 1},
        {"main", &next, GPU_ARCH_SM100, 4, false, 0, BACKEND_TRITON, 1},
        {"main", &next, GPU_ARCH_SM100, 4, true, 0, BACKEND_TRTLLM_MHA, 64},
        {"main", &next, GPU_ARCH_SM103, 4, true, 0, BACKEND_TRTLLM_MHA, 64},
    };
    check_backend_cases(cases, sizeof cases / sizeof cases[0]);
    /* --disable-radix-cache lifts PR #19030's condition: trtllm_mha without speculation too,
     * and not before the PR */
    engine_gpu b200 = {.arch = GPU_ARCH_SM100};
    engine_release r = rel("main");
    engine_backend_choice c = engine_release_default_backend(&r, &next, &b200, 4, false, false, 0);
    assert_int_equal(c.backend, BACKEND_TRTLLM_MHA);
    assert_int_equal(c.page_size, 64);
    r = rel("0.5.9");
    c = engine_release_default_backend(&r, &next, &b200, 4, false, false, 0);
    assert_int_equal(c.backend, BACKEND_TRITON);
}

static void test_default_backend_mla(void **state)
{
    (void)state;
    engine_model dsv3 = attn_model("DeepseekV3ForCausalLM", ATTN_MLA, 128, 0);
    engine_model kimi_k2 = attn_model("DeepseekV3ForCausalLM", ATTN_MLA, 64, 0);
    engine_model kimi_k25 = attn_model("KimiK25ForConditionalGeneration", ATTN_MLA, 64, 0);
    engine_model kimi_k3 = attn_model("KimiK3ForConditionalGeneration", ATTN_MLA, 96, 0);
    engine_model glm5 = attn_model("GlmMoeDsaForCausalLM", ATTN_MLA, 64, 0);
    const backend_case cases[] = {
        /* Hopper: fa3 (PR #5210), speculation or not (PR #5318, v0.4.5.post3); before it fa3 only
         * without speculation or with topk 1 at page 1, and triton before v0.4.5.post1
         * (model_runner.py model_specific_adjustment at v0.4.5, 57f99608f: "triton for mla"). */
        {"0.4.6", &dsv3, GPU_ARCH_SM90, 8, false, 0, BACKEND_FA3, 1},
        {"0.4.5.post3", &dsv3, GPU_ARCH_SM90, 8, true, 64, BACKEND_FA3, 64},
        {"0.4.5.post2", &dsv3, GPU_ARCH_SM90, 8, true, 64, BACKEND_TRITON, 64},
        {"0.4.5.post1", &dsv3, GPU_ARCH_SM90, 8, false, 0, BACKEND_FA3, 1},
        {"0.4.5", &dsv3, GPU_ARCH_SM90, 8, false, 0, BACKEND_TRITON, 1},
        {"0.3.6", &dsv3, GPU_ARCH_SM90, 8, false, 0, BACKEND_TRITON, 1},
        {"main", &dsv3, GPU_ARCH_SM90, 8, true, 0, BACKEND_FA3, 1},
        /* SM100: triton until PR #7023 (v0.4.7), then FlashInfer MLA, and trtllm_mla (page 64) for
         * the DeepSeek family from v0.5.4.post1. */
        {"0.4.6.post5", &dsv3, GPU_ARCH_SM100, 8, false, 0, BACKEND_TRITON, 1},
        {"0.4.7", &dsv3, GPU_ARCH_SM100, 8, false, 0, BACKEND_FLASHINFER_MLA, 1},
        {"0.5.4", &dsv3, GPU_ARCH_SM100, 8, false, 0, BACKEND_FLASHINFER_MLA, 1},
        {"0.5.4.post1", &dsv3, GPU_ARCH_SM100, 8, false, 0, BACKEND_TRTLLM_MLA, 64},
        {"main", &kimi_k2, GPU_ARCH_SM100, 8, true, 32, BACKEND_TRTLLM_MLA, 32},
        {"main", &kimi_k25, GPU_ARCH_SM100, 8, false, 0, BACKEND_TRTLLM_MLA, 64},
        {"main", &kimi_k3, GPU_ARCH_SM100, 8, false, 0, BACKEND_FLASHINFER_MLA, 1},
        /* ROCm: triton until PR #6838 (v0.4.7); then aiter when num_key_value_heads // tp is 16 or
         * 128, first only without speculation, from PR #11161 (v0.5.3rc2) with it too; else triton. */
        {"0.4.6.post5", &dsv3, GPU_ARCH_CDNA3, 8, false, 0, BACKEND_TRITON, 1},
        {"0.4.7", &dsv3, GPU_ARCH_CDNA3, 8, false, 0, BACKEND_AITER, 1},
        {"0.5.2", &dsv3, GPU_ARCH_CDNA3, 8, true, 0, BACKEND_TRITON, 1},
        {"0.5.3rc2", &dsv3, GPU_ARCH_CDNA3, 8, true, 0, BACKEND_AITER, 1},
        {"main", &dsv3, GPU_ARCH_CDNA3, 8, false, 0, BACKEND_AITER, 1},
        {"main", &dsv3, GPU_ARCH_CDNA3, 1, false, 0, BACKEND_AITER, 1},
        {"main", &dsv3, GPU_ARCH_CDNA4, 2, false, 0, BACKEND_TRITON, 1},
        {"main", &kimi_k2, GPU_ARCH_CDNA3, 4, false, 0, BACKEND_AITER, 1},
        {"main", &kimi_k2, GPU_ARCH_CDNA3, 8, false, 0, BACKEND_TRITON, 1},
        /* SM103: SM100's rules. */
        {"main", &dsv3, GPU_ARCH_SM103, 8, false, 0, BACKEND_TRTLLM_MLA, 64},
        {"main", &kimi_k3, GPU_ARCH_SM103, 8, false, 0, BACKEND_FLASHINFER_MLA, 1},
        /* Every other NVIDIA part: triton (A100 included; the major-12 Blackwell parts are not
         * is_sm100_supported). */
        {"main", &dsv3, GPU_ARCH_SM80, 8, false, 0, BACKEND_TRITON, 1},
        {"0.4.6", &dsv3, GPU_ARCH_SM80, 8, false, 0, BACKEND_TRITON, 1},
        {"main", &kimi_k2, GPU_ARCH_SM89, 8, true, 0, BACKEND_TRITON, 1},
        {"main", &dsv3, GPU_ARCH_SM120, 8, false, 0, BACKEND_TRITON, 1},
        {"main", &kimi_k25, GPU_ARCH_SM121, 1, false, 0, BACKEND_TRITON, 1},
        {"main", &dsv3, GPU_ARCH_SM75, 8, false, 0, BACKEND_TRITON, 1},
        /* DSA (GLM-5, DeepSeek V3.2): the sparse backend, page 64, on every GPU. */
        {"main", &glm5, GPU_ARCH_SM100, 8, false, 0, BACKEND_NSA, 64},
        {"0.5.5", &glm5, GPU_ARCH_SM90, 8, true, 0, BACKEND_NSA, 64},
    };
    check_backend_cases(cases, sizeof cases / sizeof cases[0]);
}

static void test_backend_page_size(void **state)
{
    (void)state;
    assert_int_equal(engine_backend_page_size(BACKEND_FA3, 0), 1);
    assert_int_equal(engine_backend_page_size(BACKEND_FA3, 16), 16);
    assert_int_equal(engine_backend_page_size(BACKEND_FLASHINFER_MLA, 0), 1);
    assert_int_equal(engine_backend_page_size(BACKEND_TRTLLM_MHA, 16), 16);
    assert_int_equal(engine_backend_page_size(BACKEND_TRTLLM_MHA, 1), 64);
    assert_int_equal(engine_backend_page_size(BACKEND_TRTLLM_MLA, 16), 64);
    assert_int_equal(engine_backend_page_size(BACKEND_TRTLLM_MLA, 32), 32);
    assert_int_equal(engine_backend_page_size(BACKEND_FLASHMLA, 1), 64);
    assert_int_equal(engine_backend_page_size(BACKEND_CUTLASS_MLA, 64), 128);
}

static void test_truncation_and_range(void **state)
{
    (void)state;
    engine_release r = rel("main");
    engine_capture_params p = params(H200_MIB, 8);
    engine_capture_notes n;
    uint32_t small[4] = {0};
    size_t k = engine_release_capture_list(&r, &p, small, 4, &n);
    assert_int_equal(k, 52);
    assert_true(n.truncated);
    assert_int_equal(small[3], 8);
    assert_int_equal(engine_release_capture_list(&r, &p, NULL, 0, NULL), 52);
    const uint32_t explicit_bs[] = {70000, 16};
    p.explicit_bs = explicit_bs;
    p.n_explicit = 2;
    k = engine_release_capture_list(&r, &p, small, 4, &n);
    assert_int_equal(k, 1);
    assert_int_equal(small[0], 16);
    assert_int_equal(n.dropped_out_of_range, 1);
    /* A release newer than the model behaves as main, flagged. */
    engine_release later = rel("0.5.16");
    p.explicit_bs = NULL;
    p.n_explicit = 0;
    assert_int_equal(engine_release_capture_list(&later, &p, NULL, 0, &n), 52);
    assert_true(n.beyond_model);
}

/* The server-era list of main, written the plain way (a sorted, deduplicated array: generate,
 * append max_bs, pad the pool, add it when the list passes it, filter, cut), against the
 * engine's one-pass stream over every shape the estimator asks for: sizes, MTP widths,
 * attention-TP sizes (powers of two and not), gathered or not, two-batch overlap, pools from the
 * plan (dp x max_bs) and from a small --max-running-requests, padding disabled, truncation. */
static size_t reference_main(const engine_capture_params *p, uint32_t *out, size_t cap, uint32_t *filtered, bool *clamped,
                             uint64_t *sum)
{
    static uint32_t s[65536];
    size_t n = 0;
    uint32_t max_bs = p->max_bs;
    static const uint32_t plain[][3] = {{1, 2, 1}, {4, 12, 4}, {16, 256, 8}, {272, 496, 16}, {512, 65535, 32}};
    static const uint32_t spec[][3] = {{1, 8, 1}, {10, 32, 2}, {40, 64, 4}, {72, 256, 8}, {272, 65535, 16}};
    const uint32_t(*seg)[3] = p->speculative ? spec : plain;
    if (p->disable_padding)
        for (uint32_t v = 1; v <= max_bs; v++)
            s[n++] = v;
    else
        for (int k = 0; k < 5; k++)
            for (uint32_t v = seg[k][0]; v <= seg[k][1] && v <= max_bs; v += seg[k][2])
                s[n++] = v;
    if (n == 0 || s[n - 1] != max_bs)
        s[n++] = max_bs;
    uint32_t dp = p->dp ? p->dp : 1, requested = p->max_running_requests ? p->max_running_requests : 2048;
    uint32_t pool = requested / dp ? requested / dp : 1;
    uint32_t mul = (p->tbo ? 2 : 1) * (p->require_gathered ? p->attn_tp : 1);
    uint32_t width = p->tbo ? 1 : (p->width ? p->width : 1);
    pool = (pool + mul - 1) / mul * mul;
    *clamped = s[n - 1] > pool;
    if (*clamped) { /* insert the pool size in order, once */
        size_t at = 0;
        while (at < n && s[at] < pool)
            at++;
        if (at == n || s[at] != pool) {
            memmove(s + at + 1, s + at, (n - at) * sizeof s[0]);
            s[at] = pool;
            n++;
        }
    }
    size_t kept = 0;
    *filtered = 0;
    *sum = 0;
    for (size_t i = 0; i < n; i++) {
        if ((uint64_t)s[i] * width % mul != 0) {
            (*filtered)++;
            continue;
        }
        if (s[i] > pool)
            continue;
        if (kept < cap) {
            out[kept] = s[i];
            *sum += s[i];
        }
        kept++;
    }
    return kept;
}

static void test_main_list_against_reference(void **state)
{
    (void)state;
    engine_release r = rel("main");
    static uint32_t want[MAXN];
    static const uint32_t attn_tps[] = {1, 2, 3, 4, 6, 8, 16};
    size_t checked = 0;
    for (uint32_t max_bs = 1; max_bs <= 1100; max_bs += (max_bs < 300 ? 1 : 7))
        for (uint32_t width = 1; width <= 8; width++)
            for (size_t a = 0; a < sizeof attn_tps / sizeof attn_tps[0]; a++)
                for (int shape = 0; shape < 6; shape++) {
                    engine_capture_params p = params(H200_MIB, 16);
                    p.max_bs = max_bs;
                    p.width = width;
                    p.speculative = width > 1;
                    p.attn_tp = attn_tps[a];
                    p.require_gathered = shape != 1;
                    p.tbo = shape == 2;
                    p.disable_padding = shape == 3 && max_bs < 200;
                    p.dp = shape == 4 ? 4 : 1;
                    p.max_running_requests = shape == 5 ? 100 : p.dp * max_bs; /* 100: the clamp cuts */
                    size_t cap = shape == 0 && max_bs % 5 == 0 ? 7 : MAXN;     /* and truncation */
                    uint32_t filtered;
                    bool clamped;
                    uint64_t sum;
                    size_t n_want = reference_main(&p, want, cap, &filtered, &clamped, &sum);
                    engine_capture_notes notes;
                    memset(got, 0, sizeof got);
                    size_t n = engine_release_capture_list(&r, &p, got, cap, &notes);
                    if (n != n_want || notes.filtered_out != filtered || notes.clamped_to_pool != clamped ||
                        notes.written_sum != sum || notes.truncated != (n_want > cap))
                        fail_msg("max_bs %u width %u attn_tp %u shape %d: n %zu/%zu filtered %u/%u clamped %d/%d "
                                 "sum %llu/%llu",
                                 max_bs, width, attn_tps[a], shape, n, n_want, notes.filtered_out, filtered,
                                 notes.clamped_to_pool, clamped, (unsigned long long)notes.written_sum,
                                 (unsigned long long)sum);
                    for (size_t i = 0; i < (n < cap ? n : cap); i++)
                        if (got[i] != want[i])
                            fail_msg("max_bs %u width %u attn_tp %u shape %d: size %zu is %u, want %u", max_bs, width,
                                     attn_tps[a], shape, i, got[i], want[i]);
                    checked++;
                }
    assert_true(checked > 100000);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_server_generator),
        cmocka_unit_test(test_runner_generator),
        cmocka_unit_test(test_pool_clamp),
        cmocka_unit_test(test_dp4_pool_159),
        cmocka_unit_test(test_mul_base),
        cmocka_unit_test(test_nothing_survives),
        cmocka_unit_test(test_deployments),
        cmocka_unit_test(test_queries),
        cmocka_unit_test(test_facts_table),
        cmocka_unit_test(test_swa_pool_windows),
        cmocka_unit_test(test_mamba_radix_cut),
        cmocka_unit_test(test_swa_chunk_cap_cut),
        cmocka_unit_test(test_truncation_and_range),
        cmocka_unit_test(test_main_list_against_reference),
        cmocka_unit_test(test_default_backend_mha),
        cmocka_unit_test(test_default_backend_gemma4),
        cmocka_unit_test(test_default_backend_mla),
        cmocka_unit_test(test_backend_page_size),
        cmocka_unit_test(test_family_v030),
        cmocka_unit_test(test_family_v031),
        cmocka_unit_test(test_family_v035),
        cmocka_unit_test(test_family_v040),
        cmocka_unit_test(test_qwq_l4_point),
        cmocka_unit_test(test_family_v041),
        cmocka_unit_test(test_family_v043_post3),
        cmocka_unit_test(test_family_v044_post4),
        cmocka_unit_test(test_default_mem_fraction),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
