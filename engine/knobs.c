/* knobs.c — MODEL.md's knob table and the rules for setting a knob (ranges, divisors,
 * adjustments). Sliders, --set, the YAML loader and --help all go through here. */
#include "engine.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const engine_knob_info engine_knobs[KNOB_COUNT] = {
    {KNOB_MAX_BS, "max_bs", KNOB_TYPE_INT, 1, 1024, "1..1024", "next size of SGLang's capture grid",
     "requests", "--cuda-graph-max-bs: the largest captured batch, per DP rank"},
    {KNOB_DP, "dp", KNOB_TYPE_INT, 1, 1024, "divisors of world", "next divisor", "groups",
     "DP-attention groups (--dp-size); attn_tp = world / dp"},
    {KNOB_DCP, "dcp", KNOB_TYPE_INT, 1, 1024, "divisors of attn_tp", "next divisor", "GPUs",
     "decode context parallel inside an attention group (--dcp-size)"},
    {KNOB_MAX_DISPATCH, "max_dispatch", KNOB_TYPE_INT_OR_AUTO, 1, 1024, "auto or 1..1024",
     "8 (leaving auto starts from its value)", "tokens",
     "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK; auto = the MoE rows per GPU"},
    {KNOB_MTP, "mtp", KNOB_TYPE_INT, 1, 16, "1..16", "1", "tokens/request",
     "tokens per request in target verify (--speculative-num-draft-tokens); 1 = no speculation"},
    {KNOB_WORLD, "world", KNOB_TYPE_INT, 1, 1024, "1..1024", "8", "GPUs",
     "GPUs in the deployment (= tp_size = ep_size with DeepEP)"},
    {KNOB_BUCKETS, "buckets", KNOB_TYPE_LIST_OR_AUTO, 1, 1024, "auto or a list", "-", "",
     "captured batch sizes (--cuda-graph-bs); auto = SGLang's grid up to max_bs"},
    {KNOB_CONTEXT_LEN, "context_len", KNOB_TYPE_INT, 1, 16777216, "1..16,777,216", "power of two",
     "tokens", "--context-length (sizes the page-index buffer)"},
    {KNOB_MEM_FRACTION, "mem_fraction_static", KNOB_TYPE_FRACTION, 0.50, 0.99, "0.50..0.99", "0.005",
     "", "--mem-fraction-static: SGLang's static share of pre-load free memory"},
    {KNOB_GPU, "gpu", KNOB_TYPE_NAME, 0, 0, "a GPU preset", "-", "", "the GPU model (a GPU preset name)"},
};

const engine_knob_info *engine_knob_find(const char *name)
{
    for (int i = 0; i < KNOB_COUNT; i++)
        if (strcmp(engine_knobs[i].name, name) == 0)
            return &engine_knobs[i];
    return NULL;
}

void engine_warn(engine_warnings *w, const char *code, const char *fmt, ...)
{
    if (!w || w->n >= ENGINE_MAX_WARNINGS)
        return;
    engine_warning *item = &w->items[w->n++];
    snprintf(item->code, sizeof item->code, "%s", code);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(item->message, sizeof item->message, fmt, ap);
    va_end(ap);
}

static int fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return -1;
}

/* Strict integer parse: digits only (surrounding blanks allowed), no sign, no overflow. */
static bool parse_u64(const char *text, uint64_t *out)
{
    while (isspace((unsigned char)*text))
        text++;
    if (!isdigit((unsigned char)*text))
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno)
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

static bool parse_fraction(const char *text, double *out)
{
    errno = 0;
    char *end;
    double v = strtod(text, &end);
    if (end == text || errno || !isfinite(v))
        return false;
    while (isspace((unsigned char)*end))
        end++;
    if (*end)
        return false;
    *out = v;
    return true;
}

static uint32_t largest_divisor_not_above(uint32_t n, uint32_t limit)
{
    for (uint32_t v = limit < n ? limit : n; v > 1; v--)
        if (n % v == 0)
            return v;
    return 1;
}

/* After world or dp changed: keep dp | world and dcp | attn_tp, saying what moved. */
static void keep_divisors(engine_deployment *d, engine_warnings *adj)
{
    engine_knobs_state *k = &d->knobs;
    if (k->world % k->dp != 0) {
        uint32_t dp = largest_divisor_not_above(k->world, k->dp);
        engine_warn(adj, "adjusted", "dp %u does not divide world %u: dp is now %u", k->dp, k->world, dp);
        k->dp = dp;
    }
    uint32_t attn_tp = engine_attn_tp(k);
    if (attn_tp % k->dcp != 0) {
        uint32_t dcp = largest_divisor_not_above(attn_tp, k->dcp);
        engine_warn(adj, "adjusted", "dcp %u does not divide attn_tp %u: dcp is now %u", k->dcp, attn_tp, dcp);
        k->dcp = dcp;
    }
}

static int set_integer(engine_deployment *d, engine_knob_id knob, uint64_t v, engine_warnings *adj,
                       char *err, size_t errlen)
{
    const engine_knob_info *info = &engine_knobs[knob];
    engine_knobs_state *k = &d->knobs;
    if (v < (uint64_t)info->min || v > (uint64_t)info->max)
        return fail(err, errlen, "%s=%llu is outside %s", info->name, (unsigned long long)v, info->range);
    switch (knob) {
    case KNOB_MAX_BS: k->max_bs = (uint32_t)v; break;
    case KNOB_MTP: k->mtp = (uint32_t)v; break;
    case KNOB_CONTEXT_LEN: k->context_len = v; break;
    case KNOB_MAX_DISPATCH:
        k->max_dispatch = (uint32_t)v;
        k->max_dispatch_auto = false;
        break;
    case KNOB_WORLD:
        k->world = (uint32_t)v;
        keep_divisors(d, adj);
        break;
    case KNOB_DP:
        if (k->world % v != 0)
            return fail(err, errlen, "dp=%llu does not divide world %u (try one of its divisors)",
                        (unsigned long long)v, k->world);
        k->dp = (uint32_t)v;
        keep_divisors(d, adj);
        break;
    case KNOB_DCP: {
        uint32_t attn_tp = engine_attn_tp(k);
        if (attn_tp % v != 0)
            return fail(err, errlen, "dcp=%llu does not divide attn_tp %u (= world %u / dp %u)",
                        (unsigned long long)v, attn_tp, k->world, k->dp);
        k->dcp = (uint32_t)v;
        break;
    }
    default: return fail(err, errlen, "%s is not an integer knob", info->name);
    }
    return 0;
}

static int set_buckets_text(engine_deployment *d, const char *text, char *err, size_t errlen)
{
    engine_knobs_state *k = &d->knobs;
    while (isspace((unsigned char)*text))
        text++;
    if (strcmp(text, "auto") == 0) {
        k->buckets_auto = true;
        k->n_buckets = 0;
        return 0;
    }
    /* "[1, 2, 4]" or "1,2,4" */
    uint32_t list[ENGINE_MAX_BUCKETS];
    uint32_t n = 0;
    const char *p = text;
    if (*p == '[')
        p++;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ']' || *p == '\0')
            break;
        if (!isdigit((unsigned char)*p))
            return fail(err, errlen, "buckets: expected 'auto' or a list of integers like [1, 2, 4], got '%s'", text);
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (v < 1 || v > 1024)
            return fail(err, errlen, "buckets: size %lu is outside 1..1024", v);
        if (n >= ENGINE_MAX_BUCKETS)
            return fail(err, errlen, "buckets: more than %d sizes", ENGINE_MAX_BUCKETS);
        list[n++] = (uint32_t)v;
        p = end;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ',')
            p++;
        else if (*p != ']' && *p != '\0')
            return fail(err, errlen, "buckets: expected ',' or ']' after %lu in '%s'", v, text);
    }
    if (n == 0)
        return fail(err, errlen, "buckets: the list is empty (use 'auto' for SGLang's grid)");
    k->buckets_auto = false;
    k->n_buckets = n;
    memcpy(k->buckets, list, n * sizeof list[0]);
    return 0;
}

int engine_knob_set_text(engine_deployment *d, engine_knob_id knob, const char *text,
                         engine_warnings *adj, char *err, size_t errlen)
{
    const engine_knob_info *info = &engine_knobs[knob];
    switch (info->type) {
    case KNOB_TYPE_INT:
    case KNOB_TYPE_INT_OR_AUTO: {
        if (info->type == KNOB_TYPE_INT_OR_AUTO && strcmp(text, "auto") == 0) {
            d->knobs.max_dispatch_auto = true;
            return 0;
        }
        uint64_t v;
        if (!parse_u64(text, &v))
            return fail(err, errlen, "%s=%s: expected %s", info->name, text, info->range);
        return set_integer(d, knob, v, adj, err, errlen);
    }
    case KNOB_TYPE_FRACTION: {
        double v;
        if (!parse_fraction(text, &v))
            return fail(err, errlen, "%s=%s: expected a number in %s", info->name, text, info->range);
        return engine_knob_set_value(d, knob, v, adj, err, errlen);
    }
    case KNOB_TYPE_LIST_OR_AUTO: return set_buckets_text(d, text, err, errlen);
    case KNOB_TYPE_NAME: break;
    }
    return fail(err, errlen, "%s names a preset and is resolved by the caller", info->name);
}

double engine_knob_value(const engine_deployment *d, engine_knob_id knob)
{
    const engine_knobs_state *k = &d->knobs;
    switch (knob) {
    case KNOB_MAX_BS: return k->max_bs;
    case KNOB_DP: return k->dp;
    case KNOB_DCP: return k->dcp;
    case KNOB_MTP: return k->mtp;
    case KNOB_WORLD: return k->world;
    case KNOB_CONTEXT_LEN: return (double)k->context_len;
    case KNOB_MEM_FRACTION: return k->mem_fraction_static;
    case KNOB_MAX_DISPATCH:
        if (k->max_dispatch_auto) {
            engine_estimate e;
            engine_estimate_terms(d, NULL, &e);
            return e.max_dispatch;
        }
        return k->max_dispatch;
    default: return 0;
    }
}

int engine_knob_set_value(engine_deployment *d, engine_knob_id knob, double value,
                          engine_warnings *adj, char *err, size_t errlen)
{
    const engine_knob_info *info = &engine_knobs[knob];
    if (info->type == KNOB_TYPE_FRACTION) {
        if (!(value >= info->min - 1e-9 && value <= info->max + 1e-9))
            return fail(err, errlen, "%s=%g is outside %s", info->name, value, info->range);
        d->knobs.mem_fraction_static = value;
        return 0;
    }
    if (info->type != KNOB_TYPE_INT && info->type != KNOB_TYPE_INT_OR_AUTO)
        return fail(err, errlen, "%s has no numeric value", info->name);
    if (!(value >= 0) || value != floor(value))
        return fail(err, errlen, "%s=%g: expected an integer in %s", info->name, value, info->range);
    return set_integer(d, knob, (uint64_t)value, adj, err, errlen);
}

static size_t push(double *out, size_t n, size_t cap, double v)
{
    if (n < cap)
        out[n] = v;
    return n + 1;
}

static size_t divisors(uint32_t n, double *out, size_t cap)
{
    size_t count = 0;
    for (uint32_t v = 1; v <= n; v++)
        if (n % v == 0)
            count = push(out, count, cap, v);
    return count < cap ? count : cap;
}

size_t engine_knob_steps(const engine_deployment *d, engine_knob_id knob, double *out, size_t cap)
{
    const engine_knobs_state *k = &d->knobs;
    size_t n = 0;
    switch (knob) {
    case KNOB_MAX_BS: {
        uint32_t grid[ENGINE_MAX_BUCKETS];
        size_t g = engine_bucket_grid(1024, k->mtp > 1, grid, ENGINE_MAX_BUCKETS);
        for (size_t i = 0; i < g; i++)
            n = push(out, n, cap, grid[i]);
        break;
    }
    case KNOB_DP: return divisors(k->world, out, cap);
    case KNOB_DCP: return divisors(engine_attn_tp(k), out, cap);
    case KNOB_MAX_DISPATCH:
        for (uint32_t v = 8; v <= 1024; v += 8)
            n = push(out, n, cap, v);
        break;
    case KNOB_MTP:
        for (uint32_t v = 1; v <= 16; v++)
            n = push(out, n, cap, v);
        break;
    case KNOB_WORLD:
        n = push(out, n, cap, 1);
        for (uint32_t v = 8; v <= 1024; v += 8)
            n = push(out, n, cap, v);
        break;
    case KNOB_CONTEXT_LEN:
        for (uint64_t v = 1; v <= 16777216; v *= 2)
            n = push(out, n, cap, (double)v);
        break;
    case KNOB_MEM_FRACTION:
        for (int i = 0; i <= 98; i++) /* 0.500 .. 0.990 by 0.005 */
            n = push(out, n, cap, 0.5 + 0.005 * i);
        break;
    default: return 0;
    }
    return n < cap ? n : cap;
}

void engine_knob_format(const engine_deployment *d, engine_knob_id knob, char *buf, size_t len)
{
    const engine_knobs_state *k = &d->knobs;
    switch (knob) {
    case KNOB_MAX_DISPATCH:
        if (k->max_dispatch_auto)
            snprintf(buf, len, "auto (%.0f)", engine_knob_value(d, knob));
        else
            snprintf(buf, len, "%u", k->max_dispatch);
        return;
    case KNOB_MEM_FRACTION: snprintf(buf, len, "%.3f", k->mem_fraction_static); return;
    case KNOB_GPU: snprintf(buf, len, "%s", d->gpu.name); return;
    case KNOB_BUCKETS: {
        if (k->buckets_auto) {
            snprintf(buf, len, "auto");
            return;
        }
        size_t used = 0;
        buf[0] = '\0';
        for (uint32_t i = 0; i < k->n_buckets && used + 8 < len; i++)
            used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? ", " : "[", k->buckets[i]);
        if (used + 2 <= len)
            snprintf(buf + used, len - used, "]");
        return;
    }
    default: snprintf(buf, len, "%.0f", engine_knob_value(d, knob)); return;
    }
}
