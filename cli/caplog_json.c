/* caplog_json.c — the dry-run JSON of a parsed run (CLI.md): the groups and their bars, the
 * ranks' memory lines, and server_args written from the parser's own field table. */
#include <stdio.h>
#include <string.h>

#include "caplog_json.h"

/* CLI.md names a rank by its TP tag ("TP0", "" for an untagged log); the tags as printed
 * ("DP0 TP0 EP0") follow as rank_label, which also tells DP replicas without DP attention apart. */
static void write_rank_name(jsonw *w, const char *label)
{
    char name[CAPLOG_LABEL_MAX];
    caplog_rank_name(label, name, sizeof name);
    jsonw_kstring(w, "rank", name);
    jsonw_kstring(w, "rank_label", label);
}

static void write_gib(jsonw *w, const char *key, double v)
{
    jsonw_kdouble(w, key, v, 2);
}

static void write_opt_int(jsonw *w, const char *key, bool has, int64_t v)
{
    if (has)
        jsonw_ki64(w, key, v);
    else
        jsonw_knull(w, key);
}

static void write_server_args(jsonw *w, const caplog_server_args *a)
{
    jsonw_key(w, "server_args");
    jsonw_object_begin(w);
    /* the parser's table: the keys, their order and their types are the ones it reads */
    for (size_t i = 0; i < caplog_server_arg_count(); i++) {
        const caplog_server_arg_info *arg = caplog_server_arg_at(i);
        const char *name = arg->name;
        const void *field = (const char *)a + arg->offset;
        switch (arg->type) {
        case CAPLOG_ARG_INT: {
            const caplog_opt_int *f = field;
            write_opt_int(w, name, f->has, f->v);
            break;
        }
        case CAPLOG_ARG_REAL: {
            const caplog_opt_real *f = field;
            if (f->has)
                jsonw_kdouble(w, name, f->v, 3); /* a fraction (mem_fraction_static), not GiB */
            else
                jsonw_knull(w, name);
            break;
        }
        case CAPLOG_ARG_BOOL: {
            const caplog_opt_bool *f = field;
            if (f->has)
                jsonw_kbool(w, name, f->v);
            else
                jsonw_knull(w, name);
            break;
        }
        case CAPLOG_ARG_STR: {
            const caplog_opt_str *f = field;
            jsonw_kstring(w, name, f->has ? f->v : NULL);
            break;
        }
        case CAPLOG_ARG_LIST: {
            const caplog_opt_list *f = field;
            jsonw_key(w, name);
            if (!f->has) {
                jsonw_null(w);
                break;
            }
            jsonw_array_begin(w);
            for (uint32_t k = 0; k < f->n; k++)
                jsonw_u64(w, f->v[k]);
            jsonw_array_end(w);
            break;
        }
        }
    }
    jsonw_object_end(w);
}

static void write_group(jsonw *w, const caplog_run *run, const caplog_group *g)
{
    const char *size_key = g->sizes_are_num_tokens ? "num_tokens" : "bs";
    jsonw_object_begin(w);
    jsonw_kstring(w, "kind", g->kind[0] ? g->kind : NULL);
    jsonw_kstring(w, "role", caplog_role_names[g->role]);
    jsonw_kstring(w, "phase", caplog_phase_names[caplog_group_phase(run, g)]);
    write_opt_int(w, "step", g->step >= 0, g->step);
    write_rank_name(w, g->rank_label);
    jsonw_ku64(w, "first_line", g->first_line);
    write_gib(w, "begin_avail_gib", g->begin_avail_gib);
    /* only where the begin line is another rank's than the group's numbers */
    jsonw_kstring(w, "begin_rank_label",
                  g->has_begin && strcmp(g->begin_rank_label, g->rank_label) ? g->begin_rank_label : NULL);
    write_opt_int(w, "tokens_per_req", g->tokens_per_req >= 0, g->tokens_per_req);
    jsonw_key(w, size_key);
    if (g->n_sizes) {
        jsonw_array_begin(w);
        for (uint32_t i = 0; i < g->n_sizes; i++)
            jsonw_u64(w, g->sizes[i]);
        jsonw_array_end(w);
    } else {
        jsonw_null(w);
    }
    jsonw_key(w, "bars");
    jsonw_array_begin(w);
    for (uint32_t i = 0; i < g->n_bars; i++) {
        const caplog_bar *b = &g->bars[i];
        jsonw_object_begin(w);
        write_opt_int(w, size_key, b->size > 0, b->size);
        write_gib(w, "avail_gib", b->avail_gib);
        write_gib(w, "increment_gib", b->increment_gib);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    write_gib(w, "end_avail_gib", g->end_avail_gib);
    write_gib(w, "end_usage_gib", g->end_usage_gib);
    write_gib(w, "elapsed_s", g->end_elapsed_s);
    jsonw_kbool(w, "failed", g->failed);
    jsonw_kstring(w, "failure", g->failed && g->failure[0] ? g->failure : NULL);
    write_opt_int(w, "registered_addresses", g->registered_addresses >= 0, g->registered_addresses);
    jsonw_key(w, "layers");
    jsonw_object_begin(w);
    write_gib(w, "static_gib", g->static_gib);
    write_gib(w, "largest_gib", g->largest_gib);
    write_gib(w, "buckets_gib", g->buckets_gib);
    write_gib(w, "total_gib", g->total_gib);
    jsonw_object_end(w);
    jsonw_kstring(w, "note", g->note[0] ? g->note : NULL);
    jsonw_key(w, "hook"); /* hook/cgplan_capture_hook.py's largest bucket: torch vs the rest */
    if (g->hook_captures) {
        jsonw_object_begin(w);
        jsonw_ku64(w, "captures", g->hook_captures);
        write_opt_int(w, "size", g->hook_size > 0, g->hook_size);
        jsonw_ki64(w, "torch_bytes", g->hook_torch_bytes);
        jsonw_ki64(w, "device_bytes", g->hook_device_bytes);
        jsonw_ki64(w, "non_torch_bytes", g->hook_device_bytes - g->hook_torch_bytes);
        jsonw_object_end(w);
    } else {
        jsonw_null(w);
    }
    jsonw_object_end(w);
}

static void write_rank(jsonw *w, const caplog_rank *r)
{
    jsonw_object_begin(w);
    write_rank_name(w, r->label);
    write_gib(w, "weights_begin_avail_gib", r->weights_begin_avail_gib);
    write_gib(w, "weights_avail_gib", r->weights_end_avail_gib);
    write_gib(w, "weights_usage_gib", r->weights_usage_gib);
    write_opt_int(w, "kv_tokens", r->kv_tokens >= 0, r->kv_tokens);
    write_gib(w, "kv_gib", r->kv_gib);
    write_gib(w, "state_gib", r->state_gib);
    write_gib(w, "pool_avail_gib", r->pool_avail_gib);
    write_opt_int(w, "max_total_num_tokens", r->max_total_num_tokens >= 0, r->max_total_num_tokens);
    write_gib(w, "available_gpu_mem_gib", r->available_gpu_mem_gib);
    jsonw_object_end(w);
}

void cli_write_caplog_run_json(jsonw *w, const caplog_run *run, const char *source_name, const char *model)
{
    cli_write_caplog_run_json_open(w, run, source_name, model);
    jsonw_object_end(w);
}

void cli_write_caplog_run_json_open(jsonw *w, const caplog_run *run, const char *source_name, const char *model)
{
    jsonw_object_begin(w);
    jsonw_kstring(w, "source", source_name);
    jsonw_ku64(w, "first_line", run->first_line);
    jsonw_ku64(w, "last_line", run->last_line);
    jsonw_kstring(w, "model", model);
    jsonw_kstring(w, "architecture", run->architecture[0] ? run->architecture : NULL);
    write_server_args(w, &run->args);
    jsonw_key(w, "env");
    jsonw_object_begin(w);
    for (uint32_t i = 0; i < run->n_env; i++)
        jsonw_kstring(w, run->env[i].key, run->env[i].value);
    jsonw_object_end(w);
    jsonw_key(w, "groups");
    jsonw_array_begin(w);
    for (uint32_t i = 0; i < run->n_groups; i++)
        write_group(w, run, &run->groups[i]);
    jsonw_array_end(w);
    jsonw_key(w, "ranks");
    jsonw_array_begin(w);
    for (uint32_t i = 0; i < run->n_ranks; i++)
        if (run->ranks[i].has_data)
            write_rank(w, &run->ranks[i]);
    jsonw_array_end(w);
    jsonw_key(w, "hook_terms");
    jsonw_array_begin(w);
    for (uint32_t i = 0; i < run->n_hook_terms; i++) {
        jsonw_object_begin(w);
        jsonw_kstring(w, "term", run->hook_terms[i].term);
        jsonw_ku64(w, "bytes", run->hook_terms[i].bytes);
        write_opt_int(w, "size", run->hook_terms[i].size > 0, run->hook_terms[i].size);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
    jsonw_ku64(w, "lines", run->lines);
    jsonw_ku64(w, "unknown_lines", run->unknown_lines);
    jsonw_ku64(w, "truncated_lines", run->truncated_lines);
    jsonw_ku64(w, "dropped_groups", run->dropped_groups);
}
