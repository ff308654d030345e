/* cmd_search.c — `cgplan search --model M --set gpu=G --gpus N [--nodes K]`: every layout SGLang
 * accepts for the model on N GPUs, each at its wall and recommended fraction, ranked by
 * concurrency, with the Pareto front of concurrency vs KV per request. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "jsonw.h"
#include "solve.h"

#define SEARCH_MAX 4096

static bool parse_count(const char *flag, const char *text, uint32_t max, uint32_t *out)
{
    char *end;
    unsigned long v = text ? strtoul(text, &end, 10) : 0;
    if (!text || *end || v == 0 || v > max) {
        cli_error("search: %s %s: expected a whole number 1..%u", flag, text ? text : "", max);
        return false;
    }
    *out = (uint32_t)v;
    return true;
}

int cmd_search(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "search", OPT_PRESET | OPT_SET | OPT_DB | OPT_FORMAT | OPT_GPUS | OPT_NODES | OPT_ALL, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("search: unexpected argument '%s'", o.args[0]);
        return EXIT_USAGE;
    }
    engine_search_opts so = {.all = o.all};
    if (!o.gpus) {
        cli_error("search: --gpus N is required (the GPUs to lay the model out on, e.g. --gpus 16)");
        return EXIT_USAGE;
    }
    if (!parse_count("--gpus", o.gpus, 1024, &so.gpus))
        return EXIT_USAGE;
    so.nodes = (so.gpus + 7) / 8; /* HGX: 8 GPUs a node */
    if (o.nodes && !parse_count("--nodes", o.nodes, so.gpus, &so.nodes))
        return EXIT_USAGE;
    if (so.gpus % so.nodes) {
        cli_error("search: --gpus %u does not split evenly over --nodes %u", so.gpus, so.nodes);
        return EXIT_USAGE;
    }
    static engine_deployment d;
    engine_warnings adj = {0};
    engine_calibration cal;
    bool calibrated = false;
    o.base_world = so.gpus;
    rc = cli_load_plan(&o, &d, &adj, &cal, &calibrated);
    if (rc)
        return rc;
    static engine_layout_result res[SEARCH_MAX];
    static engine_estimate scratch;
    /* A term no formula, preset or calibration covers leaves the total no upper end: no wall can
     * be planned on it, so nothing is ranked. */
    engine_estimate_terms(&d, calibrated ? &cal : NULL, &scratch);
    if (!scratch.total_complete) {
        const engine_warning *w = engine_warning_find(&scratch.warnings, "terms_unknown");
        cli_error("search: %s", w ? w->message : "cannot plan: a term is unknown");
        return EXIT_NO_FIT;
    }
    engine_search_counts counts;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    size_t n = engine_search(&d, calibrated ? &cal : NULL, &so, res, SEARCH_MAX, &counts, &scratch);
    size_t scanned = counts.scanned;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double elapsed = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    bool complete = true;
    /* "dcp 1, mtp 1": the layout knobs --set fixed, as given */
    char held[256] = "";
    size_t used = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        if (counts.held & KNOB_BIT(k)) {
            char value[64];
            engine_knob_format(&d, (engine_knob_id)k, value, sizeof value);
            used += (size_t)snprintf(held + used, used < sizeof held ? sizeof held - used : 0, "%s%s %s",
                                     used ? ", " : "", engine_knobs[k].name, value);
            if (used >= sizeof held)
                used = sizeof held - 1;
        }

    if (o.format == FORMAT_JSON) {
        jsonw w;
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_ku64(&w, "scanned", scanned);
        jsonw_kdouble(&w, "elapsed_s", elapsed, 4);
        jsonw_kstring(&w, "model", d.model.name);
        jsonw_kstring(&w, "gpu", d.gpu.name);
        jsonw_ku64(&w, "gpus", so.gpus);
        jsonw_ku64(&w, "nodes", so.nodes);
        jsonw_kbool(&w, "total_complete", complete);
        jsonw_kstring(&w, "bound", engine_bound_names[d.knobs.bound]);
        jsonw_ku64(&w, "refused_by_release", counts.refused);
        jsonw_ku64(&w, "folded", counts.folded);
        jsonw_key(&w, "held");
        jsonw_object_begin(&w);
        for (int k = 0; k < KNOB_COUNT; k++)
            if (counts.held & KNOB_BIT(k)) {
                char value[64];
                engine_knob_format(&d, (engine_knob_id)k, value, sizeof value);
                jsonw_kstring(&w, engine_knobs[k].name, value);
            }
        jsonw_object_end(&w);
        jsonw_key(&w, "layouts");
        jsonw_array_begin(&w);
        for (size_t i = 0; i < n; i++) {
            const engine_layout_result *r = &res[i];
            jsonw_object_begin(&w);
            jsonw_ku64(&w, "tp", r->tp);
            jsonw_ku64(&w, "dp", r->dp);
            jsonw_kbool(&w, "dp_attention", r->dp_attention);
            jsonw_ku64(&w, "ep", r->ep);
            jsonw_ku64(&w, "dcp", r->dcp);
            jsonw_kstring(&w, "a2a", r->a2a == A2A_DEEPEP ? "deepep" : "none");
            jsonw_ku64(&w, "mtp", r->mtp);
            jsonw_ku64(&w, "replicas", r->replicas);
            jsonw_ku64(&w, "max_bs", r->max_bs);
            jsonw_kdouble(&w, "mem_fraction_static", r->mem_fraction_static, 3);
            jsonw_ku64(&w, "concurrency", r->concurrency);
            jsonw_ku64(&w, "kv_tokens", r->kv_tokens);
            jsonw_ku64(&w, "kv_tokens_per_request", r->kv_per_request);
            jsonw_ku64(&w, "weights_bytes", r->weights_bytes);
            jsonw_kstring(&w, "limit", r->limit_key);
            jsonw_kbool(&w, "pareto", r->pareto);
            jsonw_object_end(&w);
        }
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        fputc('\n', stdout);
    } else if (o.format == FORMAT_CSV) {
        printf("tp,dp,dp_attention,ep,dcp,a2a,mtp,replicas,max_bs,mem_fraction_static,concurrency,kv_tokens,"
               "kv_tokens_per_request,limit,pareto\n");
        for (size_t i = 0; i < n; i++) {
            const engine_layout_result *r = &res[i];
            printf("%u,%u,%s,%u,%u,%s,%u,%u,%u,%.3f,%llu,%llu,%llu,%s,%s\n", r->tp, r->dp,
                   r->dp_attention ? "true" : "false", r->ep, r->dcp, r->a2a == A2A_DEEPEP ? "deepep" : "none", r->mtp,
                   r->replicas, r->max_bs, r->mem_fraction_static, (unsigned long long)r->concurrency,
                   (unsigned long long)r->kv_tokens, (unsigned long long)r->kv_per_request, r->limit_key,
                   r->pareto ? "true" : "false");
        }
    } else {
        char rel[ENGINE_RELEASE_TEXT_MAX];
        engine_release_text(&d.knobs.sglang, rel, sizeof rel);
        printf("%s on %u x %s (%u node%s), SGLang %s: %zu layouts fit of %zu scanned in %.3f s\n", d.model.name,
               so.gpus, d.gpu.name, so.nodes, so.nodes == 1 ? "" : "s", rel, n, scanned, elapsed);
        if (counts.refused)
            printf("left out: %zu layouts SGLang %s cannot run (a flag it lacks or a combination it rejects)\n",
                   counts.refused, rel);
        if (counts.held)
            printf("held: %s (--set)\n", held);
        if (counts.folded)
            printf("folded: %zu mtp variants into the best per layout (--all lists them)\n", counts.folded);
        printf("walls planned on the %s end of each term's range (--set bound=expected for the expected "
               "values)\n",
               engine_bound_names[d.knobs.bound]);
        printf("%-3s %4s %4s %4s %-4s %4s %4s %-6s %4s %7s %6s %11s %12s %9s  %s\n", "", "tp", "repl", "dp", "dpa",
               "ep", "dcp", "a2a", "mtp", "max_bs", "f", "concurrency", "KV tokens", "KV/req", "limit");
        for (size_t i = 0; i < n; i++) {
            const engine_layout_result *r = &res[i];
            printf("%-3s %4u %4u %4u %-4s %4u %4u %-6s %4u %7u %6.3f %11llu %12llu %9llu  %s\n", r->pareto ? "*" : "",
                   r->tp, r->replicas, r->dp, r->dp_attention ? "on" : "off", r->ep, r->dcp,
                   r->a2a == A2A_DEEPEP ? "deepep" : "none", r->mtp, r->max_bs, r->mem_fraction_static,
                   (unsigned long long)r->concurrency, (unsigned long long)r->kv_tokens,
                   (unsigned long long)r->kv_per_request, r->limit_key);
        }
        printf("* on the Pareto front of concurrency vs KV per request. repl: instances of tp GPUs; dp: --dp-size "
               "(DP ranks\n  of an instance); concurrency = repl x DP ranks x max_bs (the wall, at the recommended "
               "fraction f).\n");
    }
    if (!n && counts.held && !counts.scanned) {
        char rel[ENGINE_RELEASE_TEXT_MAX];
        engine_release_text(&d.knobs.sglang, rel, sizeof rel);
        cli_error("search: no layout of %s on %u GPUs with %s (held by --set) that SGLang %s runs (%zu it cannot "
                  "run left out): drop or change one",
                  d.model.name, so.gpus, held, rel, counts.refused);
    }
    else if (!n)
        cli_error("search: no layout of %s fits on %u x %s%s%s (the weights per GPU or the KV minimum; try more GPUs)",
                  d.model.name, so.gpus, d.gpu.name, counts.held ? " with " : "", held);
    return n ? EXIT_OK : EXIT_NO_FIT;
}
