/* bench_estimate.c — configurations estimated per second over a large sweep (every layout of 16
 * GPUs x mtp 1..8 x SGLang's max_bs grid x three dispatch settings), with the terms-only estimate
 * without warning texts (one probe of the wall; the numbers the Python side computes) and the
 * full one without texts (budget, fit rule, wall bisection: what search runs per layout). Prints
 * a checksum of the totals with their ranges, the kernel nodes per graph, heuristics and
 * alternatives (and walls with their fractions) so
 * bench_estimate.py can prove it computed the same thing.
 * Usage: bench_estimate [PRESET] [SECONDS] */
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "engine.h"
#include "preset.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One pass over the sweep; returns the number of configurations and adds totals to *checksum. */
static size_t sweep(const engine_deployment *base, bool full, uint64_t *checksum)
{
    static engine_deployment d;
    static engine_estimate e;
    static const uint32_t dispatch[] = {0 /* auto */, 128, 256};
    size_t count = 0;
    d = *base;
    /* the preset's measured weights and state on every layout, as the Python side writes them
     * out (an estimate computes them from the model off the preset's own layout) */
    d.measured_at.known = false;
    d.knobs.world = 16;
    d.knobs.buckets_auto = true;
    for (uint32_t dp = 1; dp <= 16; dp *= 2) {
        for (uint32_t dcp = 1; dcp <= 16 / dp; dcp *= 2) {
            for (uint32_t mtp = 1; mtp <= 8; mtp++) {
                uint32_t grid[ENGINE_MAX_BUCKETS];
                size_t n = engine_bucket_grid(1024, mtp > 1, grid, ENGINE_MAX_BUCKETS);
                for (size_t i = 0; i < n; i++) {
                    for (size_t k = 0; k < 3; k++) {
                        d.knobs.dp = dp;
                        d.knobs.dcp = dcp;
                        d.knobs.mtp = mtp;
                        d.knobs.max_bs = grid[i];
                        d.knobs.max_dispatch_auto = dispatch[k] == 0;
                        d.knobs.max_dispatch = dispatch[k];
                        if (full) /* what search runs per layout: the numbers, no text */
                            engine_estimate_compute_quiet(&d, NULL, &e);
                        else
                            engine_estimate_terms_quiet(&d, NULL, &e); /* numbers, as the Python side */
                        /* the total, the heuristic and both alternatives (so both sides prove they
                         * computed the same) */
                        *checksum += e.total_bytes + e.heuristic_total_bytes + e.terms[TERM_DEEPEP].alt_bytes +
                                     e.terms[TERM_MASKED_GEMM].alt_bytes + e.total_low_bytes + e.total_high_bytes +
                                     e.graph_nodes.nodes.expected;
                        if (full) /* the budget at the plan's fraction, the wall and what limits it */
                            *checksum += e.budget.kv_tokens +
                                         (uint64_t)llround(e.budget.recommended_mem_fraction_static * 1000) +
                                         e.budget.wall_max_bs +
                                         (uint64_t)llround(e.budget.wall_mem_fraction_static * 1000) +
                                         (uint64_t)e.budget.wall_term;
                        count++;
                    }
                }
            }
        }
    }
    return count;
}

int main(int argc, char **argv)
{
    const char *preset = argc > 1 ? argv[1] : "k3-dp16";
    double seconds = argc > 2 ? atof(argv[2]) : 2.0;
    preset_catalog *cat = preset_catalog_open();
    static engine_deployment base;
    char err[512];
    if (preset_load_deployment(cat, preset, &base, err, sizeof err) != 0) {
        fprintf(stderr, "bench_estimate: %s\n", err);
        return 1;
    }
    preset_catalog_free(cat);
    for (int full = 0; full <= 1; full++) {
        uint64_t checksum = 0;
        size_t per_pass = sweep(&base, full, &checksum); /* warm-up, and the checksum of one pass */
        size_t total = 0;
        uint64_t scratch = 0;
        double t0 = now(), t1 = t0;
        do {
            total += sweep(&base, full, &scratch);
            t1 = now();
        } while (t1 - t0 < seconds / 2);
        printf("%s: %zu configurations per pass, %.0f configurations/s (%.2f us each), checksum %llu\n",
               full ? "full (budget + wall)" : "terms (numbers only: each probe of the wall, solve and search)",
               per_pass, (double)total / (t1 - t0), 1e6 * (t1 - t0) / (double)total, (unsigned long long)checksum);
    }
    return 0;
}
