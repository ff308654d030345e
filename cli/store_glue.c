/* store_glue.c — opening the store for the commands, and the calibration lookup estimate,
 * sweep, launch and the TUI use (never creating a store just to look). */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_glue.h"

store *cli_open_store(const cli_opts *o, cli_store_need need)
{
    char buf[4096], err[4096 + 512];
    const char *path = cli_db_path(o, buf, sizeof buf);
    store_mode mode = STORE_READ_WRITE;
    struct stat st;
    if (need == CLI_STORE_WRITE_IF_POSSIBLE && stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, W_OK) != 0)
        mode = STORE_READ_ONLY;
    store *s = store_open(path, mode, err, sizeof err);
    if (!s)
        cli_error("%s", err);
    return s;
}

bool cli_find_calibration(const cli_opts *o, const engine_deployment *d, engine_calibration *cal)
{
    char buf[4096], err[4096 + 512];
    const char *path = cli_db_path(o, buf, sizeof buf);
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return false; /* no store yet: looking must not create one */
    store *s = store_open(path, STORE_READ_ONLY, err, sizeof err);
    if (!s)
        return false;
    bool found = store_load_calibration(s, d->model.name, d->gpu.name, cal);
    store_close(s);
    return found;
}

const char *cli_layout_text(uint32_t dp, uint32_t dcp, uint32_t mtp, char *buf, size_t len)
{
    char d[16] = "?", c[24] = "", m[24] = "MTP ?";
    if (dp)
        snprintf(d, sizeof d, "%u", dp);
    if (dcp > 1)
        snprintf(c, sizeof c, " x DCP%u", dcp);
    if (mtp == 1)
        snprintf(m, sizeof m, "no MTP");
    else if (mtp > 1)
        snprintf(m, sizeof m, "MTP %u", mtp);
    snprintf(buf, len, "DP%s%s %s", d, c, m);
    return buf;
}

const char *cli_gpu_text(const char *gpu, bool inferred, char *buf, size_t len)
{
    if (!gpu || !*gpu)
        snprintf(buf, len, "?");
    else
        snprintf(buf, len, "%s%s", gpu, inferred ? " (inferred)" : "");
    return buf;
}

int cli_run_deployment(const preset_catalog *cat, const store_run_detail *r, engine_deployment *d, char *why,
                            size_t whylen)
{
    char err[ENGINE_TEXT_MAX * 2];
    const store_run_summary *sum = &r->summary;
    bool from_preset = r->preset[0] && preset_load_deployment(cat, r->preset, d, err, sizeof err) == 0;
    if (!from_preset) {
        if (!sum->model[0]) {
            snprintf(why, whylen, "the run's model is unknown (re-ingest it with --preset)");
            return -1;
        }
        engine_deployment_defaults(d);
        snprintf(d->name, sizeof d->name, "run %lld", (long long)sum->id);
    }
    if (sum->model[0] && strcmp(d->model.name, sum->model) != 0 &&
        preset_load_model(cat, sum->model, &d->model, err, sizeof err) != 0) {
        snprintf(why, whylen, "model %s: %s", sum->model, err);
        return -1;
    }
    if (sum->gpu[0] && strcmp(d->gpu.name, sum->gpu) != 0 &&
        preset_load_gpu(cat, sum->gpu, &d->gpu, err, sizeof err) != 0)
        snprintf(d->gpu.name, sizeof d->gpu.name, "%s", sum->gpu);
    /* The run's own knobs, as it ran (the log's values are consistent by construction). */
    engine_knobs_state *k = &d->knobs;
    const engine_knobs_state *rk = &r->knobs;
    if (r->origin[KNOB_WORLD] && rk->world)
        k->world = rk->world;
    if (r->origin[KNOB_DP] && rk->dp)
        k->dp = rk->dp;
    if (r->origin[KNOB_DCP] && rk->dcp)
        k->dcp = rk->dcp;
    if (r->origin[KNOB_MAX_BS] && rk->max_bs)
        k->max_bs = rk->max_bs;
    if (r->origin[KNOB_MTP] && rk->mtp)
        k->mtp = rk->mtp;
    if (r->origin[KNOB_MAX_DISPATCH]) {
        k->max_dispatch_auto = rk->max_dispatch_auto;
        if (!rk->max_dispatch_auto && rk->max_dispatch)
            k->max_dispatch = rk->max_dispatch;
    }
    if (r->origin[KNOB_CONTEXT_LEN] && rk->context_len)
        k->context_len = rk->context_len;
    if (r->origin[KNOB_MEM_FRACTION] && rk->mem_fraction_static > 0)
        k->mem_fraction_static = rk->mem_fraction_static;
    if (r->origin[KNOB_BUCKETS]) {
        k->buckets_auto = rk->buckets_auto;
        if (!rk->buckets_auto) {
            k->n_buckets = rk->n_buckets;
            memcpy(k->buckets, rk->buckets, rk->n_buckets * sizeof rk->buckets[0]);
        }
    }
    if (!k->context_len)
        k->context_len = d->model.context_len;
    if (k->dp == 0 || k->world % k->dp != 0)
        k->dp = 1;
    if (k->dcp == 0 || (k->world / k->dp) % k->dcp != 0)
        k->dcp = 1;
    d->backend = r->backend;
    d->a2a = r->a2a;
    return 0;
}
