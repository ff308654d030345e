/* cmd_estimate.c — `cgplan estimate` and `cgplan sweep`, and the writers of an estimate. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"
#include "sglang_args.h"
#include "text.h"

double cli_gib(uint64_t bytes) { return (double)bytes / (double)ENGINE_GIB; }

static void write_warning_list(jsonw *w, const engine_warnings *a, const engine_warnings *b)
{
    jsonw_key(w, "warnings");
    jsonw_array_begin(w);
    const engine_warnings *lists[2] = {a, b};
    for (int l = 0; l < 2; l++)
        for (int i = 0; lists[l] && i < lists[l]->n; i++) {
            jsonw_object_begin(w);
            jsonw_kstring(w, "code", lists[l]->items[i].code);
            jsonw_kstring(w, "severity", engine_severity_names[lists[l]->items[i].severity]);
            jsonw_kstring(w, "message", lists[l]->items[i].message);
            jsonw_object_end(w);
        }
    jsonw_array_end(w);
}

/* --sglang-args: each flag with its status (engine/sglang_args.c), in the JSON as "sglang_args". */
static void write_flag_list(jsonw *w, const engine_sglang_line *line)
{
    jsonw_key(w, "sglang_args");
    jsonw_array_begin(w);
    for (int i = 0; i < line->n_flags; i++) {
        jsonw_object_begin(w);
        jsonw_kstring(w, "flag", line->flags[i].flag);
        jsonw_kstring(w, "value", line->flags[i].value);
        jsonw_kstring(w, "status", engine_sglang_flag_status_names[line->flags[i].status]);
        jsonw_kstring(w, "note", line->flags[i].note);
        jsonw_object_end(w);
    }
    jsonw_array_end(w);
}

static void write_flag_table(FILE *out, const engine_sglang_line *line)
{
    fprintf(out, "\nsglang args (%d flags)\n", line->n_flags + line->n_dropped);
    for (int i = 0; i < line->n_flags; i++) {
        const engine_sglang_flag *f = &line->flags[i];
        char text[ENGINE_TEXT_MAX * 2];
        snprintf(text, sizeof text, "%s%s%s", f->flag, f->value[0] ? " " : "", f->value);
        cli_shown_line("  %-40s %-13s %s", text, engine_sglang_flag_status_names[f->status], f->note);
    }
}

/* The flags a reader of the estimate must not miss, on stderr: what SGLang refuses or cgplan
 * does not follow. */
static void warn_flags(const engine_sglang_line *line)
{
    for (int i = 0; i < line->n_flags; i++) {
        const engine_sglang_flag *f = &line->flags[i];
        if (f->status == SGLANG_FLAG_UNKNOWN || f->status == SGLANG_FLAG_NOT_MODELLED ||
            f->status == SGLANG_FLAG_REJECTED)
            cli_error("estimate: --sglang-args: %s%s%s: %s: %s", f->flag, f->value[0] ? " " : "", f->value,
                      engine_sglang_flag_status_names[f->status], f->note);
    }
}

static void write_estimate_object_with(jsonw *w, const char *preset, const engine_deployment *d,
                                       const engine_estimate *e, const engine_warnings *adj,
                                       const engine_sglang_line *line);
static void write_estimate_object(jsonw *w, const char *preset, const engine_deployment *d,
                                  const engine_estimate *e, const engine_warnings *adj)
{
    write_estimate_object_with(w, preset, d, e, adj, NULL);
}

static void write_estimate_object_with(jsonw *w, const char *preset, const engine_deployment *d,
                                       const engine_estimate *e, const engine_warnings *adj,
                                       const engine_sglang_line *line)
{
    jsonw_object_begin(w);
    jsonw_kstring(w, "preset", preset);
    jsonw_kstring(w, "model", d->model.name);
    jsonw_kstring(w, "gpu", d->gpu.name);
    jsonw_kstring(w, "gpu_arch", engine_gpu_arch_names[d->gpu.arch]);

    jsonw_key(w, "knobs");
    jsonw_object_begin(w);
    /* Every knob of the table but the names (the GPU is the object's own "gpu"): a number (auto
     * ones resolved, with NAME_auto beside), a list knob as the list captured. */
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *info = &engine_knobs[i];
        switch (info->type) {
        case KNOB_TYPE_NAME: continue;
        case KNOB_TYPE_LIST_OR_AUTO:
            jsonw_key(w, info->name);
            jsonw_array_begin(w);
            for (uint32_t b = 0; b < e->n_buckets; b++)
                jsonw_u64(w, e->buckets[b]);
            jsonw_array_end(w);
            break;
        case KNOB_TYPE_FRACTION: jsonw_kdouble(w, info->name, engine_knob_value(d, (engine_knob_id)i), 3); break;
        case KNOB_TYPE_INT:
        case KNOB_TYPE_INT_OR_AUTO:
            jsonw_ku64(w, info->name, (uint64_t)engine_knob_value(d, (engine_knob_id)i));
            break;
        case KNOB_TYPE_BOOL: jsonw_kbool(w, info->name, engine_knob_value(d, (engine_knob_id)i) != 0); break;
        case KNOB_TYPE_RELEASE:
        case KNOB_TYPE_ENUM: {
            char text[64];
            engine_knob_text(d, e, (engine_knob_id)i, KNOB_TEXT_FULL, text, sizeof text);
            jsonw_kstring(w, info->name, text);
            break;
        }
        }
        if (info->alias) /* the old name too, for readers of the first version */
            jsonw_ku64(w, info->alias, (uint64_t)engine_knob_value(d, (engine_knob_id)i));
        if (info->type == KNOB_TYPE_INT_OR_AUTO || info->type == KNOB_TYPE_LIST_OR_AUTO || info->autoable) {
            char key[64];
            snprintf(key, sizeof key, "%s_auto", info->name);
            jsonw_kbool(w, key, engine_knob_is_auto(d, (engine_knob_id)i));
        }
    }
    jsonw_object_end(w);

    /* Where each knob's value came from: set, preset, or what the release chooses (auto). */
    jsonw_key(w, "knob_origins");
    jsonw_object_begin(w);
    for (int i = 0; i < KNOB_COUNT; i++) {
        engine_knob_origin o = d->knob_origin[i];
        if (o == ORIGIN_UNKNOWN)
            o = engine_knob_is_auto(d, (engine_knob_id)i) ? ORIGIN_RELEASE : ORIGIN_UNKNOWN;
        const char *origin = o == ORIGIN_UNKNOWN ? "default" : engine_origin_names[o];
        jsonw_kstring(w, engine_knobs[i].name, origin);
        if (engine_knobs[i].alias) /* as "knobs" has it */
            jsonw_kstring(w, engine_knobs[i].alias, origin);
    }
    jsonw_object_end(w);

    jsonw_key(w, "rows");
    jsonw_object_begin(w);
    jsonw_ku64(w, "bs_max", e->bs_max);
    jsonw_ku64(w, "attn", e->attn_rows);
    jsonw_ku64(w, "moe", e->moe_rows);
    jsonw_ku64(w, "logits", e->logits_rows);
    jsonw_ku64(w, "heads_per_gpu", e->heads_per_gpu);
    jsonw_ku64(w, "attn_tp", e->attn_tp);
    jsonw_object_end(w);
    jsonw_key(w, "captured_buckets"); /* the batch sizes SGLang captures, after the Buckets rule */
    jsonw_array_begin(w);
    for (uint32_t i = 0; i < e->n_buckets; i++)
        jsonw_u64(w, e->buckets[i]);
    jsonw_array_end(w);

    jsonw_key(w, "terms");
    jsonw_array_begin(w);
    for (int i = 0; i < TERM_COUNT; i++) {
        const engine_term *t = &e->terms[i];
        jsonw_object_begin(w);
        jsonw_kstring(w, "id", engine_terms[i].key);
        jsonw_kstring(w, "group", engine_group_names[t->group]);
        jsonw_kstring(w, "layer", engine_layer_names[t->layer]);
        jsonw_kstring(w, "source", engine_source_names[t->source]);
        if (t->known) {
            jsonw_ku64(w, "bytes", t->bytes);
            jsonw_ku64(w, "low_bytes", t->low_bytes);
            jsonw_ku64(w, "high_bytes", t->high_bytes);
        } else { /* no formula, preset value or calibration: no range either */
            jsonw_knull(w, "bytes");
            jsonw_knull(w, "low_bytes");
            jsonw_knull(w, "high_bytes");
        }
        jsonw_key(w, "depends_on");
        jsonw_array_begin(w);
        for (int kb = 0; kb < KNOB_COUNT; kb++)
            if (t->depends_on & KNOB_BIT(kb))
                jsonw_string(w, engine_knobs[kb].name);
        jsonw_array_end(w);
        jsonw_key(w, "runs");
        jsonw_array_begin(w);
        for (int r = 0; r < t->n_runs; r++)
            jsonw_i64(w, e->calibration_runs[r]);
        jsonw_array_end(w);
        jsonw_kstring(w, "label", engine_terms[i].label);
        jsonw_kstring(w, "formula", t->formula);
        jsonw_kstring(w, "origin", t->origin);
        bool any_part = false;
        for (int p = 0; p < PART_COUNT; p++)
            any_part |= engine_parts[p].term == (engine_term_id)i && e->parts[p].present;
        if (any_part) { /* a term built from parts: each with its own range and source */
            jsonw_key(w, "parts");
            jsonw_array_begin(w);
            for (int p = 0; p < PART_COUNT; p++) {
                const engine_part *part = &e->parts[p];
                if (engine_parts[p].term != (engine_term_id)i || !part->present)
                    continue;
                jsonw_object_begin(w);
                jsonw_kstring(w, "id", engine_parts[p].key);
                jsonw_kstring(w, "source", engine_source_names[part->source]);
                jsonw_ku64(w, "bytes", part->bytes);
                jsonw_ku64(w, "low_bytes", part->low_bytes);
                jsonw_ku64(w, "high_bytes", part->high_bytes);
                jsonw_kstring(w, "formula", engine_parts[p].formula);
                jsonw_kstring(w, "origin", engine_parts[p].origin);
                jsonw_object_end(w);
            }
            jsonw_array_end(w);
        }
        if (t->alt_label) {
            jsonw_key(w, "alternative");
            jsonw_object_begin(w);
            jsonw_kstring(w, "label", t->alt_label);
            jsonw_ku64(w, "bytes", t->alt_bytes);
            jsonw_object_end(w);
        }
        jsonw_object_end(w);
    }
    jsonw_array_end(w);

    jsonw_key(w, "layers");
    jsonw_object_begin(w);
    jsonw_key(w, "target");
    jsonw_object_begin(w);
    jsonw_ku64(w, "static_bytes", e->layer_bytes[LAYER_STATIC]);
    jsonw_ku64(w, "largest_bytes", e->layer_bytes[LAYER_LARGEST]);
    jsonw_ku64(w, "buckets_bytes", e->layer_bytes[LAYER_BUCKETS]);
    jsonw_ku64(w, "total_bytes", e->target_total_bytes);
    jsonw_object_end(w);
    jsonw_key(w, "draft");
    jsonw_object_begin(w);
    jsonw_ku64(w, "total_bytes", e->draft_total_bytes);
    jsonw_object_end(w);
    jsonw_object_end(w);
    jsonw_ku64(w, "total_bytes", e->total_bytes);
    jsonw_kbool(w, "total_complete", e->total_complete);
    jsonw_ku64(w, "total_low_bytes", e->total_low_bytes);
    if (e->total_complete) /* an unknown term leaves the total no upper end */
        jsonw_ku64(w, "total_high_bytes", e->total_high_bytes);
    else
        jsonw_knull(w, "total_high_bytes");
    jsonw_kstring(w, "bound", engine_bound_names[d->knobs.bound]);
    jsonw_ku64(w, "plan_total_bytes", e->plan_total_bytes);

    /* The kernel nodes each captured graph holds (graph_nodes.c) and the bytes each costs. */
    jsonw_key(w, "graph_nodes");
    jsonw_object_begin(w);
    jsonw_key(w, "target");
    jsonw_object_begin(w);
    jsonw_ku64(w, "per_graph", e->graph_nodes.nodes.expected);
    jsonw_ku64(w, "per_graph_low", e->graph_nodes.nodes.low);
    jsonw_ku64(w, "per_graph_high", e->graph_nodes.nodes.high);
    jsonw_ku64(w, "allreduce_per_graph", e->graph_nodes.allreduce);
    jsonw_ku64(w, "graphs", e->n_buckets);
    jsonw_ku64(w, "total", (uint64_t)e->n_buckets * e->graph_nodes.nodes.expected);
    jsonw_ku64(w, "nccl_ops", e->nccl_graph_ops);
    jsonw_object_end(w);
    jsonw_key(w, "draft");
    jsonw_object_begin(w);
    jsonw_ku64(w, "per_size", e->graph_nodes.draft_nodes.expected);
    jsonw_ku64(w, "per_size_low", e->graph_nodes.draft_nodes.low);
    jsonw_ku64(w, "per_size_high", e->graph_nodes.draft_nodes.high);
    jsonw_object_end(w);
    jsonw_ku64(w, "node_bytes", e->node_bytes);
    jsonw_ku64(w, "node_bytes_low", e->node_bytes_range.low);
    jsonw_ku64(w, "node_bytes_high", e->node_bytes_range.high);
    jsonw_kstring(w, "node_bytes_source", e->node_bytes_source);
    jsonw_kbool(w, "node_bytes_calibrated", e->node_bytes_runs > 0);
    jsonw_ki64(w, "node_bytes_runs", e->node_bytes_runs);
    jsonw_object_end(w);

    jsonw_key(w, "heuristic");
    jsonw_object_begin(w);
    jsonw_ku64(w, "graph_bytes", e->heuristic_graph_bytes);
    jsonw_ku64(w, "deepep_bytes", e->heuristic_deepep_bytes);
    jsonw_ku64(w, "total_bytes", e->heuristic_total_bytes);
    /* compared only with a complete total: a share of a partial sum means nothing */
    jsonw_kdouble(w, "share_of_prediction",
                  e->total_complete && e->total_bytes ? (double)e->heuristic_total_bytes / (double)e->total_bytes
                                                      : NAN,
                  3);
    jsonw_object_end(w);

    const engine_budget *b = &e->budget;
    jsonw_key(w, "budget");
    jsonw_object_begin(w);
    jsonw_ku64(w, "pre_load_free_bytes", b->pre_load_free_bytes);
    jsonw_ku64(w, "weights_bytes", b->weights_bytes);
    jsonw_kstring(w, "weights_source", b->weights_measured ? "measured" : b->weights_known ? "computed" : "unknown");
    jsonw_kbool(w, "weights_measured", b->weights_measured);
    jsonw_ku64(w, "state_pool_bytes", b->state_pool_bytes);
    jsonw_kstring(w, "state_source", b->state_measured ? "measured" : "computed");
    /* the layout the preset's measured figures were taken at; null: none, or none recorded */
    if (d->measured_at.known && (d->weights_bytes || d->state_pool_bytes)) {
        char at[64];
        engine_measured_layout_text(&d->measured_at, NULL, at, sizeof at);
        jsonw_kstring(w, "measured_layout", at);
    } else {
        jsonw_knull(w, "measured_layout");
    }
    jsonw_ku64(w, "other_runtime_bytes", b->other_runtime_bytes);
    jsonw_ku64(w, "static_budget_bytes", b->static_budget_bytes);
    jsonw_ki64(w, "kv_pool_bytes", b->kv_pool_bytes);
    jsonw_ki64(w, "headroom_bytes", b->headroom_bytes);
    if (engine_fraction_settable(b->recommended_mem_fraction_static))
        jsonw_kdouble(w, "recommended_mem_fraction_static", b->recommended_mem_fraction_static, 4);
    else /* below the knob's 0.50: no fraction leaves the graphs room (fits is false) */
        jsonw_knull(w, "recommended_mem_fraction_static");
    /* what SGLang alone picks for this plan (server_args.py), and the KV tokens (x dcp) at it */
    if (b->sglang_default_known) {
        jsonw_kdouble(w, "sglang_default_mem_fraction_static", b->sglang_default_mem_fraction_static, 3);
        jsonw_ku64(w, "sglang_default_kv_tokens", b->sglang_default_kv_tokens);
    } else {
        jsonw_knull(w, "sglang_default_mem_fraction_static");
        jsonw_knull(w, "sglang_default_kv_tokens");
    }
    jsonw_ku64(w, "kv_cell_bytes", b->kv_cell_bytes);
    /* each pool SGLang allocates: full attention, the sliding-window layers', the linear-attention
     * or state-space state of the running requests */
    jsonw_key(w, "kv_pools");
    jsonw_object_begin(w);
    jsonw_ku64(w, "full_cell_bytes", b->kv_cell_full_bytes);
    jsonw_ku64(w, "swa_cell_bytes", b->kv_cell_swa_bytes);
    jsonw_kdouble(w, "swa_full_tokens_ratio", b->kv_cell_swa_bytes ? engine_swa_ratio(d) : NAN, 3);
    /* a model with sliding-window layers: whether SGLang pools them apart; null without any */
    if (d->model.swa_layers && d->model.attn_kind != ATTN_DSV4)
        jsonw_kbool(w, "swa_layers_pooled", engine_swa_pool(d));
    else
        jsonw_knull(w, "swa_layers_pooled");
    /* how the sliding-window pool is sized: "ratio" (swa_full_tokens_ratio of the full tokens) or
     * "cap" (SWAChunkCapPoolConfigurator: swa_cap_tokens, fixed, of swa_token_bytes each, the full
     * pool the rest); null where no sliding-window pool of its own */
    engine_swa_cap cap = engine_swa_cap_of(d);
    if (cap.applies) {
        jsonw_kstring(w, "swa_sizing", "cap");
        jsonw_ku64(w, "swa_cap_tokens", cap.cap_tokens);
        jsonw_ku64(w, "swa_token_bytes", cap.swa_token_bytes);
    } else {
        if (b->kv_cell_swa_bytes)
            jsonw_kstring(w, "swa_sizing", "ratio");
        else
            jsonw_knull(w, "swa_sizing");
        jsonw_knull(w, "swa_cap_tokens");
        jsonw_knull(w, "swa_token_bytes");
    }
    jsonw_ki64(w, "full_bytes", b->kv_full_pool_bytes);
    jsonw_ki64(w, "swa_bytes", b->kv_swa_pool_bytes);
    jsonw_ku64(w, "state_bytes", b->state_pool_bytes);
    jsonw_ku64(w, "state_slots", b->state_slots);
    jsonw_kstring(w, "state_rule",
                  !b->state_slots                   ? "none"
                  : d->model.attn_kind == ATTN_DSV4 ? "c128 compressor state per request slot"
                  : b->state_per_request            ? "one per running request"
                                                    : "mamba_full_memory_ratio of the rest");
    jsonw_object_end(w);
    jsonw_ku64(w, "kv_tokens_per_gib", b->kv_tokens_per_gib);
    /* wall_max_bs: the largest max_bs that fits at its own recommended fraction; null: none */
    if (b->wall_max_bs)
        jsonw_ku64(w, "wall_max_bs", b->wall_max_bs);
    else
        jsonw_knull(w, "wall_max_bs");
    jsonw_kbool(w, "wall_beyond_range", b->wall_beyond_range);
    jsonw_kstring(w, "wall_term", engine_terms[b->wall_term].key);
    /* what stops the wall: wall_term's key, or kv_per_request when the request policy does */
    jsonw_kstring(w, "wall_limit", b->wall_limit ? b->wall_limit : engine_terms[b->wall_term].key);
    if (b->wall_max_bs)
        jsonw_kdouble(w, "wall_mem_fraction_static", b->wall_mem_fraction_static, 3);
    else
        jsonw_knull(w, "wall_mem_fraction_static");
    if (b->wall_code)
        jsonw_kstring(w, "wall_code", b->wall_code);
    else
        jsonw_knull(w, "wall_code");
    jsonw_kstring(w, "wall_reason", b->wall_reason);
    jsonw_ku64(w, "margin_bytes", b->margin_bytes);
    jsonw_ku64(w, "kv_min_bytes", b->kv_min_bytes);
    jsonw_ku64(w, "kv_tokens", b->kv_tokens);
    jsonw_kbool(w, "fits", b->fits);
    jsonw_kbool(w, "meets_min_kv", b->meets_min_kv);
    jsonw_key(w, "post_capture_kv_sizing");
    jsonw_object_begin(w);
    jsonw_kbool(w, "applies", b->post_capture_applies);
    jsonw_kstring(w, "why", b->post_capture_why);
    if (b->post_capture_applies)
        jsonw_ki64(w, "kv_pool_bytes", b->post_capture_kv_bytes);
    else
        jsonw_knull(w, "kv_pool_bytes");
    jsonw_object_end(w);
    jsonw_object_end(w);

    write_warning_list(w, adj, &e->warnings);
    if (line)
        write_flag_list(w, line);
    jsonw_object_end(w);
}

void cli_write_estimate_value(jsonw *w, const char *preset, const engine_deployment *d, const engine_estimate *e,
                              const engine_warnings *adj)
{
    write_estimate_object(w, preset, d, e, adj);
}

void cli_write_estimate_json(FILE *out, const char *preset, const engine_deployment *d, const engine_estimate *e,
                             const engine_warnings *adj)
{
    jsonw w;
    jsonw_init(&w, out, true);
    write_estimate_object(&w, preset, d, e, adj);
}

void cli_write_estimate_csv(FILE *out, const char *preset, const engine_estimate *e)
{
    /* an unknown term's bytes and range are empty fields (CSV's null), never 0 */
    fprintf(out, "preset,group,layer,id,source,bytes,low_bytes,high_bytes\n");
    for (int i = 0; i < TERM_COUNT; i++) {
        const engine_term *t = &e->terms[i];
        fprintf(out, "%s,%s,%s,%s,%s,", preset, engine_group_names[t->group], engine_layer_names[t->layer],
                engine_terms[i].key, engine_source_names[t->source]);
        if (t->known)
            fprintf(out, "%llu,%llu,%llu\n", (unsigned long long)t->bytes, (unsigned long long)t->low_bytes,
                    (unsigned long long)t->high_bytes);
        else
            fprintf(out, ",,\n");
    }
    fprintf(out, "%s,,,total,,%llu,%llu,", preset, (unsigned long long)e->total_bytes,
            (unsigned long long)e->total_low_bytes);
    if (e->total_complete) /* no upper end while a term is unknown */
        fprintf(out, "%llu", (unsigned long long)e->total_high_bytes);
    fputc('\n', out);
    fprintf(out, "%s,,,heuristic,,%llu,,\n", preset, (unsigned long long)e->heuristic_total_bytes);
}

void cli_write_estimate_table(FILE *out, const char *preset, const engine_deployment *d, const engine_estimate *e,
                              const engine_warnings *adj)
{
    const engine_knobs_state *k = &d->knobs;
    char buf[ENGINE_TEXT_MAX * 4];
    /* preset names are file stems, any bytes: cleaned (text.h) */
    char shown[3][ENGINE_NAME_MAX * 4];
    fprintf(out, "%s · %s · %u x %s (%.2f GiB) · DP%u", engine_text_cleaned(shown[0], sizeof shown[0], preset),
            engine_text_cleaned(shown[1], sizeof shown[1], d->model.name), k->world,
            engine_text_cleaned(shown[2], sizeof shown[2], d->gpu.name), cli_gib(d->gpu.cuda_total_bytes), k->dp);
    if (k->dcp > 1)
        fprintf(out, " x DCP%u", k->dcp);
    fprintf(out, k->mtp > 1 ? " · MTP %u\n" : " · no speculation\n", k->mtp);
    /* The scalar knobs in the table's order of application (world, dp, dcp, ...). */
    engine_knob_id order[KNOB_COUNT];
    engine_knob_apply_order(order);
    fprintf(out, "knobs  ");
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *info = &engine_knobs[order[i]];
        if (info->type == KNOB_TYPE_NAME || info->type == KNOB_TYPE_LIST_OR_AUTO)
            continue;
        engine_knob_text(d, e, order[i], KNOB_TEXT_FULL, buf, sizeof buf);
        fprintf(out, "%s %s %s", i ? " " : "", info->name, buf);
    }
    fprintf(out, "\n");
    /* Knobs a plan from a model alone left unset take SGLang's value; say which, since an "auto"
     * mark does not show on a plain number. */
    const char *sep = "unset   ";
    for (int i = 0; i < KNOB_COUNT; i++) {
        if (d->knob_origin[order[i]] != ORIGIN_RELEASE || engine_knob_is_auto(d, order[i]))
            continue;
        engine_knob_text(d, e, order[i], KNOB_TEXT_FULL, buf, sizeof buf);
        fprintf(out, "%s%s %s", sep, engine_knobs[order[i]].name, buf);
        sep = ", ";
    }
    if (sep[0] == ',') {
        engine_release_text(&k->sglang, buf, sizeof buf);
        fprintf(out, ": what SGLang %s chooses for this GPU and tp (--set to change)\n", buf);
    }
    size_t used = 0;
    for (uint32_t i = 0; i < e->n_buckets && used + 16 < sizeof buf; i++)
        used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%u", i ? ", " : "", e->buckets[i]);
    fprintf(out, "buckets %u captured (%s): [%s]\n", e->n_buckets, k->buckets_auto ? "auto" : "explicit", buf);
    fprintf(out, "rows    bs_max %u · attention %u · MoE %u · logits %u · heads/GPU %u (attn_tp %u)\n\n",
            e->bs_max, e->attn_rows, e->moe_rows, e->logits_rows, e->heads_per_gpu, e->attn_tp);

    fprintf(out, "%-8s %-18s %9s %6s  %-13s  %-11s  %s\n", "layer", "term", "GiB", "share", "range", "source",
            "depends on");
    for (int l = 0; l < LAYER_COUNT; l++) {
        bool first = true;
        for (int i = 0; i < TERM_COUNT; i++) {
            const engine_term *t = &e->terms[i];
            if ((int)t->layer != l || (engine_terms[i].hide_when_zero && t->known && !t->bytes))
                continue;
            engine_depends_text(t->depends_on, false, buf, sizeof buf);
            char range[32] = "";
            if (t->known && t->low_bytes != t->high_bytes)
                snprintf(range, sizeof range, "%.3f..%.3f", cli_gib(t->low_bytes), cli_gib(t->high_bytes));
            if (t->known)
                fprintf(out, "%-8s %-18s %9.3f %5.1f%%  %-13s  %-11s  %s\n", first ? engine_layer_names[l] : "",
                        engine_terms[i].label, cli_gib(t->bytes),
                        e->total_bytes ? 100.0 * (double)t->bytes / (double)e->total_bytes : 0.0, range,
                        engine_source_names[t->source], buf);
            else
                fprintf(out, "%-8s %-18s %9s %6s  %-13s  %-11s  %s\n", first ? engine_layer_names[l] : "",
                        engine_terms[i].label, "?", "", "none", engine_source_names[t->source], buf);
            for (int p = 0; p < PART_COUNT; p++) { /* a mechanism's parts, under the term they sum to */
                const engine_part *part = &e->parts[p];
                if (engine_parts[p].term != (engine_term_id)i || !part->present || !part->high_bytes)
                    continue;
                char pr[32] = "";
                if (part->low_bytes != part->high_bytes)
                    snprintf(pr, sizeof pr, "%.3f..%.3f", cli_gib(part->low_bytes), cli_gib(part->high_bytes));
                fprintf(out, "%-8s   %-16s %9.3f %6s  %-13s  %s\n", "", engine_parts[p].label, cli_gib(part->bytes), "",
                        pr, engine_source_names[part->source]);
            }
            if (t->alt_label && t->alt_bytes)
                fprintf(out, "%-8s   (%s: %.3f GiB)\n", "", t->alt_label, cli_gib(t->alt_bytes));
            first = false;
        }
    }
    for (int i = 0; i < TERM_COUNT; i++) {
        const engine_term *t = &e->terms[i];
        if (t->source != SOURCE_CALIBRATED || t->n_runs == 0)
            continue; /* a term calibrated by its GPU's node_bytes alone: the graph nodes line says so */
        fprintf(out, "%-8s calibrated terms use the fit of run%s", "", t->n_runs == 1 ? "" : "s");
        for (int r = 0; r < t->n_runs; r++)
            fprintf(out, "%s%lld", r ? ", " : " ", (long long)e->calibration_runs[r]);
        fprintf(out, " (cgplan calibrate)\n");
        break;
    }
    if (e->total_complete)
        fprintf(out, "%-27s %9.3f GiB [%.3f, %.3f] (target %.3f + draft %.3f); planned on the %s end: %.3f GiB\n",
                "total", cli_gib(e->total_bytes), cli_gib(e->total_low_bytes), cli_gib(e->total_high_bytes),
                cli_gib(e->target_total_bytes), cli_gib(e->draft_total_bytes), engine_bound_names[k->bound],
                cli_gib(e->plan_total_bytes));
    else
        fprintf(out, "%-27s %9.3f GiB of the known terms only [%.3f, no upper end]: cannot plan\n", "total",
                cli_gib(e->total_bytes), cli_gib(e->total_low_bytes));
    fprintf(out, "%-27s %.0f kernel nodes per graph [%llu, %llu] x %u graphs, %.1f KiB each (%s)\n", "graph nodes",
            (double)e->graph_nodes.nodes.expected, (unsigned long long)e->graph_nodes.nodes.low, (unsigned long long)e->graph_nodes.nodes.high,
            e->n_buckets, (double)e->node_bytes / 1024.0, e->node_bytes_source);
    if (e->total_complete)
        fprintf(out, "%-27s %9.3f GiB (%.0f%% of the prediction)\n\n", "SGLang heuristic",
                cli_gib(e->heuristic_total_bytes),
                e->total_bytes ? 100.0 * (double)e->heuristic_total_bytes / (double)e->total_bytes : 0.0);
    else
        fprintf(out, "%-27s %9.3f GiB (not compared: the prediction is incomplete)\n\n", "SGLang heuristic",
                cli_gib(e->heuristic_total_bytes));

    const engine_budget *b = &e->budget;
    char weights_how[ENGINE_TEXT_MAX];
    cli_weights_source_text(d, b, weights_how, sizeof weights_how);
    fprintf(out, "budget  pre-load free %.2f GiB · weights %.2f GiB (%s) · state %.2f%s · P x (1 - f) %.2f\n",
            cli_gib(b->pre_load_free_bytes), cli_gib(b->weights_bytes), weights_how, cli_gib(b->state_pool_bytes),
            b->state_measured ? " (measured)" : b->state_pool_bytes ? " (computed from the model)" : "",
            cli_gib(b->static_budget_bytes));
    char recommended[96];
    if (engine_fraction_settable(b->recommended_mem_fraction_static))
        snprintf(recommended, sizeof recommended, "%.3f", b->recommended_mem_fraction_static);
    else
        snprintf(recommended, sizeof recommended, "none (does not fit: the graphs and margin leave no fraction)");
    fprintf(out, "        KV pool %.2f GiB · headroom %.2f GiB · recommended --mem-fraction-static %s\n",
            (double)b->kv_pool_bytes / (double)ENGINE_GIB, (double)b->headroom_bytes / (double)ENGINE_GIB, recommended);
    char sglang_line[ENGINE_TEXT_MAX];
    cli_sglang_default_text(d, b, sglang_line, sizeof sglang_line);
    fprintf(out, "        %s\n", sglang_line);
    fprintf(out, "        fit: margin %.2f GiB · KV minimum %.2f GiB (%u requests x %llu tokens%s) · %s\n",
            cli_gib(b->margin_bytes), cli_gib(b->kv_min_bytes), b->running_requests,
            (unsigned long long)k->min_kv_tokens, b->kv_swa_cap_tokens ? " + the capped sliding-window pool" : "",
            !b->fits          ? "does NOT fit (a blocking warning below)"
            : b->meets_min_kv ? "fits"
                              : "fits memory, under the request policy (kv_per_request below)");
    fprintf(out, "        KV cell %llu B/token · 1 GiB of graph memory = %llu tokens of KV%s\n",
            (unsigned long long)b->kv_cell_bytes, (unsigned long long)b->kv_tokens_per_gib,
            b->kv_swa_cap_tokens ? " (full-attention tokens of the full pool: the sliding-window pool is fixed)" : "");
    engine_swa_cap cap = engine_swa_cap_of(d);
    char cap_tail[160];
    if (!cap.decode_side)
        snprintf(cap_tail, sizeof cap_tail, "2 chunks in flight of %u (the GPU's default chunked prefill) + page",
                 cap.chunk);
    else
        snprintf(cap_tail, sizeof cap_tail, "%u extra decode slots x (window + page)%s", cap.extra_slots,
                 d->decode_server ? "" : ": a decode server's side, the larger while the server kind is not known");
    if (cap.applies)
        fprintf(out,
                "        KV pools: full attention %.2f GiB (%llu B/token) + sliding window %.2f GiB fixed, sized by "
                "the cap (SWAChunkCapPoolConfigurator): %llu tokens of %llu B = %u requests x (window %u + "
                "eviction interval %u x %u draft + page %u + decode %u) + %s, to the page; tokens count "
                "full-attention tokens\n",
                (double)b->kv_full_pool_bytes / (double)ENGINE_GIB, (unsigned long long)b->kv_cell_full_bytes,
                (double)b->kv_swa_pool_bytes / (double)ENGINE_GIB, (unsigned long long)cap.cap_tokens,
                (unsigned long long)cap.swa_token_bytes, cap.requests, cap.window, cap.eviction_interval,
                cap.draft_tokens, cap.page, cap.decode_alloc, cap_tail);
    else if (b->kv_cell_swa_bytes)
        fprintf(out,
                "        KV pools: %s %.2f GiB (%llu B/token) + sliding window %.2f GiB (%llu B per "
                "full-attention token at ratio %.2f: sized by the ratio); tokens count full-attention tokens\n",
                d->model.attn_kind == ATTN_DSV4 ? "compressed (c4/c128 rows, indexer keys, compressor states)"
                                                : "full attention",
                (double)b->kv_full_pool_bytes / (double)ENGINE_GIB, (unsigned long long)b->kv_cell_full_bytes,
                (double)b->kv_swa_pool_bytes / (double)ENGINE_GIB, (unsigned long long)b->kv_cell_swa_bytes,
                engine_swa_ratio(d));
    else if (d->model.swa_layers)
        fprintf(out, "        KV pool: one for all %u layers, its %u windowed layers holding every token: %s\n",
                d->model.layers, d->model.swa_layers, engine_swa_one_pool_why(d));
    if (d->model.attn_kind == ATTN_DSV4 && b->state_slots)
        fprintf(out,
                "        state pool %.2f GiB: DeepSeek-V4's c128 compressor states, %llu request slots "
                "(max_running_requests + 1, SGLang PR #28612), taken before the KV pools\n",
                cli_gib(b->state_pool_bytes), (unsigned long long)b->state_slots);
    else if (b->state_per_request)
        fprintf(out, "        state pool %.2f GiB: %llu request states, one per running request (%s)\n",
                cli_gib(b->state_pool_bytes), (unsigned long long)b->state_slots,
                k->disable_radix_cache ? "no radix cache: disable_radix_cache on"
                                       : "no radix cache for hybrid models before SGLang 0.5.4, PR #11214");
    else if (b->state_slots)
        fprintf(out,
                "        state pool %.2f GiB: %llu request states (SGLang's mamba cache: %.2f of the KV pool's "
                "memory, --mamba-full-memory-ratio)\n",
                cli_gib(b->state_pool_bytes), (unsigned long long)b->state_slots, k->mamba_full_memory_ratio);
    else if (b->state_pool_bytes)
        fprintf(out, "        state pool %.2f GiB (linear-attention state of the running requests)\n",
                cli_gib(b->state_pool_bytes));
    /* The wall: each max_bs at the fraction recommended for it (MODEL.md, Budget). */
    if (b->wall_beyond_range)
        fprintf(out, "wall    every max_bs up to 1024 fits, each at its own recommended fraction (1024: %.3f)\n",
                b->wall_mem_fraction_static);
    else if (!b->wall_max_bs)
        fprintf(out, "wall    nothing fits: %s\n", b->wall_reason);
    else if (b->wall_limit && strcmp(b->wall_limit, "kv_per_request") == 0)
        fprintf(out,
                "wall    largest max_bs that fits with min_kv_tokens %llu per request: %u at --mem-fraction-static "
                "%.3f; stopped by kv_per_request (the request policy, not memory)\n"
                "        next size: %s\n",
                (unsigned long long)k->min_kv_tokens, b->wall_max_bs, b->wall_mem_fraction_static, b->wall_reason);
    else
        fprintf(out, "wall    largest max_bs that fits: %u at --mem-fraction-static %.3f; stopped by %s\n"
                     "        next size: %s\n",
                b->wall_max_bs, b->wall_mem_fraction_static, b->wall_limit ? b->wall_limit : "-", b->wall_reason);
    fprintf(out, "        post-capture KV sizing: %s", b->post_capture_why);
    if (b->post_capture_applies)
        fprintf(out, " (KV pool %.2f GiB)", (double)b->post_capture_kv_bytes / (double)ENGINE_GIB);
    fprintf(out, "\n");
    int n_warn = (adj ? adj->n : 0) + e->warnings.n;
    if (n_warn) {
        fprintf(out, "\nwarnings\n");
        for (int i = 0; adj && i < adj->n; i++)
            fprintf(out, "  %s %s (%s): %s\n", adj->items[i].severity == SEVERITY_BLOCKING ? "X" : "!",
                    adj->items[i].code, engine_severity_names[adj->items[i].severity], adj->items[i].message);
        for (int i = 0; i < e->warnings.n; i++)
            fprintf(out, "  %s %s (%s): %s\n", e->warnings.items[i].severity == SEVERITY_BLOCKING ? "X" : "!",
                    e->warnings.items[i].code, engine_severity_names[e->warnings.items[i].severity],
                    e->warnings.items[i].message);
    }
}

/* 4096, 120k, 2.10M */
static const char *tokens_short(double n, char *buf, size_t len)
{
    if (n < 10000)
        snprintf(buf, len, "%.0f", n);
    else if (n < 1e6)
        snprintf(buf, len, "%.0fk", n / 1e3);
    else
        snprintf(buf, len, "%.2fM", n / 1e6);
    return buf;
}

void cli_sglang_default_text(const engine_deployment *d, const engine_budget *b, char *buf, size_t len)
{
    char rel[ENGINE_RELEASE_TEXT_MAX];
    engine_release_text(&d->knobs.sglang, rel, sizeof rel);
    if (!b->sglang_default_known) {
        snprintf(buf, len, "SGLang %s alone: its default --mem-fraction-static is not modelled for this release and GPU",
                 rel);
        return;
    }
    double gib = (double)ENGINE_GIB;
    int64_t dkv = b->kv_pool_bytes - b->sglang_default_kv_pool_bytes;
    int64_t dtok = (int64_t)b->kv_tokens - (int64_t)b->sglang_default_kv_tokens;
    char alone[64], diff[24];
    if (b->sglang_default_kv_pool_bytes > 0)
        snprintf(alone, sizeof alone, "%.2f GiB KV (%s tokens)", (double)b->sglang_default_kv_pool_bytes / gib,
                 tokens_short((double)b->sglang_default_kv_tokens, diff, sizeof diff));
    else
        snprintf(alone, sizeof alone, "no KV pool (%.2f GiB short)", (double)-b->sglang_default_kv_pool_bytes / gib);
    if (b->sglang_default_kv_pool_bytes <= 0 || b->kv_pool_bytes <= 0) { /* a difference to no pool is no figure */
        char plan[64];
        if (b->kv_pool_bytes > 0)
            snprintf(plan, sizeof plan, "%.2f GiB KV (%s tokens)", (double)b->kv_pool_bytes / gib,
                     tokens_short((double)b->kv_tokens, diff, sizeof diff));
        else
            snprintf(plan, sizeof plan, "no KV pool (%.2f GiB short)", (double)-b->kv_pool_bytes / gib);
        snprintf(buf, len, "SGLang %s alone: %.3f, %s; this plan: %.3f, %s", rel, b->sglang_default_mem_fraction_static,
                 alone, d->knobs.mem_fraction_static, plan);
        return;
    }
    snprintf(buf, len, "SGLang %s alone: %.3f, %s; this plan: %.3f, %+.2f GiB = %s%s tokens", rel,
             b->sglang_default_mem_fraction_static, alone, d->knobs.mem_fraction_static, (double)dkv / gib,
             dtok < 0 ? "-" : "+", tokens_short((double)(dtok < 0 ? -dtok : dtok), diff, sizeof diff));
}

void cli_weights_source_text(const engine_deployment *d, const engine_budget *b, char *buf, size_t len)
{
    engine_measured_layout now = engine_measured_layout_of(d);
    char at[64], here[64];
    engine_measured_layout_text(&d->measured_at, &now, at, sizeof at);
    engine_measured_layout_text(&now, &d->measured_at, here, sizeof here);
    if (b->weights_measured && d->measured_at.known)
        snprintf(buf, len, "measured at %s", at);
    else if (b->weights_measured)
        snprintf(buf, len, "measured");
    else if (!b->weights_known)
        snprintf(buf, len, "unknown: the model lacks a field to count them");
    else if (b->measured_elsewhere && d->weights_bytes)
        snprintf(buf, len, "computed from the model: the measured %.2f GiB was at %s, this plan is %s",
                 (double)d->weights_bytes / (double)ENGINE_GIB, at, here);
    else
        snprintf(buf, len, "computed from the model");
}

static const char *preset_label(const cli_opts *o, const engine_deployment *d)
{
    return d->name[0] ? d->name : (o->preset ? o->preset : "");
}

int cmd_estimate(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "estimate", OPT_PRESET | OPT_SET | OPT_DB | OPT_FORMAT | OPT_CHECK, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("estimate: unexpected argument '%s' (knobs go in --set KEY=VALUE)", o.args[0]);
        return EXIT_USAGE;
    }
    preset_catalog *cat = preset_catalog_open();
    static engine_deployment d;
    engine_warnings adj = {0};
    rc = cli_load_deployment(&o, cat, NULL, &d, &adj);
    engine_calibration cal;
    int found = rc == EXIT_OK ? cli_find_calibration(&o, &d, &cal) : 0;
    if (found < 0)
        rc = EXIT_WORK;
    if (rc == EXIT_OK) {
        bool calibrated = found > 0;
        static engine_estimate e;
        engine_estimate_compute(&d, calibrated ? &cal : NULL, &e);
        const char *label = preset_label(&o, &d);
        /* --sglang-args: the statuses, read again on a copy of the plan, checked against its release */
        static engine_sglang_line line;
        bool has_line = false;
        if (o.sglang_args) {
            static engine_deployment copy;
            copy = d;
            char err[ENGINE_TEXT_MAX * 2];
            has_line = engine_sglang_read_line(&copy, o.sglang_args, &line, NULL, err, sizeof err) == 0;
            if (has_line) {
                engine_sglang_line_check_release(&line, &d.knobs.sglang);
                warn_flags(&line);
            }
        }
        if (o.format == FORMAT_JSON) {
            jsonw w;
            jsonw_init(&w, stdout, true);
            write_estimate_object_with(&w, label, &d, &e, &adj, has_line ? &line : NULL);
        } else if (o.format == FORMAT_CSV) {
            cli_write_estimate_csv(stdout, label, &e);
        } else {
            cli_write_estimate_table(stdout, label, &d, &e, &adj);
            if (has_line)
                write_flag_table(stdout, &line);
        }
        /* --check: 0 fits, 3 does not (a blocking warning), others as usual */
        if (o.check && cli_report_blocking("estimate", &e, &adj))
            rc = EXIT_NO_FIT;
    }
    preset_catalog_free(cat);
    return rc;
}

/* --vary KNOB=FROM:TO[:STEP] */
static int parse_vary(const char *spec, const engine_knob_info **knob, double *from, double *to, double *step)
{
    const char *eq = strchr(spec, '=');
    char name[64];
    if (!eq || (size_t)(eq - spec) >= sizeof name) {
        cli_error("sweep: --vary %s: expected KNOB=FROM:TO[:STEP], e.g. --vary max_bs=8:256", spec);
        return EXIT_USAGE;
    }
    snprintf(name, sizeof name, "%.*s", (int)(eq - spec), spec);
    *knob = engine_knob_find(name);
    if (!*knob || ((*knob)->type != KNOB_TYPE_INT && (*knob)->type != KNOB_TYPE_INT_OR_AUTO &&
                   (*knob)->type != KNOB_TYPE_FRACTION)) {
        cli_error("sweep: --vary %s: '%s' is not a numeric knob (max_bs, dp, dcp, max_dispatch, mtp, world, "
                  "context_len, mem_fraction_static)",
                  spec, name);
        return EXIT_USAGE;
    }
    char *end;
    *from = strtod(eq + 1, &end);
    if (end == eq + 1 || *end != ':') {
        cli_error("sweep: --vary %s: expected FROM:TO after '='", spec);
        return EXIT_USAGE;
    }
    const char *p = end + 1;
    *to = strtod(p, &end);
    if (end == p || (*end && *end != ':')) {
        cli_error("sweep: --vary %s: expected a number for TO", spec);
        return EXIT_USAGE;
    }
    *step = 0;
    if (*end == ':') {
        p = end + 1;
        *step = strtod(p, &end);
        if (end == p || *end || !(*step > 0)) {
            cli_error("sweep: --vary %s: STEP must be a positive number", spec);
            return EXIT_USAGE;
        }
    }
    if (!(*from >= (*knob)->min && *to <= (*knob)->max && *from <= *to)) {
        cli_error("sweep: --vary %s: FROM:TO must lie within %s and FROM <= TO", spec, (*knob)->range);
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

#define SWEEP_MAX_POINTS 4096

int cmd_sweep(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "sweep", OPT_PRESET | OPT_SET | OPT_DB | OPT_FORMAT | OPT_VARY, &o);
    if (rc)
        return rc;
    if (!o.vary) {
        cli_error("sweep: --vary KNOB=FROM:TO[:STEP] is required");
        return EXIT_USAGE;
    }
    const engine_knob_info *knob;
    double from, to, step;
    if ((rc = parse_vary(o.vary, &knob, &from, &to, &step)))
        return rc;
    preset_catalog *cat = preset_catalog_open();
    static engine_deployment base;
    engine_warnings adj = {0};
    rc = cli_load_deployment(&o, cat, NULL, &base, &adj);
    if (rc) {
        preset_catalog_free(cat);
        return rc;
    }
    /* The values: FROM, FROM+STEP, ... or the knob's own steps inside [FROM, TO]. */
    static double values[SWEEP_MAX_POINTS];
    size_t n = 0;
    if (step > 0) {
        for (double v = from; v <= to + 1e-9 && n < SWEEP_MAX_POINTS; v += step)
            values[n++] = knob->type == KNOB_TYPE_FRACTION ? v : floor(v + 0.5);
        double last = n ? values[n - 1] : from;
        if (n == SWEEP_MAX_POINTS && last + step <= to + 1e-9)
            fprintf(stderr, "cgplan: sweep: --vary %s has more than %d points: stopped at %s=%g (use a larger STEP)\n",
                    o.vary, SWEEP_MAX_POINTS, knob->name, last);
    } else {
        static double steps[SWEEP_MAX_POINTS];
        size_t m = engine_knob_steps(&base, knob->id, steps, SWEEP_MAX_POINTS);
        for (size_t i = 0; i < m; i++)
            if (steps[i] >= from - 1e-9 && steps[i] <= to + 1e-9)
                values[n++] = steps[i];
    }
    if (n == 0) {
        cli_error("sweep: --vary %s selects no value of %s", o.vary, knob->name);
        preset_catalog_free(cat);
        return EXIT_USAGE;
    }
    engine_calibration cal;
    int found = cli_find_calibration(&o, &base, &cal);
    if (found < 0) {
        preset_catalog_free(cat);
        return EXIT_WORK;
    }
    bool calibrated = found > 0;
    jsonw w;
    if (o.format == FORMAT_JSON) {
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "preset", preset_label(&o, &base));
        jsonw_kstring(&w, "vary", knob->name);
        jsonw_key(&w, "points");
        jsonw_array_begin(&w);
    } else if (o.format == FORMAT_CSV) {
        printf("%s", knob->name);
        for (int i = 0; i < TERM_COUNT; i++)
            printf(",%s", engine_terms[i].key);
        printf(",total_bytes,heuristic_bytes,headroom_bytes\n");
    } else {
        printf("%s · sweep of %s\n%12s %8s %8s %8s %8s %9s %9s %9s  %s\n", preset_label(&o, &base), knob->name,
               knob->name, "static", "largest", "buckets", "draft", "total", "heuristic", "headroom", "warnings");
    }
    for (size_t i = 0; i < n; i++) {
        static engine_deployment d;
        static engine_estimate e;
        d = base;
        char err[ENGINE_TEXT_MAX];
        engine_warnings point_adj = {0};
        if (engine_knob_set_value(&d, knob->id, values[i], &point_adj, err, sizeof err) != 0) {
            cli_error("sweep: %s", err);
            rc = EXIT_USAGE;
            break;
        }
        engine_estimate_compute(&d, calibrated ? &cal : NULL, &e);
        char value_text[32];
        if (knob->type == KNOB_TYPE_FRACTION)
            snprintf(value_text, sizeof value_text, "%.3f", values[i]);
        else
            snprintf(value_text, sizeof value_text, "%.0f", values[i]);
        if (o.format == FORMAT_JSON) {
            jsonw_object_begin(&w);
            jsonw_key(&w, "value");
            if (knob->type == KNOB_TYPE_FRACTION)
                jsonw_double(&w, values[i], 3);
            else
                jsonw_u64(&w, (uint64_t)values[i]);
            jsonw_key(&w, "terms");
            jsonw_object_begin(&w);
            for (int t = 0; t < TERM_COUNT; t++)
                jsonw_ku64(&w, engine_terms[t].key, e.terms[t].bytes);
            jsonw_object_end(&w);
            jsonw_ku64(&w, "total_bytes", e.total_bytes);
            jsonw_ku64(&w, "heuristic_bytes", e.heuristic_total_bytes);
            jsonw_ki64(&w, "headroom_bytes", e.budget.headroom_bytes);
            write_warning_list(&w, &point_adj, &e.warnings);
            jsonw_object_end(&w);
        } else if (o.format == FORMAT_CSV) {
            printf("%s", value_text);
            for (int t = 0; t < TERM_COUNT; t++)
                printf(",%llu", (unsigned long long)e.terms[t].bytes);
            printf(",%llu,%llu,%lld\n", (unsigned long long)e.total_bytes,
                   (unsigned long long)e.heuristic_total_bytes, (long long)e.budget.headroom_bytes);
        } else {
            char codes[128] = "";
            for (int q = 0; q < e.warnings.n; q++) {
                strncat(codes, q ? " " : "", sizeof codes - strlen(codes) - 1);
                strncat(codes, e.warnings.items[q].code, sizeof codes - strlen(codes) - 1);
            }
            printf("%12s %8.3f %8.3f %8.3f %8.3f %9.3f %9.3f %9.3f  %s\n", value_text,
                   cli_gib(e.layer_bytes[LAYER_STATIC]), cli_gib(e.layer_bytes[LAYER_LARGEST]),
                   cli_gib(e.layer_bytes[LAYER_BUCKETS]), cli_gib(e.layer_bytes[LAYER_DRAFT]), cli_gib(e.total_bytes),
                   cli_gib(e.heuristic_total_bytes), (double)e.budget.headroom_bytes / (double)ENGINE_GIB, codes);
        }
    }
    if (o.format == FORMAT_JSON) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
    }
    preset_catalog_free(cat);
    return rc;
}
