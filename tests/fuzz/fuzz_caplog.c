/* fuzz_caplog.c — the SGLang log parser (engine/caplog.c): the input parsed whole and again in
 * random chunks (sizes drawn from the input's hash) must give the same runs, compared as the
 * dry-run JSON (cli/caplog_json.c, fuzzed with it) plus every counter the JSON leaves out. */
#include <string.h>

#include "caplog.h"
#include "caplog_json.h"
#include "fuzz_common.h"

typedef struct {
    char *text; /* every run, serialised, one after another */
    size_t len;
    FILE *f;
} transcript;

static void on_run(const caplog_run *run, void *ctx)
{
    transcript *t = ctx;
    jsonw w;
    jsonw_init(&w, t->f, false);
    cli_write_caplog_run_json(&w, run, "fuzz.log", NULL);
    fprintf(t->f, "\nlines %u-%u %llu unknown %llu truncated %llu malformed %llu first %u dropped %u %u %u\n",
            run->first_line, run->last_line, (unsigned long long)run->lines, (unsigned long long)run->unknown_lines,
            (unsigned long long)run->truncated_lines, (unsigned long long)run->malformed_lines,
            run->first_malformed_line, run->dropped_groups, run->dropped_env, run->dropped_rank_lines);
    /* what the layers and the store read, checked while the run is valid */
    for (uint32_t i = 0; i < run->n_groups; i++) {
        const caplog_group *g = &run->groups[i];
        FUZZ_CHECK(g->n_sizes <= CAPLOG_MAX_BUCKETS && g->n_bars <= CAPLOG_MAX_BUCKETS, "group %u overflows", i);
        for (uint32_t k = 0; k < g->n_sizes; k++)
            FUZZ_CHECK(g->sizes[k] >= 1 && g->sizes[k] <= (g->sizes_are_num_tokens ? CAPLOG_NUM_TOKENS_MAX : CAPLOG_BS_MAX),
                       "group %u: size %u out of range (num_tokens %d)", i, g->sizes[k], g->sizes_are_num_tokens);
        const double gibs[] = {g->begin_avail_gib, g->end_avail_gib, g->end_usage_gib, g->static_gib,
                               g->largest_gib,     g->buckets_gib,   g->total_gib};
        for (size_t k = 0; k < sizeof gibs / sizeof gibs[0]; k++)
            FUZZ_CHECK(!caplog_known(gibs[k]) || (gibs[k] >= -2 * CAPLOG_GIB_MAX && gibs[k] <= 2 * CAPLOG_GIB_MAX),
                       "group %u: a GiB value %g out of range", i, gibs[k]);
    }
    const caplog_server_args *a = &run->args;
    FUZZ_CHECK(!a->cuda_graph_max_bs.has || (a->cuda_graph_max_bs.v >= 1 && a->cuda_graph_max_bs.v <= CAPLOG_BS_MAX),
               "cuda_graph_max_bs %lld", (long long)a->cuda_graph_max_bs.v);
    FUZZ_CHECK(!a->context_length.has || (a->context_length.v >= 1 && a->context_length.v <= CAPLOG_NUM_TOKENS_MAX),
               "context_length %lld", (long long)a->context_length.v);
    FUZZ_CHECK(!a->tp_size.has || (a->tp_size.v >= 1 && a->tp_size.v <= CAPLOG_RANKS_MAX), "tp_size %lld",
               (long long)a->tp_size.v);
    for (uint32_t k = 0; a->cuda_graph_bs.has && k < a->cuda_graph_bs.n; k++)
        FUZZ_CHECK(a->cuda_graph_bs.v[k] >= 1 && a->cuda_graph_bs.v[k] <= CAPLOG_BS_MAX, "cuda_graph_bs %u",
                   a->cuda_graph_bs.v[k]);
}

/* Parses DATA in chunks drawn from RNG (0: all at once) into a transcript (malloc'd text). */
static char *parse(const uint8_t *data, size_t size, uint64_t *rng, size_t *len)
{
    transcript t = {0};
    t.f = open_memstream(&t.text, &t.len);
    if (!t.f)
        abort();
    caplog_parser *p = caplog_new();
    if (!p)
        abort();
    caplog_set_callback(p, on_run, &t);
    size_t off = 0;
    while (off < size) {
        size_t n = size - off;
        if (rng) {
            uint64_t r = fuzz_next(rng);
            size_t cap = (r & 3) == 0 ? 1 : (r & 3) == 1 ? 7 : (r & 3) == 2 ? 256 : 70000; /* across the line cap */
            n = (size_t)((r >> 8) % cap) + 1;
            if (n > size - off)
                n = size - off;
        }
        FUZZ_CHECK(caplog_feed(p, (const char *)data + off, n) == 0, "feed failed");
        off += n;
    }
    FUZZ_CHECK(caplog_finish(p) == 0, "finish failed");
    FUZZ_CHECK(caplog_feed(p, "x\n", 2) == -1, "fed after finish");
    fprintf(t.f, "recognised %d runs %u lines %llu\n", caplog_recognised(p), caplog_runs_emitted(p),
            (unsigned long long)caplog_lines_read(p));
    caplog_free(p);
    fclose(t.f);
    *len = t.len;
    return t.text;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t whole_len, chunked_len;
    char *whole = parse(data, size, NULL, &whole_len);
    uint64_t rng = fuzz_hash(data, size);
    char *chunked = parse(data, size, &rng, &chunked_len);
    if (whole_len != chunked_len || memcmp(whole, chunked, whole_len) != 0) {
        size_t i = 0;
        while (i < whole_len && i < chunked_len && whole[i] == chunked[i])
            i++;
        fprintf(stderr, "whole and chunked parses differ at byte %zu:\n--- whole\n%.*s\n--- chunked\n%.*s\n", i,
                (int)(whole_len - i < 400 ? whole_len - i : 400), whole + i,
                (int)(chunked_len - i < 400 ? chunked_len - i : 400), chunked + i);
        abort();
    }
    free(whole);
    free(chunked);
    return 0;
}
