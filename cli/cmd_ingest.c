/* cmd_ingest.c — `cgplan ingest`: parse SGLang start-up logs and store each run (one
 * transaction per file), or with --dry-run print what would be stored (CLI.md). */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "caplog_json.h"
#include "jsonw.h"
#include "store_glue.h"
#include "text.h"

#define CHUNK_BYTES (1u << 20) /* logs are streamed, never loaded whole */
#define TOKEN_BUFFERS 4        /* lexed, waiting to be applied: about 1 MiB */

/* The layout texts of the last LAYOUT_MEMO layouts printed and the GPU text of the last run: a
 * log's runs repeat a few deployments, and each text took snprintf calls a run (a log that
 * alternates two layouts missed a one-entry memo on every run: 3,000 instructions a line). */
#define LAYOUT_MEMO 8
typedef struct {
    uint32_t world, dp, dcp, mtp;
    char text[64];
} layout_text;
typedef struct {
    layout_text layouts[LAYOUT_MEMO];
    unsigned n_layouts, next_layout; /* filled; the one to replace next */
    const char *layout;              /* the current run's, in LAYOUTS */
    bool valid;                      /* the GPU text is of GPU_NAME, GPU_INFERRED */
    char gpu_name[ENGINE_NAME_MAX];
    bool gpu_inferred;
    char gpu[ENGINE_NAME_MAX + 16];
} run_texts;

typedef struct {
    const cli_opts *o;
    store_ingest_opts *io;
    const engine_run_context *derive; /* the presets' and --preset/--set's side of each run */
    jsonw *w;                         /* JSON output (NULL: table) */
    const char *source;
    char source_shown[ENGINE_TEXT_MAX * 4]; /* SOURCE cleaned (text.h) for the table: a file name is any bytes */
    uint32_t n_runs;
    bool saw_binary;        /* NUL bytes in the first chunk: say "binary" if nothing is recognised */
    engine_run_facts facts; /* scratch */
    run_texts texts;
    const store_exclusion *fix_said[4]; /* the exclusions whose fix was printed: once is enough */
    unsigned n_fix_said;
} ingest_ctx;

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash && slash[1] ? slash + 1 : path;
}

static double gib_or_nan(double v)
{
    return caplog_known(v) ? v : NAN;
}

/* printf's "%.2f" of V into BUF (32 bytes), or NULL where that is not sure to be the same: the
 * values printed are sums of two-decimal GiB, so V lies within a hair of some K / 100, and "%.2f"
 * (V's exact value rounded to 0.01) is then K / 100 whatever the rounding of ties; a value further
 * from one, or too large, is left to printf. A big dry run prints three of these a run, and
 * printf's were most of its line's cost. */
static const char *fixed2(double v, char *buf)
{
    double hundredths = v * 100.0; /* below 1e12, exact to 1e-4 */
    double k = nearbyint(hundredths);
    if (!(fabs(hundredths) < 1e12) || fabs(hundredths - k) > 0.25) /* NaN and inf fail the first */
        return NULL;
    uint64_t units = (uint64_t)fabs(k);
    char digits[24];
    int n = 0;
    do
        digits[n++] = (char)('0' + units % 10);
    while ((units /= 10) > 0 || n < 3); /* at least "0.dd" */
    size_t used = 0;
    if (signbit(v)) /* "-0.00" for a small negative number or -0, as printf */
        buf[used++] = '-';
    while (n > 2)
        buf[used++] = digits[--n];
    buf[used++] = '.';
    buf[used++] = digits[1];
    buf[used++] = digits[0];
    buf[used] = '\0';
    return buf;
}

/* A line built by appending and written to OUT whole, for print_run_line: a big dry run prints a
 * line a run, and printf's reading of its format was much of the line's cost. A text that would
 * not fit first writes what is built (a long source name: the line is then written in parts). */
typedef struct {
    char *start, *at, *end;
    FILE *out;
} line_text;

static void line_flush(line_text *l)
{
    fwrite(l->start, 1, (size_t)(l->at - l->start), l->out);
    l->at = l->start;
}

static void put_text(line_text *l, const char *s)
{
    size_t n = strlen(s);
    if (n > (size_t)(l->end - l->at)) {
        line_flush(l);
        if (n > (size_t)(l->end - l->at)) {
            fwrite(s, 1, n, l->out);
            return;
        }
    }
    memcpy(l->at, s, n);
    l->at += n;
}

static void put_u64(line_text *l, uint64_t v)
{
    char digits[24], *d = digits + sizeof digits;
    *--d = '\0';
    do
        *--d = (char)('0' + v % 10);
    while ((v /= 10) > 0);
    put_text(l, d);
}

/* R's layout and GPU texts into T, unless T holds them already. */
static void run_texts_of(run_texts *t, const store_run_summary *r)
{
    t->layout = NULL;
    for (unsigned i = 0; i < t->n_layouts && !t->layout; i++) {
        const layout_text *m = &t->layouts[i];
        if (m->world == r->world && m->dp == r->dp && m->dcp == r->dcp && m->mtp == r->mtp)
            t->layout = m->text;
    }
    if (!t->layout) {
        layout_text *m = &t->layouts[t->next_layout];
        t->next_layout = (t->next_layout + 1) % LAYOUT_MEMO;
        if (t->n_layouts < LAYOUT_MEMO)
            t->n_layouts++;
        *m = (layout_text){r->world, r->dp, r->dcp, r->mtp, ""};
        cli_run_layout_text(r, m->text, sizeof m->text); /* of those four fields only */
        t->layout = m->text;
    }
    if (!t->valid || t->gpu_inferred != r->gpu_inferred || strcmp(t->gpu_name, r->gpu) != 0) {
        t->gpu_inferred = r->gpu_inferred;
        snprintf(t->gpu_name, sizeof t->gpu_name, "%s", r->gpu);
        cli_gpu_text(r->gpu, r->gpu_inferred, t->gpu, sizeof t->gpu);
    }
    t->valid = true;
}

static void print_run_line(FILE *out, const char *verb, const store_run_summary *r, const char *source,
                           uint32_t first_line, run_texts *texts)
{
    run_texts_of(texts, r);
    /* "%s%s: %s · %s · %s · max_bs %s · %s (%s:%u)\n": verb, " ID", model, gpu, layout, max_bs,
     * total, source, first_line */
    char line[1024];
    line_text l = {line, line, line + sizeof line, out};
    put_text(&l, verb);
    if (r->id) {
        put_text(&l, r->id < 0 ? " -" : " ");
        put_u64(&l, r->id < 0 ? -(uint64_t)r->id : (uint64_t)r->id);
    }
    put_text(&l, ": ");
    char model[ENGINE_NAME_MAX * 4];
    put_text(&l, engine_text_cleaned(model, sizeof model, r->model[0] ? r->model : "model ?"));
    put_text(&l, " · ");
    put_text(&l, texts->gpu);
    put_text(&l, " · ");
    put_text(&l, texts->layout);
    put_text(&l, " · max_bs ");
    if (r->max_bs)
        put_u64(&l, r->max_bs);
    else
        put_text(&l, "?");
    put_text(&l, " · ");
    /* the total: printf's text at most 95 bytes, as it always was; fixed2's far shorter */
    char a[32], b[32], t[32], printed[96];
    if (caplog_known(r->total_gib) && caplog_known(r->draft_gib)) {
        if (fixed2(r->target_total_gib, a) && fixed2(r->draft_gib, b) && fixed2(r->total_gib, t)) {
            put_text(&l, "target ");
            put_text(&l, a);
            put_text(&l, " + draft ");
            put_text(&l, b);
            put_text(&l, " = ");
            put_text(&l, t);
            put_text(&l, " GiB");
        } else {
            snprintf(printed, sizeof printed, "target %.2f + draft %.2f = %.2f GiB", r->target_total_gib, r->draft_gib,
                     r->total_gib);
            put_text(&l, printed);
        }
    } else if (caplog_known(r->total_gib)) {
        if (fixed2(r->total_gib, t)) {
            put_text(&l, "graphs ");
            put_text(&l, t);
            put_text(&l, " GiB");
        } else {
            snprintf(printed, sizeof printed, "graphs %.2f GiB", r->total_gib);
            put_text(&l, printed);
        }
    } else if (caplog_known(r->largest_gib) && fixed2(r->largest_gib, t)) {
        /* the bars bound the largest bucket while the end line is missing: as the JSON's layers */
        put_text(&l, "largest bucket ");
        put_text(&l, t);
        put_text(&l, " GiB, total unknown");
    } else {
        put_text(&l, "graph memory unknown");
    }
    put_text(&l, " (");
    put_text(&l, source);
    put_text(&l, ":");
    put_u64(&l, first_line);
    put_text(&l, ")\n");
    line_flush(&l);
}

/* "  not usable for calibration: WHY" under a run, WHY with its fix the first time (a log of a
 * thousand restarts of one deployment would repeat the same fix a thousand times). */
static void print_exclusion(FILE *out, ingest_ctx *c, const store_exclusion *why)
{
    bool said = false;
    for (unsigned i = 0; i < c->n_fix_said && !said; i++)
        said = c->fix_said[i] == why;
    fputs("  not usable for calibration: ", out);
    if (said) {
        fputs(why->reason, out);
        fputs(" (as above)\n", out);
        return;
    }
    if (c->n_fix_said < sizeof c->fix_said / sizeof c->fix_said[0])
        c->fix_said[c->n_fix_said++] = why;
    fputs(why->text, out);
    fputc('\n', out);
}

/* The summary a dry run would store. */
static void summary_of(const engine_run_facts *f, store_run_summary *r)
{
    memset(r, 0, sizeof *r);
    engine_copy_text(r->model, sizeof r->model, f->model);
    store_summary_set_knobs(r, &f->values); /* the facts' values are 0 where unknown */
    r->gpu_inferred = f->gpu_inferred;
    engine_copy_text(r->gpu, sizeof r->gpu, f->values.gpu.name);
    r->static_gib = f->static_gib;
    r->largest_gib = f->largest_gib;
    r->buckets_gib = f->buckets_gib;
    r->target_total_gib = f->target_total_gib;
    r->draft_gib = f->draft_gib;
    r->total_gib = f->total_gib;
}

/* After the commit: one line (or JSON object) per stored run; a line into OUT. */
static void print_stored(FILE *out, ingest_ctx *c, const store_run_summary *r, uint32_t first_line)
{
    if (c->w) {
        jsonw_object_begin(c->w);
        jsonw_ki64(c->w, "id", r->id);
        jsonw_kstring(c->w, "source", c->source);
        jsonw_ku64(c->w, "first_line", first_line);
        jsonw_kbool(c->w, "already_stored", false);
        jsonw_kstring(c->w, "model", r->model[0] ? r->model : NULL);
        jsonw_kstring(c->w, "gpu", r->gpu[0] ? r->gpu : NULL);
        jsonw_kbool(c->w, "gpu_inferred", r->gpu_inferred);
        jsonw_kdouble(c->w, "target_total_gib", gib_or_nan(r->target_total_gib), 2);
        jsonw_kdouble(c->w, "draft_gib", gib_or_nan(r->draft_gib), 2);
        jsonw_kdouble(c->w, "total_gib", gib_or_nan(r->total_gib), 2);
        jsonw_kstring(c->w, "calibration_excluded", store_run_calibration_exclusion(r));
        jsonw_object_end(c->w);
    } else {
        print_run_line(out, "stored run", r, c->source_shown, first_line, &c->texts);
        const store_exclusion *why = store_run_calibration_excluded(r);
        if (why)
            print_exclusion(out, c, why);
    }
}

/* The stored runs' lines, written on a thread of their own while the commit runs (a tenth of a
 * big log's ingest came after the commit, one line a run): shown only once the commit is done.
 * They wait in an unlinked temporary file, not in memory: ~170 B a run (two lines), which in a
 * memstream grew to ~420 B a run of peak RSS (1M runs: 424 MB) where the dry run stays flat. */
typedef struct {
    ingest_ctx *c;
    const store_ingest *in;
    pthread_t thread;
    bool started, failed;
    FILE *out;           /* the lines, until they are copied to stdout */
    unsigned n_fix_said; /* the context's before these lines: put back if they are not shown */
} stored_report;

/* An unlinked temporary file in $TMPDIR (else /tmp): a kill leaves nothing behind. NULL when none
 * can be made (the lines are then printed after the commit, from the ingest's reports). */
static FILE *unlinked_temp_file(void)
{
    const char *dir = getenv("TMPDIR");
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/cgplan-report-XXXXXX", dir && *dir ? dir : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path);
    FILE *f = fdopen(fd, "w+");
    if (!f)
        close(fd);
    return f;
}

/* Copies the lines in F to stdout: 0, or -1 when they cannot be read back. */
static int copy_report(FILE *f)
{
    static char chunk[64 << 10];
    size_t n;
    rewind(f);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        fwrite(chunk, 1, n, stdout);
    return ferror(f) ? -1 : 0;
}

/* Where store_ingest_each_run's runs are printed. */
typedef struct {
    FILE *out;
    ingest_ctx *c;
} stored_sink;

static int print_stored_run(const store_run_summary *r, uint32_t first_line, void *ctx)
{
    const stored_sink *sink = ctx;
    print_stored(sink->out, sink->c, r, first_line);
    return 0;
}

/* Prints every stored run's line(s) into OUT: 0, or -1 with ERR. */
static int print_stored_runs(const store_ingest *in, FILE *out, ingest_ctx *c, char *err, size_t errlen)
{
    store_run_summary *r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    stored_sink sink = {out, c};
    int rc = store_ingest_each_run(in, r, print_stored_run, &sink, err, errlen);
    free(r);
    return rc;
}

static void *report_stored(void *arg)
{
    stored_report *sr = arg;
    char err[4096 + 256];
    sr->failed = print_stored_runs(sr->in, sr->out, sr->c, err, sizeof err) != 0;
    sr->failed = fflush(sr->out) != 0 || ferror(sr->out) || sr->failed; /* printed after, from the start */
    return NULL;
}

/* store_ingest_opts.written: the table's lines start (JSON is written after the commit). */
static void on_runs_written(const store_ingest *in, const store_ingest_result *res, void *ctx)
{
    (void)res; /* the report thread reads the runs through IN */
    stored_report *sr = ctx;
    if (sr->c->w || !(sr->out = unlinked_temp_file()))
        return;
    sr->in = in;
    sr->n_fix_said = sr->c->n_fix_said;
    sr->started = pthread_create(&sr->thread, NULL, report_stored, sr) == 0;
    if (!sr->started) {
        fclose(sr->out);
        sr->out = NULL;
    }
}

/* --dry-run: every run as CLI.md's JSON object, or one line each. */
static void on_dry_run(const caplog_run *run, void *ctx_)
{
    ingest_ctx *c = ctx_;
    bool content = run->n_groups > 0 || run->args.present;
    for (uint32_t i = 0; !content && i < run->n_ranks; i++)
        content = run->ranks[i].has_data;
    if (!content)
        return;
    c->n_runs++;
    if (c->w) {
        char model[ENGINE_NAME_MAX];
        cli_write_caplog_run_json_open(c->w, run, c->source,
                                       engine_run_model_name(run, c->derive, model, sizeof model));
        /* what a stored run would hold: every knob it knows with its origin (inferred ones too) */
        engine_run_derive(run, c->derive, &c->facts);
        const engine_run_facts *f = &c->facts;
        jsonw_key(c->w, "derived");
        jsonw_object_begin(c->w);
        jsonw_kstring(c->w, "gpu", f->values.gpu.name[0] ? f->values.gpu.name : NULL);
        jsonw_kbool(c->w, "gpu_inferred", f->gpu_inferred);
        jsonw_key(c->w, "knobs");
        jsonw_object_begin(c->w);
        for (int k = 0; k < KNOB_COUNT; k++) {
            if (!f->origin[k])
                continue;
            jsonw_key(c->w, engine_knobs[k].name);
            jsonw_object_begin(c->w);
            jsonw_key(c->w, "value");
            cli_run_knob_json(c->w, &f->values, f->origin, (engine_knob_id)k);
            jsonw_kstring(c->w, "origin", engine_origin_name(f->origin[k]));
            jsonw_object_end(c->w);
        }
        jsonw_object_end(c->w);
        jsonw_kdouble(c->w, "static_gib", gib_or_nan(f->static_gib), 2);
        jsonw_kdouble(c->w, "largest_gib", gib_or_nan(f->largest_gib), 2);
        jsonw_kdouble(c->w, "buckets_gib", gib_or_nan(f->buckets_gib), 2);
        jsonw_kdouble(c->w, "target_total_gib", gib_or_nan(f->target_total_gib), 2);
        jsonw_kdouble(c->w, "draft_gib", gib_or_nan(f->draft_gib), 2);
        jsonw_kdouble(c->w, "total_gib", gib_or_nan(f->total_gib), 2);
        store_run_summary r;
        summary_of(f, &r);
        jsonw_kstring(c->w, "calibration_excluded", store_run_calibration_exclusion(&r));
        jsonw_object_end(c->w);
        jsonw_object_end(c->w);
    } else {
        store_run_summary r;
        engine_run_derive(run, c->derive, &c->facts);
        summary_of(&c->facts, &r);
        print_run_line(stdout, "would store run", &r, c->source_shown, run->first_line, &c->texts);
        const store_exclusion *why = store_run_calibration_excluded(&r);
        if (why)
            print_exclusion(stdout, c, why);
    }
}

/* --model: a model preset's name, or a Hugging Face id one of them lists in hf_names, into NAME.
 * A config.json is imported first (its model then has a name). */
static int resolve_model(const preset_catalog *cat, const char *text, char *name, size_t len)
{
    const preset_entry *e = preset_catalog_find(cat, text, PRESET_MODEL);
    if (!e)
        e = preset_match_hf_name(cat, text);
    if (e) {
        snprintf(name, len, "%s", e->name);
        return EXIT_OK;
    }
    size_t n = strlen(text);
    if (n >= 5 && strcmp(text + n - 5, ".json") == 0)
        cli_error("ingest --model %s: a config.json becomes a model with cgplan model import %s; then pass "
                  "--model with the name it prints",
                  text, text);
    else
        cli_error("ingest --model %s: no model preset has that name or that Hugging Face id in its hf_names "
                  "(cgplan presets lists the models; cgplan model import config.json adds one)",
                  text);
    return EXIT_USAGE;
}

/* What --preset and --set supply, with where each knob came from, and what the presets tell
 * about a log (P: the GPUs and the hf_names match); --model's name goes into MODEL_NAME. */
static int build_given(const cli_opts *o, const preset_catalog *cat, engine_deployment *d, cli_run_presets *p,
                       engine_run_context *ctx, store_ingest_opts *io, char *model_name)
{
    memset(io, 0, sizeof *io);
    cli_run_context_init(ctx, p, cat);
    io->derive = ctx;
    io->label = o->label;
    io->preset = o->preset;
    if (o->preset) {
        char err[ENGINE_TEXT_MAX * 2];
        int rc = preset_load_deployment(cat, o->preset, d, err, sizeof err);
        if (rc != 0) {
            cli_error("%s", err);
            return rc == 1 ? EXIT_WORK : EXIT_USAGE;
        }
        for (int k = 0; k < KNOB_COUNT; k++)
            ctx->given_origin[k] = ORIGIN_PRESET;
        ctx->model_given = true;
    } else {
        engine_deployment_defaults(d);
    }
    engine_warnings adj = {0};
    for (int i = 0; i < o->n_sets; i++) {
        int rc = cli_apply_set(cat, d, o->sets[i], &adj);
        if (rc != EXIT_OK)
            return rc;
        char key[64];
        const char *eq = strchr(o->sets[i], '=');
        snprintf(key, sizeof key, "%.*s", (int)(eq - o->sets[i]), o->sets[i]);
        const engine_knob_info *knob = engine_knob_find(key);
        if (knob)
            ctx->given_origin[knob->id] = ORIGIN_SET;
    }
    /* A knob moved by a later --set ("adjusted") is the user's doing too. */
    for (int i = 0; i < adj.n; i++)
        for (int k = 0; k < KNOB_COUNT; k++)
            if (!ctx->given_origin[k] && strstr(adj.items[i].message, engine_knobs[k].name) == adj.items[i].message)
                ctx->given_origin[k] = ORIGIN_SET;
    ctx->given = d;
    if (o->model) {
        int rc = resolve_model(cat, o->model, model_name, ENGINE_NAME_MAX);
        if (rc != EXIT_OK)
            return rc;
        ctx->model_set = model_name;
    }
    return EXIT_OK;
}

static void report_peak(void)
{
    const char *want = getenv("CGPLAN_REPORT_PEAK");
    if (!want || strcmp(want, "1") != 0)
        return;
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0) {
            long kb = strtol(line + 6, NULL, 10);
            fprintf(stderr, "cgplan: peak RSS %ld kB\n", kb);
        }
    if (f)
        fclose(f);
}

/* ---- Reading on a second thread ----
 *
 * A log is read in two stages at once (caplog.h): a reader thread reads the bytes, hashes them
 * (storing) and lexes them into token buffers; the calling thread applies the tokens in order
 * (the parser's state, then the runs' rows or lines). A ring of TOKEN_BUFFERS buffers lies between
 * them, so memory stays bounded however large the log and whichever side is slower. */
typedef struct {
    FILE *f;
    store_ingest *in;   /* storing: the reader hashes what it reads; NULL: a dry run */
    caplog_parser *dry; /* a dry run's parser */
    char *chunk;
    caplog_lexer *lexer;
    caplog_tokens *ring[TOKEN_BUFFERS];
    bool threaded; /* else the reader applies each buffer itself, one at a time */
    pthread_mutex_t lock;
    pthread_cond_t changed;
    uint64_t lexed, applied; /* buffers filled by the reader, given back by the applier */
    bool done;               /* the reader has nothing more to give */
    bool stop;               /* the applier wants no more (a store error, in ERR) */
    char *err;
    size_t errlen;
    /* what the reader found, read once it is done */
    bool gzip, binary;
    int read_errno; /* 0, or the read error */
    bool shrank;    /* the file became shorter while it was mapped (read_errno is then EIO) */
} read_pipe;

static bool has_nul(const char *buf, size_t len)
{
    return memchr(buf, '\0', len) != NULL;
}

/* The applier's work on one buffer; false: stop (ERR set). */
static bool pipe_apply(read_pipe *rp, const caplog_tokens *t)
{
    if (!rp->in)
        return caplog_apply(rp->dry, t) == 0;
    return store_ingest_apply(rp->in, t, rp->err, rp->errlen) == 0;
}

/* The next buffer for the reader to fill, or NULL when the applier stopped. How many buffers wait
 * for the applier decides who finds the lines' keys (caplog_lexer_defer_marks): one or none, and
 * the applier is about to wait (the reader is the slower stage: the applier finds them); three,
 * and the reader is ahead (it finds them again). Which stage is slower depends on the log (its
 * progress bars cost the reader, its runs the applier); on the bench log the reader was the
 * slower by a fifth, and the dry run took 396 ms for 512 MiB where it took 470. */
static caplog_tokens *pipe_free_buffer(read_pipe *rp)
{
    if (!rp->threaded)
        return rp->stop ? NULL : rp->ring[0];
    pthread_mutex_lock(&rp->lock);
    while (!rp->stop && rp->lexed - rp->applied == TOKEN_BUFFERS)
        pthread_cond_wait(&rp->changed, &rp->lock);
    caplog_tokens *t = rp->stop ? NULL : rp->ring[rp->lexed % TOKEN_BUFFERS];
    uint64_t waiting = rp->lexed - rp->applied;
    pthread_mutex_unlock(&rp->lock);
    if (waiting <= 1)
        caplog_lexer_defer_marks(rp->lexer, true);
    else if (waiting >= 3)
        caplog_lexer_defer_marks(rp->lexer, false);
    return t;
}

/* The reader filled T: the applier's turn (without a thread: applied now). */
static void pipe_lexed(read_pipe *rp, caplog_tokens *t)
{
    if (!rp->threaded) {
        rp->stop = !pipe_apply(rp, t);
        return;
    }
    pthread_mutex_lock(&rp->lock);
    rp->lexed++;
    pthread_cond_broadcast(&rp->changed);
    pthread_mutex_unlock(&rp->lock);
}

static bool pipe_stopped(read_pipe *rp)
{
    if (!rp->threaded)
        return rp->stop;
    pthread_mutex_lock(&rp->lock);
    bool stop = rp->stop;
    pthread_mutex_unlock(&rp->lock);
    return stop;
}

#define STOP_LOOK_MS 100 /* how often a reader waiting on a silent pipe looks whether to stop */

/* The next CHUNK_BYTES of the input, fewer only at its end (as fread reads): 0 at the end, on a
 * read error (READ_ERRNO) or when the applier stopped. A wait for a pipe's next bytes looks every
 * STOP_LOOK_MS whether the applier stopped: a store error must not wait for a silent pipe. */
static size_t read_chunk(read_pipe *rp)
{
    int fd = fileno(rp->f);
    size_t got = 0;
    while (got < CHUNK_BYTES) {
        struct pollfd ready = {.fd = fd, .events = POLLIN};
        int n_ready = poll(&ready, 1, STOP_LOOK_MS);
        if (pipe_stopped(rp))
            return 0;
        if (n_ready == 0 || (n_ready < 0 && errno == EINTR))
            continue;
        ssize_t n = read(fd, rp->chunk + got, CHUNK_BYTES - got); /* a file's: always ready */
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            rp->read_errno = errno ? errno : EIO;
            return 0;
        }
        if (n == 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* A regular file is read where the page cache holds it, a window at a time, not copied out by
 * read(): the copy was a fifth of the reader thread's time (the dry run of the bench log: 6-10%
 * less time, best and median of 8). */
#define MAP_WINDOW_BYTES ((size_t)4 << 20)

/* The input's first bytes: a gzip stream is not read at all (false), binary data is noted. */
static bool first_bytes(read_pipe *rp, const char *p, size_t got)
{
    /* gzip's magic: nothing of it is read (cgplan reads logs as text) */
    if (got >= 2 && (unsigned char)p[0] == 0x1f && (unsigned char)p[1] == 0x8b) {
        rp->gzip = true;
        return false;
    }
    rp->binary = has_nul(p, got < 4096 ? got : 4096);
    return true;
}

/* A mapped file cut short under the reader (truncated; rotated by copytruncate) raises SIGBUS
 * on its pages past the new end, which would kill the process: the reader thread jumps back out
 * of the window and reports it. */
static _Thread_local sigjmp_buf *mapped_read_escape;

static void on_sigbus(int sig)
{
    if (mapped_read_escape)
        siglongjmp(*mapped_read_escape, 1);
    signal(sig, SIG_DFL); /* not a mapped read's: the access runs again, to the default action */
}

/* A regular file's bytes up to its last CAPLOG_LEX_PAD (the lexer reads that far past a window),
 * hashed and lexed where they lie. Returns how many were read so (0: not a regular file, read
 * it all with read()), or -1 to stop (the applier stopped, gzip, or the file shrank: SHRANK). */
static off_t read_mapped(read_pipe *rp, bool *first)
{
    int fd = fileno(rp->f);
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || lseek(fd, 0, SEEK_CUR) != 0 ||
        st.st_size <= (off_t)(2 * CAPLOG_LEX_PAD))
        return 0;
    struct sigaction on_bus = {.sa_handler = on_sigbus};
    sigemptyset(&on_bus.sa_mask);
    if (sigaction(SIGBUS, &on_bus, NULL) != 0)
        return 0;
    sigjmp_buf escape;
    char *volatile window = NULL;
    volatile size_t window_len = 0;
    if (sigsetjmp(escape, 1)) { /* 1: SIGBUS unblocked again */
        mapped_read_escape = NULL;
        munmap(window, window_len);
        rp->shrank = true;
        rp->read_errno = EIO;
        return -1;
    }
    mapped_read_escape = &escape;
    off_t lexable = st.st_size - CAPLOG_LEX_PAD, done = 0;
    while (done < lexable) {
        size_t want = lexable - done < (off_t)MAP_WINDOW_BYTES ? (size_t)(lexable - done) : MAP_WINDOW_BYTES;
        char *m = mmap(NULL, want + CAPLOG_LEX_PAD, PROT_READ, MAP_PRIVATE, fd, done);
        if (m == MAP_FAILED)
            break; /* read() takes over from DONE */
        window = m;
        window_len = want + CAPLOG_LEX_PAD;
        bool go_on = !*first || first_bytes(rp, m, want);
        *first = false;
        if (go_on && rp->in)
            store_ingest_hash(rp->in, m, want);
        for (size_t off = 0; go_on && off < want;) {
            caplog_tokens *t = pipe_free_buffer(rp);
            if (!t)
                go_on = false;
            else {
                off += caplog_lex_in_place(rp->lexer, m + off, want - off, t);
                pipe_lexed(rp, t);
            }
        }
        window = NULL;
        munmap(m, want + CAPLOG_LEX_PAD);
        if (!go_on) {
            mapped_read_escape = NULL;
            return -1;
        }
        done += (off_t)want;
    }
    mapped_read_escape = NULL;
    if (done && lseek(fd, done, SEEK_SET) != done) {
        rp->read_errno = errno ? errno : EIO;
        return -1;
    }
    return done;
}

/* Reads, hashes and lexes the whole input. */
static void *pipe_reader(void *arg)
{
    read_pipe *rp = arg;
    bool first = true;
    size_t got;
    if (read_mapped(rp, &first) < 0)
        goto out;
    while ((got = read_chunk(rp)) > 0) {
        if (first) {
            first = false;
            if (!first_bytes(rp, rp->chunk, got))
                goto out;
        }
        if (rp->in)
            store_ingest_hash(rp->in, rp->chunk, got);
        for (size_t off = 0; off < got;) {
            caplog_tokens *t = pipe_free_buffer(rp);
            if (!t)
                goto out;
            /* hashed already: the lexer may write into the chunk (CHUNK_BYTES + CAPLOG_LEX_PAD) */
            off += caplog_lex_in_place(rp->lexer, rp->chunk + off, got - off, t);
            pipe_lexed(rp, t);
        }
    }
    if (!rp->read_errno) {
        caplog_tokens *t = pipe_free_buffer(rp);
        if (t) {
            caplog_lex_end(rp->lexer, t); /* what is left of a last line without its newline */
            pipe_lexed(rp, t);
        }
    }
out:
    if (rp->threaded) {
        pthread_mutex_lock(&rp->lock);
        rp->done = true;
        pthread_cond_broadcast(&rp->changed);
        pthread_mutex_unlock(&rp->lock);
    }
    return NULL;
}

/* The next lexed buffer in order, or NULL when the reader is done and all were applied. */
static const caplog_tokens *pipe_next(read_pipe *rp)
{
    pthread_mutex_lock(&rp->lock);
    while (!rp->done && rp->applied == rp->lexed)
        pthread_cond_wait(&rp->changed, &rp->lock);
    const caplog_tokens *t = rp->applied < rp->lexed ? rp->ring[rp->applied % TOKEN_BUFFERS] : NULL;
    pthread_mutex_unlock(&rp->lock);
    return t;
}

static void pipe_applied(read_pipe *rp, bool stop)
{
    pthread_mutex_lock(&rp->lock);
    rp->applied++;
    rp->stop = rp->stop || stop;
    pthread_cond_broadcast(&rp->changed);
    pthread_mutex_unlock(&rp->lock);
}

/* Reads RP's input whole into its dry parser or its store ingest. Returns 0, or -1 after a store
 * error (in ERR); RP's gzip, binary and read_errno say what the reader found. */
static int pipe_run(read_pipe *rp, char *err, size_t errlen)
{
    rp->err = err;
    rp->errlen = errlen;
    rp->lexer = caplog_lexer_new();
    for (int i = 0; i < TOKEN_BUFFERS; i++)
        rp->ring[i] = caplog_tokens_new();
    bool ok = rp->lexer != NULL;
    for (int i = 0; i < TOKEN_BUFFERS; i++)
        ok = ok && rp->ring[i];
    int rc = 0;
    if (!ok) {
        snprintf(err, errlen, "out of memory");
        rc = -1;
    } else if (pthread_mutex_init(&rp->lock, NULL) == 0) {
        pthread_t reader;
        if (pthread_cond_init(&rp->changed, NULL) == 0) {
            rp->threaded = true; /* before the reader starts: it reads the flag */
            if (pthread_create(&reader, NULL, pipe_reader, rp) != 0)
                rp->threaded = false;
            if (rp->threaded) {
                const caplog_tokens *t;
                while ((t = pipe_next(rp))) {
                    bool stop = !pipe_apply(rp, t);
                    pipe_applied(rp, stop);
                    if (stop)
                        break;
                }
                pthread_join(reader, NULL);
            }
            pthread_cond_destroy(&rp->changed);
        }
        pthread_mutex_destroy(&rp->lock);
    }
    if (ok && !rp->threaded)
        pipe_reader(rp); /* no second thread: read, lexed and applied in turn, here */
    if (ok && rp->stop)
        rc = -1;
    for (int i = 0; i < TOKEN_BUFFERS; i++)
        caplog_tokens_free(rp->ring[i]);
    caplog_lexer_free(rp->lexer);
    return rc;
}

/* One LOG: EXIT_OK or EXIT_WORK (the message printed). */
static int ingest_file(ingest_ctx *c, store *s, const char *path, char *chunk)
{
    struct stat st;
    bool from_stdin = strcmp(path, "-") == 0; /* `ingest -`: the log on standard input */
    if (from_stdin) {
        if (fstat(STDIN_FILENO, &st) != 0) {
            cli_error("-: standard input: %s", strerror(errno));
            return EXIT_WORK;
        }
    } else if (stat(path, &st) != 0) {
        cli_error("%s: %s", path, strerror(errno));
        return EXIT_WORK;
    }
    if (S_ISDIR(st.st_mode)) {
        cli_error("%s: is a directory (pass the log files inside it)", path);
        return EXIT_WORK;
    }
    if (S_ISREG(st.st_mode) && st.st_size == 0) {
        cli_error("%s: empty file: nothing to ingest", path);
        return EXIT_WORK;
    }
    FILE *f = from_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        cli_error("%s: %s", path, strerror(errno));
        return EXIT_WORK;
    }
    c->source = from_stdin ? "stdin" : base_name(path);
    engine_text_cleaned(c->source_shown, sizeof c->source_shown, c->source);
    c->n_runs = 0;
    c->saw_binary = false;
    c->io->source = c->source;
    c->io->path = path;
    char err[4096 + 512];
    caplog_parser *dry = NULL;
    store_ingest *in = NULL;
    stored_report report = {.c = c};
    if (s) {
        c->io->written = on_runs_written;
        c->io->written_ctx = &report;
        in = store_ingest_begin(s, c->io, err, sizeof err);
        if (!in) {
            cli_error("%s: %s", path, err);
            fclose(f);
            return EXIT_WORK;
        }
    } else {
        dry = caplog_new();
        if (!dry) {
            cli_error("%s: out of memory", path);
            fclose(f);
            return EXIT_WORK;
        }
        caplog_set_callback(dry, on_dry_run, c);
    }
    int rc = EXIT_OK;
    read_pipe rp = {.f = f, .in = in, .dry = dry, .chunk = chunk};
    if (pipe_run(&rp, err, sizeof err) != 0) {
        cli_error("%s: %s", path, err);
        rc = EXIT_WORK;
    } else if (rp.gzip) {
        cli_error("%s: a gzip-compressed log: decompress it into cgplan, e.g. zcat %s | cgplan ingest -",
                  from_stdin ? "-" : path, from_stdin ? "LOG.gz" : path);
        rc = EXIT_WORK;
    } else if (rp.shrank) {
        cli_error("%s: the file became shorter while it was read (truncated or rotated?); %s", path,
                  dry ? "read it again" : "nothing of it was stored: ingest it again");
        rc = EXIT_WORK;
    } else if (rp.read_errno) {
        cli_error("%s: read error: %s", path, strerror(rp.read_errno));
        rc = EXIT_WORK;
    }
    c->saw_binary = rp.binary;
    if (!from_stdin)
        fclose(f);
    const char *nothing = c->saw_binary ? "binary data, not an SGLang server log"
                                        : "no SGLang start-up lines found (server_args, capture groups or memory "
                                          "lines): is it an SGLang server log?";
    if (dry) {
        caplog_finish(dry);
        if (rc == EXIT_OK && (!caplog_recognised(dry) || c->n_runs == 0)) {
            cli_error("%s: %s", path, nothing);
            rc = EXIT_WORK;
        }
        caplog_free(dry);
        return rc;
    }
    if (rc != EXIT_OK) {
        store_ingest_free(in); /* rolls the file back */
        return rc;
    }
    store_ingest_result res;
    int frc = store_ingest_finish(in, &res, err, sizeof err);
    if (report.started) {
        pthread_join(report.thread, NULL);
        if (frc != 0 || report.failed)
            c->n_fix_said = report.n_fix_said; /* not shown: the fixes they said are still unsaid */
    }
    if (frc < 0) {
        cli_error("%s: %s", path, err);
        rc = EXIT_WORK;
    } else if (frc == 1) {
        cli_error("%s: %s", path, nothing);
        rc = EXIT_WORK;
    } else if (res.duplicate_of > 0) {
        if (c->w) {
            jsonw_object_begin(c->w);
            jsonw_ki64(c->w, "id", res.duplicate_of);
            jsonw_kstring(c->w, "source", c->source);
            jsonw_kbool(c->w, "already_stored", true);
            jsonw_object_end(c->w);
        } else {
            printf("%s: already stored as run %lld\n", c->source_shown, (long long)res.duplicate_of);
        }
    } else {
        /* the runs as derived, not read back: the commit stored exactly these */
        if (report.started && !report.failed) {
            if (copy_report(report.out) != 0) {
                cli_error("%s: the stored runs' lines could not be read back from a temporary file (%s): the "
                          "runs are stored; cgplan runs list shows them",
                          path, strerror(errno));
                rc = EXIT_WORK;
            }
        } else {
            char why[4096 + 256];
            if (print_stored_runs(in, stdout, c, why, sizeof why) != 0) {
                cli_error("%s: %s: the runs are stored; cgplan runs list shows them", path, why);
                rc = EXIT_WORK;
            }
        }
    }
    if (report.out)
        fclose(report.out);
    store_ingest_free(in);
    return rc;
}

int cmd_ingest(int argc, char **argv)
{
    cli_opts o;
    int rc =
        cli_parse(argc, argv, 2, "ingest",
                  OPT_DB | OPT_LABEL | OPT_PRESET | OPT_MODEL | OPT_SET | OPT_DRY_RUN | OPT_FORMAT, &o);
    if (rc)
        return rc;
    if (o.n_args == 0) {
        cli_error("ingest: no LOG given (cgplan ingest [--preset P] [--set gpu=NAME] server.log ...)");
        return EXIT_USAGE;
    }
    if (o.format == FORMAT_CSV) {
        cli_error("ingest: --format csv is not offered (use table or json)");
        return EXIT_USAGE;
    }
    /* A big log prints a line per run: into a file or a pipe, 64 KiB at a time rather than 4 */
    static char out_buf[1 << 16]; /* stdout's until the exit (glibc ignores a size without a buffer) */
    if (!isatty(STDOUT_FILENO))
        setvbuf(stdout, out_buf, _IOFBF, sizeof out_buf);
    preset_catalog *cat = preset_catalog_open();
    engine_deployment *given = malloc(sizeof *given);
    char *chunk = calloc(1, CHUNK_BYTES + CAPLOG_LEX_PAD); /* the pad read, never the input's */
    ingest_ctx *c = calloc(1, sizeof *c);
    cli_run_presets *presets = malloc(sizeof *presets);
    engine_run_context derive;
    store_ingest_opts io;
    if (!cat || !given || !chunk || !c || !presets) {
        cli_error("ingest: out of memory");
        rc = EXIT_WORK;
        goto done;
    }
    static char model_name[ENGINE_NAME_MAX];
    if ((rc = build_given(&o, cat, given, presets, &derive, &io, model_name)) != EXIT_OK)
        goto done;
    c->o = &o;
    c->io = &io;
    c->derive = &derive;
    store *s = NULL;
    if (!o.dry_run && !(s = cli_open_store(&o, CLI_STORE_READ_WRITE))) {
        rc = EXIT_WORK;
        goto done;
    }
    jsonw w;
    if (o.format == FORMAT_JSON) {
        jsonw_init(&w, stdout, true);
        jsonw_object_begin(&w);
        jsonw_key(&w, "runs");
        jsonw_array_begin(&w);
        c->w = &w;
    }
    for (int i = 0; i < o.n_args; i++)
        if (ingest_file(c, s, o.args[i], chunk) != EXIT_OK)
            rc = EXIT_WORK;
    if (c->w) {
        jsonw_array_end(&w);
        jsonw_object_end(&w);
        fputc('\n', stdout);
    }
    store_close(s);
    report_peak();
done:
    free(presets);
    free(c);
    free(chunk);
    free(given);
    preset_catalog_free(cat);
    return rc;
}

int cli_ingest_context(const cli_opts *o, const preset_catalog *cat, engine_deployment *given, cli_run_presets *p,
                       engine_run_context *ctx, char *model_name)
{
    store_ingest_opts io;
    return build_given(o, cat, given, p, ctx, &io, model_name);
}
