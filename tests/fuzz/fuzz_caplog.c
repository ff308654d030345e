/* fuzz_caplog.c — the SGLang log parser (engine/caplog.c): the input parsed whole, again in
 * random chunks (sizes drawn from the input's hash), and again in random chunks through the two
 * stages ingest runs on two threads (caplog_lex, then caplog_apply), and again through the in-place
 * lexer ingest's reader uses (caplog_lex_in_place, each chunk in a buffer of exactly its bytes
 * and CAPLOG_LEX_PAD, so a read past the pad is a sanitizer report; both must be left as they
 * were; a random half of the chunks' keys found by the applier) must give the same runs, compared
 * as the dry-run JSON (cli/caplog_json.c, fuzzed with it) plus every counter the JSON leaves out. */
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

enum { FEED, STAGES, STAGES_IN_PLACE };

/* Parses DATA in chunks drawn from RNG (0: all at once), fed whole or through the two stages
 * (MODE), into a transcript (malloc'd text). */
static char *parse(const uint8_t *data, size_t size, uint64_t *rng, int mode, size_t *len)
{
    bool stages = mode != FEED;
    transcript t = {0};
    t.f = open_memstream(&t.text, &t.len);
    if (!t.f)
        abort();
    caplog_parser *p = caplog_new();
    if (!p)
        abort();
    caplog_set_callback(p, on_run, &t);
    caplog_lexer *lx = stages ? caplog_lexer_new() : NULL;
    caplog_tokens *tokens = stages ? caplog_tokens_new() : NULL;
    if (stages && (!lx || !tokens))
        abort();
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
        if (mode == STAGES_IN_PLACE) { /* a copy of the chunk with its pad, which the lexer never writes */
            /* the chunk's keys found by the lexer or by the applier, as ingest's reader balances them */
            caplog_lexer_defer_marks(lx, rng && (fuzz_next(rng) & 1));
            char *chunk = malloc(n + CAPLOG_LEX_PAD);
            if (!chunk)
                abort();
            memcpy(chunk, data + off, n);
            memset(chunk + n, 0x5a, CAPLOG_LEX_PAD);
            for (size_t done = 0; done < n;) {
                done += caplog_lex_in_place(lx, chunk + done, n - done, tokens);
                FUZZ_CHECK(caplog_apply(p, tokens) == 0, "apply failed");
            }
            FUZZ_CHECK(memcmp(chunk, data + off, n) == 0, "the in-place lexer wrote into its input");
            for (size_t k = 0; k < CAPLOG_LEX_PAD; k++)
                FUZZ_CHECK(chunk[n + k] == 0x5a, "the in-place lexer wrote into the pad");
            free(chunk);
        } else if (stages) {
            for (size_t done = 0; done < n;) {
                done += caplog_lex(lx, (const char *)data + off + done, n - done, tokens);
                FUZZ_CHECK(caplog_apply(p, tokens) == 0, "apply failed");
            }
        } else {
            FUZZ_CHECK(caplog_feed(p, (const char *)data + off, n) == 0, "feed failed");
        }
        off += n;
    }
    if (stages) {
        caplog_lex_end(lx, tokens);
        FUZZ_CHECK(caplog_apply(p, tokens) == 0, "apply failed");
        caplog_tokens_free(tokens);
        caplog_lexer_free(lx);
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

/* Fails with where A (the whole parse) and B (WHAT) differ. */
static void check_same(const char *a, size_t a_len, const char *b, size_t b_len, const char *what)
{
    if (a_len == b_len && memcmp(a, b, a_len) == 0)
        return;
    size_t i = 0;
    while (i < a_len && i < b_len && a[i] == b[i])
        i++;
    fprintf(stderr, "whole and %s parses differ at byte %zu:\n--- whole\n%.*s\n--- %s\n%.*s\n", what, i,
            (int)(a_len - i < 400 ? a_len - i : 400), a + i, what, (int)(b_len - i < 400 ? b_len - i : 400), b + i);
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t whole_len, chunked_len, staged_len, in_place_len;
    char *whole = parse(data, size, NULL, FEED, &whole_len);
    uint64_t rng = fuzz_hash(data, size);
    char *chunked = parse(data, size, &rng, FEED, &chunked_len);
    check_same(whole, whole_len, chunked, chunked_len, "chunked");
    char *staged = parse(data, size, &rng, STAGES, &staged_len);
    check_same(whole, whole_len, staged, staged_len, "two-stage");
    char *in_place = parse(data, size, &rng, STAGES_IN_PLACE, &in_place_len);
    check_same(whole, whole_len, in_place, in_place_len, "in-place two-stage");
    free(whole);
    free(chunked);
    free(staged);
    free(in_place);
    return 0;
}
