/* cmd_launch.c — `cgplan launch`: the SGLang command that realises the plan, one per node, by the
 * flag names of the release the plan names (engine/launch.c builds it; CLI.md, launch). */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"
#include "launch.h"
#include "text.h"

static bool fraction_was_set(const cli_opts *o)
{
    const engine_knob_info *f = &engine_knobs[KNOB_MEM_FRACTION];
    size_t n = strlen(f->name);
    for (int i = 0; i < o->n_sets; i++)
        if (strncmp(o->sets[i], f->name, n) == 0 && o->sets[i][n] == '=')
            return true;
    return false;
}

/* One "# ..." line above the command. Its text names presets and quotes warnings: cleaned
 * (text.h), so no newline in it can end the comment and start a command. */
static void comment(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void comment(const char *fmt, ...)
{
    char line[ENGINE_TEXT_MAX * 4], shown[sizeof line];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    printf("# %s\n", engine_text_cleaned(shown, sizeof shown, line));
}

static void write_json(const engine_deployment *d, const engine_estimate *e, const engine_launch *l)
{
    jsonw w;
    jsonw_init(&w, stdout, true);
    char rel[ENGINE_RELEASE_TEXT_MAX];
    static char cmd[ENGINE_LAUNCH_COMMAND_MAX]; /* never cut: a cut could end inside a quoted word */
    engine_release_text(&d->knobs.sglang, rel, sizeof rel);
    jsonw_object_begin(&w);
    jsonw_kstring(&w, "preset", d->name);
    jsonw_kstring(&w, "sglang", rel);
    jsonw_kdouble(&w, "mem_fraction_static", l->mem_fraction_static, 3);
    jsonw_ku64(&w, "total_bytes", e->total_bytes);
    jsonw_ku64(&w, "total_low_bytes", e->total_low_bytes);
    if (e->total_complete)
        jsonw_ku64(&w, "total_high_bytes", e->total_high_bytes);
    else
        jsonw_knull(&w, "total_high_bytes");
    jsonw_kstring(&w, "bound", engine_bound_names[d->knobs.bound]);
    jsonw_ki64(&w, "kv_pool_bytes", e->budget.kv_pool_bytes);
    jsonw_ki64(&w, "headroom_bytes", e->budget.headroom_bytes);
    jsonw_kbool(&w, "fits", l->fits);
    jsonw_ku64(&w, "kv_tokens", e->budget.kv_tokens);
    if (l->max_total_tokens)
        jsonw_ku64(&w, "max_total_tokens", l->max_total_tokens);
    else
        jsonw_knull(&w, "max_total_tokens");
    jsonw_kbool(&w, "rejected", l->rejected);
    jsonw_kbool(&w, "patched", l->patched);
    jsonw_key(&w, "refusals");
    jsonw_array_begin(&w);
    for (int i = 0; i < l->n_refusals; i++)
        jsonw_string(&w, l->refusals[i]);
    jsonw_array_end(&w);
    /* what the engine says short of blocking (severity warning or info): launched, but said */
    jsonw_key(&w, "warnings");
    jsonw_array_begin(&w);
    for (int i = 0; i < e->warnings.n; i++) {
        const engine_warning *x = &e->warnings.items[i];
        if (x->severity == SEVERITY_BLOCKING)
            continue;
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "code", x->code);
        jsonw_kstring(&w, "severity", engine_severity_names[x->severity]);
        jsonw_kstring(&w, "message", x->message);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_key(&w, "env");
    jsonw_object_begin(&w);
    for (int i = 0; i < l->n_env; i++) {
        char name[96];
        snprintf(name, sizeof name, "%s", l->env[i]);
        char *eq = strchr(name, '=');
        if (eq)
            *eq = '\0';
        jsonw_kstring(&w, name, eq ? eq + 1 : "");
    }
    jsonw_object_end(&w);
    jsonw_key(&w, "args");
    jsonw_array_begin(&w);
    for (int i = 0; i < l->n_args; i++)
        jsonw_string(&w, l->args[i]);
    jsonw_array_end(&w);
    jsonw_ku64(&w, "gpus", l->gpus); /* tp, times the dp replicas without DP attention */
    jsonw_key(&w, "nodes");
    jsonw_array_begin(&w);
    for (uint32_t n = 0; n < l->nnodes; n++) {
        engine_launch_command(l, n, cmd, sizeof cmd);
        jsonw_object_begin(&w);
        jsonw_ku64(&w, "node_rank", n);
        jsonw_kstring(&w, "command", cmd);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_object_end(&w);
    fputc('\n', stdout);
}

int cmd_launch(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "launch",
                       OPT_PRESET | OPT_SET | OPT_DB | OPT_FORMAT | OPT_ALLOW_PATCHED | OPT_DISAGG | OPT_PIN_KV, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("launch: unexpected argument '%s' (knobs go in --set KEY=VALUE)", o.args[0]);
        return EXIT_USAGE;
    }
    if (o.disaggregation && strcmp(o.disaggregation, "decode") != 0) {
        cli_error("launch: --disaggregation-mode %s: cgplan plans decode nodes only; use decode", o.disaggregation);
        return EXIT_USAGE;
    }
    static engine_deployment d;
    engine_warnings adj = {0};
    engine_calibration cal;
    bool calibrated = false;
    rc = cli_load_plan(&o, &d, &adj, &cal, &calibrated);
    if (rc)
        return rc;
    if (o.disaggregation) /* planned before the fraction is: the state pool follows it */
        engine_plan_decode_server(&d);
    static engine_estimate e;
    /* The plan is computed at one fraction and the command sets that one: the recommended
     * fraction for these knobs, unless --set mem_fraction_static gave one. */
    bool given = fraction_was_set(&o);
    if (!given) {
        engine_estimate_compute(&d, calibrated ? &cal : NULL, &e);
        d.knobs.mem_fraction_static = e.budget.recommended_mem_fraction_static;
    }
    engine_estimate_compute(&d, calibrated ? &cal : NULL, &e);
    engine_launch_opts lo = {.allow_patched = o.allow_patched, .disaggregation_mode = o.disaggregation, .pin_kv = o.pin_kv};
    static engine_launch l;
    engine_launch_build(&d, &e, &lo, &l);
    const engine_knobs_state *k = &d.knobs;

    if (o.format == FORMAT_JSON) {
        write_json(&d, &e, &l);
    } else {
        char rel[ENGINE_RELEASE_TEXT_MAX];
        static char cmd[ENGINE_LAUNCH_COMMAND_MAX];
        engine_release_text(&k->sglang, rel, sizeof rel);
        comment("cgplan launch: %s (%s on %u x %s%s), SGLang %s flags", d.name, d.model.name, l.gpus, d.gpu.name,
                l.gpus != k->world ? ": the dp replicas of tp GPUs each" : "", rel);
        char range[64] = "no upper end: a term is unknown";
        if (e.total_complete)
            snprintf(range, sizeof range, "%.2f .. %.2f, planned on the %s end", cli_gib(e.total_low_bytes),
                     cli_gib(e.total_high_bytes), engine_bound_names[k->bound]);
        comment("planned at --mem-fraction-static %.3f (%s): CUDA graphs %.2f GiB per GPU [%s], KV pool %.2f GiB, "
                "headroom %.2f GiB",
                l.mem_fraction_static, given ? "as --set" : "the recommended fraction for these knobs",
                cli_gib(e.total_bytes), range, (double)e.budget.kv_pool_bytes / (double)ENGINE_GIB,
                (double)e.budget.headroom_bytes / (double)ENGINE_GIB);
        for (int i = 0; i < l.n_refusals; i++)
            comment("REFUSED: %s", l.refusals[i]);
        if (l.patched)
            comment("--allow-patched: printed for a build patched to accept it, not upstream SGLang");
        for (int i = 0; i < adj.n; i++)
            comment("%s %s: %s", engine_severity_names[adj.items[i].severity], adj.items[i].code, adj.items[i].message);
        for (int i = 0; i < e.warnings.n; i++)
            if (e.warnings.items[i].severity != SEVERITY_BLOCKING)
                comment("%s %s: %s", engine_severity_names[e.warnings.items[i].severity], e.warnings.items[i].code,
                        e.warnings.items[i].message);
        if (l.max_total_tokens)
            comment("--pin-kv: --max-total-tokens %llu, each rank's KV slots (the plan's %llu KV tokens per DP rank over dcp %u): "
                    "SGLang keeps min(this, what free memory gives at boot)",
                    (unsigned long long)l.max_total_tokens, (unsigned long long)e.budget.kv_tokens, k->dcp);
        if (l.nnodes > 1)
            comment("%u nodes: run command N on node N; HOST:PORT is node 0's address and a free port (replace it)",
                    l.nnodes);
        for (uint32_t n = 0; n < l.nnodes; n++) {
            engine_launch_command(&l, n, cmd, sizeof cmd);
            if (l.nnodes > 1)
                printf("\n# node %u\n", n);
            printf("%s\n", cmd);
        }
    }
    if (!l.fits) {
        cli_report_blocking("launch", &e, &adj);
        return EXIT_NO_FIT;
    }
    if (l.rejected) {
        for (int i = 0; i < l.n_refusals; i++)
            cli_error("launch: %s (--allow-patched prints it anyway)", l.refusals[i]);
        return EXIT_NO_FIT;
    }
    return EXIT_OK;
}
