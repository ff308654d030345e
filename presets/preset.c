/* preset.c — the libyaml loader (YAML presets into engine structs) and the catalog of built-in
 * and user presets.
 *
 * Every file is parsed once, when the catalog is opened, into the engine struct of its kind; a
 * deployment keeps its model and GPU as names and is resolved against the catalog when it is
 * loaded. Knob keys go through the engine's knob table (engine_knob_set_text), so YAML and --set
 * share one parser and one set of range rules. Every error is one line
 * "FILE:LINE:COLUMN: what was wrong; what was expected". */
#include "preset.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <yaml.h>

#define PRESET_MSG_MAX 1024                  /* one message line, file:line:col included */
#define PRESET_LIST_MAX (PRESET_MSG_MAX / 2) /* an "a, b, c" list inside a message, leaving room for the rest */
#define PRESET_PHRASE_MAX 160                /* one clause of a message ("an integer in 1..1024", libyaml's context) */
#define PRESET_FILE_MAX ((size_t)1 << 20)    /* a preset is a few hundred bytes; refuse junk */
#define PRESET_MAX_KEYS 40                   /* the most keys a mapping takes: the deployment's (asserted below) */
#define PRESET_PREVIEW 48                    /* characters of an offending value quoted in a message */
#define PRESET_QUOTED_MAX (PRESET_PREVIEW + 8) /* a preview, its quotes, "..." and the NUL */
#define PRESET_SUFFIX ".yaml"
#define PRESET_SUFFIX_LEN (sizeof PRESET_SUFFIX - 1)
#define ASCII_DEL 0x7f                        /* the one control character above the space */
#define SIZE_FRAC_DEN_MAX 1000000000000000ull /* 10^15: 15 fraction digits are exact in a double */
#define MODEL_KV_BYTES_DEFAULT 2              /* BF16 KV */
#define MODEL_KV_BYTES_MAX 8                  /* the widest element (FP64); more is a typo */
#define MODEL_DRAFT_LAYERS_MAX 64             /* an MTP draft has a layer or a few (K3: 1); more is a typo */
#define KNOB_ITEM_MAX 64 /* one list item as "[N]" for the engine: a batch size has a few digits, more is refused */
#define CATALOG_INITIAL_ITEMS 16   /* room for the built-in presets before the first realloc */
#define CATALOG_INITIAL_PROBLEMS 4 /* a broken file is rare */
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

static const char *const kind_names[] = {"model", "gpu", "deployment"};
static const char *const a2a_names[] = {"deepep", "none"};   /* indexed by engine_a2a */
static const char *const attn_kind_names[] = {"mla", "gqa"}; /* indexed by engine_attn_kind */
_Static_assert(COUNT_OF(kind_names) == PRESET_DEPLOYMENT + 1, "kind_names is indexed by preset_kind");
_Static_assert(COUNT_OF(a2a_names) == A2A_NONE + 1, "a2a_names is indexed by engine_a2a");
_Static_assert(COUNT_OF(attn_kind_names) == ATTN_GQA + 1, "attn_kind_names is indexed by engine_attn_kind");

/* ---- What the catalog keeps per file. ---- */

typedef struct {
    size_t line, col; /* 1-based */
} preset_mark;

typedef struct {
    char model[ENGINE_NAME_MAX], gpu[ENGINE_NAME_MAX];
    preset_mark model_mark, gpu_mark; /* where the names stand, for "names no preset" */
    bool has_context_len;             /* else the model's context_len applies */
    bool coef_set[COEF_COUNT];        /* the deployment's own coefficient overrides */
    uint64_t coef[COEF_COUNT];
    engine_deployment d; /* knobs, backend, a2a, sizes; model and GPU are filled at load */
} parsed_deployment;

typedef struct {
    preset_entry entry;
    char *origin;              /* untruncated, for messages */
    preset_mark kind_mark;     /* where `kind:` stands, for "expected a deployment" */
    bool coef_own[COEF_COUNT]; /* models: the coefficients the file gives */
    union {
        engine_model model;
        engine_gpu gpu;
        parsed_deployment dep;
    } u;
} preset_item;

typedef struct {
    char *name; /* the file's stem ("" when no preset can be named, e.g. an unreadable directory) */
    char *message;
} preset_problem;

struct preset_catalog {
    preset_item *items;
    size_t n_items, cap_items;
    preset_problem *problems;
    size_t n_problems, cap_problems;
};

/* ---- Messages. ---- */

static void copy_text(char *dst, size_t cap, const char *src)
{
    if (dst && cap)
        snprintf(dst, cap, "%s", src);
}

/* SRC into DST with control characters escaped, so a value quoted in a message (a quoted
 * scalar may hold a newline) cannot break the one-line rule. */
static void one_line(char *dst, size_t cap, const char *src)
{
    size_t used = 0;
    if (!dst || !cap)
        return;
    for (const unsigned char *s = (const unsigned char *)src; *s && used + 1 < cap; s++) {
        if (*s >= ' ' && *s != ASCII_DEL) {
            dst[used++] = (char)*s;
            continue;
        }
        char esc[sizeof "\\xff"];
        int w = *s == '\n'   ? snprintf(esc, sizeof esc, "\\n")
                : *s == '\t' ? snprintf(esc, sizeof esc, "\\t")
                             : snprintf(esc, sizeof esc, "\\x%02x", *s);
        if (used + (size_t)w + 1 > cap)
            break;
        memcpy(dst + used, esc, (size_t)w);
        used += (size_t)w;
    }
    dst[used] = '\0';
}

/* Every message leaves here: one line, whatever the input held. */
static int set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int set_err(char *err, size_t errlen, const char *fmt, ...)
{
    if (err && errlen) {
        char line[PRESET_MSG_MAX];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line, sizeof line, fmt, ap);
        va_end(ap);
        one_line(err, errlen, line);
    }
    return -1;
}

/* "a, b, c" into BUF. */
static void join_names(const char *const *names, size_t n, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n && used < len; i++) {
        int w = snprintf(buf + used, len - used, "%s%s", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
}

/* ---- Sizes. ---- */

int preset_parse_size(const char *text, uint64_t *out)
{
    static const struct {
        const char *unit;
        uint64_t mult;
    } units[] = {{"B", 1},
                 {"KiB", (uint64_t)1 << 10},
                 {"MiB", (uint64_t)1 << 20},
                 {"GiB", (uint64_t)1 << 30},
                 {"TiB", (uint64_t)1 << 40}};
    if (!text || !out)
        return -1;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    if (!isdigit((unsigned char)*p))
        return -1; /* also rejects a sign */
    uint64_t whole = 0;
    for (; isdigit((unsigned char)*p); p++) {
        unsigned digit = (unsigned)(*p - '0');
        if (whole > (UINT64_MAX - digit) / 10)
            return -1;
        whole = whole * 10 + digit;
    }
    /* The fraction as an integer over a power of ten: no strtod, so no locale decimal point. */
    uint64_t frac = 0, frac_den = 1;
    bool has_frac = false;
    if (*p == '.') {
        p++;
        if (!isdigit((unsigned char)*p))
            return -1;
        has_frac = true;
        for (; isdigit((unsigned char)*p); p++)
            if (frac_den < SIZE_FRAC_DEN_MAX) {
                frac = frac * 10 + (uint64_t)(*p - '0');
                frac_den *= 10;
            }
    }
    while (isspace((unsigned char)*p))
        p++;
    const char *unit = p;
    while (isalpha((unsigned char)*p))
        p++;
    size_t unit_len = (size_t)(p - unit);
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return -1;
    uint64_t mult = 0;
    if (unit_len == 0) {
        if (has_frac)
            return -1; /* a bare number is a byte count: an integer */
        mult = 1;
    } else {
        for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
            if (strlen(units[i].unit) == unit_len && strncasecmp(unit, units[i].unit, unit_len) == 0)
                mult = units[i].mult;
        if (!mult)
            return -1;
    }
    if (whole > UINT64_MAX / mult)
        return -1;
    uint64_t v = whole * mult;
    if (frac) {
        double part = (double)frac / (double)frac_den * (double)mult; /* < mult <= 2^40 */
        uint64_t r = (uint64_t)floor(part + 0.5);
        if (v > UINT64_MAX - r)
            return -1;
        v += r;
    }
    *out = v;
    return 0;
}

/* ---- Parsing one document. ---- */

typedef struct {
    const char *origin;
    char *msg;
    size_t msglen;
    yaml_document_t doc;
} pctx;

static preset_mark to_mark(yaml_mark_t m)
{
    preset_mark r = {m.line + 1, m.column + 1};
    return r;
}

static int perr(pctx *p, yaml_mark_t at, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int perr(pctx *p, yaml_mark_t at, const char *fmt, ...)
{
    char what[PRESET_MSG_MAX];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return set_err(p->msg, p->msglen, "%s:%zu:%zu: %s", p->origin, at.line + 1, at.column + 1, what);
}

static yaml_node_t *node_at(pctx *p, int index)
{
    return yaml_document_get_node(&p->doc, index);
}

static const char *scalar_text(const yaml_node_t *n)
{
    return (const char *)n->data.scalar.value;
}

/* The offending value as quoted in a message: the scalar (cut short) or what it is instead. */
static const char *describe(const yaml_node_t *n, char *buf, size_t len)
{
    if (n->type == YAML_SEQUENCE_NODE)
        return "a list";
    if (n->type == YAML_MAPPING_NODE)
        return "a mapping";
    const char *s = scalar_text(n);
    if (!*s)
        return "nothing";
    snprintf(buf, len, "'%.*s%s'", PRESET_PREVIEW, s, strlen(s) > PRESET_PREVIEW ? "..." : "");
    return buf;
}

static int expect_scalar(pctx *p, const yaml_node_t *n, const char *key, const char *expected)
{
    char buf[PRESET_QUOTED_MAX];
    if (n->type != YAML_SCALAR_NODE)
        return perr(p, n->start_mark, "%s: got %s; expected %s", key, describe(n, buf, sizeof buf), expected);
    if (strlen(scalar_text(n)) != n->data.scalar.length)
        return perr(p, n->start_mark, "%s: the value contains a NUL character; expected %s", key, expected);
    return 0;
}

/* Reads the pairs of mapping MAP into VALS (indexed like KEYS); an unknown or repeated key is an
 * error that lists the keys WHAT allows. */
static int collect(pctx *p, yaml_node_t *map, const char *what, const char *const *keys, size_t nkeys,
                   yaml_node_t **vals)
{
    yaml_node_t *key_nodes[PRESET_MAX_KEYS] = {0};
    char allowed[PRESET_LIST_MAX];
    if (nkeys > PRESET_MAX_KEYS)
        abort(); /* a programming error: raise PRESET_MAX_KEYS */
    for (size_t i = 0; i < nkeys; i++)
        vals[i] = NULL;
    join_names(keys, nkeys, allowed, sizeof allowed);
    if (map->type != YAML_MAPPING_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return perr(p, map->start_mark, "%s: got %s; expected a mapping of: %s", what, describe(map, buf, sizeof buf),
                    allowed);
    }
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = node_at(p, pair->key), *v = node_at(p, pair->value);
        if (k->type != YAML_SCALAR_NODE)
            return perr(p, k->start_mark, "a key in %s is not a name; expected one of: %s", what, allowed);
        const char *name = scalar_text(k);
        size_t i = 0;
        while (i < nkeys && strcmp(keys[i], name) != 0)
            i++;
        if (i == nkeys)
            return perr(p, k->start_mark, "unknown key '%.*s' in %s; expected one of: %s", PRESET_PREVIEW, name, what,
                        allowed);
        if (vals[i])
            return perr(p, k->start_mark, "key '%s' appears twice in %s (first at line %zu); expected it once", name,
                        what, key_nodes[i]->start_mark.line + 1);
        key_nodes[i] = k;
        vals[i] = v;
    }
    return 0;
}

/* A required key: missing is an error located at the start of the mapping. */
static int need(pctx *p, const yaml_node_t *map, const char *what, const char *key, const yaml_node_t *val,
                const char *hint)
{
    if (val)
        return 0;
    return perr(p, map->start_mark, "%s has no '%s' key; expected %s: %s", what, key, key, hint);
}

/* The value of KEY in MAP without the full key check (for `kind`, which selects the key set). */
static yaml_node_t *peek(pctx *p, yaml_node_t *map, const char *key)
{
    if (map->type != YAML_MAPPING_NODE)
        return NULL;
    for (yaml_node_pair_t *pair = map->data.mapping.pairs.start; pair < map->data.mapping.pairs.top; pair++) {
        yaml_node_t *k = node_at(p, pair->key);
        if (k->type == YAML_SCALAR_NODE && strcmp(scalar_text(k), key) == 0)
            return node_at(p, pair->value);
    }
    return NULL;
}

/* Getters: an absent (NULL) node leaves OUT alone and succeeds; required keys are checked by
 * need() first. */

static int get_u64(pctx *p, const yaml_node_t *n, const char *key, uint64_t min, uint64_t max, uint64_t *out)
{
    char expected[PRESET_PHRASE_MAX];
    if (max == UINT64_MAX || max == UINT32_MAX)
        snprintf(expected, sizeof expected, "an integer of at least %llu", (unsigned long long)min);
    else
        snprintf(expected, sizeof expected, "an integer in %llu..%llu", (unsigned long long)min,
                 (unsigned long long)max);
    if (!n)
        return 0;
    if (expect_scalar(p, n, key, expected))
        return -1;
    const char *s = scalar_text(n);
    bool ok = isdigit((unsigned char)s[0]);
    uint64_t v = 0;
    for (const char *q = s; ok && *q; q++) {
        unsigned digit = (unsigned)(*q - '0');
        if (!isdigit((unsigned char)*q) || v > (UINT64_MAX - digit) / 10)
            ok = false;
        else
            v = v * 10 + digit;
    }
    if (!ok || v < min || v > max) {
        char buf[PRESET_QUOTED_MAX];
        return perr(p, n->start_mark, "%s: got %s; expected %s", key, describe(n, buf, sizeof buf), expected);
    }
    *out = v;
    return 0;
}

static int get_u32(pctx *p, const yaml_node_t *n, const char *key, uint32_t min, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    if (!n)
        return 0;
    if (get_u64(p, n, key, min, max, &v))
        return -1;
    *out = (uint32_t)v;
    return 0;
}

static int get_size(pctx *p, const yaml_node_t *n, const char *key, uint64_t *out)
{
    static const char expected[] = "a byte count or a number with a unit B, KiB, MiB, GiB or TiB (like 150 GiB)";
    if (!n)
        return 0;
    if (expect_scalar(p, n, key, expected))
        return -1;
    if (preset_parse_size(scalar_text(n), out) != 0) {
        char buf[PRESET_QUOTED_MAX];
        return perr(p, n->start_mark, "%s: got %s; expected %s", key, describe(n, buf, sizeof buf), expected);
    }
    return 0;
}

static int get_bool(pctx *p, const yaml_node_t *n, const char *key, bool *out)
{
    if (!n)
        return 0;
    if (expect_scalar(p, n, key, "true or false"))
        return -1;
    const char *s = scalar_text(n);
    if (strcasecmp(s, "true") == 0)
        *out = true;
    else if (strcasecmp(s, "false") == 0)
        *out = false;
    else {
        char buf[PRESET_QUOTED_MAX];
        return perr(p, n->start_mark, "%s: got %s; expected true or false", key, describe(n, buf, sizeof buf));
    }
    return 0;
}

static int get_text(pctx *p, const yaml_node_t *n, const char *key, char *out, size_t cap)
{
    char expected[PRESET_PHRASE_MAX];
    snprintf(expected, sizeof expected, "a text of at most %zu bytes", cap - 1);
    if (!n)
        return 0;
    if (expect_scalar(p, n, key, expected))
        return -1;
    if (n->data.scalar.length >= cap)
        return perr(p, n->start_mark, "%s: the value is %zu bytes long; expected %s", key, n->data.scalar.length,
                    expected);
    memcpy(out, scalar_text(n), n->data.scalar.length + 1);
    return 0;
}

static int get_choice(pctx *p, const yaml_node_t *n, const char *key, const char *const *names, size_t count, int *out)
{
    char allowed[PRESET_LIST_MAX];
    join_names(names, count, allowed, sizeof allowed);
    if (!n)
        return 0;
    if (expect_scalar(p, n, key, allowed))
        return -1;
    for (size_t i = 0; i < count; i++)
        if (strcmp(scalar_text(n), names[i]) == 0) {
            *out = (int)i;
            return 0;
        }
    char buf[PRESET_QUOTED_MAX];
    return perr(p, n->start_mark, "%s: got %s; expected one of: %s", key, describe(n, buf, sizeof buf), allowed);
}

/* `coefficients:` (models and deployments): any of engine_coef_names, each a size. */
static int parse_coefficients(pctx *p, yaml_node_t *map, bool set[COEF_COUNT], uint64_t coef[COEF_COUNT])
{
    yaml_node_t *v[COEF_COUNT];
    if (!map)
        return 0;
    if (collect(p, map, "coefficients", engine_coef_names, COEF_COUNT, v))
        return -1;
    for (int i = 0; i < COEF_COUNT; i++)
        if (v[i]) {
            if (get_size(p, v[i], engine_coef_names[i], &coef[i]))
                return -1;
            set[i] = true;
        }
    return 0;
}

/* ---- model ---- */

enum {
    M_KIND,
    M_NAME,
    M_DESCRIPTION,
    M_HF_NAMES,
    M_VOCAB,
    M_HIDDEN,
    M_LAYERS,
    M_CONTEXT_LEN,
    M_ATTENTION,
    M_MOE,
    M_LINEAR_STATE,
    M_DRAFT_LAYERS,
    M_COEFFICIENTS,
    M_COUNT
};
static const char *const model_keys[M_COUNT] = {
    "kind",
    "name",
    "description",
    "hf_names",
    "vocab",
    "hidden",
    "layers",
    "context_len",
    "attention",
    "moe",
    "linear_state_bytes_per_request",
    "draft_layers",
    "coefficients",
};

enum {
    A_KIND,
    A_HEADS,
    A_KV_BYTES,
    A_FULL_ATTN_LAYERS,
    A_KV_LORA_RANK,
    A_QK_ROPE_DIM,
    A_KV_HEADS,
    A_HEAD_DIM,
    A_COUNT
};
/* Both kinds take the first ATTN_SHARED_KEYS keys, then two of their own: MLA the next two, GQA
 * the last two. */
enum { ATTN_SHARED_KEYS = A_KV_LORA_RANK, ATTN_KIND_KEYS = ATTN_SHARED_KEYS + 2 };
static const char *const mla_keys[ATTN_KIND_KEYS] = {"kind",         "heads",      "kv_bytes", "full_attn_layers",
                                                     "kv_lora_rank", "qk_rope_dim"};
static const char *const gqa_keys[ATTN_KIND_KEYS] = {"kind",     "heads",   "kv_bytes", "full_attn_layers",
                                                     "kv_heads", "head_dim"};

enum { E_NUM_EXPERTS, E_DISPATCH_HIDDEN, E_MOE_INTERMEDIATE, E_TOP_K, E_COUNT };
static const char *const moe_keys[E_COUNT] = {"num_experts", "dispatch_hidden", "moe_intermediate", "top_k"};

static int parse_hf_names(pctx *p, yaml_node_t *n, engine_model *m)
{
    char expected[PRESET_PHRASE_MAX];
    snprintf(expected, sizeof expected, "a list of at most %d Hugging Face names like [org/Model]",
             ENGINE_MAX_HF_NAMES);
    if (!n)
        return 0;
    if (n->type == YAML_SCALAR_NODE) { /* one name without brackets */
        if (get_text(p, n, "hf_names", m->hf_names[0], sizeof m->hf_names[0]))
            return -1;
        m->n_hf_names = 1;
        return 0;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return perr(p, n->start_mark, "hf_names: got %s; expected %s", describe(n, buf, sizeof buf), expected);
    }
    m->n_hf_names = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = node_at(p, *it);
        if (m->n_hf_names == ENGINE_MAX_HF_NAMES)
            return perr(p, item->start_mark, "hf_names: more than %d names; expected %s", ENGINE_MAX_HF_NAMES,
                        expected);
        if (get_text(p, item, "hf_names", m->hf_names[m->n_hf_names], sizeof m->hf_names[0]))
            return -1;
        if (!m->hf_names[m->n_hf_names][0])
            return perr(p, item->start_mark, "hf_names: an empty name; expected %s", expected);
        m->n_hf_names++;
    }
    return 0;
}

static int parse_attention(pctx *p, yaml_node_t *map, engine_model *m)
{
    if (map->type != YAML_MAPPING_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return perr(p, map->start_mark, "attention: got %s; expected a mapping with kind: mla or gqa",
                    describe(map, buf, sizeof buf));
    }
    yaml_node_t *kind_node = peek(p, map, "kind");
    int kind = ATTN_MLA;
    if (need(p, map, "attention", "kind", kind_node, "mla or gqa"))
        return -1;
    if (get_choice(p, kind_node, "attention kind", attn_kind_names, COUNT_OF(attn_kind_names), &kind))
        return -1;
    yaml_node_t *got[ATTN_KIND_KEYS], *v[A_COUNT] = {0};
    bool mla = kind == ATTN_MLA;
    const char *what = mla ? "attention (kind: mla)" : "attention (kind: gqa)";
    if (collect(p, map, what, mla ? mla_keys : gqa_keys, ATTN_KIND_KEYS, got))
        return -1;
    for (int i = 0; i < ATTN_SHARED_KEYS; i++)
        v[i] = got[i];
    v[mla ? A_KV_LORA_RANK : A_KV_HEADS] = got[ATTN_SHARED_KEYS];
    v[mla ? A_QK_ROPE_DIM : A_HEAD_DIM] = got[ATTN_SHARED_KEYS + 1];
    if (need(p, map, what, "heads", v[A_HEADS], "the query heads (num_attention_heads)"))
        return -1;
    if (mla && (need(p, map, what, "kv_lora_rank", v[A_KV_LORA_RANK], "an integer (config kv_lora_rank)") ||
                need(p, map, what, "qk_rope_dim", v[A_QK_ROPE_DIM], "an integer (config qk_rope_head_dim)")))
        return -1;
    if (!mla && (need(p, map, what, "kv_heads", v[A_KV_HEADS], "an integer (num_key_value_heads)") ||
                 need(p, map, what, "head_dim", v[A_HEAD_DIM], "an integer (head_dim)")))
        return -1;
    m->attn_kind = (engine_attn_kind)kind;
    m->kv_bytes = MODEL_KV_BYTES_DEFAULT;
    m->full_attn_layers = m->layers; /* every layer holds KV unless said otherwise */
    if (get_u32(p, v[A_HEADS], "heads", 1, UINT32_MAX, &m->heads) ||
        get_u32(p, v[A_KV_BYTES], "kv_bytes", 1, MODEL_KV_BYTES_MAX, &m->kv_bytes) ||
        get_u32(p, v[A_FULL_ATTN_LAYERS], "full_attn_layers", 0, m->layers, &m->full_attn_layers) ||
        get_u32(p, v[A_KV_LORA_RANK], "kv_lora_rank", 1, UINT32_MAX, &m->kv_lora_rank) ||
        get_u32(p, v[A_QK_ROPE_DIM], "qk_rope_dim", 0, UINT32_MAX, &m->qk_rope_dim) ||
        get_u32(p, v[A_KV_HEADS], "kv_heads", 1, m->heads, &m->kv_heads) ||
        get_u32(p, v[A_HEAD_DIM], "head_dim", 1, UINT32_MAX, &m->head_dim))
        return -1;
    return 0;
}

static int parse_moe(pctx *p, yaml_node_t *map, engine_model *m)
{
    yaml_node_t *v[E_COUNT];
    if (collect(p, map, "moe", moe_keys, E_COUNT, v) ||
        need(p, map, "moe", "num_experts", v[E_NUM_EXPERTS], "the routed experts, redundant ones included") ||
        need(p, map, "moe", "moe_intermediate", v[E_MOE_INTERMEDIATE], "an integer (moe_intermediate_size)") ||
        need(p, map, "moe", "top_k", v[E_TOP_K], "an integer (num_experts_per_tok)"))
        return -1;
    m->dispatch_hidden = m->hidden; /* a latent MoE dispatches at routed_expert_hidden_size */
    if (get_u32(p, v[E_NUM_EXPERTS], "num_experts", 1, UINT32_MAX, &m->num_experts) ||
        get_u32(p, v[E_DISPATCH_HIDDEN], "dispatch_hidden", 1, UINT32_MAX, &m->dispatch_hidden) ||
        get_u32(p, v[E_MOE_INTERMEDIATE], "moe_intermediate", 1, UINT32_MAX, &m->moe_intermediate) ||
        get_u32(p, v[E_TOP_K], "top_k", 1, m->num_experts, &m->top_k))
        return -1;
    return 0;
}

static int parse_model(pctx *p, yaml_node_t *root, preset_item *it)
{
    yaml_node_t *v[M_COUNT];
    engine_model *m = &it->u.model;
    const char *what = "the model preset";
    if (collect(p, root, what, model_keys, M_COUNT, v) ||
        need(p, root, what, "vocab", v[M_VOCAB], "an integer (config vocab_size)") ||
        need(p, root, what, "hidden", v[M_HIDDEN], "an integer (config hidden_size)") ||
        need(p, root, what, "layers", v[M_LAYERS], "an integer (config num_hidden_layers)") ||
        need(p, root, what, "context_len", v[M_CONTEXT_LEN], "an integer (max_position_embeddings)") ||
        need(p, root, what, "attention", v[M_ATTENTION], "a mapping with kind: mla or gqa") ||
        need(p, root, what, "moe", v[M_MOE], "a mapping with num_experts, moe_intermediate, top_k"))
        return -1;
    const engine_knob_info *ctx_knob = &engine_knobs[KNOB_CONTEXT_LEN];
    if (get_text(p, v[M_DESCRIPTION], "description", m->description, sizeof m->description) ||
        parse_hf_names(p, v[M_HF_NAMES], m) || get_u32(p, v[M_VOCAB], "vocab", 1, UINT32_MAX, &m->vocab) ||
        get_u32(p, v[M_HIDDEN], "hidden", 1, UINT32_MAX, &m->hidden) ||
        get_u32(p, v[M_LAYERS], "layers", 1, UINT32_MAX, &m->layers) ||
        get_u64(p, v[M_CONTEXT_LEN], "context_len", (uint64_t)ctx_knob->min, (uint64_t)ctx_knob->max,
                &m->context_len) ||
        parse_attention(p, v[M_ATTENTION], m) || parse_moe(p, v[M_MOE], m) ||
        get_size(p, v[M_LINEAR_STATE], "linear_state_bytes_per_request", &m->linear_state_bytes_per_request) ||
        get_u32(p, v[M_DRAFT_LAYERS], "draft_layers", 0, MODEL_DRAFT_LAYERS_MAX, &m->draft_layers))
        return -1;
    /* Coefficients the file lacks are K3's (MODEL.md), and the model says it borrowed them. */
    engine_k3_default_coefficients(m->coef);
    if (parse_coefficients(p, v[M_COEFFICIENTS], it->coef_own, m->coef))
        return -1;
    m->coef_borrowed = false;
    for (int i = 0; i < COEF_COUNT; i++)
        if (!it->coef_own[i])
            m->coef_borrowed = true;
    return 0;
}

/* ---- gpu ---- */

enum { G_KIND, G_NAME, G_DESCRIPTION, G_CUDA_TOTAL, G_SMI_MIB, G_UE8M0, G_COUNT };
static const char *const gpu_keys[G_COUNT] = {"kind",           "name",        "description", "cuda_total_bytes",
                                              "nvidia_smi_mib", "ue8m0_scales"};

static int parse_gpu(pctx *p, yaml_node_t *root, preset_item *it)
{
    yaml_node_t *v[G_COUNT];
    engine_gpu *g = &it->u.gpu;
    const char *what = "the gpu preset";
    if (collect(p, root, what, gpu_keys, G_COUNT, v) ||
        need(p, root, what, "cuda_total_bytes", v[G_CUDA_TOTAL],
             "what torch.cuda.mem_get_info() reports as total, like 178.35 GiB") ||
        need(p, root, what, "ue8m0_scales", v[G_UE8M0], "true on Blackwell (packed UE8M0 scales), else false"))
        return -1;
    if (get_text(p, v[G_DESCRIPTION], "description", g->description, sizeof g->description) ||
        get_size(p, v[G_CUDA_TOTAL], "cuda_total_bytes", &g->cuda_total_bytes) ||
        get_u32(p, v[G_SMI_MIB], "nvidia_smi_mib", 0, UINT32_MAX, &g->nvidia_smi_mib) ||
        get_bool(p, v[G_UE8M0], "ue8m0_scales", &g->ue8m0_scales))
        return -1;
    if (g->cuda_total_bytes == 0)
        return perr(p, v[G_CUDA_TOTAL]->start_mark,
                    "cuda_total_bytes: got 0; expected the GPU's memory, like 178.35 GiB");
    return 0;
}

/* ---- deployment ---- */

enum {
    D_KIND,
    D_NAME,
    D_DESCRIPTION,
    D_MODEL,
    D_GPU,
    D_BACKEND,
    D_A2A,
    D_WEIGHTS,
    D_STATE,
    D_OTHER,
    D_PRE_LOAD,
    D_MARGIN,
    D_COEFFICIENTS,
    D_FIXED
};
static const char *const deployment_fixed_keys[D_FIXED] = {
    "kind",
    "name",
    "description",
    "model",
    "gpu",
    "attention_backend",
    "a2a",
    "weights_bytes",
    "state_pool_bytes",
    "other_runtime_bytes",
    "pre_load_free_bytes",
    "margin_bytes",
    "coefficients",
};

/* The text engine_knob_set_text() takes for a knob's value: the scalar, or for a list knob a
 * YAML sequence joined as "[1, 2, 4]" after checking each item where it stands. Returns a
 * malloc'd string or NULL with the error in P. */
static char *knob_text(pctx *p, const yaml_node_t *n, const engine_knob_info *info, const engine_deployment *d)
{
    char why[ENGINE_TEXT_MAX];
    if (n->type == YAML_SEQUENCE_NODE && info->type == KNOB_TYPE_LIST_OR_AUTO) {
        size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        if (count == 0) {
            perr(p, n->start_mark, "%s: the list is empty; expected 'auto' or a list like [1, 2, 4]", info->name);
            return NULL;
        }
        engine_deployment *scratch = malloc(sizeof *scratch);
        if (!scratch) {
            perr(p, n->start_mark, "%s: out of memory", info->name);
            return NULL;
        }
        size_t len = sizeof "[]", i = 0; /* the brackets and the NUL; each item adds itself and ", " */
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
            yaml_node_t *item = node_at(p, *it);
            char buf[PRESET_QUOTED_MAX], one[KNOB_ITEM_MAX];
            if (i == ENGINE_MAX_BUCKETS) {
                perr(p, item->start_mark, "%s: more than %d sizes; expected at most %d", info->name, ENGINE_MAX_BUCKETS,
                     ENGINE_MAX_BUCKETS);
                break;
            }
            if (expect_scalar(p, item, info->name, "an integer batch size"))
                break;
            const char *s = scalar_text(item);
            bool digits = *s != '\0' && strlen(s) < sizeof one - 2;
            for (const char *q = s; digits && *q; q++)
                digits = isdigit((unsigned char)*q);
            if (!digits) {
                perr(p, item->start_mark, "%s: got %s; expected an integer batch size in %s", info->name,
                     describe(item, buf, sizeof buf), info->range);
                break;
            }
            /* One item at a time through the engine's own rule, so the error stands at the item. */
            *scratch = *d;
            snprintf(one, sizeof one, "[%s]", s);
            if (engine_knob_set_text(scratch, info->id, one, NULL, why, sizeof why) != 0) {
                perr(p, item->start_mark, "%s", why);
                break;
            }
            len += strlen(s) + 2;
        }
        free(scratch);
        if (i < count)
            return NULL;
        char *text = malloc(len);
        if (!text) {
            perr(p, n->start_mark, "%s: out of memory", info->name);
            return NULL;
        }
        size_t used = 0;
        text[used++] = '[';
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
            const char *s = scalar_text(node_at(p, *it));
            used += (size_t)snprintf(text + used, len - used, "%s%s", it > n->data.sequence.items.start ? ", " : "", s);
        }
        snprintf(text + used, len - used, "]");
        return text;
    }
    char expected[PRESET_PHRASE_MAX];
    snprintf(expected, sizeof expected, "%s%s", info->type == KNOB_TYPE_LIST_OR_AUTO ? "'auto' or a list: " : "",
             info->range);
    if (expect_scalar(p, n, info->name, expected))
        return NULL;
    char *text = strdup(scalar_text(n));
    if (!text)
        perr(p, n->start_mark, "%s: out of memory", info->name);
    return text;
}

_Static_assert(D_FIXED + KNOB_COUNT <= PRESET_MAX_KEYS, "raise PRESET_MAX_KEYS for the deployment keys");

static int parse_deployment(pctx *p, yaml_node_t *root, preset_item *it)
{
    /* The key set is the fixed keys plus every knob of the engine's table (except `gpu`, which
     * names a preset and is one of the fixed keys). */
    const char *keys[PRESET_MAX_KEYS];
    int knob_of[PRESET_MAX_KEYS], fixed_of[PRESET_MAX_KEYS]; /* what each key is: -1 for neither */
    size_t nkeys = 0;
    /* In the order of the files: who, then the knobs, then the rest (so the "expected one of"
     * list of an unknown key reads like a preset). */
    for (int f = 0; f < D_FIXED; f++) {
        if (f == D_BACKEND)
            for (int k = 0; k < KNOB_COUNT; k++)
                if (engine_knobs[k].type != KNOB_TYPE_NAME) {
                    knob_of[nkeys] = (int)engine_knobs[k].id;
                    fixed_of[nkeys] = -1;
                    keys[nkeys++] = engine_knobs[k].name;
                }
        knob_of[nkeys] = -1;
        fixed_of[nkeys] = f;
        keys[nkeys++] = deployment_fixed_keys[f];
    }
    yaml_node_t *got[PRESET_MAX_KEYS], *v[D_FIXED] = {0}, *knob_node[KNOB_COUNT] = {0};
    const char *what = "the deployment preset";
    if (collect(p, root, what, keys, nkeys, got))
        return -1;
    for (size_t i = 0; i < nkeys; i++) {
        if (knob_of[i] >= 0)
            knob_node[knob_of[i]] = got[i];
        else
            v[fixed_of[i]] = got[i];
    }
    if (need(p, root, what, "model", v[D_MODEL], "the name of a model preset") ||
        need(p, root, what, "gpu", v[D_GPU], "the name of a GPU preset") ||
        need(p, root, what, "weights_bytes", v[D_WEIGHTS],
             "the per-GPU weights after load (the log's \"Load weight end ... mem usage\"), like 150 GiB"))
        return -1;

    parsed_deployment *dep = &it->u.dep;
    engine_deployment *d = &dep->d;
    engine_deployment_defaults(d);
    int backend = d->backend, a2a = d->a2a;
    if (get_text(p, v[D_DESCRIPTION], "description", d->description, sizeof d->description) ||
        get_text(p, v[D_MODEL], "model", dep->model, sizeof dep->model) ||
        get_text(p, v[D_GPU], "gpu", dep->gpu, sizeof dep->gpu) ||
        get_choice(p, v[D_BACKEND], "attention_backend", engine_backend_names, BACKEND_COUNT, &backend) ||
        get_choice(p, v[D_A2A], "a2a", a2a_names, COUNT_OF(a2a_names), &a2a) ||
        get_size(p, v[D_WEIGHTS], "weights_bytes", &d->weights_bytes) ||
        get_size(p, v[D_STATE], "state_pool_bytes", &d->state_pool_bytes) ||
        get_size(p, v[D_OTHER], "other_runtime_bytes", &d->other_runtime_bytes) ||
        get_size(p, v[D_PRE_LOAD], "pre_load_free_bytes", &d->pre_load_free_bytes) ||
        get_size(p, v[D_MARGIN], "margin_bytes", &d->margin_bytes) ||
        parse_coefficients(p, v[D_COEFFICIENTS], dep->coef_set, dep->coef))
        return -1;
    d->backend = (engine_backend)backend;
    d->a2a = (engine_a2a)a2a;
    dep->model_mark = to_mark(v[D_MODEL]->start_mark);
    dep->gpu_mark = to_mark(v[D_GPU]->start_mark);

    /* World first, then dp, then dcp (each is checked against the one before), then the rest. */
    engine_knob_id order[KNOB_COUNT];
    int n_order = 0;
    order[n_order++] = KNOB_WORLD;
    order[n_order++] = KNOB_DP;
    order[n_order++] = KNOB_DCP;
    for (int k = 0; k < KNOB_COUNT; k++)
        if (k != KNOB_WORLD && k != KNOB_DP && k != KNOB_DCP && engine_knobs[k].type != KNOB_TYPE_NAME)
            order[n_order++] = (engine_knob_id)k;
    for (int i = 0; i < n_order; i++) {
        const yaml_node_t *n = knob_node[order[i]];
        if (!n)
            continue;
        char *text = knob_text(p, n, &engine_knobs[order[i]], d);
        if (!text)
            return -1;
        char why[ENGINE_TEXT_MAX];
        int rc = engine_knob_set_text(d, order[i], text, NULL, why, sizeof why);
        free(text);
        if (rc != 0)
            return perr(p, n->start_mark, "%s", why);
    }
    dep->has_context_len = knob_node[KNOB_CONTEXT_LEN] != NULL;
    it->entry.world = d->knobs.world;
    it->entry.dp = d->knobs.dp;
    it->entry.dcp = d->knobs.dcp;
    it->entry.mtp = d->knobs.mtp;
    it->entry.max_bs = d->knobs.max_bs;
    copy_text(it->entry.model, sizeof it->entry.model, dep->model);
    copy_text(it->entry.gpu, sizeof it->entry.gpu, dep->gpu);
    return 0;
}

/* ---- One file. ---- */

static void parser_error(pctx *p, const yaml_parser_t *parser, const char *text, size_t len)
{
    yaml_mark_t at = parser->problem_mark;
    if (parser->error == YAML_READER_ERROR) { /* the reader gives a byte offset, not a mark */
        memset(&at, 0, sizeof at);
        for (size_t i = 0; i < parser->problem_offset && i < len; i++) {
            if (text[i] == '\n') {
                at.line++;
                at.column = 0;
            } else
                at.column++;
        }
    }
    char context[PRESET_PHRASE_MAX] = "";
    if (parser->context)
        snprintf(context, sizeof context, " (%s at line %zu, column %zu)", parser->context,
                 parser->context_mark.line + 1, parser->context_mark.column + 1);
    bool tab = parser->error != YAML_READER_ERROR && at.index < len && text[at.index] == '\t';
    perr(p, at, "malformed YAML: %s%s; expected %s", parser->problem ? parser->problem : "unknown error", context,
         tab ? "spaces, not a tab, for indentation" : "well-formed YAML (block mappings, closed brackets and quotes)");
}

/* Parses TEXT (the file ORIGIN, whose stem is STEM) into IT. Returns 0, or -1 with the one-line
 * message in MSG. IT->origin is left to the caller. */
static int parse_preset(const char *origin, const char *stem, const char *text, size_t len, preset_item *it, char *msg,
                        size_t msglen)
{
    pctx p = {.origin = origin, .msg = msg, .msglen = msglen};
    yaml_parser_t parser;
    memset(it, 0, sizeof *it);
    if (!yaml_parser_initialize(&parser))
        return set_err(msg, msglen, "%s: out of memory", origin);
    yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
    if (!yaml_parser_load(&parser, &p.doc)) {
        parser_error(&p, &parser, text, len);
        yaml_parser_delete(&parser);
        return -1;
    }
    int rc = -1;
    yaml_node_t *root = yaml_document_get_root_node(&p.doc);
    yaml_mark_t start = {0, 0, 0};
    if (!root) {
        perr(&p, start, "the file is empty; expected a mapping with kind: model, gpu or deployment");
        goto done;
    }
    {
        yaml_document_t next;
        if (!yaml_parser_load(&parser, &next)) {
            parser_error(&p, &parser, text, len);
            goto done;
        }
        yaml_node_t *next_root = yaml_document_get_root_node(&next);
        yaml_mark_t next_at = next_root ? next_root->start_mark : start;
        yaml_document_delete(&next);
        if (next_root) {
            perr(&p, next_at, "a second YAML document; expected one preset per file");
            goto done;
        }
    }
    if (root->type != YAML_MAPPING_NODE) {
        char buf[PRESET_QUOTED_MAX];
        perr(&p, root->start_mark, "the file holds %s; expected a mapping with kind: model, gpu or deployment",
             describe(root, buf, sizeof buf));
        goto done;
    }
    yaml_node_t *kind_node = peek(&p, root, "kind");
    int kind = 0;
    if (need(&p, root, "the preset", "kind", kind_node, "model, gpu or deployment") ||
        get_choice(&p, kind_node, "kind", kind_names, COUNT_OF(kind_names), &kind))
        goto done;
    it->entry.kind = (preset_kind)kind;
    it->kind_mark = to_mark(kind_node->start_mark);
    yaml_node_t *name_node = peek(&p, root, "name");
    if (!name_node) {
        perr(&p, root->start_mark, "the preset has no 'name' key; expected name: %s (the file's stem)", stem);
        goto done;
    }
    if (expect_scalar(&p, name_node, "name", "the file's stem"))
        goto done;
    if (strcmp(scalar_text(name_node), stem) != 0) {
        char buf[PRESET_QUOTED_MAX];
        perr(&p, name_node->start_mark, "name: got %s; expected name: %s (a preset's name is its file's stem)",
             describe(name_node, buf, sizeof buf), stem);
        goto done;
    }
    if (strlen(stem) >= ENGINE_NAME_MAX) {
        perr(&p, name_node->start_mark, "name: '%.*s...' is too long; expected at most %d characters", PRESET_PREVIEW,
             stem, ENGINE_NAME_MAX - 1);
        goto done;
    }
    switch (it->entry.kind) {
    case PRESET_MODEL:
        rc = parse_model(&p, root, it);
        break;
    case PRESET_GPU:
        rc = parse_gpu(&p, root, it);
        break;
    case PRESET_DEPLOYMENT:
        rc = parse_deployment(&p, root, it);
        break;
    }
    if (rc == 0) {
        copy_text(it->entry.name, sizeof it->entry.name, stem);
        copy_text(it->entry.origin, sizeof it->entry.origin, origin);
        const char *description = it->entry.kind == PRESET_MODEL ? it->u.model.description
                                  : it->entry.kind == PRESET_GPU ? it->u.gpu.description
                                                                 : it->u.dep.d.description;
        copy_text(it->entry.description, sizeof it->entry.description, description);
        char *name = it->entry.kind == PRESET_MODEL ? it->u.model.name
                     : it->entry.kind == PRESET_GPU ? it->u.gpu.name
                                                    : it->u.dep.d.name;
        copy_text(name, ENGINE_NAME_MAX, stem);
    }
done:
    yaml_document_delete(&p.doc);
    yaml_parser_delete(&parser);
    return rc;
}

/* Reads a whole file. Returns a malloc'd NUL-terminated buffer or NULL with the reason in MSG. */
static char *read_file(const char *path, size_t *len, char *msg, size_t msglen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        set_err(msg, msglen, "%s:1:1: cannot open: %s; expected a readable preset file", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        set_err(msg, msglen, "%s:1:1: not a regular file; expected a preset file", path);
        fclose(f);
        return NULL;
    }
    char *buf = malloc(PRESET_FILE_MAX + 1);
    if (!buf) {
        set_err(msg, msglen, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    size_t n = fread(buf, 1, PRESET_FILE_MAX + 1, f);
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        set_err(msg, msglen, "%s:1:1: cannot read; expected a readable preset file", path);
        free(buf);
        return NULL;
    }
    if (n > PRESET_FILE_MAX) {
        set_err(msg, msglen, "%s:1:1: the file is larger than %zu bytes; expected a preset of a few lines", path,
                PRESET_FILE_MAX);
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* NAME (of length LEN) is something followed by ".yaml". */
static bool has_yaml_suffix(const char *name, size_t len)
{
    return len > PRESET_SUFFIX_LEN && strcmp(name + len - PRESET_SUFFIX_LEN, PRESET_SUFFIX) == 0;
}

/* "dir/k3-dp16.yaml" -> "k3-dp16" into STEM. */
static void path_stem(const char *path, char *stem, size_t cap)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t n = strlen(base);
    if (has_yaml_suffix(base, n))
        n -= PRESET_SUFFIX_LEN;
    snprintf(stem, cap, "%.*s", (int)n, base);
}

/* Reads and parses the file at PATH. Returns a malloc'd item or NULL with the message in MSG. */
static preset_item *load_file(const char *path, char *msg, size_t msglen)
{
    size_t len = 0;
    char *text = read_file(path, &len, msg, msglen);
    if (!text)
        return NULL;
    char stem[ENGINE_TEXT_MAX];
    path_stem(path, stem, sizeof stem);
    preset_item *it = malloc(sizeof *it);
    char *origin = strdup(path);
    if (!it || !origin || parse_preset(path, stem, text, len, it, msg, msglen) != 0) {
        if (!it || !origin)
            set_err(msg, msglen, "%s: out of memory", path);
        free(it);
        free(origin);
        free(text);
        return NULL;
    }
    free(text);
    it->origin = origin;
    return it;
}

/* ---- The catalog. ---- */

/* Frees a malloc'd item (one not, or no longer, in the catalog). */
static void free_item(preset_item *it)
{
    if (it) {
        free(it->origin);
        free(it);
    }
}

static void remove_named(preset_catalog *c, const char *name)
{
    for (size_t i = 0; i < c->n_items; i++)
        if (strcmp(c->items[i].entry.name, name) == 0) {
            free(c->items[i].origin);
            memmove(&c->items[i], &c->items[i + 1], (c->n_items - i - 1) * sizeof c->items[0]);
            c->n_items--;
            break;
        }
    for (size_t i = 0; i < c->n_problems; i++)
        if (name[0] && strcmp(c->problems[i].name, name) == 0) {
            free(c->problems[i].name);
            free(c->problems[i].message);
            memmove(&c->problems[i], &c->problems[i + 1], (c->n_problems - i - 1) * sizeof c->problems[0]);
            c->n_problems--;
            break;
        }
}

/* Takes IT (a malloc'd item) into the catalog, replacing a preset of the same name; on failure
 * (out of memory) IT is freed all the same. */
static int add_item(preset_catalog *c, preset_item *it)
{
    remove_named(c, it->entry.name);
    if (c->n_items == c->cap_items) {
        size_t cap = c->cap_items ? 2 * c->cap_items : CATALOG_INITIAL_ITEMS;
        preset_item *items = realloc(c->items, cap * sizeof *items);
        if (!items) {
            free_item(it);
            return -1;
        }
        c->items = items;
        c->cap_items = cap;
    }
    c->items[c->n_items++] = *it;
    free(it);
    return 0;
}

/* A file that does not load: its name now means "this problem" (it hides a built-in of the
 * same name rather than silently falling back to it). */
static int add_problem(preset_catalog *c, const char *name, const char *message)
{
    remove_named(c, name);
    if (c->n_problems == c->cap_problems) {
        size_t cap = c->cap_problems ? 2 * c->cap_problems : CATALOG_INITIAL_PROBLEMS;
        preset_problem *problems = realloc(c->problems, cap * sizeof *problems);
        if (!problems)
            return -1;
        c->problems = problems;
        c->cap_problems = cap;
    }
    char *n = strdup(name), *m = strdup(message);
    if (!n || !m) {
        free(n);
        free(m);
        return -1;
    }
    c->problems[c->n_problems].name = n;
    c->problems[c->n_problems].message = m;
    c->n_problems++;
    return 0;
}

static int add_builtin(preset_catalog *c, const preset_builtin_file *file)
{
    char origin[ENGINE_TEXT_MAX], stem[ENGINE_TEXT_MAX], msg[PRESET_MSG_MAX];
    snprintf(origin, sizeof origin, "builtin:%s", file->file_name);
    path_stem(file->file_name, stem, sizeof stem);
    preset_item *it = malloc(sizeof *it);
    if (!it)
        return -1;
    if (parse_preset(origin, stem, file->text, strlen(file->text), it, msg, sizeof msg) != 0) {
        free(it);
        return add_problem(c, stem, msg);
    }
    it->origin = strdup(origin);
    if (!it->origin) {
        free(it);
        return -1;
    }
    return add_item(c, it);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The user's preset directory ("" when there is none to look at). */
static void user_dir(char *buf, size_t len)
{
    const char *env = getenv("CGPLAN_PRESETS");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    if (env && *env)
        snprintf(buf, len, "%s", env);
    else if (xdg && *xdg == '/') /* the XDG spec: a relative path is invalid and ignored */
        snprintf(buf, len, "%s/cgplan/presets", xdg);
    else if (home && *home)
        snprintf(buf, len, "%s/.config/cgplan/presets", home);
    else
        buf[0] = '\0';
}

static int add_user_files(preset_catalog *c)
{
    char dir[PATH_MAX];
    user_dir(dir, sizeof dir);
    if (!dir[0])
        return 0;
    DIR *dp = opendir(dir);
    if (!dp) {
        if (errno == ENOENT)
            return 0; /* no user presets: fine */
        char msg[PRESET_MSG_MAX];
        set_err(msg, sizeof msg, "%s: cannot read the preset directory: %s; expected a readable directory", dir,
                strerror(errno));
        return add_problem(c, "", msg);
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    int rc = 0;
    for (struct dirent *e; (e = readdir(dp)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (e->d_name[0] == '.' || !has_yaml_suffix(e->d_name, len))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : CATALOG_INITIAL_ITEMS;
            char **grown = realloc(names, cap * sizeof *names);
            if (!grown) {
                rc = -1;
                break;
            }
            names = grown;
        }
        if (!(names[n] = strdup(e->d_name))) {
            rc = -1;
            break;
        }
        n++;
    }
    closedir(dp);
    if (rc == 0 && n)
        qsort(names, n, sizeof *names, compare_names); /* readdir's order is arbitrary */
    for (size_t i = 0; i < n && rc == 0; i++) {
        char path[2 * PATH_MAX], msg[PRESET_MSG_MAX], stem[ENGINE_TEXT_MAX]; /* directory, '/', name */
        snprintf(path, sizeof path, "%s%s%s", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", names[i]);
        path_stem(names[i], stem, sizeof stem);
        preset_item *it = load_file(path, msg, sizeof msg);
        rc = it ? add_item(c, it) : add_problem(c, stem, msg);
    }
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    return rc;
}

preset_catalog *preset_catalog_open(void)
{
    preset_catalog *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    for (const preset_builtin_file *f = preset_builtin_files; f->file_name; f++)
        if (add_builtin(c, f) != 0) {
            preset_catalog_free(c);
            return NULL;
        }
    if (add_user_files(c) != 0) {
        preset_catalog_free(c);
        return NULL;
    }
    return c;
}

void preset_catalog_free(preset_catalog *c)
{
    if (!c)
        return;
    for (size_t i = 0; i < c->n_items; i++)
        free(c->items[i].origin);
    for (size_t i = 0; i < c->n_problems; i++) {
        free(c->problems[i].name);
        free(c->problems[i].message);
    }
    free(c->items);
    free(c->problems);
    free(c);
}

size_t preset_catalog_count(const preset_catalog *c)
{
    return c ? c->n_items : 0;
}

const preset_entry *preset_catalog_get(const preset_catalog *c, size_t i)
{
    return c && i < c->n_items ? &c->items[i].entry : NULL;
}

size_t preset_catalog_problem_count(const preset_catalog *c)
{
    return c ? c->n_problems : 0;
}

const char *preset_catalog_problem(const preset_catalog *c, size_t i)
{
    return c && i < c->n_problems ? c->problems[i].message : NULL;
}

static const preset_item *find_item(const preset_catalog *c, const char *name)
{
    for (size_t i = 0; c && name && i < c->n_items; i++)
        if (strcmp(c->items[i].entry.name, name) == 0)
            return &c->items[i];
    return NULL;
}

static const preset_problem *find_problem(const preset_catalog *c, const char *name)
{
    for (size_t i = 0; c && name && *name && i < c->n_problems; i++)
        if (strcmp(c->problems[i].name, name) == 0)
            return &c->problems[i];
    return NULL;
}

const preset_entry *preset_catalog_find(const preset_catalog *c, const char *name, preset_kind kind)
{
    const preset_item *it = find_item(c, name);
    return it && it->entry.kind == kind ? &it->entry : NULL;
}

/* "a, b, c": the names of every preset of KIND. */
static void list_kind(const preset_catalog *c, preset_kind kind, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (size_t i = 0; c && i < c->n_items && used < len; i++)
        if (c->items[i].entry.kind == kind) {
            int w = snprintf(buf + used, len - used, "%s%s", used ? ", " : "", c->items[i].entry.name);
            if (w < 0)
                break;
            used += (size_t)w;
        }
    if (!buf[0])
        snprintf(buf, len, "(none)");
}

/* Finds NAME of KIND: 0; 1 when its file does not load (ERR: that file's message); 2 when there
 * is none (ERR lists the presets of that kind). */
static int lookup(const preset_catalog *c, const char *name, preset_kind kind, const preset_item **out, char *err,
                  size_t errlen)
{
    const preset_problem *problem = find_problem(c, name);
    if (problem) {
        copy_text(err, errlen, problem->message);
        return 1;
    }
    const preset_item *it = find_item(c, name);
    if (it && it->entry.kind == kind) {
        *out = it;
        return 0;
    }
    char list[PRESET_LIST_MAX], other[ENGINE_TEXT_MAX] = "";
    list_kind(c, kind, list, sizeof list);
    if (it)
        snprintf(other, sizeof other, " ('%s' is a %s preset)", name, kind_names[it->entry.kind]);
    set_err(err, errlen, "no %s preset named '%s'%s; expected one of: %s", kind_names[kind], name, other, list);
    return 2;
}

static bool looks_like_path(const char *s)
{
    return strchr(s, '/') || has_yaml_suffix(s, strlen(s));
}

/* Loads NAME_OR_PATH of KIND: a catalog item, or (a path) a file parsed into *OWNED which the
 * caller frees. */
static int find_or_load(const preset_catalog *c, const char *name_or_path, preset_kind kind, const preset_item **out,
                        preset_item **owned, char *err, size_t errlen)
{
    *owned = NULL;
    if (!name_or_path || !*name_or_path) {
        char list[PRESET_LIST_MAX];
        list_kind(c, kind, list, sizeof list);
        set_err(err, errlen, "no %s preset given; expected one of: %s", kind_names[kind], list);
        return 2;
    }
    if (!looks_like_path(name_or_path))
        return lookup(c, name_or_path, kind, out, err, errlen);
    char msg[PRESET_MSG_MAX];
    preset_item *it = load_file(name_or_path, msg, sizeof msg);
    if (!it) {
        copy_text(err, errlen, msg);
        return 1;
    }
    if (it->entry.kind != kind) {
        set_err(err, errlen, "%s:%zu:%zu: kind: %s; expected a %s preset here", it->origin, it->kind_mark.line,
                it->kind_mark.col, kind_names[it->entry.kind], kind_names[kind]);
        free_item(it);
        return 1;
    }
    *owned = it;
    *out = it;
    return 0;
}

/* A deployment's model or GPU: errors stand where the deployment names it. */
static int resolve_ref(const preset_catalog *c, const preset_item *dep, const char *name, preset_mark at,
                       preset_kind kind, const preset_item **out, char *err, size_t errlen)
{
    char why[PRESET_MSG_MAX];
    int rc = lookup(c, name, kind, out, why, sizeof why);
    if (rc == 0)
        return 0;
    if (rc == 1)
        set_err(err, errlen, "%s:%zu:%zu: %s '%s' does not load: %s", dep->origin, at.line, at.col, kind_names[kind],
                name, why);
    else
        set_err(err, errlen, "%s:%zu:%zu: %s", dep->origin, at.line, at.col, why);
    return 1; /* the deployment's file is what is wrong */
}

int preset_load_deployment(const preset_catalog *c, const char *name_or_path, engine_deployment *out, char *err,
                           size_t errlen)
{
    const preset_item *it = NULL, *model = NULL, *gpu = NULL;
    preset_item *owned = NULL;
    int rc = find_or_load(c, name_or_path, PRESET_DEPLOYMENT, &it, &owned, err, errlen);
    if (rc != 0)
        return rc;
    const parsed_deployment *dep = &it->u.dep;
    if (resolve_ref(c, it, dep->model, dep->model_mark, PRESET_MODEL, &model, err, errlen) != 0 ||
        resolve_ref(c, it, dep->gpu, dep->gpu_mark, PRESET_GPU, &gpu, err, errlen) != 0) {
        free_item(owned);
        return 1;
    }
    *out = dep->d;
    out->model = model->u.model;
    out->gpu = gpu->u.gpu;
    /* The deployment's coefficients override the model's; what neither gives is K3's. */
    out->model.coef_borrowed = false;
    for (int i = 0; i < COEF_COUNT; i++) {
        if (dep->coef_set[i])
            out->model.coef[i] = dep->coef[i];
        else if (!model->coef_own[i])
            out->model.coef_borrowed = true;
    }
    if (!dep->has_context_len)
        out->knobs.context_len = model->u.model.context_len;
    free_item(owned);
    return 0;
}

int preset_load_gpu(const preset_catalog *c, const char *name, engine_gpu *out, char *err, size_t errlen)
{
    const preset_item *it = NULL;
    preset_item *owned = NULL;
    int rc = find_or_load(c, name, PRESET_GPU, &it, &owned, err, errlen);
    if (rc == 0)
        *out = it->u.gpu;
    free_item(owned);
    return rc;
}

int preset_load_model(const preset_catalog *c, const char *name, engine_model *out, char *err, size_t errlen)
{
    const preset_item *it = NULL;
    preset_item *owned = NULL;
    int rc = find_or_load(c, name, PRESET_MODEL, &it, &owned, err, errlen);
    if (rc == 0)
        *out = it->u.model;
    free_item(owned);
    return rc;
}

/* The last path component of S without trailing slashes, as a (pointer, length) pair. */
static const char *last_component(const char *s, size_t *len)
{
    size_t n = strlen(s);
    while (n > 0 && s[n - 1] == '/')
        n--;
    size_t start = n;
    while (start > 0 && s[start - 1] != '/')
        start--;
    *len = n - start;
    return s + start;
}

const preset_entry *preset_match_hf_name(const preset_catalog *c, const char *model_path)
{
    if (!c || !model_path || !*model_path)
        return NULL;
    /* An exact (case-insensitive) name first, so "org/Model" never loses to another org's Model. */
    for (size_t i = 0; i < c->n_items; i++) {
        const preset_item *it = &c->items[i];
        if (it->entry.kind != PRESET_MODEL)
            continue;
        for (int j = 0; j < it->u.model.n_hf_names; j++)
            if (strcasecmp(it->u.model.hf_names[j], model_path) == 0)
                return &it->entry;
    }
    size_t plen;
    const char *pbase = last_component(model_path, &plen);
    if (plen == 0)
        return NULL;
    for (size_t i = 0; i < c->n_items; i++) {
        const preset_item *it = &c->items[i];
        if (it->entry.kind != PRESET_MODEL)
            continue;
        for (int j = 0; j < it->u.model.n_hf_names; j++) {
            size_t hlen;
            const char *hbase = last_component(it->u.model.hf_names[j], &hlen);
            if (hlen == plen && strncasecmp(hbase, pbase, plen) == 0)
                return &it->entry;
        }
    }
    return NULL;
}
