/* cmd_solve.c — `cgplan solve KNOB`: the largest value of a knob that fits (the recommended one
 * for the fraction), and the term that stops it; the fit rule is the budget's (MODEL.md). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"
#include "solve.h"

int cmd_solve(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "solve", OPT_PRESET | OPT_SET | OPT_DB | OPT_FORMAT, &o);
    if (rc)
        return rc;
    const char *names[KNOB_COUNT];
    size_t n_names = 0;
    for (int i = 0; i < KNOB_COUNT; i++)
        if (engine_solvable((engine_knob_id)i))
            names[n_names++] = engine_knobs[i].name;
    char list[256] = "";
    for (size_t i = 0; i < n_names; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "", names[i]);
    if (o.n_args != 1) {
        cli_error("solve: expected one knob to solve (%s), e.g. cgplan solve max_bs --preset k3-dp16", list);
        return EXIT_USAGE;
    }
    const engine_knob_info *knob = engine_knob_find(o.args[0]);
    if (!knob || !engine_solvable(knob->id)) {
        const char *near = cli_nearest(o.args[0], names, n_names);
        cli_error("solve: '%s' is not a knob solve answers (%s)%s%s%s", o.args[0], list, near ? "; did you mean " : "",
                  near ? near : "", near ? "?" : "");
        return EXIT_USAGE;
    }
    static engine_deployment d;
    engine_warnings adj = {0};
    engine_calibration cal;
    bool calibrated = false;
    rc = cli_load_plan(&o, &d, &adj, &cal, &calibrated);
    if (rc)
        return rc;
    static engine_estimate scratch[2];
    static engine_solution s;
    engine_solve(&d, calibrated ? &cal : NULL, knob->id, &s, scratch);

    static engine_estimate plan; /* the plan as given: SGLang's own default fraction for it */
    engine_estimate_compute(&d, calibrated ? &cal : NULL, &plan);
    const engine_budget *pb = &plan.budget;
    /* what stops it: a term, or the request policy (kv_per_request) */
    const char *limit = s.limit_key ? s.limit_key : engine_terms[s.limit].key;
    bool policy = strcmp(limit, "kv_per_request") == 0;
    const char *phrase = policy                    ? "the request policy, min_kv_tokens for each running request"
                         : knob->id == KNOB_MAX_BS ? engine_wall_phrase(&scratch[0])
                                                   : engine_terms[s.limit].limit_phrase;
    if (o.format == FORMAT_JSON) {
        jsonw w;
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "preset", d.name);
        jsonw_kstring(&w, "knob", knob->name);
        jsonw_kbool(&w, "fits", s.found);
        if (s.found)
            jsonw_kdouble(&w, "value", s.value, knob->type == KNOB_TYPE_FRACTION ? 3 : 0);
        else
            jsonw_knull(&w, "value");
        jsonw_kbool(&w, "beyond_range", s.beyond_range);
        if (s.next > 0)
            jsonw_kdouble(&w, "next", s.next, 0);
        else
            jsonw_knull(&w, "next");
        if (s.found)
            jsonw_kdouble(&w, "mem_fraction_static", s.mem_fraction_static, 3);
        else
            jsonw_knull(&w, "mem_fraction_static");
        jsonw_kstring(&w, "limit", limit);
        jsonw_kstring(&w, "limit_term", engine_terms[s.limit].key); /* the term that grows most */
        jsonw_kstring(&w, "code", s.code);
        jsonw_kstring(&w, "reason", s.reason);
        jsonw_ku64(&w, "kv_tokens", s.kv_tokens);
        jsonw_ku64(&w, "concurrency", s.concurrency);
        if (pb->sglang_default_known) {
            jsonw_kdouble(&w, "sglang_default_mem_fraction_static", pb->sglang_default_mem_fraction_static, 3);
            jsonw_ku64(&w, "sglang_default_kv_tokens", pb->sglang_default_kv_tokens);
        } else {
            jsonw_knull(&w, "sglang_default_mem_fraction_static");
            jsonw_knull(&w, "sglang_default_kv_tokens");
        }
        jsonw_object_end(&w);
        fputc('\n', stdout);
    } else if (o.format == FORMAT_CSV) {
        printf("preset,knob,fits,value,next,mem_fraction_static,limit,code,kv_tokens,concurrency\n");
        printf("%s,%s,%s,%g,%g,%.3f,%s,%s,%llu,%llu\n", d.name, knob->name, s.found ? "true" : "false",
               s.found ? s.value : 0, s.next, s.mem_fraction_static, limit, s.code ? s.code : "",
               (unsigned long long)s.kv_tokens, (unsigned long long)s.concurrency);
    } else if (!s.found) {
        printf("%s: no %s fits: %s\n", d.name, knob->name, s.reason);
    } else if (knob->type == KNOB_TYPE_FRACTION) {
        printf("%s: recommended --mem-fraction-static %.3f\n  %s\n", d.name, s.value, s.reason);
    } else {
        printf("%s: largest %s that fits: %.0f at --mem-fraction-static %.3f (%llu requests in flight per instance, "
               "%llu KV tokens)\n",
               d.name, knob->name, s.value, s.mem_fraction_static, (unsigned long long)s.concurrency,
               (unsigned long long)s.kv_tokens);
        if (s.beyond_range)
            printf("  %s\n", s.reason);
        else
            printf("  stopped by %s: %s\n  next: %s\n", limit, phrase, s.reason);
    }
    if (o.format == FORMAT_TABLE) { /* SGLang's own default fraction beside the answer */
        char line[ENGINE_TEXT_MAX];
        cli_sglang_default_text(&d, pb, line, sizeof line);
        printf("  %s\n", line);
    }
    return s.found ? EXIT_OK : EXIT_NO_FIT;
}
