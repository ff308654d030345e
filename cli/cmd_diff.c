/* cmd_diff.c — `cgplan diff --model M [--set ...] --set KNOB=A --set KNOB=B`: the one knob given
 * twice names the two sides (an upgrade: sglang=0.5.6 and sglang=main); each side is estimated as
 * `estimate` would, and every term, the totals, the budget, the wall and the capture grid are
 * printed side by side with the difference. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "jsonw.h"

typedef struct {
    const char *set; /* "sglang=0.5.6" */
    cli_opts o;      /* the options with the other side's --set left out */
    engine_deployment d;
    engine_warnings adj;
    engine_calibration cal;
    bool calibrated;
    engine_estimate e;
    int rc;
} diff_side;

static const engine_knob_info *set_knob(const char *set, size_t *key_len)
{
    const char *eq = strchr(set, '=');
    char key[64];
    size_t n = eq ? (size_t)(eq - set) : strlen(set);
    if (n >= sizeof key)
        return NULL;
    memcpy(key, set, n);
    key[n] = '\0';
    *key_len = n;
    return engine_knob_find(key);
}

/* The index of the --set naming the same knob as sets[i] (by the knob, so an alias counts). */
static int count_same(const cli_opts *o, int i, int *second)
{
    size_t n;
    const engine_knob_info *k = set_knob(o->sets[i], &n);
    int count = 0;
    for (int j = 0; j < o->n_sets; j++) {
        size_t m;
        const engine_knob_info *kj = set_knob(o->sets[j], &m);
        bool same = k ? kj == k : (kj == NULL && m == n && strncmp(o->sets[i], o->sets[j], n) == 0);
        if (same) {
            if (j > i && count == 1)
                *second = j;
            count++;
        }
    }
    return count;
}

static double signed_gib(int64_t bytes)
{
    return (double)bytes / (double)ENGINE_GIB;
}

static int64_t delta(uint64_t a, uint64_t b)
{
    return (int64_t)b - (int64_t)a;
}

static void print_bytes_row(const char *name, bool known_a, uint64_t a, bool known_b, uint64_t b)
{
    char ta[32] = "unknown", tb[32] = "unknown", td[32] = "unknown";
    if (known_a)
        snprintf(ta, sizeof ta, "%.3f", cli_gib(a));
    if (known_b)
        snprintf(tb, sizeof tb, "%.3f", cli_gib(b));
    if (known_a && known_b)
        snprintf(td, sizeof td, "%+.3f", signed_gib(delta(a, b)));
    printf("  %-28s %12s %12s %12s\n", name, ta, tb, td);
}

static void print_count_row(const char *name, uint64_t a, uint64_t b)
{
    printf("  %-28s %12llu %12llu %+12lld\n", name, (unsigned long long)a, (unsigned long long)b,
           (long long)delta(a, b));
}

static void bucket_text(const engine_estimate *e, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < e->n_buckets && used + 12 < len; i++)
        used += (size_t)snprintf(buf + used, len - used, "%s%u", i ? " " : "", e->buckets[i]);
    if (used + 12 >= len && e->n_buckets)
        snprintf(buf + used, len - used, " ...");
}

static void write_json(const diff_side s[2], const char *knob)
{
    jsonw w;
    jsonw_init(&w, stdout, true);
    jsonw_object_begin(&w);
    jsonw_kstring(&w, "knob", knob);
    jsonw_key(&w, "sides");
    jsonw_array_begin(&w);
    for (int i = 0; i < 2; i++) {
        jsonw_object_begin(&w);
        jsonw_kstring(&w, "side", i ? "B" : "A");
        jsonw_kstring(&w, "value", strchr(s[i].set, '=') + 1);
        jsonw_key(&w, "estimate");
        cli_write_estimate_value(&w, s[i].d.name, &s[i].d, &s[i].e, &s[i].adj);
        jsonw_object_end(&w);
    }
    jsonw_array_end(&w);
    const engine_estimate *a = &s[0].e, *b = &s[1].e;
    jsonw_key(&w, "differences");
    jsonw_object_begin(&w);
    jsonw_key(&w, "terms");
    jsonw_object_begin(&w);
    for (int t = 0; t < TERM_COUNT; t++) {
        if (a->terms[t].known && b->terms[t].known)
            jsonw_ki64(&w, engine_terms[t].key, delta(a->terms[t].bytes, b->terms[t].bytes));
        else
            jsonw_knull(&w, engine_terms[t].key);
    }
    jsonw_object_end(&w);
    jsonw_ki64(&w, "total_bytes", delta(a->total_bytes, b->total_bytes));
    if (a->total_complete && b->total_complete)
        jsonw_ki64(&w, "total_high_bytes", delta(a->total_high_bytes, b->total_high_bytes));
    else
        jsonw_knull(&w, "total_high_bytes");
    jsonw_ki64(&w, "plan_total_bytes", delta(a->plan_total_bytes, b->plan_total_bytes));
    jsonw_ki64(&w, "kv_pool_bytes", b->budget.kv_pool_bytes - a->budget.kv_pool_bytes);
    jsonw_kdouble(&w, "mem_fraction_static", s[1].d.knobs.mem_fraction_static - s[0].d.knobs.mem_fraction_static, 4);
    jsonw_kdouble(&w, "recommended_mem_fraction_static",
                  b->budget.recommended_mem_fraction_static - a->budget.recommended_mem_fraction_static, 4);
    jsonw_ki64(&w, "kv_tokens", delta(a->budget.kv_tokens, b->budget.kv_tokens));
    if (a->budget.wall_max_bs && b->budget.wall_max_bs)
        jsonw_ki64(&w, "wall_max_bs", (int64_t)b->budget.wall_max_bs - (int64_t)a->budget.wall_max_bs);
    else
        jsonw_knull(&w, "wall_max_bs");
    jsonw_ki64(&w, "n_buckets", (int64_t)b->n_buckets - (int64_t)a->n_buckets);
    jsonw_ki64(&w, "bs_max", (int64_t)b->bs_max - (int64_t)a->bs_max);
    jsonw_kbool(&w, "backend_changed", a->layout.backend != b->layout.backend);
    jsonw_kbool(&w, "fits_changed", a->budget.fits != b->budget.fits);
    jsonw_object_end(&w);
    jsonw_object_end(&w);
    fputc('\n', stdout);
}

static void write_table(const diff_side s[2], const char *knob)
{
    const engine_estimate *a = &s[0].e, *b = &s[1].e;
    const engine_deployment *da = &s[0].d, *db = &s[1].d;
    /* the names and values are the user's and a preset's text: through the sanitiser */
    cli_shown_line("diff: %s on %u x %s, %s: A %s, B %s", da->model.name, da->knobs.world, da->gpu.name, knob,
                   strchr(s[0].set, '=') + 1, strchr(s[1].set, '=') + 1);
    printf("  %-28s %12s %12s %12s\n", "term (GiB per GPU)", "A", "B", "B - A");
    for (int t = 0; t < TERM_COUNT; t++) {
        const engine_term *ta = &a->terms[t], *tb = &b->terms[t];
        if (ta->known && tb->known && ta->bytes == 0 && tb->bytes == 0)
            continue; /* a term of another path on both sides */
        print_bytes_row(engine_terms[t].key, ta->known, ta->bytes, tb->known, tb->bytes);
    }
    print_bytes_row("total (known terms)", true, a->total_bytes, true, b->total_bytes);
    print_bytes_row("total, high end", a->total_complete, a->total_high_bytes, b->total_complete, b->total_high_bytes);
    print_bytes_row("total planned on", true, a->plan_total_bytes, true, b->plan_total_bytes);
    printf("budget\n");
    printf("  %-28s %12.3f %12.3f %+12.3f\n", "mem_fraction_static", da->knobs.mem_fraction_static,
           db->knobs.mem_fraction_static, db->knobs.mem_fraction_static - da->knobs.mem_fraction_static);
    printf("  %-28s %12.3f %12.3f %+12.3f\n", "recommended fraction", a->budget.recommended_mem_fraction_static,
           b->budget.recommended_mem_fraction_static,
           b->budget.recommended_mem_fraction_static - a->budget.recommended_mem_fraction_static);
    printf("  %-28s %12.3f %12.3f %+12.3f\n", "KV pool (GiB)", signed_gib(a->budget.kv_pool_bytes),
           signed_gib(b->budget.kv_pool_bytes), signed_gib(b->budget.kv_pool_bytes - a->budget.kv_pool_bytes));
    print_count_row("kv_tokens", a->budget.kv_tokens, b->budget.kv_tokens);
    printf("  %-28s %12s %12s\n", "fits", a->budget.fits ? "yes" : "no", b->budget.fits ? "yes" : "no");
    printf("wall\n");
    print_count_row("wall max_bs", a->budget.wall_max_bs, b->budget.wall_max_bs);
    printf("  %-28s %12s %12s\n", "stopped by", a->budget.wall_max_bs ? engine_terms[a->budget.wall_term].key : "-",
           b->budget.wall_max_bs ? engine_terms[b->budget.wall_term].key : "-");
    printf("layout and grid\n");
    print_count_row("captured sizes (buckets)", a->n_buckets, b->n_buckets);
    print_count_row("largest bucket (bs_max)", a->bs_max, b->bs_max);
    print_count_row("logits rows", a->logits_rows, b->logits_rows);
    printf("  %-28s %12s %12s\n", "attention backend", engine_backend_names[a->layout.backend],
           engine_backend_names[b->layout.backend]);
    print_count_row("ep", a->layout.ep, b->layout.ep);
    char la[512], lb[512];
    bucket_text(a, la, sizeof la);
    bucket_text(b, lb, sizeof lb);
    if (strcmp(la, lb) != 0) {
        printf("  buckets A: %s\n", la);
        printf("  buckets B: %s\n", lb);
    } else {
        printf("  buckets (both): %s\n", la);
    }
}

int cmd_diff(int argc, char **argv)
{
    cli_opts o;
    int rc = cli_parse(argc, argv, 2, "diff", OPT_PRESET | OPT_SET | OPT_DB | OPT_FORMAT, &o);
    if (rc)
        return rc;
    if (o.n_args) {
        cli_error("diff: unexpected argument '%s' (knobs go in --set KEY=VALUE)", o.args[0]);
        return EXIT_USAGE;
    }
    if (o.format == FORMAT_CSV) {
        cli_error("diff: --format csv is not offered; use table or json");
        return EXIT_USAGE;
    }
    /* exactly one knob given exactly twice names the sides */
    int first = -1, second = -1, doubled = 0;
    for (int i = 0; i < o.n_sets; i++) {
        int j = -1;
        int n = count_same(&o, i, &j);
        if (n > 2) {
            cli_error("diff: '%.*s' is given %d times; give the knob to compare exactly twice (--set K=A --set K=B)",
                      (int)(strchr(o.sets[i], '=') ? strchr(o.sets[i], '=') - o.sets[i] : (long)strlen(o.sets[i])),
                      o.sets[i], n);
            return EXIT_USAGE;
        }
        if (n == 2 && j > i) {
            doubled++;
            first = i;
            second = j;
        }
    }
    if (doubled != 1) {
        cli_error("diff: %s; give exactly one knob twice to name the two sides, e.g. --set sglang=0.5.6 --set "
                  "sglang=main",
                  doubled ? "more than one knob is given twice" : "no knob is given twice");
        return EXIT_USAGE;
    }
    if (!strchr(o.sets[first], '=') || !strchr(o.sets[second], '=')) {
        cli_error("diff: --set %s: expected KEY=VALUE", strchr(o.sets[first], '=') ? o.sets[second] : o.sets[first]);
        return EXIT_USAGE;
    }
    static diff_side s[2];
    size_t key_len;
    const engine_knob_info *knob = set_knob(o.sets[first], &key_len);
    char knob_name[64];
    snprintf(knob_name, sizeof knob_name, "%s", knob ? knob->name : "");
    for (int i = 0; i < 2; i++) {
        diff_side *side = &s[i];
        side->set = o.sets[i ? second : first];
        side->o = o;
        side->o.n_sets = 0;
        for (int j = 0; j < o.n_sets; j++)
            if (j != (i ? first : second))
                side->o.sets[side->o.n_sets++] = o.sets[j];
        memset(&side->adj, 0, sizeof side->adj);
        side->rc = cli_load_plan(&side->o, &side->d, &side->adj, &side->cal, &side->calibrated);
        if (side->rc == EXIT_OK)
            engine_estimate_compute(&side->d, side->calibrated ? &side->cal : NULL, &side->e);
    }
    if (s[0].rc && s[1].rc) /* the shared input is wrong: said above */
        return s[0].rc;
    for (int i = 0; i < 2; i++)
        if (s[i].rc) {
            cli_error("diff: side %s (--set %s) could not be estimated (the reason is above); side %s (--set %s) was",
                      i ? "B" : "A", s[i].set, i ? "A" : "B", s[1 - i].set);
            return EXIT_WORK;
        }
    if (o.format == FORMAT_JSON)
        write_json(s, knob_name);
    else
        write_table(s, knob_name);
    return EXIT_OK;
}
