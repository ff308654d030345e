/* cmd_lint.c — `cgplan lint "python3 -m sglang.launch_server ..."`: what SGLang resolves from a
 * launch line (model, layout, capture grid, max_bs, request pool, attention backend, default
 * fraction) and each flag's status. The line is read by engine/sglang_args.c; the grid, the
 * backend and the fraction come from the estimate (lint computes no memory itself). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "jsonw.h"
#include "launch.h"
#include "sglang_args.h"
#include "text.h"

/* What lint found, for either output. */
typedef struct {
    engine_sglang_line line;
    engine_deployment d;
    engine_estimate e;
    bool gpu_known, model_known, estimated;
    const char *model_preset; /* the catalog's name for --model-path; NULL: not in the catalog */
    bool grid_known;          /* buckets/n_buckets hold the capture list */
    uint32_t n_buckets;
    uint32_t buckets[ENGINE_MAX_BUCKETS];
    int n_refusals;
    char refusals[ENGINE_LAUNCH_MAX_NOTES][ENGINE_TEXT_MAX];
} lint_result;

static lint_result result; /* an estimate and a deployment: off the stack */

/* The line: one argument as written, "-" for stdin, or several argv words (each shell-quoted
 * back, so the reader splits them as the shell did). */
static int gather_line(const cli_opts *o, char *buf, size_t len)
{
    if (o->n_args == 1 && strcmp(o->args[0], "-") == 0) {
        size_t n = fread(buf, 1, len - 1, stdin);
        if (n == len - 1 && fgetc(stdin) != EOF) {
            cli_error("lint: the launch line on stdin is longer than %zu bytes: shorten it", len - 2);
            return EXIT_USAGE;
        }
        buf[n] = '\0';
        return EXIT_OK;
    }
    if (o->n_args == 1) {
        if (strlen(o->args[0]) >= len) {
            cli_error("lint: the launch line is longer than %zu bytes: shorten it", len - 1);
            return EXIT_USAGE;
        }
        snprintf(buf, len, "%s", o->args[0]);
        return EXIT_OK;
    }
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->n_args; i++) {
        char word[ENGINE_SGLANG_LINE_MAX];
        size_t need = engine_shell_quote(word, sizeof word, o->args[i]);
        if (need >= sizeof word || used + need + 2 >= len) {
            cli_error("lint: the launch line is longer than %zu bytes: shorten it", len - 1);
            return EXIT_USAGE;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? " " : "", word);
    }
    return EXIT_OK;
}

/* lint's own options come before the line; everything from the line's first word is the line
 * (its --flags are SGLang's, not cgplan's). */
static int parse_lint_args(int argc, char **argv, cli_opts *o)
{
    memset(o, 0, sizeof *o);
    o->command = "lint";
    int i = 2;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *value = NULL;
        bool is_set = !strncmp(a, "--set", 5) && (a[5] == '\0' || a[5] == '=');
        bool is_format = !strncmp(a, "--format", 8) && (a[8] == '\0' || a[8] == '=');
        if (!strcmp(a, "--")) {
            i++;
            break;
        }
        if (!is_set && !is_format)
            break;
        size_t n = is_set ? 5 : 8;
        if (a[n] == '=')
            value = a + n + 1;
        else if (i + 1 < argc)
            value = argv[++i];
        else {
            cli_error("lint: %s needs a value", is_set ? "--set" : "--format");
            return EXIT_USAGE;
        }
        if (is_set) {
            if (o->n_sets >= CLI_MAX_SETS) {
                cli_error("lint: more than %d --set options", CLI_MAX_SETS);
                return EXIT_USAGE;
            }
            o->sets[o->n_sets++] = value;
        } else if (!strcmp(value, "table") || !strcmp(value, "json")) {
            o->format = !strcmp(value, "json") ? FORMAT_JSON : FORMAT_TABLE;
            o->format_given = true;
        } else {
            cli_error("lint: --format %s: expected table or json", value);
            return EXIT_USAGE;
        }
    }
    for (; i < argc; i++) {
        if (o->n_args >= CLI_MAX_ARGS) {
            cli_error("lint: more than %d words in the launch line", CLI_MAX_ARGS);
            return EXIT_USAGE;
        }
        o->args[o->n_args++] = argv[i];
    }
    if (o->n_args == 0) {
        cli_error("lint: give the launch line: cgplan lint \"python3 -m sglang.launch_server --model-path M ...\" "
                  "(or - to read it from stdin)");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

static bool set_names(const cli_opts *o, const char *key)
{
    size_t n = strlen(key);
    for (int i = 0; i < o->n_sets; i++)
        if (!strncmp(o->sets[i], key, n) && o->sets[i][n] == '=')
            return true;
    return false;
}

/* The plan SGLang runs from the line alone: the plan-from-a-model path of cli_load_deployment
 * (SGLang's own defaults, the model from the catalog), but with the --set applied before the line
 * as well as after it, so the reader's rules see the GPU and the release (the tier max_bs starts
 * from, the speculative pool's window) and every --set still wins. The estimate, where the GPU
 * and the model are known, gives the grid, the backend and the default fraction. */
static int lint_resolve(const cli_opts *o, const preset_catalog *cat, const char *text, lint_result *r)
{
    engine_deployment *d = &r->d;
    engine_deployment_defaults(d);
    engine_deployment_sglang_defaults(d);
    d->gpu.name[0] = '\0';
    char err[ENGINE_TEXT_MAX * 2];
    if (r->model_preset) {
        int rc = preset_load_model(cat, r->model_preset, &d->model, err, sizeof err);
        if (rc != 0) {
            cli_error("lint: --model-path %s: %s", r->line.model_path, err);
            return rc == 1 ? EXIT_WORK : EXIT_USAGE;
        }
        d->knobs.context_len = d->model.context_len;
        snprintf(d->name, sizeof d->name, "%s", d->model.name);
    }
    engine_warnings adj = {0};
    for (int i = 0; i < o->n_sets; i++)
        if (cli_apply_set(cat, d, o->sets[i], &adj) != EXIT_OK)
            return EXIT_USAGE;
    if (engine_sglang_read_line(d, text, &r->line, &adj, err, sizeof err) != 0) {
        cli_error("lint: %s", err);
        return EXIT_USAGE;
    }
    for (int i = 0; i < o->n_sets; i++)
        if (cli_apply_set(cat, d, o->sets[i], &adj) != EXIT_OK)
            return EXIT_USAGE;
    if (r->gpu_known)
        engine_deployment_resolve_release_knobs(d);
    if (r->gpu_known && r->model_preset) {
        if (engine_deployment_check(d, err, sizeof err) != 0) {
            cli_error("lint: %s", err);
            return EXIT_WORK;
        }
        engine_estimate_compute(d, NULL, &r->e);
        r->estimated = true;
        r->grid_known = true;
        r->n_buckets = r->e.n_buckets;
        memcpy(r->buckets, r->e.buckets, r->e.n_buckets * sizeof r->buckets[0]);
    } else if (r->gpu_known || d->knob_origin[KNOB_MAX_BS] == ORIGIN_SET || !d->knobs.buckets_auto) {
        r->n_buckets = (uint32_t)engine_buckets_resolve(d, r->buckets, ENGINE_MAX_BUCKETS, NULL);
        r->grid_known = true;
    }
    return EXIT_OK;
}

static const char *origin_word(const engine_deployment *d, engine_knob_id k)
{
    return d->knob_origin[k] == ORIGIN_SET ? "given" : "SGLang's default";
}

static void bucket_text(const lint_result *r, char *buf, size_t len)
{
    size_t used = (size_t)snprintf(buf, len, "[");
    for (uint32_t i = 0; i < r->n_buckets && used + 12 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? ", " : "", r->buckets[i]);
    snprintf(buf + used, len > used ? len - used : 0, "]");
}

/* The request pool SGLang resolves: the flag, the speculative default, or its own sizing. */
static void pool_text(const lint_result *r, char *buf, size_t len, bool *known, uint32_t *value)
{
    const engine_knobs_state *k = &r->d.knobs;
    *known = !k->max_running_requests_auto;
    *value = k->max_running_requests;
    if (r->line.max_running_given)
        snprintf(buf, len, "%u (given)", k->max_running_requests);
    else if (*known && r->line.speculative)
        snprintf(buf, len, "%u (SGLang's default under speculative decoding, PR #4908)", k->max_running_requests);
    else if (*known)
        snprintf(buf, len, "%u (--set)", k->max_running_requests);
    else
        snprintf(buf, len, "not given: SGLang sizes it from the KV pool (at least 2048 requests a rank: no clamp on "
                           "the capture list)");
}

/* A layout refusal (engine_launch_release_refusals) that names a flag already listed as rejected
 * ("has no --dcp-size") says nothing new. */
static bool refusal_listed(const lint_result *r, const char *refusal)
{
    for (int i = 0; i < r->line.n_flags; i++) {
        char needle[80];
        snprintf(needle, sizeof needle, "no %s ", r->line.flags[i].flag);
        if (r->line.flags[i].status == SGLANG_FLAG_REJECTED && strstr(refusal, needle))
            return true;
    }
    return false;
}

static void write_table(const lint_result *r)
{
    const engine_deployment *d = &r->d;
    const engine_knobs_state *k = &d->knobs;
    char rel[ENGINE_RELEASE_TEXT_MAX], text[ENGINE_TEXT_MAX * 16], name[64];
    engine_release_text(&k->sglang, rel, sizeof rel);
    printf("lint: SGLang %s%s resolves this launch line as\n", rel, r->line.program ? "" : " (flags only)");
    if (r->line.model_path[0])
        if (r->model_preset)
            cli_shown_line("  model               %s (preset %s)", r->line.model_path, r->model_preset);
        else
            cli_shown_line("  model               %s (not in the catalog: the model's parts are unknown)",
                           r->line.model_path);
    else
        printf("  model               none given (--model-path is required by SGLang)\n");
    engine_layout_name(k, LAYOUT_NAME_PLAIN, name, sizeof name);
    bool dpa = r->estimated ? r->e.layout.dp_attention : engine_dp_attention(k);
    char ep[32];
    if (r->estimated)
        snprintf(ep, sizeof ep, "%u", r->e.layout.ep);
    else if (k->ep_auto)
        snprintf(ep, sizeof ep, "auto");
    else
        snprintf(ep, sizeof ep, "%u", k->ep);
    printf("  layout              %s: tp %u · dp %u · dp-attention %s · ep %s · dcp %u\n", name, k->world, k->dp,
           dpa ? "on" : "off", ep, k->dcp ? k->dcp : 1);
    bool max_bs_known = r->gpu_known || d->knob_origin[KNOB_MAX_BS] == ORIGIN_SET;
    if (max_bs_known)
        printf("  max_bs              %u (%s)\n", r->grid_known && r->n_buckets ? r->buckets[r->n_buckets - 1] : k->max_bs,
               origin_word(d, KNOB_MAX_BS));
    else
        printf("  max_bs              unknown (needs --set gpu=G: SGLang's default follows the GPU's memory)\n");
    if (r->grid_known) {
        bucket_text(r, text, sizeof text);
        printf("  capture grid        %u graphs: %s\n", r->n_buckets, text);
    } else {
        printf("  capture grid        unknown (needs --set gpu=G)\n");
    }
    bool pool_known;
    uint32_t pool;
    pool_text(r, text, sizeof text, &pool_known, &pool);
    printf("  request pool        max_running_requests %s\n", text);
    const char *why = !r->gpu_known ? "needs --set gpu=G" : "needs a model the catalog knows";
    if (r->estimated)
        printf("  attention backend   %s (%s)\n", engine_launch_backend_name(r->e.layout.backend),
               k->backend_auto ? "SGLang's choice" : "given");
    else
        printf("  attention backend   unknown (%s)\n", why);
    if (r->estimated && r->e.budget.sglang_default_known)
        printf("  default fraction    %.3f (SGLang's --mem-fraction-static when none is given)%s\n",
               r->e.budget.sglang_default_mem_fraction_static,
               d->knob_origin[KNOB_MEM_FRACTION] == ORIGIN_SET ? "; the line gives its own" : "");
    else if (r->estimated)
        printf("  default fraction    unknown (this release's heuristic is not modelled)\n");
    else
        printf("  default fraction    unknown (%s)\n", why);
    printf("flags (%d)\n", r->line.n_flags + r->line.n_dropped);
    for (int i = 0; i < r->line.n_flags; i++) {
        const engine_sglang_flag *f = &r->line.flags[i];
        snprintf(text, sizeof text, "%s%s%s", f->flag, f->value[0] ? " " : "", f->value);
        cli_shown_line("  %-40s %-13s %s", text, engine_sglang_flag_status_names[f->status], f->note);
    }
    if (r->line.n_dropped)
        printf("  ... %d more flags read but not listed (over %d)\n", r->line.n_dropped, ENGINE_SGLANG_FLAGS_MAX);
    printf("rejected by SGLang %s\n", rel);
    int n = 0;
    for (int i = 0; i < r->line.n_flags; i++)
        if (r->line.flags[i].status == SGLANG_FLAG_REJECTED)
            cli_shown_line("  %s", r->line.flags[i].note), n++;
    for (int i = 0; i < r->n_refusals && i < ENGINE_LAUNCH_MAX_NOTES; i++)
        if (!refusal_listed(r, r->refusals[i]))
            cli_shown_line("  %s", r->refusals[i]), n++;
    if (!n)
        printf("  nothing\n");
    const engine_sglang_line *l = &r->line;
    printf("summary: %d modelled, %d no effect, %d not modelled, %d unknown, %d rejected\n",
           l->n_status[SGLANG_FLAG_MODELLED], l->n_status[SGLANG_FLAG_NO_EFFECT], l->n_status[SGLANG_FLAG_NOT_MODELLED],
           l->n_status[SGLANG_FLAG_UNKNOWN], l->n_status[SGLANG_FLAG_REJECTED]);
}

static void write_json(const lint_result *r)
{
    const engine_deployment *d = &r->d;
    const engine_knobs_state *k = &d->knobs;
    jsonw w;
    jsonw_init(&w, stdout, true);
    char rel[ENGINE_RELEASE_TEXT_MAX];
    engine_release_text(&k->sglang, rel, sizeof rel);
    jsonw_object_begin(&w);
    jsonw_kstring(&w, "sglang", rel);
    jsonw_kbool(&w, "program", r->line.program);
    if (r->line.model_path[0])
        jsonw_kstring(&w, "model_path", r->line.model_path);
    else
        jsonw_knull(&w, "model_path");
    jsonw_kstring(&w, "model", r->model_preset);
    jsonw_kstring(&w, "gpu", r->gpu_known ? d->gpu.name : NULL);
    jsonw_key(&w, "layout");
    jsonw_object_begin(&w);
    jsonw_ku64(&w, "tp", k->world);
    jsonw_ku64(&w, "dp", k->dp);
    jsonw_kbool(&w, "dp_attention", r->estimated ? r->e.layout.dp_attention : engine_dp_attention(k));
    if (r->estimated)
        jsonw_ku64(&w, "ep", r->e.layout.ep);
    else if (k->ep_auto)
        jsonw_kstring(&w, "ep", "auto");
    else
        jsonw_ku64(&w, "ep", k->ep);
    jsonw_ku64(&w, "dcp", k->dcp ? k->dcp : 1);
    jsonw_object_end(&w);
    if (r->gpu_known || d->knob_origin[KNOB_MAX_BS] == ORIGIN_SET)
        jsonw_ku64(&w, "max_bs", r->grid_known && r->n_buckets ? r->buckets[r->n_buckets - 1] : k->max_bs);
    else
        jsonw_knull(&w, "max_bs");
    jsonw_key(&w, "buckets");
    if (r->grid_known) {
        jsonw_array_begin(&w);
        for (uint32_t i = 0; i < r->n_buckets; i++)
            jsonw_u64(&w, r->buckets[i]);
        jsonw_array_end(&w);
    } else {
        jsonw_null(&w);
    }
    if (!k->max_running_requests_auto)
        jsonw_ku64(&w, "max_running_requests", k->max_running_requests);
    else
        jsonw_knull(&w, "max_running_requests");
    jsonw_kstring(&w, "attention_backend", r->estimated ? engine_launch_backend_name(r->e.layout.backend) : NULL);
    if (r->estimated && r->e.budget.sglang_default_known)
        jsonw_kdouble(&w, "sglang_default_mem_fraction_static", r->e.budget.sglang_default_mem_fraction_static, 3);
    else
        jsonw_knull(&w, "sglang_default_mem_fraction_static");
    jsonw_key(&w, "sglang_args");
    jsonw_array_begin(&w);
    for (int i = 0; i < r->line.n_flags; i++) {
        const engine_sglang_flag *f = &r->line.flags[i];
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "flag", f->flag);
        jsonw_kstring(&w, "value", f->value);
        jsonw_kstring(&w, "status", engine_sglang_flag_status_names[f->status]);
        jsonw_kstring(&w, "note", f->note);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    jsonw_key(&w, "rejected");
    jsonw_array_begin(&w);
    for (int i = 0; i < r->line.n_flags; i++)
        if (r->line.flags[i].status == SGLANG_FLAG_REJECTED)
            jsonw_string(&w, r->line.flags[i].note);
    for (int i = 0; i < r->n_refusals && i < ENGINE_LAUNCH_MAX_NOTES; i++)
        if (!refusal_listed(r, r->refusals[i]))
            jsonw_string(&w, r->refusals[i]);
    jsonw_array_end(&w);
    jsonw_object_end(&w);
}

int cmd_lint(int argc, char **argv)
{
    cli_opts o;
    int rc = parse_lint_args(argc, argv, &o);
    if (rc != EXIT_OK)
        return rc;
    static char text[ENGINE_SGLANG_LINE_MAX + 2];
    rc = gather_line(&o, text, sizeof text);
    if (rc != EXIT_OK)
        return rc;
    lint_result *r = &result;
    memset(r, 0, sizeof *r);

    /* A first read on a scratch plan: is it a launch line, and which model does it name. */
    static engine_deployment scratch;
    engine_deployment_defaults(&scratch);
    char err[ENGINE_TEXT_MAX * 2];
    if (engine_sglang_read_line(&scratch, text, &r->line, NULL, err, sizeof err) != 0) {
        cli_error("lint: %s", err);
        return EXIT_USAGE;
    }
    if (!engine_sglang_line_is_launch(&r->line)) {
        cli_error("lint: not an SGLang launch line (expected python3 -m sglang.launch_server, sglang serve or "
                  "--flags; see cgplan lint --help)");
        return EXIT_USAGE;
    }
    preset_catalog *cat = preset_catalog_open();
    const char *path = r->line.model_path;
    const preset_entry *me = NULL;
    if (path[0]) {
        me = preset_catalog_find(cat, path, PRESET_MODEL);
        if (!me)
            me = preset_match_hf_name(cat, path);
    }
    r->model_known = me != NULL;
    r->model_preset = me ? me->name : NULL;
    r->gpu_known = set_names(&o, "gpu");
    rc = lint_resolve(&o, cat, text, r);
    if (rc == EXIT_OK) {
        engine_sglang_line_check_release(&r->line, &r->d.knobs.sglang);
        r->n_refusals = engine_launch_release_refusals(&r->d.knobs, r->refusals, ENGINE_LAUNCH_MAX_NOTES);
        for (int i = 0; i < r->line.n_flags; i++) { /* the warnings, also where only stderr is read */
            const engine_sglang_flag *f = &r->line.flags[i];
            if (f->status == SGLANG_FLAG_UNKNOWN || f->status == SGLANG_FLAG_NOT_MODELLED ||
                f->status == SGLANG_FLAG_REJECTED)
                cli_error("lint: %s%s%s: %s: %s", f->flag, f->value[0] ? " " : "", f->value,
                          engine_sglang_flag_status_names[f->status], f->note);
        }
        if (o.format == FORMAT_JSON)
            write_json(r);
        else
            write_table(r);
    }
    preset_catalog_free(cat);
    return rc;
}
