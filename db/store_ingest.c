/* store_ingest.c — a parsed log into the store: one file, one short transaction.
 *
 * The file's bytes go through its content hash (content_hash.h) and the streaming parser side by
 * side, on two threads (store_ingest_feed hashes on one of its own; `cgplan ingest` reads, hashes
 * and lexes on its reader thread and applies here, through store_ingest_hash and
 * store_ingest_apply); each run the parser emits is derived at once and its rows are kept,
 * encoded, in a buffer (in memory up to a bound, then in an unlinked temporary file). Only at the
 * end, with the content hash known, is the write lock taken: a file already stored is reported
 * without writing (or waiting), any other is written in one BEGIN IMMEDIATE .. COMMIT. So reading
 * a slow input (a pipe, a huge log) never blocks another writer, and a kill at any moment leaves
 * the store as it was. */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xxhash.h>

#include "content_hash.h"
#include "seed_logs.h"
#include "store_internal.h"
#include "store_terms.h"

/* The rows of a 100 MiB log (17,525 server starts, a row each with its records) take under 20 MB
 * encoded: such a log, far beyond any real one, is kept whole in memory, and eight concurrent
 * ingests stay under 600 MiB. A bigger file spills (bench/bench_ingest.sh's 1 GiB: 134 of its
 * 190 MB to the file); writing it then reads the file back sequentially. A 256 MiB bound, which
 * keeps that log in memory (peak RSS 190 MB, not 89), was 7% faster on a log long in the page
 * cache and 8% slower on one just written: not worth the memory. */
#define STORE_INGEST_BUFFER_BYTES ((size_t)64 << 20)
#define FIRST_BUFFER_BYTES ((size_t)64 << 10) /* a small log stays small */

/* The tables an encoded row goes to, in the order of their prepared INSERTs: a run is one row
 * (its knobs and detail are records in it), the hook's measured terms a few more. */
typedef enum { ROW_RUN, ROW_TERM, ROW_KINDS } row_kind;

/* Rows one INSERT takes at most (write_batch): a statement's start, end and AUTOINCREMENT
 * bookkeeping were most of a run's cost when each run had its own. */
#define MAX_BATCH_ROWS 16
static const int batch_rows[] = {MAX_BATCH_ROWS, 8}; /* per row_kind */

/* Value tags of the encoding: SQLite's types, what is known only when the rows are written (the
 * run's id, the file's hash, the time of the write), and from TAG_SMALL on an integer
 * 0 .. 255 - TAG_SMALL in the tag itself. */
enum {
    TAG_NULL,
    TAG_INT,
    TAG_REAL,
    TAG_TEXT,
    TAG_RUN_ID,
    TAG_BLOB,
    TAG_CONTENT_HASH,
    TAG_CREATED_AT,
    TAG_TEXT_SEEN, /* a repeated text or blob: its index among the ingest's seen values */
    TAG_BLOB_SEEN,
    TAG_SMALL = 16
};

/* The texts a log's runs repeat (server args, knobs record, path) are kept once each, in memory,
 * and a row refers to its copy: the bench log's rows keep, spill and read back 40% fewer bytes
 * (a spill is a fresh page-cache page per 4 KiB: up to a sixth of the parse on this VM). At most
 * SEEN_MAX_BYTES of copies; SEEN_SLOTS, by hash, remember the newest of each. */
#define SEEN_MIN_BYTES 24
#define SEEN_MAX_BYTES ((size_t)4 << 20)
#define SEEN_SLOTS 1024

typedef struct {
    char *p;
    size_t len;
    uint64_t hash;
    int64_t text_id; /* its run_texts id once written, 0 before */
} seen_value;

/* store_ingest_feed's second thread hashes each chunk while the caller parses it (the chunk is
 * the caller's until store_ingest_feed returns, which waits for both). */
typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    store_content_hash *hash;
    const char *buf;
    size_t len;
    bool started, running, busy, quit;
} store_hasher;

/* What `cgplan ingest` reports of a run beside its totals: a log repeats a few of these, so each
 * is kept once (zeroed whole: it is hashed and compared as bytes). */
typedef struct {
    char model[ENGINE_NAME_MAX];
    char gpu[ENGINE_NAME_MAX];
    uint32_t world, dp, dcp, mtp, max_bs;
    uint32_t gpu_inferred;
} report_deployment;

/* A run's report, 40 bytes, with its first line: the last REPORTS_KEPT stay in memory, the
 * older ones spill to an unlinked file, so a file of 4M runs keeps 640 KiB of them, not 160 MB. */
typedef struct {
    uint32_t first_line; /* the run's first line in the file */
    uint32_t deployment; /* index into the ingest's deployments */
    double target_total_gib, draft_gib, total_gib, largest_gib;
} run_report;
#define REPORTS_KEPT 16384

#define LIST_MEMO 4

/* The knobs records of recent runs by what they are made of: each row knob's origin, auto flag
 * and value bytes (engine_knob_text's canonical text is a function of these alone). A log's
 * runs repeat a few deployments, and a record took a formatted text for each of ~20 knobs. */
#define KNOBS_MEMO_SLOTS 64
#define KNOBS_KEY_MAX                                                                                                  \
    (KNOB_COUNT * (2 * sizeof(engine_knob_origin) + 8 + ENGINE_MAX_BUCKETS * 4 + sizeof(engine_release)))

typedef struct {
    uint64_t hash;
    size_t key_len, len;
    unsigned char *bytes; /* the key, then the record */
} knobs_memo;

struct store_ingest {
    store *s;
    store_ingest_opts o;
    caplog_parser *parser;
    store_content_hash hash;
    store_hasher hasher;
    bool finished, failed;
    char err[4096 + 512];
    /* Encoded rows: [u32 record length][u8 kind][u8 n values][values...], the older ones spilled
     * to SPILL (SPILLED bytes) once BUF would outgrow BOUND. */
    char *buf;
    size_t used, cap, bound;
    FILE *spill;
    uint64_t spilled;
    char spill_dir[4096];
    /* per table and column: the tag of a value known only when written (run_id, runs.content_hash,
     * runs.created_at), else 0 */
    unsigned char late_tag[ROW_KINDS][STORE_MAX_VALUES];
    char created_at[32];                       /* the write's time, as runs.created_at's default writes it */
    bool repeats[ROW_KINDS][STORE_MAX_VALUES]; /* the columns whose values runs repeat */
    seen_value *seen;
    size_t n_seen, cap_seen, seen_bytes;
    uint32_t seen_slot[SEEN_SLOTS]; /* index + 1 into seen; 0: none */
    /* The file's runs as parsed: the older reports in REPORT_SPILL (N_REPORTS_SPILLED of them),
     * the newer in REPORTS. Written, they take the ids first_run_id .. + n_written - 1. */
    run_report *reports;
    size_t n_reports_kept, reports_cap; /* reports_cap: REPORTS_KEPT, or fewer for a small buffer */
    int report_spill; /* an unlinked file's descriptor; -1: none yet */
    uint64_t n_reports_spilled;
    size_t n_runs, n_written;
    int64_t first_run_id;
    report_deployment *deployments;
    size_t n_deployments, cap_deployments;
    uint32_t *deployment_slots; /* open addressing: index + 1, 0 empty; a power of two, at most half full */
    size_t n_slots;
    int64_t run_id; /* the last written */
    char content_hash[STORE_HASH_TEXT_MAX];
    char legacy_hash[STORE_HASH_TEXT_MAX];        /* its SHA-256 while the store knows older runs so; else "" */
    sqlite3_stmt *ins[ROW_KINDS][MAX_BATCH_ROWS]; /* [kind][n - 1]: an INSERT of n rows, prepared when first used */
    sqlite3_stmt *text_find, *text_add;           /* run_texts' lookup and INSERT, prepared when first used */
    uint64_t bytes;
    engine_run_facts facts;     /* scratch, ~7 KiB: kept off the stack */
    store_record knobs, detail; /* the run's two records, built before its row is kept */
    knobs_memo knobs_memo[KNOBS_MEMO_SLOTS];
    unsigned char knobs_key[KNOBS_KEY_MAX];
    /* the capture lists of the last LIST_MEMO groups and their texts: a log's runs repeat a few
     * (each took 2,400 instructions a run to write out) */
    struct {
        uint32_t n;
        uint32_t v[ENGINE_MAX_BUCKETS];
        char text[ENGINE_MAX_BUCKETS * 11];
    } lists[LIST_MEMO];
    unsigned next_list; /* the one to replace next */
    char knob_text[ENGINE_MAX_BUCKETS * 11];
};

static const store_table *const row_tables[ROW_KINDS] = {&store_runs_table, &store_measured_terms_table};

/* Whether value I of a KIND row is kept in run_texts (its id bound); the knob columns after the
 * table's own never are. */
static bool in_texts(int kind, int i)
{
    return i < row_tables[kind]->n_cols && row_tables[kind]->cols[i].in_texts;
}

/* "1,2,4": V's N numbers as "%u" joined by ',' (while 12 bytes are left, as always), written
 * here: a big log has a list per group, snprintf per number was a tenth of keeping its rows. */
static const char *list_text(char *buf, size_t len, const uint32_t *v, uint32_t n)
{
    size_t used = 0;
    buf[0] = '\0';
    for (uint32_t i = 0; i < n && used + 12 < len; i++) {
        if (i)
            buf[used++] = ',';
        char digits[10];
        int d = 0;
        uint32_t x = v[i];
        do
            digits[d++] = (char)('0' + x % 10);
        while ((x /= 10) > 0);
        while (d > 0)
            buf[used++] = digits[--d];
        buf[used] = '\0';
    }
    return buf;
}

/* N sizes at V as list_text writes them, remembered for the next runs that capture the same. */
static const char *sizes_text(store_ingest *in, const uint32_t *v, uint32_t n)
{
    for (unsigned i = 0; i < LIST_MEMO; i++)
        if (in->lists[i].n == n && !memcmp(in->lists[i].v, v, n * sizeof *v))
            return in->lists[i].text;
    unsigned i = in->next_list;
    in->next_list = (i + 1) % LIST_MEMO;
    in->lists[i].n = n;
    memcpy(in->lists[i].v, v, n * sizeof *v);
    return list_text(in->lists[i].text, sizeof in->lists[i].text, v, n);
}

static bool run_has_content(const caplog_run *run)
{
    if (run->n_groups > 0 || run->args.present)
        return true;
    for (uint32_t i = 0; i < run->n_ranks; i++)
        if (run->ranks[i].has_data)
            return true;
    return false;
}

static int column_index(const store_table *t, const char *name)
{
    for (int i = 0; i < t->n_cols; i++)
        if (strcmp(t->cols[i].name, name) == 0)
            return i;
    return -1;
}

/* ---- The buffer and its spill file ---- */

static int spill_error(store_ingest *in, int e)
{
    store_set_err(in->err, sizeof in->err,
                  "cannot keep the parsed runs in a temporary file in %s: %s (free space there or point TMPDIR "
                  "to a directory with room)",
                  in->spill_dir, strerror(e));
    return -1;
}

/* A temporary file in $TMPDIR (else /tmp), unlinked at once: a kill leaves nothing behind.
 * Returns its descriptor, or -1 with the error set. */
static int unlinked_spill_file(store_ingest *in)
{
    const char *dir = getenv("TMPDIR");
    snprintf(in->spill_dir, sizeof in->spill_dir, "%s", dir && *dir ? dir : "/tmp");
    char path[4096 + 32];
    snprintf(path, sizeof path, "%s/cgplan-ingest-XXXXXX", in->spill_dir);
    int fd = mkstemp(path);
    if (fd < 0)
        return spill_error(in, errno);
    unlink(path);
    return fd;
}

/* Moves the buffer's records to the spill file (created on first use). */
static int spill(store_ingest *in)
{
    if (!in->spill) {
        int fd = unlinked_spill_file(in);
        if (fd < 0)
            return -1;
        if (!(in->spill = fdopen(fd, "w+b"))) {
            int e = errno;
            close(fd);
            return spill_error(in, e);
        }
    }
    if (in->used && fwrite(in->buf, 1, in->used, in->spill) != in->used)
        return spill_error(in, errno);
    in->spilled += in->used;
    in->used = 0;
    return 0;
}

/* Room for NEED more bytes: the buffer doubles up to its bound, then spills. */
static char *reserve(store_ingest *in, size_t need)
{
    if (in->used + need > in->cap) {
        size_t cap = in->cap ? in->cap : FIRST_BUFFER_BYTES;
        while (cap < in->used + need && cap < in->bound)
            cap *= 2;
        if (cap > in->bound)
            cap = in->bound;
        if (in->used + need > cap) {
            if (spill(in) != 0)
                return NULL;
            while (cap < need) /* one record bigger than the bound: the bound gives way */
                cap *= 2;
        }
        if (cap > in->cap) {
            char *b = realloc(in->buf, cap);
            if (!b) {
                store_set_err(in->err, sizeof in->err, "%s: out of memory keeping the parsed runs", in->s->path);
                return NULL;
            }
            in->buf = b;
            in->cap = cap;
        }
    }
    char *p = in->buf + in->used;
    in->used += need;
    return p;
}

/* The encoded rows are chars (texts are copied in as they are); their integers are
 * store_internal.h's varints. */
static size_t put_varint(char *p, uint64_t v)
{
    return store_put_varint((unsigned char *)p, v);
}

static bool get_varint(const char **p, const char *end, uint64_t *v)
{
    const unsigned char *u = (const unsigned char *)*p;
    bool ok = store_get_varint(&u, (const unsigned char *)end, v);
    *p = (const char *)u;
    return ok;
}

/* LEN bytes at P, for the ingest's tables in memory (a run's repeated texts are hashed whole: its
 * server args are ~3 KB, which a word-at-a-time loop took 1,500 instructions for). */
static uint64_t bytes_hash(const void *p, size_t len)
{
    return XXH3_64bits(p, len);
}

/* The index of the kept copy of P's LEN bytes (kept now if new and there is room), or -1. */
static int64_t seen_index(store_ingest *in, const char *p, size_t len)
{
    uint64_t hash = bytes_hash(p, len);
    uint32_t *slot = &in->seen_slot[hash % SEEN_SLOTS];
    if (*slot) {
        const seen_value *v = &in->seen[*slot - 1];
        if (v->hash == hash && v->len == len && memcmp(v->p, p, len) == 0)
            return *slot - 1;
    }
    if (in->seen_bytes + len > SEEN_MAX_BYTES)
        return -1;
    if (in->n_seen == in->cap_seen) {
        size_t cap = in->cap_seen ? 2 * in->cap_seen : 64;
        seen_value *grown = realloc(in->seen, cap * sizeof *grown);
        if (!grown)
            return -1; /* kept inline instead */
        in->seen = grown;
        in->cap_seen = cap;
    }
    char *copy = malloc(len);
    if (!copy)
        return -1;
    memcpy(copy, p, len);
    in->seen[in->n_seen] = (seen_value){copy, len, hash, 0};
    in->seen_bytes += len;
    *slot = (uint32_t)++in->n_seen;
    return *slot - 1;
}

/* One row of KIND: its values, but for the columns known only when written (late_tag). A small
 * integer is its tag, a larger one a varint, a text its length as one (the rows of a big log are
 * kept by the hundred MB). */
static int keep_row(store_ingest *in, row_kind kind, const store_value *v, int n)
{
    const unsigned char *late = in->late_tag[kind];
    const bool *repeats = in->repeats[kind];
    size_t text_len[STORE_MAX_VALUES];
    int64_t seen[STORE_MAX_VALUES]; /* a text's or blob's kept copy, or -1 */
    size_t most = 6; /* the record's bytes at most: a tag and ten bytes of varint a value, texts */
    for (int i = 0; i < n; i++) {
        most += 11;
        seen[i] = -1;
        if (v[i].type == SQLITE_TEXT && !late[i])
            text_len[i] = strlen(v[i].text);
        else if (v[i].type == SQLITE_BLOB)
            text_len[i] = v[i].len;
        else
            continue;
        if (repeats[i] && (text_len[i] >= SEEN_MIN_BYTES || in_texts(kind, i)))
            seen[i] = seen_index(in, v[i].text, text_len[i]); /* a run_texts value: its id found once */
        if (seen[i] < 0)
            most += text_len[i];
    }
    char *start = reserve(in, most);
    if (!start)
        return -1;
    char *p = start + 6;
    for (int i = 0; i < n; i++) {
        if (late[i]) {
            *p++ = (char)late[i];
        } else if (v[i].type == SQLITE_INTEGER) {
            if (v[i].i >= 0 && v[i].i <= 255 - TAG_SMALL) {
                *p++ = (char)(TAG_SMALL + v[i].i);
            } else {
                *p++ = TAG_INT;
                p += put_varint(p, store_zigzag(v[i].i));
            }
        } else if (v[i].type == SQLITE_FLOAT) {
            *p++ = TAG_REAL;
            memcpy(p, &v[i].d, 8);
            p += 8;
        } else if (seen[i] >= 0) {
            *p++ = v[i].type == SQLITE_TEXT ? TAG_TEXT_SEEN : TAG_BLOB_SEEN;
            p += put_varint(p, (uint64_t)seen[i]);
        } else if (v[i].type == SQLITE_TEXT || v[i].type == SQLITE_BLOB) {
            *p++ = v[i].type == SQLITE_TEXT ? TAG_TEXT : TAG_BLOB;
            p += put_varint(p, text_len[i]);
            memcpy(p, v[i].text, text_len[i]);
            p += text_len[i];
        } else {
            *p++ = TAG_NULL;
        }
    }
    uint32_t len32 = (uint32_t)(p - start);
    memcpy(start, &len32, 4);
    start[4] = (char)kind;
    start[5] = (char)n;
    in->used -= most - len32; /* reserve() took the most it could be */
    return 0;
}

static int keep_table_row(store_ingest *in, row_kind kind, const void *row)
{
    store_value v[STORE_MAX_VALUES];
    int n = store_row_values(row_tables[kind], row, v);
    return keep_row(in, kind, v, n);
}

/* ---- The hash beside the parse ---- */

static void *hasher_main(void *arg)
{
    store_hasher *h = arg;
    pthread_mutex_lock(&h->lock);
    for (;;) {
        while (!h->busy && !h->quit)
            pthread_cond_wait(&h->wake, &h->lock);
        if (h->quit)
            break;
        pthread_mutex_unlock(&h->lock);
        store_content_hash_update(h->hash, h->buf, h->len);
        pthread_mutex_lock(&h->lock);
        h->busy = false;
        pthread_cond_broadcast(&h->wake);
    }
    pthread_mutex_unlock(&h->lock);
    return NULL;
}

/* Without a thread (none could be made) the caller hashes: slower, the same result. Started by
 * the first store_ingest_feed (a caller that hashes itself never needs it). */
static void hasher_start(store_hasher *h, store_content_hash *hash)
{
    h->hash = hash;
    h->started = true;
    if (pthread_mutex_init(&h->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&h->wake, NULL) != 0) {
        pthread_mutex_destroy(&h->lock);
        return;
    }
    h->running = pthread_create(&h->thread, NULL, hasher_main, h) == 0;
    if (!h->running) {
        pthread_cond_destroy(&h->wake);
        pthread_mutex_destroy(&h->lock);
    }
}

static void hasher_post(store_hasher *h, const char *buf, size_t len)
{
    if (!h->running) {
        store_content_hash_update(h->hash, buf, len);
        return;
    }
    pthread_mutex_lock(&h->lock);
    h->buf = buf;
    h->len = len;
    h->busy = true;
    pthread_cond_broadcast(&h->wake);
    pthread_mutex_unlock(&h->lock);
}

static void hasher_wait(store_hasher *h)
{
    if (!h->running)
        return;
    pthread_mutex_lock(&h->lock);
    while (h->busy)
        pthread_cond_wait(&h->wake, &h->lock);
    pthread_mutex_unlock(&h->lock);
}

static void hasher_stop(store_hasher *h)
{
    if (!h->running)
        return;
    pthread_mutex_lock(&h->lock);
    h->quit = true;
    pthread_cond_broadcast(&h->wake);
    pthread_mutex_unlock(&h->lock);
    pthread_join(h->thread, NULL);
    pthread_cond_destroy(&h->wake);
    pthread_mutex_destroy(&h->lock);
    h->running = false;
}

/* The capture hook's measurements of RUN (hook/cgplan_capture_hook.py): the largest bucket's
 * torch / non-torch split from the target group (else the first group the hook measured) and
 * the snapshot's bytes per term, each (method, term) once. */
static int keep_measured_terms(store_ingest *in, const caplog_run *run, int target_group)
{
    const caplog_group *g = NULL;
    if (target_group >= 0 && (uint32_t)target_group < run->n_groups && run->groups[target_group].hook_captures)
        g = &run->groups[target_group];
    for (uint32_t i = 0; !g && i < run->n_groups; i++)
        if (run->groups[i].hook_captures)
            g = &run->groups[i];
    if (g) {
        store_term_row torch = {.term = "torch", .method = "split", .bytes = g->hook_torch_bytes, .size = g->hook_size};
        store_term_row rest = {.term = "non_torch", .method = "split", .bytes = g->hook_device_bytes - g->hook_torch_bytes,
                               .size = g->hook_size};
        if (keep_table_row(in, ROW_TERM, &torch) != 0 || keep_table_row(in, ROW_TERM, &rest) != 0)
            return -1;
    }
    for (uint32_t i = 0; i < run->n_hook_terms; i++) {
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = strcmp(run->hook_terms[j].term, run->hook_terms[i].term) == 0;
        store_term_row t = {.term = run->hook_terms[i].term, .method = "snapshot",
                            .bytes = (int64_t)run->hook_terms[i].bytes, .size = run->hook_terms[i].size};
        if (!seen && keep_table_row(in, ROW_TERM, &t) != 0)
            return -1;
    }
    return 0;
}

/* ---- Each run's report, kept as it is derived (the report then reads nothing back) ---- */

/* V as the store gives it back: NULL (NaN) for a non-finite value, and -0 as 0 (SQLite keeps an
 * integral REAL as an integer). */
static double as_stored(double v)
{
    return !isfinite(v) ? NAN : v == 0 ? 0.0 : v;
}

/* D's index among the ingest's deployments (added when new), or -1 out of memory. */
static int64_t deployment_index(store_ingest *in, const report_deployment *d)
{
    if (2 * (in->n_deployments + 1) > in->n_slots) {
        size_t n_slots = in->n_slots ? 2 * in->n_slots : 64;
        uint32_t *slots = calloc(n_slots, sizeof *slots);
        if (!slots)
            return -1;
        for (size_t i = 0; i < in->n_deployments; i++) {
            size_t at = bytes_hash(&in->deployments[i], sizeof in->deployments[i]) & (n_slots - 1);
            while (slots[at])
                at = (at + 1) & (n_slots - 1);
            slots[at] = (uint32_t)i + 1;
        }
        free(in->deployment_slots);
        in->deployment_slots = slots;
        in->n_slots = n_slots;
    }
    size_t at = bytes_hash(d, sizeof *d) & (in->n_slots - 1);
    for (; in->deployment_slots[at]; at = (at + 1) & (in->n_slots - 1))
        if (memcmp(&in->deployments[in->deployment_slots[at] - 1], d, sizeof *d) == 0)
            return in->deployment_slots[at] - 1;
    if (in->n_deployments == in->cap_deployments) {
        size_t cap = in->cap_deployments ? 2 * in->cap_deployments : 16;
        report_deployment *grown = realloc(in->deployments, cap * sizeof *grown);
        if (!grown)
            return -1;
        in->deployments = grown;
        in->cap_deployments = cap;
    }
    in->deployments[in->n_deployments] = *d;
    in->deployment_slots[at] = (uint32_t)in->n_deployments + 1;
    return (int64_t)in->n_deployments++;
}

/* Writes LEN bytes at P to FD whole: 0, or -1 with errno. */
static int write_whole(int fd, const void *p, size_t len)
{
    const char *at = p;
    while (len > 0) {
        ssize_t n = write(fd, at, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        at += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Moves the kept reports to the report spill file (created on first use). */
static int spill_reports(store_ingest *in)
{
    if (in->report_spill < 0 && (in->report_spill = unlinked_spill_file(in)) < 0)
        return -1;
    if (write_whole(in->report_spill, in->reports, in->n_reports_kept * sizeof *in->reports) != 0)
        return spill_error(in, errno);
    in->n_reports_spilled += in->n_reports_kept;
    in->n_reports_kept = 0;
    return 0;
}

/* Keeps RUN's first line and what the report prints of it, as a listing of the stored run would
 * read it (the facts' values are zero where the knob is unknown, as the store leaves them). */
static int keep_report(store_ingest *in, const caplog_run *run, const engine_run_facts *f)
{
    if (!in->reports && !(in->reports = malloc(in->reports_cap * sizeof *in->reports))) {
        store_set_err(in->err, sizeof in->err, "%s: out of memory", in->s->path);
        return -1;
    }
    if (in->n_reports_kept == in->reports_cap && spill_reports(in) != 0)
        return -1;
    report_deployment d;
    memset(&d, 0, sizeof d); /* padding and string tails too: compared as bytes */
    engine_copy_text(d.model, sizeof d.model, f->model);
    engine_copy_text(d.gpu, sizeof d.gpu, f->values.gpu.name);
    const engine_knobs_state *k = &f->values.knobs;
    d.world = k->world;
    d.dp = k->dp;
    d.dcp = k->dcp;
    d.mtp = k->mtp;
    d.max_bs = k->max_bs;
    d.gpu_inferred = f->gpu_inferred;
    int64_t index = deployment_index(in, &d);
    if (index < 0) {
        store_set_err(in->err, sizeof in->err, "%s: out of memory", in->s->path);
        return -1;
    }
    in->reports[in->n_reports_kept++] = (run_report){
        .first_line = run->first_line,
        .deployment = (uint32_t)index,
        .target_total_gib = as_stored(f->target_total_gib),
        .draft_gib = as_stored(f->draft_gib),
        .total_gib = as_stored(f->total_gib),
        .largest_gib = as_stored(f->largest_gib),
    };
    in->n_runs++;
    return 0;
}

/* Run I's report R into OUT, as store_ingest_each_run documents. */
static void fill_run_summary(const store_ingest *in, size_t i, const run_report *r, store_run_summary *out)
{
    const report_deployment *d = &in->deployments[r->deployment];
    out->id = i < in->n_written ? in->first_run_id + (int64_t)i : 0;
    memcpy(out->model, d->model, sizeof d->model); /* both ENGINE_NAME_MAX, terminated */
    memcpy(out->gpu, d->gpu, sizeof d->gpu);
    out->gpu_inferred = d->gpu_inferred;
    out->world = d->world;
    out->dp = d->dp;
    out->dcp = d->dcp;
    out->mtp = d->mtp;
    out->max_bs = d->max_bs;
    out->target_total_gib = r->target_total_gib;
    out->draft_gib = r->draft_gib;
    out->total_gib = r->total_gib;
    out->largest_gib = r->largest_gib;
}

/* FN over the N reports R, runs *I onwards (advanced); a report naming no deployment is damage. */
static int each_report(const store_ingest *in, const run_report *r, size_t n, size_t *i, store_run_summary *scratch,
                       int (*fn)(const store_run_summary *run, uint32_t first_line, void *ctx), void *ctx,
                       char *err, size_t errlen)
{
    for (size_t k = 0; k < n; k++, (*i)++) {
        if (r[k].deployment >= in->n_deployments) {
            store_set_err(err, errlen, "the runs' reports kept in %s came back damaged", in->spill_dir);
            return -1;
        }
        fill_run_summary(in, *i, &r[k], scratch);
        int rc = fn(scratch, r[k].first_line, ctx);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int store_ingest_each_run(const store_ingest *in, store_run_summary *scratch,
                          int (*fn)(const store_run_summary *run, uint32_t first_line, void *ctx), void *ctx,
                          char *err, size_t errlen)
{
    enum { CHUNK = 1024 };
    run_report chunk[CHUNK]; /* 40 KiB: the spilled reports come back a chunk at a time */
    size_t i = 0;
    for (uint64_t at = 0; at < in->n_reports_spilled;) {
        size_t want = in->n_reports_spilled - at < CHUNK ? (size_t)(in->n_reports_spilled - at) : CHUNK;
        size_t bytes = want * sizeof chunk[0], got = 0;
        while (got < bytes) { /* pread: the file offset is not shared, so a reader thread may walk it */
            ssize_t n = pread(in->report_spill, (char *)chunk + got, bytes - got,
                              (off_t)(at * sizeof chunk[0] + got));
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) {
                store_set_err(err, errlen, "cannot read the runs' reports back from a temporary file in %s: %s",
                              in->spill_dir, n < 0 ? strerror(errno) : "it was cut short");
                return -1;
            }
            got += (size_t)n;
        }
        int rc = each_report(in, chunk, want, &i, scratch, fn, ctx, err, errlen);
        if (rc != 0)
            return rc;
        at += want;
    }
    return each_report(in, in->reports, in->n_reports_kept, &i, scratch, fn, ctx, err, errlen);
}

/* ---- Deriving a run into rows (no lock held) ---- */

/* What F's knobs record is made of into KEY (KNOBS_KEY_MAX bytes); returns its length, 0 when a
 * knob's value is of a kind not known here (the record is then made, not looked up). */
static size_t knobs_key(const engine_run_facts *f, unsigned char *key)
{
    const char *values = (const char *)&f->values;
    size_t n = 0;
    for (int k = 0; k < KNOB_COUNT; k++) {
        const engine_knob_info *info = &engine_knobs[k];
        if (info->store != KNOB_STORE_ROW)
            continue;
        memcpy(key + n, &f->origin[k], sizeof f->origin[k]);
        n += sizeof f->origin[k];
        if (!f->origin[k])
            continue;
        key[n++] = engine_knob_is_auto(&f->values, (engine_knob_id)k);
        size_t len = engine_knob_value_size(&f->values, (engine_knob_id)k);
        if (info->field == KNOB_FIELD_NAME) {
            len = strnlen(values + info->offset, ENGINE_NAME_MAX - 1) + 1; /* to its NUL: "ab" is not "abc" */
        } else if (info->field == KNOB_FIELD_LIST) {
            uint32_t count;
            memcpy(&count, values + info->count_offset, sizeof count);
            if (count > ENGINE_MAX_BUCKETS)
                return 0;
            memcpy(key + n, &count, sizeof count);
            n += sizeof count;
        } else if (len == 0) {
            return 0; /* a kind of value not known here: the record is made, not looked up */
        }
        memcpy(key + n, values + info->offset, len);
        n += len;
    }
    return n;
}

/* F's knobs record (row knobs by name, canonical text and origin), made or remembered; NULL out
 * of memory (ERR set). */
static const store_bytes *knobs_record(store_ingest *in, const engine_run_facts *f, store_bytes *out)
{
    size_t key_len = knobs_key(f, in->knobs_key);
    uint64_t hash = key_len ? bytes_hash(in->knobs_key, key_len) : 0;
    knobs_memo *m = &in->knobs_memo[hash % KNOBS_MEMO_SLOTS];
    if (key_len && m->bytes && m->hash == hash && m->key_len == key_len &&
        memcmp(m->bytes, in->knobs_key, key_len) == 0) {
        *out = (store_bytes){m->bytes + key_len, m->len};
        return out;
    }
    store_record *kr = &in->knobs;
    uint64_t n_knobs = 0;
    for (int k = 0; k < KNOB_COUNT; k++)
        n_knobs += engine_knobs[k].store == KNOB_STORE_ROW && f->origin[k];
    store_record_begin(kr);
    store_record_count(kr, n_knobs);
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (engine_knobs[k].store != KNOB_STORE_ROW || !f->origin[k])
            continue;
        engine_knob_text(&f->values, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, in->knob_text, sizeof in->knob_text);
        store_knob_row knob = {engine_knobs[k].name, in->knob_text, engine_origin_name(f->origin[k])};
        store_record_row(kr, &store_knob_rows_table, &knob);
    }
    if (kr->failed) {
        store_set_err(in->err, sizeof in->err, "%s: out of memory keeping the parsed runs", in->s->path);
        return NULL;
    }
    *out = (store_bytes){kr->p, kr->len};
    unsigned char *bytes = key_len ? malloc(key_len + kr->len) : NULL;
    if (bytes) { /* else not remembered: the next run makes its own */
        memcpy(bytes, in->knobs_key, key_len);
        memcpy(bytes + key_len, kr->p, kr->len);
        free(m->bytes);
        *m = (knobs_memo){hash, key_len, kr->len, bytes};
    }
    return out;
}

static int keep_run(store_ingest *in, const caplog_run *run)
{
    engine_run_facts *f = &in->facts;
    engine_run_derive(run, in->o.derive, f);
    store_run_row row = {
        .source = in->o.source,
        .path = in->o.path,
        .content_hash = "", /* bound to the file's hash when written */
        .file_run = (int64_t)in->n_runs,
        .label = in->o.label,
        .model = f->model,
        .model_origin = f->model[0] ? engine_origin_name(f->model_origin) : NULL,
        .model_path = run->args.model_path.has ? run->args.model_path.v : NULL,
        .gpu_inferred = f->gpu_inferred,
        .preset = in->o.preset,
        .reconstructed = in->o.reconstructed,
        .first_line = run->first_line,
        .last_line = run->last_line,
        .lines = (int64_t)run->lines,
        .unknown_lines = (int64_t)run->unknown_lines,
        .truncated_lines = (int64_t)run->truncated_lines,
        .malformed_lines = (int64_t)run->malformed_lines,
        .server_args_raw = run->args.present ? run->args.raw : NULL,
        .attention_backend = f->has_backend ? engine_backend_names[f->backend] : NULL,
        .a2a = f->has_a2a ? (f->a2a == A2A_DEEPEP ? "deepep" : "none") : NULL,
        .target_group = f->target_group,
        .static_gib = f->static_gib,
        .largest_gib = f->largest_gib,
        .buckets_gib = f->buckets_gib,
        .target_total_gib = f->target_total_gib,
        .draft_gib = f->draft_gib,
        .total_gib = f->total_gib,
    };
    /* The column knobs (the GPU) go into runs; at most one text buffer is needed per such knob. */
    char column_text[KNOB_COUNT][ENGINE_NAME_MAX];
    for (int k = 0; k < KNOB_COUNT; k++) {
        if (engine_knobs[k].store != KNOB_STORE_COLUMN)
            continue;
        engine_knob_text(&f->values, NULL, (engine_knob_id)k, KNOB_TEXT_CANONICAL, column_text[k],
                         sizeof column_text[k]);
        row.knob[k] = f->origin[k] ? column_text[k] : NULL;
        row.knob_origin[k] = engine_origin_name(f->origin[k]);
    }
    /* Every knob the run knows, in its knobs record: the knob table says which and how. */
    if (!knobs_record(in, f, &row.knobs))
        return -1;

    /* Its groups, each with its bars, its ranks and env lines: the detail record. */
    store_record *d = &in->detail;
    store_record_begin(d);
    store_record_count(d, run->n_groups);
    for (uint32_t gi = 0; gi < run->n_groups; gi++) {
        const caplog_group *g = &run->groups[gi];
        store_group_row gr = {
            .ordinal = gi,
            .kind = g->kind,
            .role = caplog_role_names[g->role],
            .phase = caplog_phase_names[caplog_group_phase(run, g)],
            .step = g->step,
            .rank_label = g->rank_label,
            .first_line = g->first_line,
            .begin_avail_gib = g->begin_avail_gib,
            .tokens_per_req = g->tokens_per_req,
            .sizes_are_num_tokens = g->sizes_are_num_tokens,
            .sizes = g->n_sizes ? sizes_text(in, g->sizes, g->n_sizes) : NULL,
            .bar_total = g->bar_total,
            .captured = g->captured,
            .has_begin = g->has_begin,
            .has_end = g->has_end,
            .end_elapsed_s = g->end_elapsed_s,
            .end_usage_gib = g->end_usage_gib,
            .end_avail_gib = g->end_avail_gib,
            .failed = g->failed,
            .failure = g->failure,
            .static_gib = g->static_gib,
            .largest_gib = g->largest_gib,
            .buckets_gib = g->buckets_gib,
            .total_gib = g->total_gib,
            .registered_addresses = g->registered_addresses,
        };
        store_record_row(d, &store_groups_table, &gr);
        uint32_t n_bars = g->n_bars < CAPLOG_MAX_BUCKETS ? g->n_bars : CAPLOG_MAX_BUCKETS;
        store_record_count(d, n_bars);
        for (uint32_t b = 0; b < n_bars; b++) {
            const caplog_bar *bar = &g->bars[b];
            store_bar_row br = {
                .ordinal = b,
                .size = bar->size,
                .position = bar->index,
                .counter = bar->counter,
                .avail_gib = bar->avail_gib,
                .increment_gib = bar->increment_gib,
            };
            store_record_row(d, &store_bars_table, &br);
        }
    }
    uint32_t n_ranks = run->n_ranks < CAPLOG_MAX_RANKS ? run->n_ranks : CAPLOG_MAX_RANKS;
    store_record_count(d, n_ranks);
    for (uint32_t ri = 0; ri < n_ranks; ri++) {
        const caplog_rank *r = &run->ranks[ri];
        store_rank_row rr = {
            .ordinal = ri,
            .label = r->label,
            .tp = r->tp,
            .weights_begin_avail_gib = r->weights_begin_avail_gib,
            .weights_end_avail_gib = r->weights_end_avail_gib,
            .weights_usage_gib = r->weights_usage_gib,
            .kv_tokens = r->kv_tokens,
            .kv_gib = r->kv_gib,
            .state_gib = r->state_gib,
            .pool_avail_gib = r->pool_avail_gib,
            .max_total_num_tokens = r->max_total_num_tokens,
            .available_gpu_mem_gib = r->available_gpu_mem_gib,
        };
        store_record_row(d, &store_ranks_table, &rr);
    }
    uint32_t n_env = run->n_env < CAPLOG_MAX_ENV ? run->n_env : CAPLOG_MAX_ENV;
    store_record_count(d, n_env);
    for (uint32_t ei = 0; ei < n_env; ei++) {
        store_env_row er = {.ordinal = ei, .key = run->env[ei].key, .value = run->env[ei].value};
        store_record_row(d, &store_env_table, &er);
    }
    if (d->failed) {
        store_set_err(in->err, sizeof in->err, "%s: out of memory keeping the parsed runs", in->s->path);
        return -1;
    }
    row.detail = (store_bytes){d->p, d->len};
    if (keep_table_row(in, ROW_RUN, &row) != 0)
        return -1;
    if (keep_measured_terms(in, run, f->target_group) != 0)
        return -1;
    return keep_report(in, run, f);
}

static void on_run(const caplog_run *run, void *ctx)
{
    store_ingest *in = ctx;
    if (in->failed || !run_has_content(run))
        return;
    if (keep_run(in, run) != 0)
        in->failed = true;
}

/* Whether the store holds runs known by their SHA-256 alone (stored before schema 7): each file
 * is then hashed both ways, so that a re-ingest of theirs is still found. -1 on error (ERR set). */
static int has_legacy_hashes(store *s, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int has = -1;
    /* a prefix GLOB: SQLite reads it as a range of the index */
    if (sqlite3_prepare_v2(s->db,
                           "SELECT EXISTS (SELECT 1 FROM runs WHERE content_hash GLOB '" STORE_HASH_LEGACY_PREFIX "*')",
                           -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        has = sqlite3_column_int(st, 0) != 0;
    if (has < 0)
        store_db_err(s, err, errlen, "looking for runs of an older store");
    sqlite3_finalize(st);
    return has;
}

store_ingest *store_ingest_begin(store *s, const store_ingest_opts *o, char *err, size_t errlen)
{
    if (s->read_only) {
        store_set_err(err, errlen, "%s is open read-only", s->path);
        return NULL;
    }
    int legacy = has_legacy_hashes(s, err, errlen);
    if (legacy < 0)
        return NULL;
    store_ingest *in = calloc(1, sizeof *in);
    if (!in || store_content_hash_init(&in->hash, legacy) != 0 || !(in->parser = caplog_new())) {
        if (in)
            store_content_hash_free(&in->hash);
        free(in);
        store_set_err(err, errlen, "%s: out of memory", s->path);
        return NULL;
    }
    in->s = s;
    in->o = *o;
    in->bound = o->buffer_bytes ? o->buffer_bytes : STORE_INGEST_BUFFER_BYTES;
    in->report_spill = -1;
    /* a test's small buffer spills the reports early too */
    size_t reports_fit = o->buffer_bytes / sizeof(run_report);
    in->reports_cap = REPORTS_KEPT;
    if (o->buffer_bytes && reports_fit < REPORTS_KEPT)
        in->reports_cap = reports_fit ? reports_fit : 1;
    int late_col[][3] = {
        {ROW_TERM, column_index(&store_measured_terms_table, "run_id"), TAG_RUN_ID},
        {ROW_RUN, column_index(&store_runs_table, "content_hash"), TAG_CONTENT_HASH},
        {ROW_RUN, column_index(&store_runs_table, "created_at"), TAG_CREATED_AT},
    };
    for (size_t i = 0; i < sizeof late_col / sizeof late_col[0]; i++)
        if (late_col[i][1] >= 0)
            in->late_tag[late_col[i][0]][late_col[i][1]] = (unsigned char)late_col[i][2];
    static const char *const repeated[] = {"source", "path", "label", "preset", "model_path"};
    for (size_t i = 0; i < sizeof repeated / sizeof repeated[0]; i++) {
        int col = column_index(&store_runs_table, repeated[i]);
        if (col >= 0)
            in->repeats[ROW_RUN][col] = true;
    }
    for (int k = 0; k < ROW_KINDS; k++)
        for (int c = 0; c < row_tables[k]->n_cols; c++)
            if (row_tables[k]->cols[c].in_texts)
                in->repeats[k][c] = true;
    caplog_set_callback(in->parser, on_run, in);
    return in; /* no lock and no statement yet: the store is touched only when the rows are written */
}

int store_ingest_feed(store_ingest *in, const char *buf, size_t len, char *err, size_t errlen)
{
    if (in->failed || in->finished) {
        store_set_err(err, errlen, "%s", in->err[0] ? in->err : "the ingest is over");
        return -1;
    }
    if (!in->hasher.started)
        hasher_start(&in->hasher, &in->hash);
    hasher_post(&in->hasher, buf, len);
    in->bytes += len;
    caplog_feed(in->parser, buf, len);
    hasher_wait(&in->hasher);
    if (in->failed) {
        store_set_err(err, errlen, "%s", in->err);
        return -1;
    }
    return 0;
}

void store_ingest_hash(store_ingest *in, const char *buf, size_t len)
{
    store_content_hash_update(&in->hash, buf, len);
    in->bytes += len;
}

int store_ingest_apply(store_ingest *in, const caplog_tokens *t, char *err, size_t errlen)
{
    if (in->failed || in->finished) {
        store_set_err(err, errlen, "%s", in->err[0] ? in->err : "the ingest is over");
        return -1;
    }
    caplog_apply(in->parser, t);
    if (in->failed) {
        store_set_err(err, errlen, "%s", in->err);
        return -1;
    }
    return 0;
}

/* ---- Writing the kept rows (under the write lock) ---- */

static int damaged(store_ingest *in)
{
    store_set_err(in->err, sizeof in->err, "%s: the parsed runs kept in %s came back damaged; ingest the file again",
                  in->s->path, in->spill ? in->spill_dir : "memory");
    return -1;
}

/* The run_texts id of the LEN bytes at P (a BLOB, else a TEXT), added when new; 0 on a database
 * error (in->err set). */
static int64_t text_id(store_ingest *in, bool blob, const void *p, size_t len)
{
    sqlite3_stmt **st[2] = {&in->text_find, &in->text_add};
    static const char *const sql[2] = {"SELECT id FROM run_texts WHERE body = ?1",
                                       "INSERT INTO run_texts (body) VALUES (?1)"};
    int64_t id = 0;
    for (int i = 0; i < 2 && id == 0; i++) {
        if (!*st[i] && sqlite3_prepare_v2(in->s->db, sql[i], -1, st[i], NULL) != SQLITE_OK)
            break;
        if (blob)
            sqlite3_bind_blob64(*st[i], 1, p, len, SQLITE_STATIC);
        else
            sqlite3_bind_text(*st[i], 1, p, (int)len, SQLITE_STATIC);
        int rc = sqlite3_step(*st[i]);
        if (rc == SQLITE_ROW)
            id = sqlite3_column_int64(*st[i], 0);
        else if (rc == SQLITE_DONE && i == 1)
            id = sqlite3_last_insert_rowid(in->s->db);
        sqlite3_reset(*st[i]);
        if (rc != SQLITE_ROW && rc != SQLITE_DONE)
            break;
    }
    if (id == 0)
        store_db_err(in->s, in->err, sizeof in->err, "storing a run's server args or knobs");
    return id;
}

/* Binds the record at P (LEN bytes: kind, count, values) to ST from parameter FIRST on.
 * Returns its kind, -1 when it is damaged, -2 on a database error (in->err set). */
static int bind_record(store_ingest *in, sqlite3_stmt *st, int first, const char *p, size_t len)
{
    if (len < 2 || (unsigned char)p[0] >= ROW_KINDS)
        return -1;
    int kind = (unsigned char)p[0];
    int n = (unsigned char)p[1];
    const char *end = p + len;
    p += 2;
    for (int i = first; i < first + n; i++) {
        if (p >= end)
            return -1;
        int tag = (unsigned char)*p++;
        uint64_t u = 0;
        double dv;
        /* a damaged spill file must not lead past the record */
        bool bytes = tag == TAG_TEXT || tag == TAG_BLOB;
        bool seen = tag == TAG_TEXT_SEEN || tag == TAG_BLOB_SEEN;
        if ((tag == TAG_INT || bytes || seen) && !get_varint(&p, end, &u))
            return -1;
        if (seen && u >= in->n_seen)
            return -1;
        if ((tag == TAG_REAL && end - p < 8) || (bytes && u > (uint64_t)(end - p)))
            return -1;
        if ((bytes || seen) && in_texts(kind, i - first)) {
            int64_t *known = seen ? &in->seen[u].text_id : NULL, id = known ? *known : 0;
            if (!id && !(id = text_id(in, tag == TAG_BLOB || tag == TAG_BLOB_SEEN, seen ? in->seen[u].p : p,
                                      seen ? in->seen[u].len : (size_t)u)))
                return -2;
            if (known)
                *known = id;
            sqlite3_bind_int64(st, i, id);
            p += bytes ? u : 0;
            continue;
        }
        if (tag >= TAG_SMALL) {
            sqlite3_bind_int64(st, i, tag - TAG_SMALL);
            continue;
        }
        switch (tag) {
        case TAG_INT:
            sqlite3_bind_int64(st, i, store_unzigzag(u));
            break;
        case TAG_REAL:
            memcpy(&dv, p, 8);
            p += 8;
            sqlite3_bind_double(st, i, dv);
            break;
        case TAG_TEXT: /* the record outlives the step: no copy */
            sqlite3_bind_text(st, i, p, (int)u, SQLITE_STATIC);
            p += u;
            break;
        case TAG_BLOB:
            sqlite3_bind_blob64(st, i, p, u, SQLITE_STATIC);
            p += u;
            break;
        case TAG_RUN_ID:
            sqlite3_bind_int64(st, i, in->run_id);
            break;
        case TAG_CONTENT_HASH:
            sqlite3_bind_text(st, i, in->content_hash, -1, SQLITE_STATIC);
            break;
        case TAG_CREATED_AT:
            sqlite3_bind_text(st, i, in->created_at, -1, SQLITE_STATIC);
            break;
        case TAG_TEXT_SEEN:
            sqlite3_bind_text(st, i, in->seen[u].p, (int)in->seen[u].len, SQLITE_STATIC);
            break;
        case TAG_BLOB_SEEN:
            sqlite3_bind_blob64(st, i, in->seen[u].p, in->seen[u].len, SQLITE_STATIC);
            break;
        default:
            sqlite3_bind_null(st, i);
            break;
        }
    }
    return p == end ? kind : -1;
}

/* The INSERT of N rows of KIND, prepared on first use. In the ingest's own transaction it is an
 * INSERT OR ROLLBACK: any failure voids the whole file anyway, and a statement that cannot
 * abort alone needs no statement journal (with one, a multi-row INSERT of runs, about 2 KiB
 * each, copied the 64 KiB pages it appends to into a temporary file first; the measured terms,
 * a foreign key's children, keep one still, but they are a few per hooked run). Inside a
 * migration (the seed) a plain INSERT: a failure leaves the migration's transaction to its
 * caller. */
static sqlite3_stmt *insert_statement(store_ingest *in, int kind, int n)
{
    sqlite3_stmt **st = &in->ins[kind][n - 1];
    if (*st)
        return *st;
    size_t len = 4096 + (size_t)n * 2048; /* a row's text is under 1 KiB */
    char *sql = malloc(len);
    if (sql) {
        /* created_at is bound (TAG_CREATED_AT): its default, strftime('now'), in the INSERT made
         * SQLite keep a statement journal for it all the same */
        unsigned how = STORE_INSERT_NO_DEFAULTS | (in->s->in_transaction ? 0 : STORE_INSERT_OR_ROLLBACK);
        store_insert_rows_sql(row_tables[kind], n, how, sql, len);
        if (sqlite3_prepare_v2(in->s->db, sql, -1, st, NULL) != SQLITE_OK) {
            sqlite3_finalize(*st);
            *st = NULL;
        }
    }
    free(sql);
    if (!*st)
        store_db_err(in->s, in->err, sizeof in->err, "preparing the ingest");
    return *st;
}

/* Writes the N records of one KIND at P (whole, one after another), in one INSERT. */
static int write_batch(store_ingest *in, int kind, const char *p, int n)
{
    sqlite3_stmt *st = insert_statement(in, kind, n);
    if (!st)
        return -1;
    int first = 1;
    for (int r = 0; r < n; r++) {
        uint32_t rlen;
        memcpy(&rlen, p, 4);
        int got = bind_record(in, st, first, p + 4, rlen - 4);
        if (got == -2)
            return -1;
        if (got != kind)
            return damaged(in);
        first += (unsigned char)p[5];
        p += rlen;
    }
    if (first - 1 != sqlite3_bind_parameter_count(st))
        return damaged(in); /* a record with another count of values than its table's */
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        static const char *const what[ROW_KINDS] = {
            "storing a run",
            "storing a measured term",
        };
        store_db_err(in->s, in->err, sizeof in->err, what[kind]);
        return -1;
    }
    if (kind == ROW_RUN) {
        /* the write lock is ours and AUTOINCREMENT takes the next id for each row: the N runs
         * have the N ids up to the last one */
        in->run_id = sqlite3_last_insert_rowid(in->s->db);
        int64_t batch_first = in->run_id - (n - 1);
        if (in->n_written == 0)
            in->first_run_id = batch_first;
        if (sqlite3_changes(in->s->db) != n || in->n_written + (size_t)n > in->n_runs ||
            batch_first != in->first_run_id + (int64_t)in->n_written)
            return damaged(in); /* the ids are one range, as the reports' ids are counted from it */
        in->n_written += (size_t)n;
    }
    return 0;
}

/* Writes the whole records in P (LEN bytes); *DONE gets how many bytes they take. */
static int write_records(store_ingest *in, const char *p, size_t len, size_t *done)
{
    size_t off = 0;
    while (len - off >= 6) {
        uint32_t rlen;
        memcpy(&rlen, p + off, 4);
        if (rlen < 6)
            return damaged(in);
        if (len - off < rlen)
            break;
        int kind = (unsigned char)p[off + 4];
        if (kind >= ROW_KINDS)
            return damaged(in);
        /* the records of KIND that follow, whole, up to its batch (a run's terms end its batch:
         * they take its id) */
        size_t next = off + rlen;
        int n = 1;
        while (n < batch_rows[kind] && len - next >= 6) {
            uint32_t nlen;
            memcpy(&nlen, p + next, 4);
            if (nlen < 6 || len - next < nlen || (unsigned char)p[next + 4] != kind)
                break;
            next += nlen;
            n++;
        }
        if (write_batch(in, kind, p + off, n) != 0)
            return -1;
        off = next;
    }
    *done = off;
    return 0;
}

/* The spilled records, then the buffer's. */
static int write_rows(store_ingest *in)
{
    size_t done;
    if (in->spill) {
        if (fflush(in->spill) != 0 || fseek(in->spill, 0, SEEK_SET) != 0)
            return spill_error(in, errno);
        size_t cap = (size_t)1 << 20, have = 0;
        char *rb = malloc(cap);
        uint64_t left = in->spilled;
        while (rb && (left > 0 || have > 0)) {
            size_t want = cap - have < left ? cap - have : (size_t)left;
            size_t got = want ? fread(rb + have, 1, want, in->spill) : 0;
            if (want && got == 0) {
                free(rb);
                return spill_error(in, ferror(in->spill) ? errno : EIO);
            }
            left -= got;
            have += got;
            if (write_records(in, rb, have, &done) != 0) {
                free(rb);
                return -1;
            }
            memmove(rb, rb + done, have - done);
            have -= done;
            if (have > 0 && done == 0) { /* a record longer than the read buffer */
                uint32_t rlen;
                memcpy(&rlen, rb, 4);
                if (left == 0 || rlen <= cap) {
                    free(rb);
                    return damaged(in);
                }
                char *bigger = realloc(rb, rlen);
                if (!bigger)
                    break;
                rb = bigger;
                cap = rlen;
            }
        }
        if (!rb || left > 0 || have > 0) {
            free(rb);
            store_set_err(in->err, sizeof in->err, "%s: out of memory writing the parsed runs", in->s->path);
            return -1;
        }
        free(rb);
    }
    if (write_records(in, in->buf, in->used, &done) != 0)
        return -1;
    if (done != in->used || in->n_written != in->n_runs)
        return damaged(in);
    return 0;
}

/* The id of a run already stored from the same bytes, 0 if none, -1 on error (ERR set). */
static int64_t stored_copy(store_ingest *in, char *err, size_t errlen)
{
    sqlite3_stmt *st = NULL;
    int64_t id = -1;
    if (sqlite3_prepare_v2(in->s->db, "SELECT min(id) FROM runs WHERE content_hash IN (?1, ?2)", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, in->content_hash, -1, SQLITE_STATIC);
        if (in->legacy_hash[0])
            sqlite3_bind_text(st, 2, in->legacy_hash, -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW)
            id = sqlite3_column_type(st, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(st, 0);
    }
    if (id < 0)
        store_db_err(in->s, err, errlen, "looking for a stored copy");
    sqlite3_finalize(st);
    return id;
}

/* The time of the write, as runs.created_at's default gives it: one for all the file's runs. */
static int take_created_at(store_ingest *in)
{
    const store_column *c = &store_runs_table.cols[column_index(&store_runs_table, "created_at")];
    char sql[256];
    snprintf(sql, sizeof sql, "SELECT %s", c->null_default);
    sqlite3_stmt *st = NULL;
    int rc = -1;
    if (sqlite3_prepare_v2(in->s->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW &&
        sqlite3_column_text(st, 0)) {
        snprintf(in->created_at, sizeof in->created_at, "%s", (const char *)sqlite3_column_text(st, 0));
        rc = 0;
    } else {
        store_db_err(in->s, in->err, sizeof in->err, "reading the clock");
    }
    sqlite3_finalize(st);
    return rc;
}

static void finalize_inserts(store_ingest *in)
{
    for (int k = 0; k < ROW_KINDS; k++)
        for (int n = 0; n < MAX_BATCH_ROWS; n++) {
            sqlite3_finalize(in->ins[k][n]);
            in->ins[k][n] = NULL;
        }
    sqlite3_finalize(in->text_find);
    sqlite3_finalize(in->text_add);
    in->text_find = in->text_add = NULL;
}

/* Takes the write lock, checks again for a copy (another cgplan may have stored the same bytes
 * meanwhile), writes every row and commits. Inside a migration (the seed) its transaction is
 * joined instead. Returns 0 (RES->duplicate_of set for a copy) or -1 with ERR. */
static int write_file(store_ingest *in, store_ingest_result *res, char *err, size_t errlen)
{
    bool own = !in->s->in_transaction;
    if (own && sqlite3_exec(in->s->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK) {
        store_db_err(in->s, err, errlen, "taking the write lock");
        size_t used = strlen(err);
        snprintf(err + used, errlen - used, "; nothing of this file was stored");
        return -1;
    }
    int64_t copy = stored_copy(in, err, errlen);
    int rc = -1;
    if (copy > 0) {
        res->duplicate_of = copy;
        rc = 0;
    } else if (copy == 0) {
        if (take_created_at(in) == 0 && write_rows(in) == 0)
            rc = 0;
        finalize_inserts(in);
        if (rc == 0) {
            res->n_runs = in->n_runs;
            res->first_run_id = in->n_runs ? in->first_run_id : 0;
            if (in->o.written)
                in->o.written(in, res, in->o.written_ctx);
        }
        if (rc != 0)
            store_set_err(err, errlen, "%s", in->err);
    }
    if (own) {
        if (rc == 0 && copy == 0 && sqlite3_exec(in->s->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
            store_db_err(in->s, err, errlen, "committing the runs");
            rc = -1;
        }
        if (rc != 0 || copy > 0)
            sqlite3_exec(in->s->db, "ROLLBACK", NULL, NULL, NULL);
    } /* else a failure rolls the migration's whole transaction back (its caller) */
    return rc;
}

int store_ingest_finish(store_ingest *in, store_ingest_result *res, char *err, size_t errlen)
{
    memset(res, 0, sizeof *res);
    if (in->finished) {
        store_set_err(err, errlen, "the ingest is over");
        return -1;
    }
    caplog_finish(in->parser);
    hasher_stop(&in->hasher);
    in->finished = true;
    res->bytes = in->bytes;
    res->lines = caplog_lines_read(in->parser);
    res->recognised = caplog_recognised(in->parser);
    store_content_hash_final(&in->hash, in->content_hash, in->legacy_hash);
    memcpy(res->content_hash, in->content_hash, sizeof res->content_hash);
    if (in->failed) {
        store_set_err(err, errlen, "%s", in->err);
        return -1;
    }
    if (!res->recognised || in->n_runs == 0) {
        res->recognised = false;
        return 1;
    }
    /* A copy already stored is reported without waiting for the write lock. */
    int64_t copy = in->s->in_transaction ? 0 : stored_copy(in, err, errlen);
    if (copy < 0)
        return -1;
    if (copy > 0) {
        res->duplicate_of = copy;
        return 0;
    }
    return write_file(in, res, err, errlen) != 0 ? -1 : 0;
}

void store_ingest_free(store_ingest *in)
{
    if (!in)
        return;
    finalize_inserts(in);
    hasher_stop(&in->hasher);
    store_content_hash_free(&in->hash);
    caplog_free(in->parser);
    if (in->spill)
        fclose(in->spill);
    free(in->buf);
    store_record_free(&in->knobs);
    for (int i = 0; i < KNOBS_MEMO_SLOTS; i++)
        free(in->knobs_memo[i].bytes);
    store_record_free(&in->detail);
    if (in->report_spill >= 0)
        close(in->report_spill);
    free(in->reports);
    free(in->deployments);
    free(in->deployment_slots);
    for (size_t i = 0; i < in->n_seen; i++)
        free(in->seen[i].p);
    free(in->seen);
    free(in);
}

/* ---- The seed: the article's two runs, each with its deployment preset's knobs ---- */

int store_seed(store *s, store_seed_context_fn fn, void *arg, char *err, size_t errlen)
{
    for (const store_seed_log *seed = store_seed_logs; seed->text; seed++) {
        engine_run_context ctx;
        memset(&ctx, 0, sizeof ctx);
        char why[ENGINE_TEXT_MAX * 2];
        if (fn(arg, seed, &ctx, why, sizeof why) != 0) {
            store_set_err(err, errlen, "%s: seeding the new store: %s", s->path, why);
            return -1;
        }
        store_ingest_opts o = {
            .source = seed->file_name,
            .label = seed->label,
            .preset = seed->preset,
            .reconstructed = true,
            .derive = &ctx,
        };
        store_ingest *in = store_ingest_begin(s, &o, err, errlen);
        store_ingest_result res;
        int rc = 0;
        if (!in || store_ingest_feed(in, seed->text, seed->len, err, errlen) != 0)
            rc = -1;
        else if ((rc = store_ingest_finish(in, &res, err, errlen)) == 1) {
            store_set_err(err, errlen, "%s: seeding the new store: %s holds no run", s->path, seed->file_name);
            rc = -1;
        }
        store_ingest_free(in);
        if (rc != 0)
            return -1;
    }
    return 0;
}
