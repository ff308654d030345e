/* caplog.c — the streaming SGLang start-up log parser (../shared/design/LOGS.md; the exact
 * f-strings are in ../shared/reference/sglang.md, sections 7.1-7.4).
 *
 * Bytes are cut into segments at '\n' and '\r' (tqdm refreshes with '\r'); each segment is a
 * progress-bar frame, an echoed environment line, or a log line "[time TAGS] message". Keys are
 * matched, never positions, and an unknown line is only counted. */
#include "caplog.h"
#include "text.h"

#include <math.h>
#include <stddef.h>
#if defined(__SSE2__) && !defined(CAPLOG_NO_SIMD) /* CAPLOG_NO_SIMD: the portable code, for tests */
#include <emmintrin.h>
#define STOP_SIMD 1
#else
#define STOP_SIMD 0
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const caplog_role_names[3] = {NULL, "target", "draft"};
const char *const caplog_phase_names[5] = {NULL, "decode", "verify", "extend", "prefill"};

#define NO_VALUE ((double)NAN)
#define FOREIGN_PREFIX_SCAN 128 /* how far into a line a "[time TAGS]" prefix is looked for */
#define BAR_DESC_MAX 128        /* a bar's "(bs=512 avail_mem=75.31 GB)": longer ones are cut */
#define PERCENT_DIGITS_MAX 3    /* a plain bar starts "100%|" at most */
#define GLUED_SEGMENTS_MAX 4    /* how many log lines glued after bar frames one segment reads */
/* Past a segment's NUL the lexer compares whole literals (has_prefix): room for the longest one
 * after the longest segment. */
#define LINE_PAD CAPLOG_LEX_PAD

/* The fixed texts a line is matched on, named once: the parser steps past what it matched by
 * the literal's length (LITERAL_LEN), never by a counted offset. */
#define LITERAL_LEN(s) (sizeof(s) - 1)
#define DATE_PATTERN "9999-99-99" /* '9': any digit; then ' ' or 'T' */
#define TIME_PATTERN "99:99:99"
#define CAPTURE_KEY "Capture "
#define BEGIN_KEY " begin."
#define END_KEY " end."
#define FAILED_KEY "failed:"
#define CAPTURE_FAILED_KEY "Capture cuda graph failed"
#define BS_LIST_KEY "Capture cuda graph bs "                 /* then "[...]" */
#define NUM_TOKENS_LIST_KEY "Capture cuda graph num tokens " /* then "[...]" */
#define SERVER_ARGS_KEY "server_args="
#define BAR_START "%|" /* the percentage's end, the bar's start */
#define LOAD_BEGIN_KEY "Load weight begin."
#define LOAD_END_KEY "Load weight end."
#define KV_KEY "KV Cache is allocated."
#define MAMBA_KEY "Mamba Cache is allocated."
#define POOL_END_KEY "Memory pool end."
#define MAX_TOTAL_KEY "max_total_num_tokens="
#define DCP_KEY "DCP enabled, dcp_size="
#define REGISTERING_KEY "Registering "           /* then N */
#define REGISTERING_TAIL " cuda graph addresses" /* after N */
#define TRACEBACK_KEY "Traceback (most recent call last)"
#define CUDA_OOM_KEY "CUDA out of memory"
#define OOM_ERROR_KEY "OutOfMemoryError"
#define BASH_TRACE_PREFIX "+ "
#define EXPORT_PREFIX "export "

/* What a capture line's name (the text between "Capture " and " begin."/" end.") gives, kept for
 * the next lines that print the same name: a log repeats a handful of them thousands of times. */
typedef struct {
    uint8_t raw_len; /* 0: an empty slot */
    char raw[CAPLOG_KIND_MAX];
    bool graph;                 /* its lower-case form holds "graph": a capture line */
    bool draft;                 /* ... and "draft" */
    char kind[CAPLOG_KIND_MAX]; /* the kind as CLI.md names it */
    caplog_role role;           /* kind_classify() of KIND */
    caplog_phase phase;
    bool num_tokens;
} kind_memo;
#define KIND_MEMOS 8

/* The tags of one line prefix: -1 when absent. */
typedef struct {
    int32_t dp, pp, attn_cp, moe_dp, tp, ep;
    uint64_t order;   /* tags_order(), computed once per line */
    bool implausible; /* a tag's number beyond CAPLOG_TAG_MAX: the line is not read */
    /* the tags as printed, in the line: copied only into a new rank (most lines are a known one's);
     * last, so that a token keeps only what comes before them (LINE_TAGS_KEPT) */
    const char *label;
    size_t label_len;
} line_tags;
#define LINE_TAGS_KEPT (offsetof(line_tags, implausible) + 1)

/* A bar frame without bs= waits until a later frame shows it was the last one for its counter
 * (tqdm prints "update" frames with the old description; set_description always refreshes). */
typedef struct {
    bool valid;
    int32_t counter;
    double avail_gib;
} pending_frame;

struct caplog_parser {
    caplog_on_run on_run;
    void *ctx;
    caplog_lexer *lexer; /* caplog_feed's stages: lex into TOKENS, then apply them */
    caplog_tokens *tokens;
    uint32_t line_no; /* physical line of the segment being read, 1-based */
    bool segment_malformed; /* the segment being read was counted as malformed already */
    bool finished;

    caplog_run *run;
    bool run_content;
    /* per-run bookkeeping, by rank slot and by group index */
    int32_t rank_cursor[CAPLOG_MAX_RANKS]; /* the next group this rank's lines can name */
    int32_t rank_open[CAPLOG_MAX_RANKS];   /* the group this rank began and has not ended */
    /* which rank slots (one bit each) began / ended the group */
    uint64_t begin_mask[CAPLOG_MAX_GROUPS], end_mask[CAPLOG_MAX_GROUPS];
    int32_t group_src[CAPLOG_MAX_GROUPS];      /* the slot the group's numbers come from */
    int32_t begin_src[CAPLOG_MAX_GROUPS];      /* the slot whose begin line the begin values are */
    int32_t registered_src[CAPLOG_MAX_GROUPS]; /* the slot its registered_addresses are from */
    /* a rank's "Registering N" read while it had no group open (its begin line not in the log):
     * for the group its next end line closes; -1: none */
    int32_t registered_wait[CAPLOG_MAX_RANKS];
    int32_t last_slot;                    /* rank of the last prefixed line: owns a traceback */
    int32_t rank_memo;                    /* run_rank's last answer (checked against the tags) */
    int32_t bar_group;                    /* the group progress bars currently feed */
    int32_t bar_prev_counter;             /* last frame's i (plain or described), -1 */
    int32_t bar_prev_desc_counter;
    bool bar_restart; /* a plain frame went back to 0: the next bars start a new sequence */
    pending_frame pend;
    /* each group's smallest bar size so far (UINT32_MAX: none): a frame of a smaller size names
     * a bucket not seen yet, with no look through the bars (a capture runs largest first) */
    uint32_t bar_min_size[CAPLOG_MAX_GROUPS];

    /* echoed environment: belongs to the run that starts next */
    caplog_env env_wait[CAPLOG_MAX_ENV];
    uint32_t n_env_wait, env_wait_line, env_wait_dropped;

    /* rank-0 "Load weight begin" after a finished group without server_args: a restart, or the
     * EAGLE draft model loading; the next capture line decides. Rank values meanwhile go here. */
    bool split_pending;
    uint32_t split_line;
    caplog_rank side[CAPLOG_MAX_RANKS];
    uint32_t n_side;
    char side_architecture[CAPLOG_ARCH_MAX];

    kind_memo kinds[KIND_MEMOS];
    uint32_t next_kind; /* the slot the next new name takes */

    bool recognised;
    uint32_t runs_emitted;
    uint64_t lines_read;
};

_Static_assert(CAPLOG_MAX_RANKS <= 64, "begin_mask and end_mask hold one bit per rank slot");

/* ---------------------------------------------------------------- small text helpers */

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}
static bool is_upper(char c)
{
    return (c >= 'A' && c <= 'Z') || c == '_';
}
static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\v' || c == '\f';
}
static char to_lower(char c)
{
    return (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
}

static bool starts_with(const char *s, const char *prefix)
{
    /* the first byte decides nearly always; the literal's length folds at compile time */
    return s[0] == prefix[0] && strncmp(s, prefix, strlen(prefix)) == 0;
}

/* S starts with the literal LIT; LITERAL_LEN(LIT) bytes at S must be readable (the lexer's line
 * has room after its end for the longest literal): one inline compare, no call. A NUL in S
 * differs from every byte of LIT, so a shorter S never matches. */
#define has_prefix(s, lit) (memcmp((s), lit, LITERAL_LEN(lit)) == 0)

static const char *skip_spaces(const char *s)
{
    while (is_space(*s))
        s++;
    return s;
}

static inline bool two_digits(const char *s)
{
    return is_digit(s[0]) && is_digit(s[1]); /* stops at a NUL */
}

/* the order memcpy puts bytes in a uint64_t */
#define IS_LITTLE_ENDIAN (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)

/* The 8 bytes at S (readable: a lexer's line has LINE_PAD) hold a digit in each byte DIGITS
 * selects (0xff each, byte i of S at bits 8i..8i+7) and LITERAL where LITERAL_MASK selects: a
 * timestamp in a few operations instead of a test per byte. A byte is a digit when its high
 * nibble is 3 and adding 6 leaves it 3; a sum that carries into the next byte starts from a
 * byte whose high nibble is not 3, so the word fails either way. */
static inline bool bytes_match(const char *s, uint64_t digits, uint64_t literal_mask, uint64_t literal)
{
    const uint64_t nibble_high = UINT64_C(0xf0f0f0f0f0f0f0f0), threes = UINT64_C(0x3030303030303030),
                   sixes = UINT64_C(0x0606060606060606);
    uint64_t x;
    memcpy(&x, s, 8);
    uint64_t d = x & digits, high = digits & nibble_high, want = digits & threes;
    return (x & literal_mask) == literal && (d & high) == want && ((d + (digits & sixes)) & high) == want;
}

/* S starts with DATE_PATTERN ("9999-99-99", '9' any digit) or TIME_PATTERN ("99:99:99"). */
static inline bool is_date(const char *s)
{
    if (IS_LITTLE_ENDIAN) /* "9999-99-" then "99" */
        return bytes_match(s, UINT64_C(0x00ffff00ffffffff), UINT64_C(0xff0000ff00000000),
                           UINT64_C(0x2d00002d00000000)) &&
               two_digits(s + 8);
    return two_digits(s) && two_digits(s + 2) && s[4] == '-' && two_digits(s + 5) && s[7] == '-' && two_digits(s + 8);
}
static inline bool is_time(const char *s)
{
    if (IS_LITTLE_ENDIAN)
        return bytes_match(s, UINT64_C(0xffff00ffff00ffff), UINT64_C(0x0000ff0000ff0000), UINT64_C(0x00003a00003a0000));
    return two_digits(s) && s[2] == ':' && two_digits(s + 3) && s[5] == ':' && two_digits(s + 6);
}

/* The LEN bytes at S are WORD. */
static bool span_is(const char *s, size_t len, const char *word)
{
    /* the first byte first: server_args' ~200 names are each tried against the field table */
    return len && s[0] == word[0] && strlen(word) == len && !strncmp(s, word, len);
}

/* The LEN bytes at *S without the quotes around them, if they are quoted ('x' or "x"). */
static void strip_quotes(const char **s, size_t *len)
{
    const char *t = *s;
    if (*len >= 2 && (t[0] == '\'' || t[0] == '"') && t[*len - 1] == t[0]) {
        *s = t + 1;
        *len -= 2;
    }
}

/* Exact powers of ten: a mantissa below 2^53 over one of these is a single, correctly rounded
 * division. */
static const double pow10_exact[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                     1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
#define EXACT_DIGITS_MAX 15 /* 10^15 < 2^53: the mantissa is exact */

/* A decimal number ("-12.34"), locale-independent: the nearest double to what the log printed
 * when it has at most EXACT_DIGITS_MAX digits (every number SGLang prints), else summed digit by
 * digit. */
static bool parse_real(const char *s, double *out, const char **end)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (!is_digit(*p))
        return false;
    const char *digits = p;
    uint64_t mant = 0;
    while (is_digit(*p))
        mant = mant * 10 + (uint64_t)(*p++ - '0');
    size_t int_digits = (size_t)(p - digits), frac_digits = 0;
    const char *frac = NULL;
    if (*p == '.' && is_digit(p[1])) {
        frac = ++p;
        while (is_digit(*p))
            mant = mant * 10 + (uint64_t)(*p++ - '0');
        frac_digits = (size_t)(p - frac);
    }
    double v;
    if (int_digits + frac_digits <= EXACT_DIGITS_MAX) {
        v = (double)mant / pow10_exact[frac_digits];
    } else { /* the wrapped mantissa is not used */
        v = 0;
        for (const char *q = digits; is_digit(*q); q++)
            v = v * 10 + (*q - '0');
        double scale = 0.1;
        for (const char *q = frac; q && is_digit(*q); q++) {
            v += (*q - '0') * scale;
            scale /= 10;
        }
    }
    *out = neg ? -v : v;
    if (end)
        *end = p;
    return true;
}

static bool parse_int(const char *s, int64_t *out, const char **end)
{
    const char *p = s;
    bool neg = false;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (!is_digit(*p))
        return false;
    int64_t v = 0;
    while (is_digit(*p)) {
        int d = *p - '0';
        /* saturate rather than drop digits: a 26-digit number must fail every range check, not
         * read as its first 18 digits (the division only once the value is that large) */
        if (v < INT64_MAX / 10 - 1)
            v = v * 10 + d;
        else
            v = v > (INT64_MAX - d) / 10 ? INT64_MAX : v * 10 + d;
        p++;
    }
    *out = neg ? -v : v;
    if (end)
        *end = p;
    return true;
}

/* "1e309": SGLang prints fixed-point only, so an exponent means the number is not one it wrote
 * (reading the "1" and dropping the rest would invent a value). */
static bool has_exponent(const char *end)
{
    if (*end != 'e' && *end != 'E')
        return false;
    end++;
    if (*end == '+' || *end == '-')
        end++;
    return is_digit(*end);
}

/* The number at S within LO..HI into *OUT; *END (if END) gets where the digits stop, wherever
 * the number was read. */
static bool real_plausible(const char *s, double lo, double hi, double *out, const char **end)
{
    const char *stop = s;
    double v;
    bool ok = parse_real(s, &v, &stop) && !has_exponent(stop) && v >= lo && v <= hi; /* NaN, inf fail */
    if (end)
        *end = stop;
    if (ok)
        *out = v;
    return ok;
}

static bool int_plausible(const char *s, int64_t lo, int64_t hi, int64_t *out, const char **end)
{
    const char *stop = s;
    int64_t v;
    /* "12.5" or "1e9" is not an integer SGLang printed; "16." ends a sentence */
    bool ok =
        parse_int(s, &v, &stop) && !(*stop == '.' && is_digit(stop[1])) && !has_exponent(stop) && v >= lo && v <= hi;
    if (end)
        *end = stop;
    if (ok)
        *out = v;
    return ok;
}

/* "[1, 2, 4]" at S into OUT (at most CAP; the rest counted in *DROPPED). Returns the count,
 * or -1 when the list is not closed, holds something else or a number outside LO..HI. */
static int parse_list(const char *s, uint32_t *out, uint32_t cap, uint32_t *dropped, int64_t lo, int64_t hi)
{
    const char *p = skip_spaces(s);
    if (*p != '[')
        return -1;
    p++;
    uint32_t n = 0;
    for (;;) {
        p = skip_spaces(p);
        if (*p == ']')
            return (int)n;
        int64_t v = 0;
        /* up to nine digits (every bucket list): read here, no overflow to watch; else parse_int */
        const char *q = p;
        while (is_digit(*q) && q - p < 9)
            v = v * 10 + (*q++ - '0');
        if (q > p && !is_digit(*q))
            p = q;
        else if (!parse_int(p, &v, &p))
            return -1;
        if (v < lo || v > hi)
            return -1;
        if (n < cap)
            out[n++] = (uint32_t)v;
        else if (dropped)
            (*dropped)++;
        p = skip_spaces(p);
        if (*p == ',')
            p++;
        else if (*p != ']')
            return -1;
    }
}

/* A number after its key: absent (the key is not there), read, or implausible (the key is there
 * but what follows is not a number in range: the line is malformed). */
typedef enum { VALUE_ABSENT, VALUE_OK, VALUE_BAD } value_state;

/* The number after the key of KEY_LEN bytes at K (NULL: the key is not there). */
static inline value_state real_at(const char *k, size_t key_len, double lo, double hi, double *out)
{
    if (!k)
        return VALUE_ABSENT;
    return real_plausible(skip_spaces(k + key_len), lo, hi, out, NULL) ? VALUE_OK : VALUE_BAD;
}

static inline value_state int_at(const char *k, size_t key_len, int64_t lo, int64_t hi, int64_t *out)
{
    if (!k)
        return VALUE_ABSENT;
    return int_plausible(skip_spaces(k + key_len), lo, hi, out, NULL) ? VALUE_OK : VALUE_BAD;
}

static inline value_state real_key(const char *s, const char *key, double lo, double hi, double *out)
{
    return real_at(strstr(s, key), strlen(key), lo, hi, out);
}

static inline value_state int_key(const char *s, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    return int_at(strstr(s, key), strlen(key), lo, hi, out);
}

/* Keys of the form "name=" looked for together: one pass over a text's '='s finds the first
 * occurrence of each, where strstr would (an occurrence's '=' lies EQ bytes into it, so the
 * first '=' it is found at is its first). */
typedef struct {
    const char *text;
    uint8_t len, eq;
} eq_key;
/* LIT ends in its '=' and AFTER bytes more */
#define EQ_KEY(lit, after)                                                                                             \
    {                                                                                                                  \
        lit, LITERAL_LEN(lit), LITERAL_LEN(lit) - 1 - (after)                                                          \
    }
#define EQ_KEYS_MAX 8

/* FOUND[i]: the first occurrence of KEYS[i] in S (a NUL after it, and room past that NUL for a
 * key's length), or NULL. */
static void find_eq_keys(const char *s, const eq_key *keys, unsigned n, const char **found)
{
    unsigned left = (1u << n) - 1;
    for (unsigned i = 0; i < n; i++)
        found[i] = NULL;
    for (const char *d = strchr(s, '='); d && left; d = strchr(d + 1, '=')) {
        for (unsigned m = left; m; m &= m - 1) {
            unsigned i = (unsigned)__builtin_ctz(m);
            size_t eq = keys[i].eq;
            if ((size_t)(d - s) >= eq && d[-1] == keys[i].text[eq - 1] && !memcmp(d - eq, keys[i].text, keys[i].len)) {
                found[i] = d - eq;
                left &= ~(1u << i);
            }
        }
    }
}

/* Counts the segment being read as malformed, once however many of its values are bad. */
static void note_malformed(caplog_parser *p)
{
    if (p->segment_malformed)
        return;
    p->segment_malformed = true;
    if (!p->run->malformed_lines++)
        p->run->first_malformed_line = p->line_no;
}

/* The number after KEY in S within LO..HI, or NaN (absent, or implausible: then malformed). */
static double real_after(caplog_parser *p, const char *s, const char *key, double lo, double hi)
{
    double v = NO_VALUE;
    if (real_key(s, key, lo, hi, &v) == VALUE_BAD) {
        note_malformed(p);
        return NO_VALUE;
    }
    return v;
}

/* A GiB value after KEY: finite, 0..CAPLOG_GIB_MAX. */
static double gib_after(caplog_parser *p, const char *s, const char *key)
{
    return real_after(p, s, key, 0.0, CAPLOG_GIB_MAX);
}

/* real_after() and gib_after() of a key already found at K (NULL: absent), KEY_LEN bytes long. */
static double real_found(caplog_parser *p, const char *k, size_t key_len, double lo, double hi)
{
    double v = NO_VALUE;
    if (real_at(k, key_len, lo, hi, &v) == VALUE_BAD) {
        note_malformed(p);
        return NO_VALUE;
    }
    return v;
}

static double gib_found(caplog_parser *p, const char *k, size_t key_len)
{
    return real_found(p, k, key_len, 0.0, CAPLOG_GIB_MAX);
}

/* int_after() of a key already found at K (NULL: absent), KEY_LEN bytes long. */
static bool int_found(caplog_parser *p, const char *k, size_t key_len, int64_t lo, int64_t hi, int64_t *out)
{
    switch (int_at(k, key_len, lo, hi, out)) {
    case VALUE_OK:
        return true;
    case VALUE_BAD:
        note_malformed(p);
        return false;
    default:
        return false;
    }
}

/* The integer after KEY in S within LO..HI into OUT; false when absent or implausible (then
 * malformed). */
static bool int_after(caplog_parser *p, const char *s, const char *key, int64_t lo, int64_t hi, int64_t *out)
{
    switch (int_key(s, key, lo, hi, out)) {
    case VALUE_OK: return true;
    case VALUE_BAD: note_malformed(p); return false;
    default: return false;
    }
}

static double round2(double v)
{
    return round(v * 100.0) / 100.0;
}

static double diff2(double a, double b)
{
    return (caplog_known(a) && caplog_known(b)) ? round2(a - b) : NO_VALUE;
}

/* ---------------------------------------------------------------- markers */

/* The keys a message is dispatched on. One pass over the message finds which it holds and where
 * each first starts, so a line that holds none (most of a server's log once it serves) costs that
 * pass and no search per key, and a line that holds one goes straight to it. */
enum {
    K_SERVER_ARGS,
    K_CAPTURE,
    K_LOAD_BEGIN,
    K_LOAD_END,
    K_KV,
    K_MAMBA,
    K_POOL_END,
    K_MAX_TOTAL,
    K_DCP,
    K_REGISTERING,
    K_TRACEBACK,
    K_CUDA_OOM,
    K_OOM_ERROR,
    K_CAPTURE_AGAIN, /* a second "Capture ": a line without one need not look for more */
    KEY_COUNT
};
enum {
    MK_SERVER_ARGS = 1u << K_SERVER_ARGS,
    MK_CAPTURE = 1u << K_CAPTURE,
    MK_LOAD_BEGIN = 1u << K_LOAD_BEGIN,
    MK_LOAD_END = 1u << K_LOAD_END,
    MK_KV = 1u << K_KV,
    MK_MAMBA = 1u << K_MAMBA,
    MK_POOL_END = 1u << K_POOL_END,
    MK_MAX_TOTAL = 1u << K_MAX_TOTAL,
    MK_DCP = 1u << K_DCP,
    MK_REGISTERING = 1u << K_REGISTERING,
    MK_TRACEBACK = 1u << K_TRACEBACK,
    MK_CUDA_OOM = 1u << K_CUDA_OOM,
    MK_OOM_ERROR = 1u << K_OOM_ERROR,
    MK_CAPTURE_AGAIN = 1u << K_CAPTURE_AGAIN,
};

/* Each key holds an anchor byte: its first byte when that is a capital, else its first '_'
 * ("server_args=", "max_total_num_tokens="). Both lie in 0x41..0x5f, which lets eight bytes
 * without one be passed over at once; lower-case text, most of a message, has none. */
#define ANCHOR_FIRST 0x41
#define ANCHOR_LAST 0x5f
static const struct {
    const char *text;
    uint8_t len, back; /* back: the anchor's offset in the key */
} keys[KEY_COUNT] = {
    [K_SERVER_ARGS] = {SERVER_ARGS_KEY, LITERAL_LEN(SERVER_ARGS_KEY), 6 /* "server_" */},
    [K_CAPTURE] = {CAPTURE_KEY, LITERAL_LEN(CAPTURE_KEY), 0},
    [K_LOAD_BEGIN] = {LOAD_BEGIN_KEY, LITERAL_LEN(LOAD_BEGIN_KEY), 0},
    [K_LOAD_END] = {LOAD_END_KEY, LITERAL_LEN(LOAD_END_KEY), 0},
    [K_KV] = {KV_KEY, LITERAL_LEN(KV_KEY), 0},
    [K_MAMBA] = {MAMBA_KEY, LITERAL_LEN(MAMBA_KEY), 0},
    [K_POOL_END] = {POOL_END_KEY, LITERAL_LEN(POOL_END_KEY), 0},
    [K_MAX_TOTAL] = {MAX_TOTAL_KEY, LITERAL_LEN(MAX_TOTAL_KEY), 3 /* "max_" */},
    [K_DCP] = {DCP_KEY, LITERAL_LEN(DCP_KEY), 0},
    [K_REGISTERING] = {REGISTERING_KEY, LITERAL_LEN(REGISTERING_KEY), 0},
    [K_TRACEBACK] = {TRACEBACK_KEY, LITERAL_LEN(TRACEBACK_KEY), 0},
    [K_CUDA_OOM] = {CUDA_OOM_KEY, LITERAL_LEN(CUDA_OOM_KEY), 0},
    [K_OOM_ERROR] = {OOM_ERROR_KEY, LITERAL_LEN(OOM_ERROR_KEY), 0},
    [K_CAPTURE_AGAIN] = {CAPTURE_KEY, LITERAL_LEN(CAPTURE_KEY), 0},
};
/* The keys an anchor byte can be the anchor of. */
static const uint16_t anchor_keys[ANCHOR_LAST - ANCHOR_FIRST + 1] = {
    ['_' - ANCHOR_FIRST] = MK_SERVER_ARGS | MK_MAX_TOTAL,
    ['C' - ANCHOR_FIRST] = MK_CAPTURE | MK_CUDA_OOM | MK_CAPTURE_AGAIN,
    ['L' - ANCHOR_FIRST] = MK_LOAD_BEGIN | MK_LOAD_END,
    ['K' - ANCHOR_FIRST] = MK_KV,
    ['M' - ANCHOR_FIRST] = MK_MAMBA | MK_POOL_END,
    ['D' - ANCHOR_FIRST] = MK_DCP,
    ['R' - ANCHOR_FIRST] = MK_REGISTERING,
    ['T' - ANCHOR_FIRST] = MK_TRACEBACK,
    ['O' - ANCHOR_FIRST] = MK_OOM_ERROR,
};

_Static_assert(KEY_COUNT <= 16, "a key's bit fits the uint16_t masks of anchor_keys");

/* The keys whose anchor the byte C follows: with anchor_keys, two loads rule out nearly every
 * capital of a message ("CUDA", "TP0", "DP0"), which no key starts at. */
static const uint16_t after_anchor_keys[256] = {
    ['a'] = MK_SERVER_ARGS | MK_CAPTURE | MK_CAPTURE_AGAIN | MK_MAMBA, /* "_args=", "Capture ", "Mamba " */
    ['o'] = MK_LOAD_BEGIN | MK_LOAD_END,
    ['V'] = MK_KV,
    ['e'] = MK_POOL_END | MK_REGISTERING, /* "Memory pool end.", "Registering " */
    ['t'] = MK_MAX_TOTAL,                 /* "_total_" */
    ['C'] = MK_DCP,
    ['r'] = MK_TRACEBACK,
    ['U'] = MK_CUDA_OOM,
    ['u'] = MK_OOM_ERROR,
};

/* The keys a message holds and where each first starts (from the message's start). */
typedef struct {
    unsigned mask;
    uint16_t *at; /* KEY_COUNT of them, set for the keys in MASK */
} key_marks;

_Static_assert(CAPLOG_LINE_MAX <= UINT16_MAX + 1, "a key's offset in a message fits a uint16_t");

/* The keys not yet in M that start at their anchor T, in the message S (a NUL, '\n' or '\r' after
 * it, and room for the longest key past that byte: a key cut by the message's end meets it, and
 * no key holds one). */
static inline void mark_keys(const char *s, const char *t, key_marks *m)
{
    unsigned cand = anchor_keys[(unsigned char)t[0] - ANCHOR_FIRST] & after_anchor_keys[(unsigned char)t[1]];
    if (!(m->mask & MK_CAPTURE))
        cand &= ~MK_CAPTURE_AGAIN; /* only after a first one, at an earlier anchor */
    for (cand &= ~m->mask; cand; cand &= cand - 1) {
        unsigned k = (unsigned)__builtin_ctz(cand);
        if ((size_t)(t - s) < keys[k].back)
            continue; /* it would start before the message */
        const char *at = t - keys[k].back;
        uint32_t head, key_head; /* four bytes first: most anchors begin no key */
        memcpy(&head, at, 4);
        memcpy(&key_head, keys[k].text, 4);
        if (head == key_head && !memcmp(at, keys[k].text, keys[k].len)) {
            m->mask |= 1u << k;
            m->at[k] = (uint16_t)(at - s);
        }
    }
}

/* The keys found anywhere in the N bytes at S (no NUL among them; a NUL, '\n' or '\r' after them
 * and LINE_PAD readable bytes past it, as a lexer's line, a chunk lexed in place and a token's
 * text have), where strstr would find each, into AT (KEY_COUNT of room): their mask. */
static unsigned markers_in(const char *s, size_t n, uint16_t *at)
{
    const char *end = s + n;
    key_marks m = {0, at};
    const char *b = s;
#if STOP_SIMD
    /* a byte in 0x41..0x5f, 16 at a time (the last 16 cut at END): signed compares, so bytes
     * from 0x80 on (negative) are below the range */
    const __m128i below = _mm_set1_epi8(ANCHOR_FIRST - 1), above = _mm_set1_epi8(ANCHOR_LAST + 1);
    for (; b < end; b += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)b);
        unsigned in = (unsigned)_mm_movemask_epi8(_mm_and_si128(_mm_cmpgt_epi8(x, below), _mm_cmplt_epi8(x, above)));
        if ((size_t)(end - b) < 16)
            in &= (1u << (end - b)) - 1;
        for (; in; in &= in - 1) {
            mark_keys(s, b + __builtin_ctz(in), &m);
            if (m.mask & MK_SERVER_ARGS)
                return m.mask; /* a server_args line is read for that key alone (on_message) */
        }
    }
#else
    const uint64_t ones = UINT64_C(0x0101010101010101), highs = UINT64_C(0x8080808080808080);
    for (; (size_t)(end - b) >= 8; b += 8) {
        uint64_t x;
        memcpy(&x, b, 8);
        /* a byte in 0x41..0x5f: (x & 0x7f..) + (0x80 - 0x41) sets a lane's high bit from 0x41
         * on, + (0x80 - 0x60) from 0x60 on; lanes never carry into each other (each sum stays
         * below 0x100), bytes >= 0x80 are excluded by ~x */
        uint64_t low7 = x & ~highs;
        uint64_t in = (low7 + (0x80 - ANCHOR_FIRST) * ones) & ~(low7 + (0x80 - ANCHOR_LAST - 1) * ones) & ~x & highs;
        /* the anchors in address order: a lane's high bit is its byte's */
        while (in) {
            unsigned lane;
            if (IS_LITTLE_ENDIAN) {
                lane = (unsigned)__builtin_ctzll(in) / 8;
                in &= in - 1;
            } else {
                lane = (unsigned)__builtin_clzll(in) / 8;
                in &= ~(highs & (UINT64_C(0xff) << (8 * (7 - lane))));
            }
            mark_keys(s, b + lane, &m);
            if (m.mask & MK_SERVER_ARGS)
                return m.mask;
        }
    }
    for (const char *t = b; t < end && !(m.mask & MK_SERVER_ARGS); t++)
        if ((unsigned char)*t >= ANCHOR_FIRST && (unsigned char)*t <= ANCHOR_LAST)
            mark_keys(s, t, &m);
#endif
    return m.mask;
}

/* ---------------------------------------------------------------- prefixes and tags */

/* A line without tags: rank 0's. */
static const line_tags rank0_tags = {.dp = -1, .pp = -1, .attn_cp = -1, .moe_dp = -1, .tp = -1, .ep = -1};

static uint64_t tags_order(const line_tags *t);

/* The tags of recent prefixes as printed (" DP0 TP0 EP0]"), each with what they parse to: a log's
 * lines repeat the tags of a few ranks, and reading them was most of a prefix's cost. */
#define TAGS_MEMOS 4
#define TAGS_MEMO_MAX 64 /* <= LINE_PAD: a compare from anywhere in a segment stays readable */
typedef struct {
    uint8_t len;              /* of TEXT, through its ']'; 0: empty */
    uint8_t label_off;        /* the label's start in TEXT */
    uint64_t head, head_mask; /* TEXT's first 8 bytes (those of LEN) as loaded: one compare rules out most */
    char text[TAGS_MEMO_MAX];
    line_tags tags; /* its label NULL: the line's own is at label_off */
} tags_memo;
typedef struct {
    tags_memo m[TAGS_MEMOS];
    unsigned next; /* the one to replace next */
} tags_memos;

/* Parses "[YYYY-MM-DD HH:MM:SS(.mmm)? TAGS] " or 2024's "[HH:MM:SS TAGS] " at S (the '[' may
 * be lost in a paste). Returns the message, or NULL when S does not start with a prefix. MEMOS:
 * the lexer's, consulted and updated. */
static const char *parse_prefix(const char *s, line_tags *t, tags_memos *memos)
{
    const char *p = s;
    if (*p == '[')
        p++;
    const size_t date_len = LITERAL_LEN(DATE_PATTERN);
    if (is_date(p) && (p[date_len] == ' ' || p[date_len] == 'T'))
        p += date_len + 1;
    if (!is_time(p))
        return NULL;
    p += LITERAL_LEN(TIME_PATTERN);
    if ((*p == '.' || *p == ',') && is_digit(p[1])) {
        p++;
        while (is_digit(*p))
            p++;
    }
    line_tags *tags = t; /* filled in place: T may be a token's */
    const char *tags_from = p;
    uint64_t head;
    memcpy(&head, p, 8); /* readable: a segment has LINE_PAD bytes after its end */
    for (unsigned i = 0; i < TAGS_MEMOS; i++) {
        const tags_memo *m = &memos->m[i];
        /* through ']': the same tags */
        if (m->len && !((head ^ m->head) & m->head_mask) && (m->len <= 8 || !memcmp(p + 8, m->text + 8, m->len - 8))) {
            *tags = m->tags;
            if (tags->label_len)
                tags->label = p + m->label_off;
            p += m->len;
            return *p == ' ' ? p + 1 : p;
        }
    }
    *tags = rank0_tags;
    const char *tag_start = NULL, *tag_end = NULL;
    while (*p == ' ') {
        const char *name = ++p;
        while (is_upper(*p))
            p++;
        size_t name_len = (size_t)(p - name);
        int64_t num = 0;
        const char *digits = p;
        while (is_digit(*p) && p - digits < 9) /* a tag's number: a few digits, read here */
            num = num * 10 + (*p++ - '0');
        if (p > digits && is_digit(*p))
            p = digits; /* ten digits or more: parse_int saturates them */
        if (name_len == 0 || (p == digits && !parse_int(p, &num, &p)) || num < 0)
            return NULL;
        if (!tag_start)
            tag_start = name;
        tag_end = p;
        if (num > CAPLOG_TAG_MAX)
            tags->implausible = true;
        int32_t v = num > CAPLOG_TAG_MAX ? CAPLOG_TAG_MAX : (int32_t)num;
        switch (name_len) { /* the tag names SGLang prints; others are kept in the label only */
        case 2:
            if (name[1] == 'P') {
                if (name[0] == 'D')
                    tags->dp = v;
                else if (name[0] == 'P')
                    tags->pp = v;
                else if (name[0] == 'T')
                    tags->tp = v;
                else if (name[0] == 'E')
                    tags->ep = v;
            }
            break;
        case 6:
            if (!memcmp(name, "MOE_DP", 6))
                tags->moe_dp = v;
            break;
        case 7:
            if (!memcmp(name, "ATTN_CP", 7))
                tags->attn_cp = v;
            break;
        default:
            break;
        }
    }
    if (*p != ']')
        return NULL;
    p++;
    if (tag_start) {
        tags->label = tag_start;
        tags->label_len = (size_t)(tag_end - tag_start);
    }
    tags->order = tags_order(tags);
    if ((size_t)(p - tags_from) <= TAGS_MEMO_MAX) {
        tags_memo *m = &memos->m[memos->next];
        memos->next = (memos->next + 1) % TAGS_MEMOS;
        m->len = (uint8_t)(p - tags_from);
        memcpy(m->text, tags_from, m->len);
        memcpy(&m->head, tags_from, 8);
        unsigned char mask[8] = {0};
        memset(mask, 0xff, m->len < 8 ? m->len : 8); /* the bytes of the text, in load order */
        memcpy(&m->head_mask, mask, 8);
        m->tags = *tags;
        m->tags.label = NULL;
        m->label_off = tag_start ? (uint8_t)(tag_start - tags_from) : 0;
    }
    if (*p == ' ')
        p++;
    return p;
}

/* A tag's number in BITS bits: absent (-1) is 0, a larger one saturates. */
static inline uint64_t order_field(int32_t v, int bits)
{
    uint64_t x = v < 0 ? 0 : (uint64_t)v, max = ((uint64_t)1 << bits) - 1;
    return x > max ? max : x;
}

static uint64_t tags_order(const line_tags *t)
{
    /* (tp, dp, pp, attn_cp, moe_dp, ep), absent = 0; saturated into 16/12/8/8/8/12 bits, which
     * fill the 64-bit key with TP most significant */
    return order_field(t->tp, 16) << 48 | order_field(t->dp, 12) << 36 | order_field(t->pp, 8) << 28 |
           order_field(t->attn_cp, 8) << 20 | order_field(t->moe_dp, 8) << 12 | order_field(t->ep, 12);
}

/* The bytes of a docker compose service's name: letters and digits (2: they may begin one), '_',
 * '-' and '.' (1). */
static const uint8_t compose_name_char[256] = {
    ['a' ... 'z'] = 2, ['A' ... 'Z'] = 2, ['0' ... '9'] = 2, ['_'] = 1, ['-'] = 1, ['.'] = 1,
};

/* docker compose's "name  | " before the line. */
static const char *skip_foreign_prefix(const char *s, const char *end)
{
    const char *p = s;
    if (compose_name_char[(unsigned char)*p] != 2)
        return s;
    /* a described bar frame, every other line of a capture: a word then a letter, no prefix */
    if (p[0] == 'C' && (has_prefix(p, "Capturing b") || has_prefix(p, "Capturing n")))
        return s;
    while (compose_name_char[(unsigned char)*p]) /* a table: a progress bar's "Capturing" is on every other line */
        p++;
    if (*p != ' ')
        return s;
    p = skip_spaces(p);
    if (*p != '|')
        return s;
    p++;
    if (*p == ' ')
        p++;
    return p < end ? p : s;
}

/* ---------------------------------------------------------------- runs, ranks, groups */

static void rank_init(caplog_rank *r)
{
    memset(r, 0, sizeof *r);
    r->weights_begin_avail_gib = r->weights_end_avail_gib = r->weights_usage_gib = NO_VALUE;
    r->kv_tokens = -1;
    r->kv_gib = r->state_gib = r->pool_avail_gib = r->available_gpu_mem_gib = NO_VALUE;
    r->max_total_num_tokens = -1;
}

static void group_init(caplog_group *g)
{
    /* The size and bar arrays (~36 KiB) are read only up to n_sizes / n_bars and filled as
     * entries are appended: clearing them for every group was most of the parser's time. */
    memset(g, 0, offsetof(caplog_group, sizes));
    g->n_bars = 0;
    memset(&g->bar_total, 0, sizeof *g - offsetof(caplog_group, bar_total));
    g->step = -1;
    g->begin_avail_gib = NO_VALUE;
    g->tokens_per_req = -1;
    g->end_elapsed_s = g->end_usage_gib = g->end_avail_gib = NO_VALUE;
    g->registered_addresses = -1;
    g->static_gib = g->largest_gib = g->buckets_gib = g->total_gib = NO_VALUE;
}

static void args_reset(caplog_server_args *a);

static void run_reset(caplog_parser *p, uint32_t first_line)
{
    /* The group table is ~1.2 MiB and each group is cleared by group_init() when it is opened;
     * the env and rank tables are read up to their counts and each entry is written whole when
     * it is added; server_args' text and lists are read only where their field is set. So only
     * the counts and flags are cleared here: a log of many short server starts would otherwise
     * spend much of its time clearing 27 KiB per start. */
    caplog_run *run = p->run;
    run->first_line = run->last_line = 0;
    args_reset(&run->args);
    run->architecture[0] = '\0';
    run->n_env = 0;
    run->n_groups = 0;
    run->n_ranks = 0;
    memset(&run->dropped_groups, 0, sizeof *run - offsetof(caplog_run, dropped_groups));
    p->run->first_line = first_line;
    p->run_content = false;
    for (int i = 0; i < CAPLOG_MAX_RANKS; i++) {
        p->rank_cursor[i] = 0;
        p->rank_open[i] = -1;
        p->registered_wait[i] = -1;
    }
    for (int i = 0; i < CAPLOG_MAX_GROUPS; i++) {
        p->begin_mask[i] = p->end_mask[i] = 0;
        p->group_src[i] = p->begin_src[i] = p->registered_src[i] = -1;
    }
    p->last_slot = -1;
    p->rank_memo = -1;
    p->bar_group = -1;
    p->bar_prev_counter = p->bar_prev_desc_counter = -1;
    p->bar_restart = false;
    p->pend.valid = false;
}

static void touch(caplog_parser *p)
{
    p->run_content = true;
    p->recognised = true;
}

static void env_add(caplog_env *env, uint32_t *n, uint32_t *dropped, const char *key, size_t key_len, const char *value,
                    size_t value_len)
{
    caplog_env e;
    engine_text_clean(e.key, sizeof e.key, key, key_len);
    engine_text_clean(e.value, sizeof e.value, value, value_len);
    for (uint32_t i = 0; i < *n; i++)
        if (!strcmp(env[i].key, e.key)) {
            env[i] = e; /* echoed again: the later value is the one exported */
            return;
        }
    if (*n < CAPLOG_MAX_ENV)
        env[(*n)++] = e;
    else
        (*dropped)++;
}

/* The waiting environment lines join the current run. */
static void env_flush(caplog_parser *p)
{
    if (!p->n_env_wait && !p->env_wait_dropped)
        return;
    caplog_run *run = p->run;
    for (uint32_t i = 0; i < p->n_env_wait; i++)
        env_add(run->env, &run->n_env, &run->dropped_env, p->env_wait[i].key, strlen(p->env_wait[i].key),
                p->env_wait[i].value, strlen(p->env_wait[i].value));
    run->dropped_env += p->env_wait_dropped;
    p->n_env_wait = p->env_wait_dropped = p->env_wait_line = 0;
}

static int32_t bucket_count(const caplog_group *g)
{
    return g->n_sizes ? (int32_t)g->n_sizes : (int32_t)g->bar_total;
}

const caplog_bar *caplog_group_bar_at(const caplog_group *g, int32_t index)
{
    if (index < 0)
        return NULL;
    for (uint32_t i = 0; i < g->n_bars; i++)
        if (g->bars[i].index == index)
            return &g->bars[i];
    return NULL;
}

/* The known bar latest in capture order, or NULL. */
static const caplog_bar *last_bar(const caplog_group *g)
{
    const caplog_bar *last = NULL;
    for (uint32_t i = 0; i < g->n_bars; i++)
        if (g->bars[i].index >= 0 && caplog_known(g->bars[i].avail_gib) && (!last || g->bars[i].index > last->index))
            last = &g->bars[i];
    return last;
}

/* Bucket positions, layers and increments (LOGS.md, "Progress bars"). Bars are matched to
 * buckets by size; a layer whose two bounds are not both known stays NaN. BEGIN_RANK is the
 * label of the rank the begin line came from when it is not the group's own rank, else NULL. */
static void group_finalize(caplog_group *g, const char *begin_rank)
{
    if (g->n_sizes) {
        /* a list in capture order is monotonic, so its sizes are distinct and a bar's position is
         * found from the last one's on (bars follow the list), not from the start each time */
        bool distinct = true;
        for (uint32_t k = 2; k < g->n_sizes && distinct; k++)
            distinct = (g->sizes[k - 2] < g->sizes[k - 1]) == (g->sizes[k - 1] < g->sizes[k]) &&
                       g->sizes[k - 1] != g->sizes[k];
        distinct = distinct && (g->n_sizes < 2 || g->sizes[0] != g->sizes[1]);
        uint32_t from = 0;
        for (uint32_t i = 0; i < g->n_bars; i++) {
            caplog_bar *b = &g->bars[i];
            b->index = -1;
            if (b->size) {
                uint32_t k = distinct ? from : 0; /* else the first of equal sizes, as always */
                for (uint32_t j = 0; j < g->n_sizes; j++, k = k + 1 < g->n_sizes ? k + 1 : 0) {
                    if (g->sizes[k] == b->size) {
                        b->index = (int32_t)k;
                        from = k + 1 < g->n_sizes ? k + 1 : 0;
                        break;
                    }
                }
            } else if (b->counter >= 0 && (uint32_t)b->counter < g->n_sizes) {
                b->index = b->counter;
                b->size = g->sizes[b->counter];
            }
        }
    } else if (g->n_bars) {
        bool increasing = g->bars[0].counter >= 0;
        for (uint32_t i = 1; i < g->n_bars && increasing; i++)
            increasing = g->bars[i].counter > g->bars[i - 1].counter;
        for (uint32_t i = 0; i < g->n_bars; i++) {
            caplog_bar *b = &g->bars[i];
            if (increasing)
                b->index = b->counter;
            else if (g->bars[0].counter == 0)
                b->index = (int32_t)i; /* stale counters, but the sequence starts at bucket 0 */
            else
                b->index = -1;
        }
    }
    int32_t n = bucket_count(g);
    const caplog_bar *first = caplog_group_bar_at(g, 0), *second = caplog_group_bar_at(g, 1);
    double first_avail = first ? first->avail_gib : NO_VALUE;
    double second_avail = second ? second->avail_gib : NO_VALUE;
    g->static_gib = diff2(g->begin_avail_gib, first_avail);
    if (n == 1) {
        g->largest_gib = diff2(first_avail, g->end_avail_gib);
        g->buckets_gib = first ? 0.0 : NO_VALUE;
    } else {
        g->largest_gib = diff2(first_avail, second_avail);
        g->buckets_gib = diff2(second_avail, g->end_avail_gib);
    }
    g->total_gib = diff2(g->begin_avail_gib, g->end_avail_gib);
    if (begin_rank && caplog_known(g->end_usage_gib))
        g->total_gib = g->end_usage_gib; /* one rank's begin - end, not two ranks' */
    if (!caplog_known(g->total_gib) && caplog_known(g->end_usage_gib))
        g->total_gib = g->end_usage_gib;
    /* The end line reads free memory after empty_cache, the bars before it: an end above the
     * last bar means the cache the bars still counted as used was released in between, so a
     * difference of a bar and the end is not a bucket's cost. begin - end stays the total (both
     * after empty_cache). */
    const caplog_bar *last = last_bar(g);
    bool end_above = last && caplog_known(g->end_avail_gib) && round2(g->end_avail_gib - last->avail_gib) > 0;
    if (end_above) {
        if (n == 1)
            g->largest_gib = NO_VALUE;
        else
            g->buckets_gib = NO_VALUE;
        snprintf(g->note, sizeof g->note,
                 "end avail %.2f GiB is above the last bar's %.2f (bs %u): the end is read after empty_cache, the bars "
                 "before it, so the layers that subtract the end are unknown",
                 g->end_avail_gib, last->avail_gib, last->size);
    }
    if (begin_rank && caplog_known(g->static_gib)) {
        const char *label = g->rank_label[0] ? g->rank_label : "TP0";
        if (g->static_gib < 0) {
            g->static_gib = NO_VALUE; /* the ranks' free memory differs by more than the layer */
            if (!g->note[0])
                snprintf(g->note, sizeof g->note,
                         "static unknown: the begin line is %s's, the bars %s's, and its free memory is below %s's "
                         "first bar",
                         begin_rank, label, label);
        } else if (!g->note[0]) {
            snprintf(g->note, sizeof g->note,
                     "static from %s's begin line and %s's bars (%s printed none): ranks' free memory can differ",
                     begin_rank, label, label);
        }
    }
    /* the first bar at each position up to the last bar's (caplog_group_bar_at's answer) */
    _Static_assert(CAPLOG_MAX_BUCKETS <= INT16_MAX, "a bar's index in its group fits an int16_t");
    int16_t bar_at[CAPLOG_MAX_BUCKETS];
    int32_t positions = 0;
    for (uint32_t i = 0; i < g->n_bars; i++)
        if (g->bars[i].index >= positions && g->bars[i].index < CAPLOG_MAX_BUCKETS)
            positions = g->bars[i].index + 1;
    for (int32_t k = 0; k < positions; k++)
        bar_at[k] = -1;
    for (uint32_t i = g->n_bars; i-- > 0;)
        if (g->bars[i].index >= 0 && g->bars[i].index < CAPLOG_MAX_BUCKETS)
            bar_at[g->bars[i].index] = (int16_t)i;
    for (uint32_t i = 0; i < g->n_bars; i++) {
        caplog_bar *b = &g->bars[i];
        b->increment_gib = NO_VALUE;
        if (b->index < 0)
            continue;
        if (n > 0 && b->index == n - 1) {
            if (!end_above)
                b->increment_gib = diff2(b->avail_gib, g->end_avail_gib);
        } else {
            int32_t at = b->index + 1;
            const caplog_bar *next = at >= CAPLOG_MAX_BUCKETS            ? caplog_group_bar_at(g, at)
                                     : at < positions && bar_at[at] >= 0 ? &g->bars[bar_at[at]]
                                                                         : NULL;
            if (next)
                b->increment_gib = diff2(b->avail_gib, next->avail_gib);
        }
    }
}

static void bar_append(caplog_group *g, uint32_t size, int32_t counter, double avail)
{
    if (g->n_bars >= CAPLOG_MAX_BUCKETS) {
        g->dropped_bars++;
        return;
    }
    caplog_bar *b = &g->bars[g->n_bars++];
    b->size = size;
    b->index = -1;
    b->counter = counter;
    b->avail_gib = avail;
    b->increment_gib = NO_VALUE;
}

/* The waiting bs-less frame becomes a bar unless it is the closing one (i == n). */
static void pend_commit(caplog_parser *p)
{
    if (!p->pend.valid)
        return;
    p->pend.valid = false;
    if (p->bar_group < 0 || (uint32_t)p->bar_group >= p->run->n_groups)
        return;
    caplog_group *g = &p->run->groups[p->bar_group];
    if (p->pend.counter >= 0 && g->bar_total && (uint32_t)p->pend.counter >= g->bar_total)
        return;
    for (uint32_t i = 0; i < g->n_bars; i++)
        if (!g->bars[i].size && p->pend.counter >= 0 && g->bars[i].counter == p->pend.counter)
            return;
    bar_append(g, 0, p->pend.counter, p->pend.avail_gib);
}

/* Hands the run to the callback; LAST_LINE is the last physical line that belongs to it. */
static void run_emit(caplog_parser *p, uint32_t last_line)
{
    pend_commit(p);
    if (!p->run_content)
        return;
    caplog_run *run = p->run;
    run->last_line = last_line;
    if (run->last_line < run->first_line)
        run->last_line = run->first_line;
    for (uint32_t i = 0; i < run->n_groups; i++) {
        caplog_group *g = &run->groups[i];
        int32_t src = p->group_src[i], bsrc = p->begin_src[i];
        /* the slots' labels as they ended up (an untagged rank 0 may show its tags later) */
        if (src >= 0)
            memcpy(g->rank_label, run->ranks[src].label, sizeof g->rank_label);
        if (bsrc >= 0)
            memcpy(g->begin_rank_label, run->ranks[bsrc].label, sizeof g->begin_rank_label);
        bool other = bsrc >= 0 && src >= 0 && bsrc != src;
        group_finalize(g, other ? (g->begin_rank_label[0] ? g->begin_rank_label : "TP0") : NULL);
    }
    /* ranks in rank order (the slots' bookkeeping ends with the run) */
    for (uint32_t i = 1; i < run->n_ranks; i++) {
        caplog_rank r = run->ranks[i];
        uint32_t k = i;
        for (; k > 0 && run->ranks[k - 1].order > r.order; k--)
            run->ranks[k] = run->ranks[k - 1];
        run->ranks[k] = r;
    }
    p->runs_emitted++;
    if (p->on_run)
        p->on_run(run, p->ctx);
}

/* Emits the current run and starts a new one at FIRST_LINE; the waiting environment joins it. */
static void run_start_new(caplog_parser *p, uint32_t first_line)
{
    uint32_t start = first_line;
    if (p->n_env_wait && p->env_wait_line && p->env_wait_line < start)
        start = p->env_wait_line;
    if (p->run_content) {
        run_emit(p, start > 1 ? start - 1 : 1);
        run_reset(p, 0);
    }
    env_flush(p);
    p->run->first_line = start;
}

static int32_t rank_find(const caplog_rank *table, uint32_t n, uint64_t order)
{
    for (uint32_t i = 0; i < n; i++)
        if (table[i].order == order)
            return (int32_t)i;
    return -1;
}

/* The slot of the rank with these tags in TABLE, created if new; -1 when the table is full. */
static int32_t rank_get(caplog_rank *table, uint32_t *n, uint32_t *dropped, const line_tags *t)
{
    uint64_t order = t->order;
    int32_t i = rank_find(table, *n, order);
    if (i >= 0) {
        if (!table[i].label[0] && t->label_len)
            engine_text_clean(table[i].label, sizeof table[i].label, t->label, t->label_len);
        return i;
    }
    if (*n >= CAPLOG_MAX_RANKS) {
        if (dropped)
            (*dropped)++;
        return -1;
    }
    caplog_rank *r = &table[*n];
    rank_init(r);
    engine_text_clean(r->label, sizeof r->label, t->label ? t->label : "", t->label_len);
    r->tp = t->tp < 0 ? 0 : t->tp;
    r->order = order;
    return (int32_t)(*n)++;
}

/* Counts a line whose rank does not fit; call once per line. A log's lines come from a few ranks
 * in turn, mostly one: the last answer is tried first. */
static int32_t run_rank(caplog_parser *p, const line_tags *t)
{
    int32_t m = p->rank_memo;
    const caplog_rank *ranks = p->run->ranks;
    if (m >= 0 && (uint32_t)m < p->run->n_ranks && ranks[m].order == t->order && (ranks[m].label[0] || !t->label_len))
        return m; /* what rank_get would answer, and it would change nothing */
    m = rank_get(p->run->ranks, &p->run->n_ranks, &p->run->dropped_rank_lines, t);
    p->rank_memo = m;
    return m;
}

/* The rank whose memory values this line sets: the side table while a split is undecided. */
static caplog_rank *rank_values(caplog_parser *p, const line_tags *t)
{
    if (p->split_pending) {
        int32_t i = rank_get(p->side, &p->n_side, NULL, t);
        return i < 0 ? NULL : &p->side[i];
    }
    int32_t i = rank_get(p->run->ranks, &p->run->n_ranks, NULL, t); /* counted by on_message */
    return i < 0 ? NULL : &p->run->ranks[i];
}

static bool slot_better(const caplog_parser *p, int32_t a, int32_t b)
{
    return b < 0 || p->run->ranks[a].order < p->run->ranks[b].order;
}

/* SLOT becomes the rank the group's numbers come from; another rank's end values are dropped.
 * Its begin values stay until SLOT prints a begin of its own: they are the lowest rank's that
 * printed one, and a log that lost TP0's begin line would otherwise lose its static layer. */
static void group_claim(caplog_parser *p, int32_t j, int32_t slot)
{
    caplog_group *g = &p->run->groups[j];
    const caplog_rank *r = &p->run->ranks[slot];
    if (p->group_src[j] >= 0 && p->group_src[j] != slot) {
        g->end_elapsed_s = g->end_usage_gib = g->end_avail_gib = NO_VALUE;
        g->has_end = false;
    }
    p->group_src[j] = slot;
    memcpy(g->rank_label, r->label, sizeof g->rank_label);
    g->rank_tp = r->tp;
}

static void classify_kind(const char *k, caplog_role *role, caplog_phase *phase, bool *num_tokens)
{
    *role = (starts_with(k, "draft") || strstr(k, " draft")) ? CAPLOG_ROLE_DRAFT : CAPLOG_ROLE_TARGET;
    if (strstr(k, "verify"))
        *phase = CAPLOG_PHASE_VERIFY;
    else if (strstr(k, "extend"))
        *phase = CAPLOG_PHASE_EXTEND;
    else if (strstr(k, "prefill") || strstr(k, "piecewise"))
        *phase = CAPLOG_PHASE_PREFILL;
    else if (strstr(k, "decode") || (*role == CAPLOG_ROLE_DRAFT && strstr(k, "graph")))
        *phase = CAPLOG_PHASE_DECODE; /* 2025's "draft cuda graph" is the draft decode graph */
    else
        *phase = CAPLOG_PHASE_NONE; /* legacy "cuda graph": decode or verify */
    *num_tokens = *phase == CAPLOG_PHASE_PREFILL;
}

static void kind_classify(caplog_group *g)
{
    classify_kind(g->kind, &g->role, &g->phase, &g->sizes_are_num_tokens);
}

/* A new group of KIND (MEMO: KIND's memo, its classification known; or NULL). */
static int32_t group_new_of(caplog_parser *p, const char *kind, int32_t step, const kind_memo *memo)
{
    caplog_run *run = p->run;
    if (run->n_groups >= CAPLOG_MAX_GROUPS) {
        run->dropped_groups++;
        return -1;
    }
    int32_t j = (int32_t)run->n_groups++;
    caplog_group *g = &run->groups[j];
    group_init(g);
    p->bar_min_size[j] = UINT32_MAX;
    engine_text_clean(g->kind, sizeof g->kind, kind, strlen(kind));
    g->step = step;
    g->first_line = p->line_no;
    if (memo) {
        g->role = memo->role;
        g->phase = memo->phase;
        g->sizes_are_num_tokens = memo->num_tokens;
    } else if (kind[0]) {
        kind_classify(g);
    }
    return j;
}

static int32_t group_new(caplog_parser *p, const char *kind, int32_t step)
{
    return group_new_of(p, kind, step, NULL);
}

static bool group_is(const caplog_group *g, const char *kind, int32_t step)
{
    return !strcmp(g->kind, kind) && g->step == step;
}

/* The first group from SLOT's cursor of this kind that SLOT has not named yet. */
static int32_t group_match(const caplog_parser *p, int32_t slot, const char *kind, int32_t step)
{
    uint64_t bit = (uint64_t)1 << slot;
    for (int32_t j = p->rank_cursor[slot]; j < (int32_t)p->run->n_groups; j++)
        if (group_is(&p->run->groups[j], kind, step) && !(p->begin_mask[j] & bit) && !(p->end_mask[j] & bit))
            return j;
    return -1;
}

static void set_sizes(caplog_group *g, const uint32_t *list, int n, uint32_t dropped)
{
    if (n <= 0 || g->n_sizes)
        return;
    /* The log lists buckets ascending; capture runs largest first. */
    bool ascending = n < 2 || list[0] <= list[n - 1];
    for (int i = 0; i < n; i++)
        g->sizes[i] = ascending ? list[n - 1 - i] : list[i];
    g->n_sizes = (uint32_t)n;
    g->dropped_sizes = dropped;
}

static void bars_follow(caplog_parser *p, int32_t j)
{
    pend_commit(p);
    p->bar_group = j;
    p->bar_prev_counter = p->bar_prev_desc_counter = -1;
    p->bar_restart = false;
}

/* ---------------------------------------------------------------- the deferred run split */

static void split_decide(caplog_parser *p, bool draft_follows)
{
    if (!p->split_pending)
        return;
    p->split_pending = false;
    if (draft_follows) {
        p->n_side = 0; /* the draft model's load: the target's values are the rank's */
        p->side_architecture[0] = '\0';
        return;
    }
    uint32_t n_side = p->n_side;
    run_start_new(p, p->split_line);
    memcpy(p->run->architecture, p->side_architecture, sizeof p->run->architecture);
    p->side_architecture[0] = '\0';
    memcpy(p->run->ranks, p->side, n_side * sizeof p->side[0]);
    p->run->n_ranks = n_side;
    for (uint32_t i = 0; i < n_side; i++)
        if (p->side[i].has_data)
            p->run_content = true;
    p->n_side = 0;
}

static bool run_has_finished_group(const caplog_run *run)
{
    for (uint32_t i = 0; i < run->n_groups; i++)
        if (run->groups[i].has_end || run->groups[i].failed)
            return true;
    return false;
}

static bool run_speculative(const caplog_run *run)
{
    const caplog_opt_str *a = &run->args.speculative_algorithm;
    return a->has && a->v[0] && strcmp(a->v, "None") != 0;
}

/* ---------------------------------------------------------------- capture lines */

/* The kind as CLI.md names it ("target verify", "draft cuda graph", "piecewise cuda graph") of the
 * N bytes of a capture line's name at C, into M (M->graph false: not a capture line). */
static void name_kind(const char *c, size_t n, kind_memo *m)
{
    char *kind = m->kind;
    for (size_t i = 0; i < n; i++)
        kind[i] = to_lower(c[i]);
    kind[n] = '\0';
    m->graph = strstr(kind, "graph") != NULL;
    if (!m->graph)
        return;
    /* The 2026-06 names, "<role> <phase>", end in the backend's "CUDA graph" (or CPU/NPU/XPU
     * graph): drop it. */
    for (int r = CAPLOG_ROLE_TARGET; r <= CAPLOG_ROLE_DRAFT; r++) {
        const char *role = caplog_role_names[r];
        size_t rl = strlen(role);
        if (strncmp(kind, role, rl) || kind[rl] != ' ')
            continue;
        for (int ph = CAPLOG_PHASE_DECODE; ph <= CAPLOG_PHASE_PREFILL; ph++) {
            const char *phase = caplog_phase_names[ph];
            size_t pl = strlen(phase);
            if (strncmp(kind + rl + 1, phase, pl))
                continue;
            const char *backend = kind + rl + 1 + pl; /* " cuda graph", " cpu graph", ... */
            const char *word_end = backend[0] == ' ' ? strchr(backend + 1, ' ') : NULL;
            if (word_end && !strcmp(word_end, " graph"))
                kind[rl + 1 + pl] = '\0';
        }
    }
    m->draft = strstr(kind, "draft") != NULL;
    classify_kind(kind, &m->role, &m->phase, &m->num_tokens);
}

/* "Capture <name> begin." / "... end." from C, the message's first "Capture ": what its name
 * gives (*KIND, kept in P's memos) and the text after the dot, or NULL. */
static const char *capture_kind(caplog_parser *p, const char *c, const kind_memo **kind, bool *is_begin)
{
    c += LITERAL_LEN(CAPTURE_KEY);
    /* The first BEGIN_KEY or END_KEY after C, whichever starts first: both end in the '.', and
     * neither holds the other, so the first '.' that ends one of them is that one's. */
    const char *stop = NULL;
    bool begin = false;
    for (const char *dot = strchr(c, '.'); dot && !stop; dot = strchr(dot + 1, '.')) {
        const size_t begin_word = LITERAL_LEN(BEGIN_KEY) - 1, end_word = LITERAL_LEN(END_KEY) - 1; /* before the '.' */
        if ((size_t)(dot - c) >= begin_word && !memcmp(dot - begin_word, BEGIN_KEY, begin_word)) {
            stop = dot - begin_word;
            begin = true;
        } else if ((size_t)(dot - c) >= end_word && !memcmp(dot - end_word, END_KEY, end_word)) {
            stop = dot - end_word;
        }
    }
    if (!stop || (size_t)(stop - c) >= CAPLOG_KIND_MAX || stop == c)
        return NULL;
    size_t n = (size_t)(stop - c);
    const kind_memo *m = NULL;
    for (int i = 0; i < KIND_MEMOS && !m; i++)
        if (p->kinds[i].raw_len == n && !memcmp(p->kinds[i].raw, c, n))
            m = &p->kinds[i];
    if (!m) {
        kind_memo *fresh = &p->kinds[p->next_kind++ % KIND_MEMOS];
        fresh->raw_len = (uint8_t)n;
        memcpy(fresh->raw, c, n);
        name_kind(c, n, fresh);
        m = fresh;
    }
    if (!m->graph)
        return NULL;
    *kind = m;
    *is_begin = begin;
    return stop + (begin ? LITERAL_LEN(BEGIN_KEY) : LITERAL_LEN(END_KEY));
}

/* The keys a capture begin or end line's values follow, found in one pass (find_eq_keys). */
enum { CK_STEP, CK_AVAIL, CK_PER_REQ, CK_PER_BS, CK_BS_LIST, CK_TOKENS_LIST, CK_ELAPSED, CK_USAGE, CAPTURE_KEYS };
static const eq_key capture_keys[CAPTURE_KEYS] = {
    [CK_STEP] = EQ_KEY("step=", 0),
    [CK_AVAIL] = EQ_KEY("avail mem=", 0),
    [CK_PER_REQ] = EQ_KEY("num_tokens_per_req=", 0),
    [CK_PER_BS] = EQ_KEY("num_tokens_per_bs=", 0),
    [CK_BS_LIST] = EQ_KEY("bs=[", 1),
    [CK_TOKENS_LIST] = EQ_KEY("num_tokens=[", 1),
    [CK_ELAPSED] = EQ_KEY("elapsed=", 0),
    [CK_USAGE] = EQ_KEY("mem usage=", 0),
};
_Static_assert(CAPTURE_KEYS <= EQ_KEYS_MAX, "find_eq_keys takes the capture keys at once");
#define CAPTURE_KEY_LEN(k) ((size_t)capture_keys[k].len)

static int32_t step_of(caplog_parser *p, const char *step_key)
{
    int64_t v;
    return int_found(p, step_key, CAPTURE_KEY_LEN(CK_STEP), 0, CAPLOG_SPEC_MAX, &v) ? (int32_t)v : -1;
}

/* The bounds of a capture list's entries: batch sizes, or num_tokens for prefill/piecewise. */
static int parse_sizes(const char *s, uint32_t *out, uint32_t *dropped, bool num_tokens)
{
    return parse_list(s, out, CAPLOG_MAX_BUCKETS, dropped, 1, num_tokens ? CAPLOG_NUM_TOKENS_MAX : CAPLOG_BS_MAX);
}

static void on_begin(caplog_parser *p, int32_t slot, const kind_memo *memo, const char *rest)
{
    const char *kind = memo->kind;
    const char *at[CAPTURE_KEYS];
    find_eq_keys(rest, capture_keys, CAPTURE_KEYS, at);
    int32_t step = step_of(p, at[CK_STEP]);
    int32_t j = group_match(p, slot, kind, step);
    if (j < 0)
        j = group_new_of(p, kind, step, memo);
    if (j < 0)
        return;
    caplog_group *g = &p->run->groups[j];
    p->begin_mask[j] |= (uint64_t)1 << slot;
    p->rank_open[slot] = j;
    p->registered_wait[slot] = -1; /* a Registering line before this begin ended no capture here */
    if (p->rank_cursor[slot] < j + 1)
        p->rank_cursor[slot] = j + 1;
    if (slot_better(p, slot, p->group_src[j]))
        group_claim(p, j, slot);
    /* the source's own begin, else the lowest rank's that printed one */
    int32_t src = p->group_src[j];
    bool src_begun = src >= 0 && src != slot && (p->begin_mask[j] & ((uint64_t)1 << src));
    if (src == slot || (!src_begun && slot_better(p, slot, p->begin_src[j]))) {
        g->has_begin = true;
        g->begin_avail_gib = gib_found(p, at[CK_AVAIL], CAPTURE_KEY_LEN(CK_AVAIL)); /* unreadable: malformed */
        p->begin_src[j] = slot;
        memcpy(g->begin_rank_label, p->run->ranks[slot].label, sizeof g->begin_rank_label);
    }
    int64_t tokens;
    if (int_found(p, at[CK_PER_REQ], CAPTURE_KEY_LEN(CK_PER_REQ), 1, CAPLOG_SPEC_MAX, &tokens) ||
        int_found(p, at[CK_PER_BS], CAPTURE_KEY_LEN(CK_PER_BS), 1, CAPLOG_SPEC_MAX, &tokens))
        g->tokens_per_req = (int32_t)tokens;
    const char *list = at[CK_BS_LIST];
    bool num_tokens = false;
    if (!list) {
        list = at[CK_TOKENS_LIST];
        num_tokens = list != NULL;
    }
    if (list) {
        uint32_t tmp[CAPLOG_MAX_BUCKETS], dropped = 0;
        int n = parse_sizes(strchr(list, '['), tmp, &dropped, num_tokens || g->sizes_are_num_tokens);
        if (n < 0)
            note_malformed(p);
        bool had_sizes = g->n_sizes > 0;
        set_sizes(g, tmp, n, dropped);
        if (num_tokens && !had_sizes && g->n_sizes)
            g->sizes_are_num_tokens = true; /* "num_tokens=[...]": token counts, whatever the kind */
    }
    if (p->run->ranks[slot].order == 0)
        bars_follow(p, j);
}

/* Group J's registered_addresses from SLOT: the lowest rank's (every rank captures the same
 * graphs, so any rank's count is the group's; a log that lost TP0's line keeps another's). */
static void registered_set(caplog_parser *p, int32_t j, int32_t slot, int32_t n)
{
    if (!slot_better(p, slot, p->registered_src[j]))
        return;
    p->run->groups[j].registered_addresses = n;
    p->registered_src[j] = slot;
}

static void on_end(caplog_parser *p, int32_t slot, const kind_memo *memo, const char *rest)
{
    const char *kind = memo->kind;
    const char *at[CAPTURE_KEYS];
    find_eq_keys(rest, capture_keys, CAPTURE_KEYS, at);
    int32_t step = step_of(p, at[CK_STEP]);
    int32_t j = p->rank_open[slot];
    if (j < 0 || !group_is(&p->run->groups[j], kind, step))
        j = group_match(p, slot, kind, step);
    if (j < 0)
        j = group_new_of(p, kind, step, memo); /* its begin is not in the file */
    if (j < 0)
        return;
    caplog_group *g = &p->run->groups[j];
    p->end_mask[j] |= (uint64_t)1 << slot;
    if (p->rank_open[slot] == j)
        p->rank_open[slot] = -1;
    if (p->rank_cursor[slot] < j + 1)
        p->rank_cursor[slot] = j + 1;
    if (slot_better(p, slot, p->group_src[j]))
        group_claim(p, j, slot);
    if (p->group_src[j] == slot) {
        g->has_end = true;
        g->end_elapsed_s = real_found(p, at[CK_ELAPSED], CAPTURE_KEY_LEN(CK_ELAPSED), 0.0, CAPLOG_SECONDS_MAX);
        if (!caplog_known(g->end_elapsed_s))
            g->end_elapsed_s = real_after(p, rest, "Time elapsed:", 0.0, CAPLOG_SECONDS_MAX);
        /* usage is a difference of two readings: slightly negative when memory was freed */
        g->end_usage_gib = real_found(p, at[CK_USAGE], CAPTURE_KEY_LEN(CK_USAGE), -CAPLOG_GIB_MAX, CAPLOG_GIB_MAX);
        g->end_avail_gib = gib_found(p, at[CK_AVAIL], CAPTURE_KEY_LEN(CK_AVAIL));
    }
    if (p->registered_wait[slot] >= 0) {
        registered_set(p, j, slot, p->registered_wait[slot]);
        p->registered_wait[slot] = -1;
    }
    if (j == p->bar_group && p->run->ranks[slot].order == 0) {
        pend_commit(p);
        p->bar_group = -1;
    }
}

/* The group SLOT is capturing, else the latest it began and did not end. */
static int32_t open_group_of(const caplog_parser *p, int32_t slot)
{
    if (slot >= 0 && p->rank_open[slot] >= 0)
        return p->rank_open[slot];
    if (slot >= 0) {
        uint64_t bit = (uint64_t)1 << slot;
        for (int32_t j = (int32_t)p->run->n_groups - 1; j >= 0; j--)
            if ((p->begin_mask[j] & bit) && !(p->end_mask[j] & bit))
                return j;
    }
    return -1;
}

/* The latest group a begin line opened, if other ranks began it, SLOT has not named it and it is
 * still open (not ended by its source, not failed, no bars yet): where SLOT's list line or bars
 * go when its own begin line is not in the log (a paste that kept TP0's bars, not its begin).
 * -1: none. */
static int32_t group_begun_by_others(const caplog_parser *p, int32_t slot)
{
    uint64_t bit = (uint64_t)1 << slot;
    for (int32_t j = (int32_t)p->run->n_groups - 1; j >= p->rank_cursor[slot]; j--) {
        if (!p->begin_mask[j])
            continue; /* bars-only or end-only groups say nothing of what is being captured */
        const caplog_group *g = &p->run->groups[j];
        bool open = !((p->begin_mask[j] | p->end_mask[j]) & bit) && !g->has_end && !g->failed && !g->n_bars;
        return open ? j : -1;
    }
    return -1;
}

/* Any group a begin line opened that its source has not ended and that has not failed (a
 * bars-only group has no end line, so an OOM at serving time must not land on it). */
static int32_t latest_open_group(const caplog_parser *p)
{
    for (int32_t j = (int32_t)p->run->n_groups - 1; j >= 0; j--) {
        const caplog_group *g = &p->run->groups[j];
        if (p->begin_mask[j] && !g->has_end && !g->failed)
            return j;
    }
    return -1;
}

static void set_failure(caplog_group *g, const char *text)
{
    g->failed = true;
    if (!g->failure[0] && text)
        engine_text_clean(g->failure, sizeof g->failure, text, strlen(text));
}

static void on_failed(caplog_parser *p, int32_t slot, const char *msg)
{
    int32_t j = open_group_of(p, slot);
    if (j < 0)
        j = group_new(p, "cuda graph", -1); /* the failure line names no kind */
    if (j < 0)
        return;
    caplog_group *g = &p->run->groups[j];
    p->registered_wait[slot] = -1; /* a failed capture registers nothing */
    const char *text = strstr(msg, FAILED_KEY);
    set_failure(g, text ? skip_spaces(text + LITERAL_LEN(FAILED_KEY)) : "");
    p->end_mask[j] |= (uint64_t)1 << slot;
    if (p->rank_open[slot] == j)
        p->rank_open[slot] = -1;
    if (p->rank_cursor[slot] < j + 1)
        p->rank_cursor[slot] = j + 1;
    if (p->group_src[j] < 0)
        group_claim(p, j, slot);
    if (j == p->bar_group) {
        pend_commit(p);
        p->bar_group = -1;
    }
}

/* "Capture cuda graph bs [...]" / "Capture cuda graph num tokens [...]" (rank 0, 2025-04 ..
 * 2026-06), printed just after the begin line. */
static void on_list(caplog_parser *p, int32_t slot, const char *list, bool num_tokens)
{
    uint32_t tmp[CAPLOG_MAX_BUCKETS], dropped = 0;
    int n = parse_sizes(list, tmp, &dropped, num_tokens);
    if (n < 0) {
        note_malformed(p);
        return;
    }
    int32_t j = open_group_of(p, slot);
    if (j < 0 && (j = group_begun_by_others(p, slot)) >= 0) {
        /* SLOT's begin line is lost: its list joins the group the other ranks began */
        p->rank_open[slot] = j;
        p->rank_cursor[slot] = j + 1;
        if (slot_better(p, slot, p->group_src[j]))
            group_claim(p, j, slot);
        if (p->run->ranks[slot].order == 0)
            bars_follow(p, j);
    } else if (j < 0) {
        j = group_new(p, num_tokens ? "piecewise cuda graph" : "cuda graph", -1);
        if (j < 0)
            return;
        p->begin_mask[j] |= (uint64_t)1 << slot;
        p->rank_open[slot] = j;
        p->rank_cursor[slot] = j + 1;
        group_claim(p, j, slot);
        if (p->run->ranks[slot].order == 0)
            bars_follow(p, j);
    }
    caplog_group *g = &p->run->groups[j];
    bool had_sizes = g->n_sizes > 0;
    set_sizes(g, tmp, n, dropped);
    if (num_tokens && !had_sizes && g->n_sizes)
        g->sizes_are_num_tokens = true; /* a num_tokens list is never a list of batch sizes */
}

/* "Registering N cuda graph addresses" at K (custom all-reduce, just before the end line of
 * the capture it ends): the group SLOT is capturing, else the one SLOT's next end line closes.
 * False: the key starts some other line. */
static bool on_registering(caplog_parser *p, int32_t slot, const char *k)
{
    const char *n = k + LITERAL_LEN(REGISTERING_KEY), *stop = n;
    int64_t v = -1;
    bool plausible = int_plausible(n, 0, CAPLOG_GRAPH_ADDRESSES_MAX, &v, &stop);
    if (stop == n || !has_prefix(stop, REGISTERING_TAIL))
        return false;
    if (!plausible) {
        note_malformed(p);
        return true;
    }
    int32_t j = open_group_of(p, slot);
    if (j >= 0)
        registered_set(p, j, slot, (int32_t)v);
    else
        p->registered_wait[slot] = (int32_t)v;
    return true;
}

/* ---------------------------------------------------------------- progress bars */

typedef struct {
    double avail;     /* NaN if absent */
    uint32_t size;    /* bs= / num_tokens=, 0 if absent */
    int32_t counter;  /* i of i/n, -1 */
    uint32_t total;   /* n, 0 */
    bool described;   /* "Capturing batches (...)" rather than a plain bar */
    bool implausible; /* a number out of range: the frame is malformed, not read */
    bool num_tokens;
    /* a log line glued after the frame, or NULL; last: a token keeps what comes before it */
    const char *tail;
} bar_frame;
#define BAR_FRAME_KEPT offsetof(bar_frame, tail)

/* "  40%|████   | 21/52 [00:03<00:04,  7.40it/s]" from the percentage on. */
static void parse_bar_tail(const char *s, const char *end, bar_frame *f)
{
    const char *pct = memchr(s, '%', (size_t)(end - s));
    if (!pct || !has_prefix(pct, BAR_START))
        return;
    const char *bar = pct + LITERAL_LEN(BAR_START); /* the blocks, three bytes each: memchr's pace */
    const char *bar_end = memchr(bar, '|', (size_t)(end - bar));
    if (!bar_end)
        return;
    const char *q = skip_spaces(bar_end + 1);
    int64_t i, n;
    if (parse_int(q, &i, &q) && *q == '/' && parse_int(q + 1, &n, &q)) {
        if (i >= 0 && n > 0 && i <= CAPLOG_BAR_TOTAL_MAX && n <= CAPLOG_BAR_TOTAL_MAX) {
            f->counter = (int32_t)i;
            f->total = (uint32_t)n;
        } else {
            f->implausible = true;
        }
    }
    const char *rate = memchr(q, '[', (size_t)(end - q));
    const char *rate_end = rate ? memchr(rate, ']', (size_t)(end - rate)) : NULL;
    if (rate_end) {
        const char *t = skip_spaces(rate_end + 1);
        if (t < end)
            f->tail = t;
    }
}

/* A bar's description's words, "bs=512 avail_mem=75.31 GB", from W to END: END is its ')' or a
 * NUL, either of which ends a number. */
static void parse_bar_desc(const char *w, const char *end, bar_frame *f)
{
    /* its words, read in one pass (half of a capture's lines are these frames); a number's word
     * is skipped from where its digits stop ("avail_mem= 75.31": the number is not a word) */
    value_state tokens = VALUE_ABSENT, bs = VALUE_ABSENT, avail = VALUE_ABSENT;
    int64_t tokens_v = 0, bs_v = 0;
    while (w < end) {
        if (*w == ' ') {
            w++;
            continue;
        }
        const char *num = NULL, *rest = NULL;
        if (tokens == VALUE_ABSENT && *w == 'n' && has_prefix(w, "num_tokens=")) {
            num = w + LITERAL_LEN("num_tokens=");
            tokens = int_plausible(num, 1, CAPLOG_NUM_TOKENS_MAX, &tokens_v, &rest) ? VALUE_OK : VALUE_BAD;
        } else if (bs == VALUE_ABSENT && *w == 'b' && has_prefix(w, "bs=")) {
            num = w + LITERAL_LEN("bs=");
            bs = int_plausible(num, 1, CAPLOG_BS_MAX, &bs_v, &rest) ? VALUE_OK : VALUE_BAD;
        } else if (avail == VALUE_ABSENT && *w == 'a' && has_prefix(w, "avail_mem=")) {
            num = skip_spaces(w + LITERAL_LEN("avail_mem="));
            avail = real_plausible(num, 0.0, CAPLOG_GIB_MAX, &f->avail, &rest) ? VALUE_OK : VALUE_BAD;
        }
        /* no digits read: the word ends at its own space ("avail_mem= bs=5" still reads bs=5) */
        for (w = num && rest > num ? rest : w; w < end && *w != ' ';)
            w++;
    }
    if (tokens != VALUE_ABSENT)
        bs = VALUE_ABSENT; /* num_tokens= decides a piecewise frame */
    if (tokens == VALUE_OK || bs == VALUE_OK)
        f->size = (uint32_t)(tokens == VALUE_OK ? tokens_v : bs_v);
    f->num_tokens = tokens == VALUE_OK;
    if (avail == VALUE_BAD) {
        f->avail = NO_VALUE;
        f->implausible = true;
    }
    if (tokens == VALUE_BAD || bs == VALUE_BAD)
        f->implausible = true;
}

/* The description SGLang's capture gives tqdm, "bs=512 avail_mem=75.31 GB)", exactly, at W: its
 * size and free memory into F and its ')', or NULL (F untouched) for any other text, which
 * parse_bar_desc then reads. Half the lines of a capture are these frames: read field by field,
 * not word by word. The values are those parse_bar_desc gives (CAPLOG_CROSS_CHECK: checked). */
static const char *bar_desc_usual(const char *w, bar_frame *f)
{
    if (!has_prefix(w, "bs="))
        return NULL;
    const char *p = w + LITERAL_LEN("bs="), *digits = p;
    uint32_t bs = 0;
    while (is_digit(*p) && p - digits < 9)
        bs = bs * 10 + (uint32_t)(*p++ - '0');
    if (p == digits || *p != ' ' || bs < 1 || bs > CAPLOG_BS_MAX || !has_prefix(p + 1, "avail_mem="))
        return NULL;
    p += 1 + LITERAL_LEN("avail_mem=");
    uint64_t mant = 0;
    for (digits = p; is_digit(*p) && p - digits < 12;)
        mant = mant * 10 + (uint64_t)(*p++ - '0');
    if (p == digits || *p != '.')
        return NULL;
    const char *frac = ++p;
    while (is_digit(*p) && p - frac < 3)
        mant = mant * 10 + (uint64_t)(*p++ - '0');
    if (p == frac || is_digit(*p) || !has_prefix(p, " GB)"))
        return NULL;
    double avail = (double)mant / pow10_exact[p - frac]; /* parse_real's value: at most 15 digits */
    if (!(avail <= CAPLOG_GIB_MAX))
        return NULL;
    f->size = bs;
    f->avail = avail;
    return p + LITERAL_LEN(" GB");
}

#ifdef CAPLOG_CROSS_CHECK
/* The fuzz build: bar_desc_usual's frame must be parse_bar_desc's. */
static void check_bar_desc_usual(const char *lparen, const char *end, const char *rparen, const bar_frame *f)
{
    bar_frame g = {.avail = NO_VALUE, .counter = -1, .described = true};
    parse_bar_desc(lparen + 1, rparen, &g);
    if (memchr(lparen, ')', (size_t)(end - lparen)) != rparen || g.size != f->size || g.avail != f->avail ||
        g.num_tokens != f->num_tokens || g.implausible != f->implausible) {
        fprintf(stderr, "bar_desc_usual and parse_bar_desc disagree on \"%.*s\"\n", (int)(rparen - lparen + 1), lparen);
        abort();
    }
}
#endif

/* S is in a lexer's line (has_prefix may read past its end), END its NUL, the first. */
static bool parse_bar(const char *s, const char *end, bar_frame *f)
{
    *f = (bar_frame){.avail = NO_VALUE, .counter = -1};
    if (s[0] == 'C' && (has_prefix(s, "Capturing batches (") || has_prefix(s, "Capturing num tokens ("))) {
        f->described = true;
        /* the literal's '(' (no key has one before it), then the description's ')' */
        bool batches = s[LITERAL_LEN("Capturing ")] == 'b';
        const char *lparen =
            batches ? s + LITERAL_LEN("Capturing batches (") - 1 : s + LITERAL_LEN("Capturing num tokens (") - 1;
        const char *rparen = batches ? bar_desc_usual(lparen + 1, f) : NULL;
#ifdef CAPLOG_CROSS_CHECK
        if (rparen)
            check_bar_desc_usual(lparen, end, rparen, f);
#endif
        if (!rparen) {
            rparen = memchr(lparen, ')', (size_t)(end - lparen));
            if (!rparen)
                return true;
            size_t n = (size_t)(rparen - lparen - 1);
            if (n < BAR_DESC_MAX) {
                parse_bar_desc(lparen + 1, rparen, f); /* in place: the ')' ends its last number */
            } else {
                char desc[BAR_DESC_MAX + LINE_PAD] = {0}; /* a longer one is cut, as it always was */
                memcpy(desc, lparen + 1, BAR_DESC_MAX - 1);
                parse_bar_desc(desc, desc + BAR_DESC_MAX - 1, f);
            }
        }
        parse_bar_tail(rparen, end, f);
        return true;
    }
    /* a plain bar: "100%|██████████| 23/23 [...]" */
    const char *d = s;
    int nd = 0;
    while (is_digit(*d) && nd <= PERCENT_DIGITS_MAX) {
        d++;
        nd++;
    }
    if (nd < 1 || nd > PERCENT_DIGITS_MAX || !has_prefix(d, BAR_START))
        return false;
    parse_bar_tail(s, end, f);
    return true;
}

static int32_t rank0_slot(caplog_parser *p)
{
    return run_rank(p, &rank0_tags);
}

static void on_plain_bar(caplog_parser *p, const bar_frame *f)
{
    if (p->bar_group >= 0) {
        caplog_group *g = &p->run->groups[p->bar_group];
        g->captured = true;
        if (f->total && !g->bar_total)
            g->bar_total = f->total;
        /* only a bars-only sequence needs the plain 0% frame to see where the next starts */
        if (!g->kind[0] && g->n_bars && f->counter >= 0 && p->bar_prev_counter >= 0 && f->counter < p->bar_prev_counter)
            p->bar_restart = true;
    }
    if (f->counter >= 0)
        p->bar_prev_counter = f->counter;
}

static void on_described_bar(caplog_parser *p, const bar_frame *f)
{
    if (!caplog_known(f->avail)) {
        on_plain_bar(p, f);
        return;
    }
    touch(p);
    split_decide(p, true);
    env_flush(p);
    int32_t slot = rank0_slot(p);
    if (slot < 0)
        return;
    int32_t j = p->bar_group;
    if (j >= 0) {
        const caplog_group *g = &p->run->groups[j];
        const caplog_bar *last = g->n_bars ? &g->bars[g->n_bars - 1] : NULL;
        bool restart = p->bar_restart ||
                       (f->counter >= 0 && p->bar_prev_desc_counter >= 0 && f->counter < p->bar_prev_desc_counter) ||
                       (f->size && last && last->size && f->size > last->size);
        if (restart)
            j = -1;
    } else {
        j = group_begun_by_others(p, slot); /* TP0's begin lost: the bars are TP0's */
    }
    if (j < 0) {
        j = group_new(p, "", -1);
        if (j < 0)
            return;
    }
    if (j != p->bar_group)
        bars_follow(p, j);
    if (p->group_src[j] != slot && slot_better(p, slot, p->group_src[j]))
        group_claim(p, j, slot);
    caplog_group *g = &p->run->groups[j];
    g->captured = true;
    if (f->total && !g->bar_total)
        g->bar_total = f->total;
    if (f->num_tokens)
        g->sizes_are_num_tokens = true;
    if (f->size) {
        pend_commit(p);
        /* smaller than every bar's size: a new bucket; else look, from the last (a refresh) */
        bool seen = false;
        if (f->size >= p->bar_min_size[j])
            for (uint32_t i = g->n_bars; i-- > 0 && !seen;)
                seen = g->bars[i].size == f->size;
        if (!seen) {
            uint32_t had = g->n_bars;
            bar_append(g, f->size, f->counter, f->avail);
            if (g->n_bars > had && f->size < p->bar_min_size[j])
                p->bar_min_size[j] = f->size;
        }
    } else if (f->counter >= 0) {
        if (p->pend.valid && f->counter > p->pend.counter)
            pend_commit(p);
        p->pend.valid = true;
        p->pend.counter = f->counter;
        p->pend.avail_gib = f->avail;
    } else if (!p->pend.valid || p->pend.avail_gib != f->avail) {
        pend_commit(p);
        p->pend.valid = true;
        p->pend.counter = -1;
        p->pend.avail_gib = f->avail;
    }
    p->bar_restart = false;
    if (f->counter >= 0)
        p->bar_prev_counter = p->bar_prev_desc_counter = f->counter;
}

/* ---------------------------------------------------------------- memory lines */

static void rank_set(caplog_rank *r, double *field, double v)
{
    if (caplog_known(v) && !caplog_known(*field)) {
        *field = v;
        r->has_data = true;
    }
}

static void rank_add(caplog_rank *r, double *field, double v)
{
    if (!caplog_known(v))
        return;
    *field = caplog_known(*field) ? round2(*field + v) : v;
    r->has_data = true;
}

/* "type=DeepseekV3ForCausalLM" in a Load weight end line (model_runner prints the model class's
 * __name__ there since 2024) into OUT; "dtype=" is not it. */
static void read_architecture(const char *s, char *out, size_t cap)
{
    for (const char *k = strstr(s, "type="); k; k = strstr(k + 1, "type=")) {
        if (k > s && (is_upper(k[-1]) || (k[-1] >= 'a' && k[-1] <= 'z') || is_digit(k[-1])))
            continue; /* dtype=, quant_type=, ... */
        const char *v = k + LITERAL_LEN("type="), *e = v;
        while (is_upper(*e) || (*e >= 'a' && *e <= 'z') || is_digit(*e))
            e++;
        if (e > v && (size_t)(e - v) < cap && (*e == ',' || *e == '\0' || is_space(*e) || *e == '.'))
            engine_text_clean(out, cap, v, (size_t)(e - v));
        return;
    }
}

static bool on_memory_line(caplog_parser *p, const line_tags *t, const char *msg, const key_marks *km)
{
    const char *k;
#define FIND(key) ((km->mask & MK_##key) && (k = msg + km->at[K_##key]))
    if (FIND(LOAD_BEGIN)) {
        if (t->order == 0 && !p->split_pending && run_has_finished_group(p->run)) {
            if (p->run->args.present && run_speculative(p->run)) {
                /* the EAGLE draft model loads after the target's capture */
            } else if (p->run->args.present) {
                run_start_new(p, p->line_no);
            } else {
                p->split_pending = true;
                p->split_line = p->line_no;
                p->n_side = 0;
                p->side_architecture[0] = '\0';
            }
        }
        caplog_rank *r = rank_values(p, t);
        if (r)
            rank_set(r, &r->weights_begin_avail_gib, gib_after(p, k, "avail mem="));
    } else if (FIND(LOAD_END)) {
        /* the first one is the target's: an EAGLE draft model loads after it */
        char *arch = p->split_pending ? p->side_architecture : p->run->architecture;
        if (!arch[0])
            read_architecture(k, arch, CAPLOG_ARCH_MAX);
        caplog_rank *r = rank_values(p, t);
        if (r && !caplog_known(r->weights_end_avail_gib)) {
            rank_set(r, &r->weights_end_avail_gib, gib_after(p, k, "avail mem="));
            rank_set(r, &r->weights_usage_gib, gib_after(p, k, "mem usage="));
        }
    } else if (FIND(KV)) {
        caplog_rank *r = rank_values(p, t);
        if (r && !caplog_known(r->pool_avail_gib)) { /* after the first pool: a draft's cache */
            int64_t tokens;
            if (r->kv_tokens < 0 && int_after(p, k, "#tokens:", 0, CAPLOG_KV_TOKENS_MAX, &tokens)) {
                r->kv_tokens = tokens;
                r->has_data = true;
            }
            double kv = gib_after(p, k, "KV size:");
            if (!caplog_known(kv)) {
                double ks = gib_after(p, k, "K size:"), vs = gib_after(p, k, "V size:");
                kv = (caplog_known(ks) && caplog_known(vs)) ? ks + vs : NO_VALUE;
            }
            if (!caplog_known(kv))
                note_malformed(p);
            rank_add(r, &r->kv_gib, kv);
        }
    } else if (FIND(MAMBA)) {
        caplog_rank *r = rank_values(p, t);
        if (r && !caplog_known(r->pool_avail_gib)) {
            for (const char *s = strstr(k, "state size:"); s; s = strstr(s + 1, "state size:"))
                rank_add(r, &r->state_gib, gib_after(p, s, "state size:"));
        }
    } else if (FIND(POOL_END)) {
        caplog_rank *r = rank_values(p, t);
        if (r)
            rank_set(r, &r->pool_avail_gib, gib_after(p, k, "avail mem="));
    } else if (FIND(MAX_TOTAL)) {
        caplog_rank *r = rank_values(p, t);
        int64_t tokens;
        if (r && r->max_total_num_tokens < 0 &&
            int_after(p, k, "max_total_num_tokens=", 0, CAPLOG_KV_TOKENS_MAX, &tokens)) {
            r->max_total_num_tokens = tokens;
            r->has_data = true;
            rank_set(r, &r->available_gpu_mem_gib, gib_after(p, k, "available_gpu_mem="));
        }
    } else if (FIND(DCP)) {
        int64_t v;
        if (!p->run->args.dcp_size.has && int_after(p, k, "dcp_size=", 1, CAPLOG_RANKS_MAX, &v)) {
            p->run->args.dcp_size.has = true;
            p->run->args.dcp_size.v = v;
        }
        if (!p->run->args.tp_size.has && int_after(p, k, "tp_size=", 1, CAPLOG_RANKS_MAX, &v)) {
            p->run->args.tp_size.has = true;
            p->run->args.tp_size.v = v;
        }
    } else {
        return false;
    }
#undef FIND
    touch(p);
    if (!p->split_pending)
        env_flush(p);
    return true;
}

/* ---------------------------------------------------------------- server_args and env */

/* The fields the planner reads, in the order the JSON writes them (tmux-style table). */
#define SERVER_ARG_ROWS(X)                                                                                             \
    X("model_path", CAPLOG_ARG_STR, model_path, 0, 0)                                                                  \
    X("tp_size", CAPLOG_ARG_INT, tp_size, 1, CAPLOG_RANKS_MAX)                                                         \
    X("dp_size", CAPLOG_ARG_INT, dp_size, 1, CAPLOG_RANKS_MAX)                                                         \
    X("dcp_size", CAPLOG_ARG_INT, dcp_size, 1, CAPLOG_RANKS_MAX)                                                       \
    X("ep_size", CAPLOG_ARG_INT, ep_size, 1, CAPLOG_RANKS_MAX)                                                         \
    X("enable_dp_attention", CAPLOG_ARG_BOOL, enable_dp_attention, 0, 0)                                               \
    X("moe_a2a_backend", CAPLOG_ARG_STR, moe_a2a_backend, 0, 0)                                                        \
    X("attention_backend", CAPLOG_ARG_STR, attention_backend, 0, 0)                                                    \
    X("cuda_graph_max_bs", CAPLOG_ARG_INT, cuda_graph_max_bs, 1, CAPLOG_BS_MAX)                                        \
    X("cuda_graph_bs", CAPLOG_ARG_LIST, cuda_graph_bs, 1, CAPLOG_BS_MAX)                                               \
    X("speculative_algorithm", CAPLOG_ARG_STR, speculative_algorithm, 0, 0)                                            \
    X("speculative_num_steps", CAPLOG_ARG_INT, speculative_num_steps, 0, CAPLOG_SPEC_MAX)                              \
    X("speculative_eagle_topk", CAPLOG_ARG_INT, speculative_eagle_topk, 1, CAPLOG_SPEC_MAX)                            \
    X("speculative_num_draft_tokens", CAPLOG_ARG_INT, speculative_num_draft_tokens, 1, CAPLOG_SPEC_MAX)                \
    X("context_length", CAPLOG_ARG_INT, context_length, 1, CAPLOG_NUM_TOKENS_MAX)                                      \
    /* a fraction of the GPU: 0 would leave nothing, above 1 is more than there is */                                  \
    X("mem_fraction_static", CAPLOG_ARG_REAL, mem_fraction_static, 1e-6, 1)                                            \
    X("max_running_requests", CAPLOG_ARG_INT, max_running_requests, 1, CAPLOG_REQUESTS_MAX)                            \
    X("disable_radix_cache", CAPLOG_ARG_BOOL, disable_radix_cache, 0, 0)                                               \
    X("disable_hybrid_swa_memory", CAPLOG_ARG_BOOL, disable_hybrid_swa_memory, 0, 0)                                   \
    X("disaggregation_mode", CAPLOG_ARG_STR, disaggregation_mode, 0, 0)                                                \
    /* the knobs' ranges: a window pool at most the full pool's tokens, a state pool to 16x the KV's */                \
    X("swa_full_tokens_ratio", CAPLOG_ARG_REAL, swa_full_tokens_ratio, 1e-6, 1)                                        \
    X("mamba_full_memory_ratio", CAPLOG_ARG_REAL, mamba_full_memory_ratio, 1e-6, 16)
#define SERVER_ARG_INFO(name, type, field, min, max) {name, type, offsetof(caplog_server_args, field), min, max},
#define SERVER_ARG_NAME_LEN(name, type, field, min, max) LITERAL_LEN(name),
static const caplog_server_arg_info server_arg_table[] = {SERVER_ARG_ROWS(SERVER_ARG_INFO)};
/* each row's name's length: a name of another length is not looked at further */
static const uint8_t server_arg_name_len[] = {SERVER_ARG_ROWS(SERVER_ARG_NAME_LEN)};
#define SERVER_ARG_COUNT (sizeof server_arg_table / sizeof server_arg_table[0])

/* Every field unset, without clearing the kilobytes of text and lists behind the flags. */
static void args_reset(caplog_server_args *a)
{
    a->present = false;
    a->raw[0] = '\0';
    for (size_t i = 0; i < SERVER_ARG_COUNT; i++) {
        void *field = (char *)a + server_arg_table[i].offset;
        switch (server_arg_table[i].type) {
        case CAPLOG_ARG_INT:
            memset(field, 0, sizeof(caplog_opt_int));
            break;
        case CAPLOG_ARG_REAL:
            memset(field, 0, sizeof(caplog_opt_real));
            break;
        case CAPLOG_ARG_BOOL:
            memset(field, 0, sizeof(caplog_opt_bool));
            break;
        case CAPLOG_ARG_STR: {
            caplog_opt_str *f = field;
            f->has = false;
            f->v[0] = '\0';
            break;
        }
        case CAPLOG_ARG_LIST: {
            caplog_opt_list *f = field;
            f->has = false;
            f->n = 0;
            break;
        }
        }
    }
}

size_t caplog_server_arg_count(void)
{
    return SERVER_ARG_COUNT;
}

const caplog_server_arg_info *caplog_server_arg_at(size_t i)
{
    return i < SERVER_ARG_COUNT ? &server_arg_table[i] : NULL;
}

/* Sets field NAME from the value text V. Returns false when the value is there but implausible
 * (the line is then malformed; the field stays unset). */
static bool server_arg_set(caplog_server_args *a, const char *name, size_t name_len, const char *v, size_t vlen)
{
    size_t i;
    for (i = 0; i < SERVER_ARG_COUNT; i++)
        if (server_arg_name_len[i] == name_len && !memcmp(name, server_arg_table[i].name, name_len))
            break;
    if (i == SERVER_ARG_COUNT || span_is(v, vlen, "None"))
        return true;
    char buf[CAPLOG_STR_MAX];
    size_t n = vlen < sizeof buf - 1 ? vlen : sizeof buf - 1;
    memcpy(buf, v, n);
    buf[n] = '\0';
    const caplog_server_arg_info *info = &server_arg_table[i];
    void *field = (char *)a + info->offset;
    const char *end;
    switch (info->type) {
    case CAPLOG_ARG_INT: {
        caplog_opt_int *f = field;
        int64_t x;
        f->has = parse_int(buf, &x, &end) && *end == '\0';
        if (f->has && (x < (int64_t)info->min || x > (int64_t)info->max)) {
            f->has = false;
            return false;
        }
        f->v = f->has ? x : 0;
        break;
    }
    case CAPLOG_ARG_REAL: {
        caplog_opt_real *f = field;
        double x;
        f->has = parse_real(buf, &x, &end) && *end == '\0';
        if (!f->has && parse_real(buf, &x, &end) && has_exponent(end))
            return false; /* "1e309" */
        if (f->has && !(x >= info->min && x <= info->max)) {
            f->has = false;
            return false;
        }
        f->v = f->has ? x : 0;
        break;
    }
    case CAPLOG_ARG_BOOL: {
        caplog_opt_bool *f = field;
        f->has = !strcmp(buf, "True") || !strcmp(buf, "False");
        f->v = !strcmp(buf, "True");
        break;
    }
    case CAPLOG_ARG_STR: {
        caplog_opt_str *f = field;
        const char *s = v;
        size_t len = vlen;
        strip_quotes(&s, &len);
        engine_text_clean(f->v, sizeof f->v, s, len);
        f->has = true;
        break;
    }
    case CAPLOG_ARG_LIST: {
        caplog_opt_list *f = field;
        /* the list can be longer than BUF: parse it in place, it ends at its ']' */
        int cnt = parse_list(v, f->v, CAPLOG_MAX_BUCKETS, NULL, 0, UINT32_MAX);
        f->has = cnt >= 0;
        f->n = cnt < 0 ? 0 : (uint32_t)cnt;
        for (uint32_t k = 0; k < f->n; k++)
            if (f->v[k] < info->min || f->v[k] > info->max) {
                f->has = false;
                f->n = 0;
                return false;
            }
        break;
    }
    }
    return true;
}

/* The bytes the scan of a server_args value acts on: quotes, brackets, ',', '\\' and the NUL. */
static const bool arg_value_special[256] = {
    ['\0'] = true, ['\''] = true, ['"'] = true, ['\\'] = true, ['('] = true, ['['] = true,
    ['{'] = true,  [')'] = true,  [']'] = true, ['}'] = true,  [','] = true,
};

/* The end of the server_args name ([A-Za-z0-9_]*) at S. A line holds dozens of names, and a
 * byte loop's exit was a mispredicted branch each: SSE2 reads 16 bytes at a time, so S's text
 * must have 15 readable bytes past its NUL (a token's has LINE_PAD), which ends a name. */
static const char *arg_name_end(const char *s)
{
#if STOP_SIMD
    for (;; s += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)s);
        /* signed compares: a byte from 0x80 on is negative, below every range */
        __m128i digit =
            _mm_and_si128(_mm_cmpgt_epi8(x, _mm_set1_epi8('0' - 1)), _mm_cmplt_epi8(x, _mm_set1_epi8('9' + 1)));
        __m128i folded = _mm_or_si128(x, _mm_set1_epi8(0x20)); /* 'A'..'Z' onto 'a'..'z', nothing else */
        __m128i letter = _mm_and_si128(_mm_cmpgt_epi8(folded, _mm_set1_epi8('a' - 1)),
                                       _mm_cmplt_epi8(folded, _mm_set1_epi8('z' + 1)));
        __m128i name = _mm_or_si128(_mm_or_si128(digit, letter), _mm_cmpeq_epi8(x, _mm_set1_epi8('_')));
        unsigned other = ~(unsigned)_mm_movemask_epi8(name) & 0xffffu;
        if (other)
            return s + __builtin_ctz(other);
    }
#else
    while (compose_name_char[(unsigned char)*s] == 2 || *s == '_') /* letters, digits, '_' */
        s++;
    return s;
#endif
}

/* server_args=ServerArgs(key=value, ...): values may hold quotes, lists, dicts, parentheses. */
static void on_server_args(caplog_parser *p, const char *text)
{
    split_decide(p, true); /* a restart prints server_args first; what was pending was not one */
    run_start_new(p, p->line_no);
    touch(p);
    caplog_server_args *a = &p->run->args;
    a->present = true;
    engine_text_clean(a->raw, sizeof a->raw, text, strlen(text));
    const char *s = strchr(text, '(');
    s = s ? s + 1 : text;
    while (*s && *s != ')') {
        while (*s == ',' || is_space(*s))
            s++;
        const char *name = s;
        s = arg_name_end(s);
        size_t name_len = (size_t)(s - name);
        if (!name_len || *s != '=')
            break;
        const char *v = ++s;
        int depth = 0;
        char quote = 0;
        for (; *s; s++) {
            while (!arg_value_special[(unsigned char)*s])
                s++; /* the bytes no rule below looks at, passed in a tight loop */
            if (!*s)
                break;
            if (quote) {
                if (*s == '\\' && s[1])
                    s++;
                else if (*s == quote)
                    quote = 0;
            } else if (*s == '\'' || *s == '"') {
                quote = *s;
            } else if (*s == '(' || *s == '[' || *s == '{') {
                depth++;
            } else if (*s == ')' || *s == ']' || *s == '}') {
                if (depth == 0)
                    break;
                depth--;
            } else if (*s == ',' && depth == 0) {
                break;
            }
        }
        if (!*s && (quote || depth))
            break; /* cut inside a value */
        if (!server_arg_set(a, name, name_len, v, (size_t)(s - v)))
            note_malformed(p);
    }
}

/* "SGLANG_X=1", "export NVSHMEM_QP_DEPTH=1024" (a launch script's echo, no log prefix): the
 * variable's name and value in S, or false when S is not such a line. */
static bool read_env_line(const char *s, const char *end, const char **key, size_t *key_len, const char **value,
                          size_t *value_len)
{
    const char *k = s;
    if (starts_with(k, BASH_TRACE_PREFIX))
        k += LITERAL_LEN(BASH_TRACE_PREFIX); /* bash -x */
    if (starts_with(k, EXPORT_PREFIX))
        k = skip_spaces(k + LITERAL_LEN(EXPORT_PREFIX));
    if (!starts_with(k, "SGLANG_") && !starts_with(k, "NVSHMEM_"))
        return false;
    const char *e = k;
    while (is_upper(*e) || is_digit(*e))
        e++;
    if (*e != '=')
        return false;
    const char *v = e + 1;
    size_t vlen = (size_t)(end - v);
    while (vlen && is_space(v[vlen - 1]))
        vlen--;
    strip_quotes(&v, &vlen);
    *key = k;
    *key_len = (size_t)(e - k);
    *value = v;
    *value_len = vlen;
    return true;
}

/* An echoed variable waits for the run that starts next. */
static void on_env_line(caplog_parser *p, const char *key, size_t key_len, const char *value, size_t value_len)
{
    if (!p->n_env_wait && !p->env_wait_dropped)
        p->env_wait_line = p->line_no;
    env_add(p->env_wait, &p->n_env_wait, &p->env_wait_dropped, key, key_len, value, value_len);
}

/* ---------------------------------------------------------------- the capture hook's lines */

#define HOOK_BYTES_MAX ((int64_t)CAPLOG_GIB_MAX << 30)

/* The hook's lines of one rank only, the lowest that printed any (its numbers are one GPU's, as
 * the bars are): a lower rank's first line replaces what a higher one gave. False: not RANK's. */
static bool hook_rank_take(caplog_parser *p, int32_t rank)
{
    caplog_run *run = p->run;
    if (run->has_hook && rank >= run->hook_rank)
        return rank == run->hook_rank;
    if (run->has_hook) {
        run->n_hook_terms = 0;
        for (uint32_t i = 0; i < run->n_groups; i++) {
            caplog_group *g = &run->groups[i];
            g->hook_captures = g->hook_size = 0;
            g->hook_torch_bytes = g->hook_device_bytes = 0;
        }
    }
    run->has_hook = true;
    run->hook_rank = rank;
    return true;
}

static bool hook_bytes(caplog_parser *p, const char *s, const char *key, int64_t *out)
{
    if (int_after(p, s, key, 0, HOOK_BYTES_MAX, out))
        return true;
    note_malformed(p); /* a hook line without a value it always prints */
    return false;
}

/* "capture seq=0 size=256 rank=0 reserved_before=B reserved_after=B free_before=B free_after=B
 * total=B" and "term=moe.deepep bytes=B size=256 rank=0" (hook/cgplan_capture_hook.py). */
static void on_hook_line(caplog_parser *p, const char *s)
{
    touch(p);
    int64_t rank = 0, size = 0;
    if (strstr(s, "rank=") && !int_after(p, s, "rank=", 0, CAPLOG_TAG_MAX, &rank))
        return;
    if (strstr(s, "size=") && !int_after(p, s, "size=", 0, CAPLOG_NUM_TOKENS_MAX, &size))
        return;
    if (starts_with(s, "capture ")) {
        int64_t rb, ra, fb, fa;
        if (!hook_bytes(p, s, "reserved_before=", &rb) || !hook_bytes(p, s, "reserved_after=", &ra) ||
            !hook_bytes(p, s, "free_before=", &fb) || !hook_bytes(p, s, "free_after=", &fa))
            return;
        if (!hook_rank_take(p, (int32_t)rank))
            return;
        /* the group rank 0 is capturing: its bars' group, else the latest one still open */
        int32_t j = p->bar_group >= 0 ? p->bar_group : latest_open_group(p);
        if (j < 0) {
            p->run->dropped_hook_lines++;
            return;
        }
        caplog_group *g = &p->run->groups[j];
        if (!g->hook_captures++) {
            g->hook_size = (uint32_t)size;
            g->hook_torch_bytes = ra - rb;
            g->hook_device_bytes = fb - fa;
        }
    } else if (starts_with(s, "term=")) {
        const char *v = s + LITERAL_LEN("term="), *e = v;
        while ((*e >= 'a' && *e <= 'z') || is_digit(*e) || *e == '_' || *e == '.')
            e++;
        int64_t bytes;
        if (e == v || (size_t)(e - v) >= CAPLOG_HOOK_TERM_MAX || (*e && *e != ' ')) {
            note_malformed(p);
            return;
        }
        if (!hook_bytes(p, s, "bytes=", &bytes) || !hook_rank_take(p, (int32_t)rank))
            return;
        caplog_run *run = p->run;
        uint32_t i = 0;
        while (i < run->n_hook_terms && !span_is(v, (size_t)(e - v), run->hook_terms[i].term))
            i++;
        if (i == run->n_hook_terms) {
            if (i >= CAPLOG_MAX_HOOK_TERMS) {
                run->dropped_hook_lines++;
                return;
            }
            run->n_hook_terms++;
            engine_text_clean(run->hook_terms[i].term, sizeof run->hook_terms[i].term, v, (size_t)(e - v));
        }
        run->hook_terms[i].bytes = (uint64_t)bytes; /* printed again: the later snapshot's */
        run->hook_terms[i].size = (uint32_t)size;
    } else {
        p->run->unknown_lines++; /* "snapshot ... file=", or a later hook's line */
    }
}

/* ---------------------------------------------------------------- one segment */

/* FIRST: the message's first "Capture "; SECOND: its second, or NULL. */
static bool on_capture_line(caplog_parser *p, int32_t slot, const char *first, const char *second)
{
    /* The lines named by what follows a "Capture ": the first of each, as strstr would find it,
     * from the message's "Capture "s in turn (a message holds one, nearly always: the lexer
     * found the first two, so the rest of the line is searched only when there is a second). */
    const char *failed = NULL, *bs_list = NULL, *tokens_list = NULL;
    for (const char *c = first; c && !failed; c = c == first ? second : strstr(c + 1, CAPTURE_KEY)) {
        if (has_prefix(c, CAPTURE_FAILED_KEY))
            failed = c;
        else if (!bs_list && has_prefix(c, BS_LIST_KEY "["))
            bs_list = c;
        else if (!tokens_list && has_prefix(c, NUM_TOKENS_LIST_KEY "["))
            tokens_list = c;
    }
    if (failed) {
        split_decide(p, false);
        on_failed(p, slot, failed);
    } else if (bs_list) {
        split_decide(p, false);
        on_list(p, slot, bs_list + LITERAL_LEN(BS_LIST_KEY), false);
    } else if (tokens_list) {
        split_decide(p, false);
        on_list(p, slot, tokens_list + LITERAL_LEN(NUM_TOKENS_LIST_KEY), true);
    } else {
        const kind_memo *kind;
        bool is_begin;
        const char *rest = capture_kind(p, first, &kind, &is_begin);
        if (!rest)
            return false;
        split_decide(p, kind->draft);
        if (is_begin)
            on_begin(p, slot, kind, rest);
        else
            on_end(p, slot, kind, rest);
    }
    touch(p);
    env_flush(p);
    return true;
}

/* KM: the keys markers_in() found in MSG (for a prefixed line, T's tags). */
static void on_message(caplog_parser *p, const char *msg, const key_marks *km, bool prefixed, const line_tags *t)
{
    unsigned mask = km->mask;
    int32_t slot;
    if (prefixed && t->implausible) {
        /* "TP99999999999": not a rank of any deployment; reading it as one (or as rank 0)
         * would invent a rank */
        note_malformed(p);
        return;
    }
    if (prefixed) {
        slot = run_rank(p, t);
        p->last_slot = slot;
    } else {
        /* a continuation (traceback, re-wrapped message) belongs to the last prefixed rank */
        slot = p->last_slot >= 0 ? p->last_slot : rank0_slot(p);
    }
    if (!mask) {
        p->run->unknown_lines++; /* the fast path: no key a rule reads */
        return;
    }
    if (mask & MK_SERVER_ARGS) {
        on_server_args(p, msg + km->at[K_SERVER_ARGS] + LITERAL_LEN(SERVER_ARGS_KEY));
        return;
    }
    if (slot >= 0 && (mask & MK_CAPTURE) &&
        on_capture_line(p, slot, msg + km->at[K_CAPTURE],
                        (mask & MK_CAPTURE_AGAIN) ? msg + km->at[K_CAPTURE_AGAIN] : NULL))
        return;
    if (slot >= 0 && (mask & MK_REGISTERING) && on_registering(p, slot, msg + km->at[K_REGISTERING]))
        return;
    if (on_memory_line(p, prefixed ? t : &rank0_tags, msg, km))
        return;
    if (mask & (MK_TRACEBACK | MK_CUDA_OOM | MK_OOM_ERROR)) {
        int32_t j = open_group_of(p, slot);
        if (j < 0)
            j = latest_open_group(p);
        if (j >= 0)
            set_failure(&p->run->groups[j], (mask & MK_TRACEBACK) ? "" : msg);
        return;
    }
    p->run->unknown_lines++;
}

/* ---------------------------------------------------------------- tokens
 *
 * Reading is two stages. The lexer cuts the bytes into segments and reads what each one says by
 * itself: a bar frame's numbers, a prefix's tags, the keys a message holds, an echoed variable.
 * The applier runs the state machine (runs, ranks, groups) on what the lexer found, in order.
 * Each stage has state of its own, so a caller with two threads runs them side by side
 * (caplog_lex, caplog_apply); caplog_feed runs them in turn. Between them passes a buffer of
 * tokens: a bar frame is its numbers, a line no rule reads is its tags, and only a line a rule
 * reads carries its text. */

typedef enum {
    TOK_LINE_ENDS, /* COUNT physical lines ended ('\n') */
    TOK_TRUNCATED, /* a segment longer than CAPLOG_LINE_MAX: counted, not read */
    TOK_LAST_CUT,  /* the input ended inside a line: ignored, but a line read */
    TOK_HOOK,      /* a hook line: the text after its key */
    TOK_BAR,       /* a progress-bar frame: a bar_frame */
    TOK_PREFIXED,  /* "[time TAGS] message": line_tags, the label, the message if COUNT (its keys) */
    TOK_ENV,       /* an echoed variable: the name (COUNT bytes of body), the value its text */
    TOK_MESSAGE,   /* any other segment: the text if COUNT (its keys) */
} token_kind;

typedef struct {
    uint32_t size; /* the whole token's, a multiple of 8 */
    uint8_t kind;
    uint8_t flags;      /* TOKEN_GLUED, TOKEN_LINE_END */
    uint16_t label_len; /* TOK_PREFIXED: the label's bytes after the line_tags */
    uint32_t count;     /* see token_kind */
    uint32_t text_len;  /* the text at the token's end (a NUL after it) */
} token_head;
enum {
    TOKEN_GLUED = 1,    /* read after a bar frame in the same segment: one malformed count for both */
    TOKEN_LINE_END = 2, /* a physical line ended after it ('\n'): no TOK_LINE_ENDS token of its own */
    TOKEN_UNMARKED = 4  /* its keys are the applier's to find (caplog_lexer_defer_marks): its text */
};

/* A token's fixed part and its label, at most, and room for what is filled in place past them;
 * the text comes on top. */
#define TOKEN_FIXED_MAX                                                                                                \
    (sizeof(token_head) + sizeof(line_tags) + sizeof(bar_frame) + KEY_COUNT * sizeof(uint16_t) + CAPLOG_LABEL_MAX + 16)
/* The tokens of one segment, at most: a bar frame and its glued tails, one text among them. */
#define SEGMENT_TOKENS_MAX (CAPLOG_LINE_MAX + 1 + (GLUED_SEGMENTS_MAX + 3) * TOKEN_FIXED_MAX)
#define TOKENS_BYTES ((size_t)256 << 10)

_Static_assert(TOKENS_BYTES >= 2 * SEGMENT_TOKENS_MAX, "a token buffer holds a few segments whatever their size");

struct caplog_tokens {
    char *buf;
    size_t used, cap;
    size_t last; /* offset of the last token, for merging line ends; SIZE_MAX: none */
};

struct caplog_lexer {
    bool defer_marks;                          /* caplog_lexer_defer_marks */
    tags_memos tags;
    char line[CAPLOG_LINE_MAX + 1 + LINE_PAD]; /* the segment being read */
    size_t len;
    bool overflow;
    size_t nul; /* the segment's first NUL (binary input: the text ends there); SIZE_MAX: none */
};

caplog_tokens *caplog_tokens_new(void)
{
    caplog_tokens *t = calloc(1, sizeof *t);
    /* zeroed, with room past its end: a handler compares whole literals (has_prefix) */
    if (!t || !(t->buf = calloc(1, TOKENS_BYTES + LINE_PAD))) {
        free(t);
        return NULL;
    }
    t->cap = TOKENS_BYTES;
    t->last = SIZE_MAX;
    return t;
}

void caplog_tokens_free(caplog_tokens *t)
{
    if (!t)
        return;
    free(t->buf);
    free(t);
}

caplog_lexer *caplog_lexer_new(void)
{
    caplog_lexer *lx = calloc(1, sizeof *lx);
    if (lx)
        lx->nul = SIZE_MAX;
    return lx;
}

void caplog_lexer_free(caplog_lexer *lx)
{
    free(lx);
}

void caplog_lexer_defer_marks(caplog_lexer *lx, bool defer)
{
    lx->defer_marks = defer;
}

/* The next token's body, to be filled in place: a struct built elsewhere and copied in would be
 * read back in wide loads before its narrow stores are done, a stall a line. */
static char *token_body(caplog_tokens *out)
{
    return out->buf + out->used + sizeof(token_head);
}

/* Ends the next token: BODY_LEN bytes of its body filled in place, then TEXT_LEN of TEXT (if any)
 * and a NUL. The caller made room (SEGMENT_TOKENS_MAX per segment). */
static void token_close(caplog_tokens *out, token_kind kind, unsigned flags, uint32_t count, size_t label_len,
                        size_t body_len, const char *text, size_t text_len)
{
    char *r = out->buf + out->used;
    size_t size = sizeof(token_head) + body_len;
    if (text) {
        memcpy(r + size, text, text_len);
        r[size + text_len] = '\0';
        size += text_len + 1;
    }
    size = (size + 7) & ~(size_t)7;
    token_head h = {(uint32_t)size, (uint8_t)kind, (uint8_t)flags, (uint16_t)label_len, count, (uint32_t)text_len};
    memcpy(r, &h, sizeof h);
    out->last = out->used;
    out->used += size;
}

/* A token without a body of its own (the text, if any, copied in). */
static void put_token(caplog_tokens *out, token_kind kind, unsigned flags, uint32_t count, const char *text,
                      size_t text_len)
{
    token_close(out, kind, flags, count, 0, 0, text, text_len);
}

/* An echoed variable's token: its name (COUNT bytes, the body), then its value (the text). */
static void put_env_token(caplog_tokens *out, unsigned flags, const char *key, size_t key_len, const char *value,
                          size_t value_len)
{
    memcpy(token_body(out), key, key_len);
    token_close(out, TOK_ENV, flags, (uint32_t)key_len, 0, key_len, value, value_len);
}

/* A '\n' ended the segment whose tokens begin at SEGMENT: its last token says so, else (it had
 * none: an empty line) a TOK_LINE_ENDS token counts it. */
static void put_line_end(caplog_tokens *out, size_t segment)
{
    if (out->last != SIZE_MAX) {
        token_head h;
        memcpy(&h, out->buf + out->last, sizeof h);
        if (out->last >= segment) {
            h.flags |= TOKEN_LINE_END;
            memcpy(out->buf + out->last, &h, sizeof h);
            return;
        }
        if (h.kind == TOK_LINE_ENDS && h.count < UINT32_MAX) {
            h.count++;
            memcpy(out->buf + out->last, &h, sizeof h);
            return;
        }
    }
    put_token(out, TOK_LINE_ENDS, 0, 1, NULL, 0);
}

/* The offsets markers_in() found, only those of the keys in MASK, in key order, at OUT: their
 * bytes. A line holds one key, nearly always. */
static size_t pack_marks(char *out, unsigned mask, const uint16_t *at)
{
    size_t n = 0;
    for (; mask; mask &= mask - 1, n += sizeof(uint16_t))
        memcpy(out + n, &at[__builtin_ctz(mask)], sizeof(uint16_t));
    return n;
}

/* pack_marks() undone: *KM's offsets from IN; returns their bytes. */
static size_t unpack_marks(const char *in, key_marks *km)
{
    size_t n = 0;
    for (unsigned mask = km->mask; mask; mask &= mask - 1, n += sizeof(uint16_t))
        memcpy(&km->at[__builtin_ctz(mask)], in + n, sizeof(uint16_t));
    return n;
}

/* ---------------------------------------------------------------- the lexer */

/* The segment's N bytes at S end in a space (is_space): in the lexer's own line the spaces are
 * cut off in place; a segment lexed where it lies, which cannot be written, is copied into the
 * line first. */
static bool ends_in_space(const char *s, size_t n)
{
    return n && is_space(s[n - 1]);
}

/* S holds N bytes, none of them a NUL, no space at their end (ends_in_space), and a NUL, '\n'
 * or '\r' after them (which no field, key or number holds, so each stops there as at a NUL),
 * then LINE_PAD readable bytes: its tokens into OUT. S is never written. */
static void lex_segment(caplog_lexer *lx, caplog_tokens *out, const char *s, size_t n, int depth)
{
    bool defer_marks = lx->defer_marks;
    if (!n)
        return;
    unsigned glued = depth > 0 ? TOKEN_GLUED : 0;
    const char *end = s + n;
    const char *m = skip_foreign_prefix(s, end);
    const char *t = skip_spaces(m);
    if (t[0] == '[' && has_prefix(t, CAPLOG_HOOK_KEY)) {
        const char *text = t + LITERAL_LEN(CAPLOG_HOOK_KEY);
        put_token(out, TOK_HOOK, glued, 0, text, (size_t)(end - text));
        return;
    }
    bar_frame *f = (bar_frame *)token_body(out);
    if (parse_bar(t, end, f)) {
        const char *tail = f->tail; /* not kept: the next token is written over it */
        token_close(out, TOK_BAR, glued, 0, 0, BAR_FRAME_KEPT, NULL, 0);
        if (tail && depth < GLUED_SEGMENTS_MAX) /* "...it/s][2025-06-26 ...] Try ..." */
            lex_segment(lx, out, tail, (size_t)(end - tail), depth + 1);
        return;
    }
    /* a prefixed line's token: its line_tags (up to the label), where its keys start (if it holds
     * any), the label, then the message if a rule reads it */
    char *body = token_body(out);
    line_tags *tags = (line_tags *)body;
    const char *msg = parse_prefix(m, tags, &lx->tags);
    if (!msg) {
        /* a prefix further in ("name  | [time TP0] ..." lost its separator): try each '[' */
        size_t scan = (size_t)(end - m) < FOREIGN_PREFIX_SCAN ? (size_t)(end - m) : FOREIGN_PREFIX_SCAN;
        for (const char *b = m + 1; !msg && b < m + scan && (b = memchr(b, '[', (size_t)(m + scan - b))); b++)
            msg = parse_prefix(b, tags, &lx->tags);
    }
    uint16_t at[KEY_COUNT];
    if (msg) {
        const char *label = tags->label; /* read before the bytes after LINE_TAGS_KEPT are written */
        /* engine_text_clean() keeps CAPLOG_LABEL_MAX - 1 bytes of a label (tags are ASCII) */
        size_t label_len = tags->label_len < CAPLOG_LABEL_MAX - 1 ? tags->label_len : CAPLOG_LABEL_MAX - 1;
        /* an implausible tag makes the line malformed, whatever it says */
        bool deferred = defer_marks && !tags->implausible;
        unsigned mask = tags->implausible || deferred ? 0 : markers_in(msg, (size_t)(end - msg), at);
        size_t len = LINE_TAGS_KEPT;
        len += pack_marks(body + len, mask, at);
        if (label_len)
            memcpy(body + len, label, label_len);
        /* a line no rule reads: its tags only */
        bool text = mask || deferred;
        token_close(out, TOK_PREFIXED, glued | (deferred ? TOKEN_UNMARKED : 0), mask, label_len, len + label_len,
                    text ? msg : NULL, text ? (size_t)(end - msg) : 0);
        return;
    }
    const char *key, *value;
    size_t key_len, value_len;
    if (read_env_line(t, end, &key, &key_len, &value, &value_len)) {
        put_env_token(out, glued, key, key_len, value, value_len); /* the name and the value, one text */
        return;
    }
    unsigned mask = defer_marks ? 0 : markers_in(t, (size_t)(end - t), at);
    bool text = mask || defer_marks;
    token_close(out, TOK_MESSAGE, glued | (defer_marks ? TOKEN_UNMARKED : 0), mask, 0, pack_marks(body, mask, at),
                text ? t : NULL, text ? (size_t)(end - t) : 0);
}

/* The segment in LX's line ended, by a '\n' if LINE_END: its tokens into OUT. */
static void segment_done(caplog_lexer *lx, caplog_tokens *out, bool line_end)
{
    size_t segment = out->used;
    if (lx->overflow) {
        put_token(out, TOK_TRUNCATED, 0, 0, NULL, 0);
    } else {
        size_t n = lx->nul < lx->len ? lx->nul : lx->len; /* binary input: the text ends at a NUL */
        while (ends_in_space(lx->line, n))                /* no '\r' is left: it ends a segment */
            n--;
        lx->line[n] = '\0';
        lex_segment(lx, out, lx->line, n, 0);
    }
    if (line_end)
        put_line_end(out, segment);
    lx->len = 0;
    lx->overflow = false;
    lx->nul = SIZE_MAX;
}

/* N more bytes of the segment being read, its first NUL (if any) at NUL; what passes
 * CAPLOG_LINE_MAX only marks it truncated. */
static void segment_append(caplog_lexer *lx, const char *s, size_t n, const char *nul)
{
    size_t room = CAPLOG_LINE_MAX - lx->len;
    if (n > room) {
        n = room;
        lx->overflow = true;
    }
    if (nul && nul < s + n && lx->nul == SIZE_MAX)
        lx->nul = lx->len + (size_t)(nul - s);
    memcpy(lx->line + lx->len, s, n);
    lx->len += n;
}

/* The bytes a segment's reading stops at: '\n' and '\r' end it, a NUL ends its text. They are
 * found 64 bytes at a time, a bit each (SSE2 where the machine has it), so the lexer finds every
 * line's end without a call per line. */
typedef struct {
    const char *base, *limit; /* the bytes MASK covers: 64 of them, fewer at the input's end */
    uint64_t mask;
} stop_scan;

static bool is_stop(char c)
{
    return c == '\n' || c == '\r' || c == '\0';
}

/* A bit for each of the N bytes at P that may be a stop: every stop is, and with SIMD also the
 * other control bytes up to '\r' (one unsigned compare finds them all: a tab is rare in a log,
 * and next_stop passes over it). */
static uint64_t stop_bits(const char *p, size_t n)
{
    uint64_t m = 0;
#if STOP_SIMD
    if (n == 64) {
        const __m128i highest = _mm_set1_epi8('\r');
        for (int i = 0; i < 4; i++) {
            __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
            __m128i hit = _mm_cmpeq_epi8(_mm_min_epu8(x, highest), x); /* x <= '\r', unsigned */
            m |= (uint64_t)(uint16_t)_mm_movemask_epi8(hit) << (16 * i);
        }
        return m;
    }
#endif
    for (size_t i = 0; i < n; i++)
        m |= (uint64_t)is_stop(p[i]) << i;
    return m;
}

/* The first '\n', '\r' or NUL at or after S, or END. */
static const char *next_stop(stop_scan *sc, const char *s, const char *end)
{
    for (;;) {
        if (!sc->base || s >= sc->limit) {
            if (s >= end)
                return end;
            size_t n = (size_t)(end - s) < 64 ? (size_t)(end - s) : 64;
            sc->base = s;
            sc->limit = s + n;
            sc->mask = stop_bits(s, n);
        }
        for (uint64_t m = sc->mask >> (s - sc->base); m; m &= m - 1) {
            const char *c = s + __builtin_ctzll(m);
            if (is_stop(*c))
                return c;
        }
        s = sc->limit;
    }
}

/* caplog_lex and caplog_lex_in_place: BUF's tokens; IN_PLACE: the caller lets the lexer read
 * CAPLOG_LEX_PAD bytes past BUF + LEN, so a segment that lies whole in BUF is read there. */
static size_t lex_bytes(caplog_lexer *lx, bool in_place, const char *buf, size_t len, caplog_tokens *out)
{
    out->used = 0;
    out->last = SIZE_MAX;
    /* the bytes between a segment's ends are copied once, never looked at one by one */
    const char *s = buf, *end = buf + len;
    stop_scan sc = {NULL, NULL, 0};
    while (s < end && out->cap - out->used >= SEGMENT_TOKENS_MAX) {
        const char *stop = next_stop(&sc, s, end), *nul = NULL;
        while (stop < end && *stop == '\0') { /* binary input: the text ends at the first NUL */
            if (!nul)
                nul = stop;
            stop = next_stop(&sc, stop + 1, end);
        }
        size_t n = (size_t)((nul ? nul : stop) - s);
        if (in_place && stop < end && !lx->len && !lx->overflow && (size_t)(stop - s) <= CAPLOG_LINE_MAX &&
            !ends_in_space(s, n)) {
            /* a whole segment, ended by its stop byte or its first NUL: read where it lies, as
             * segment_append and segment_done would read its copy (no space to cut at its end,
             * the rare segment with one is copied) */
            size_t first_token = out->used;
            lex_segment(lx, out, s, n, 0);
            if (*stop == '\n')
                put_line_end(out, first_token);
            s = stop + 1;
            continue;
        }
        segment_append(lx, s, (size_t)(stop - s), nul);
        if (stop == end) /* the segment goes on in the next bytes */
            return len;
        segment_done(lx, out, *stop == '\n'); /* tqdm's refreshes ('\r') end a segment too */
        s = stop + 1;
    }
    return (size_t)(s - buf);
}

size_t caplog_lex(caplog_lexer *lx, const char *buf, size_t len, caplog_tokens *out)
{
    return lex_bytes(lx, false, buf, len, out);
}

size_t caplog_lex_in_place(caplog_lexer *lx, const char *buf, size_t len, caplog_tokens *out)
{
    return lex_bytes(lx, true, buf, len, out);
}

void caplog_lex_end(caplog_lexer *lx, caplog_tokens *out)
{
    out->used = 0;
    out->last = SIZE_MAX;
    if (lx->len || lx->overflow)
        put_token(out, TOK_LAST_CUT, 0, 0, NULL, 0);
    lx->len = 0;
    lx->overflow = false;
    lx->nul = SIZE_MAX;
}

/* ---------------------------------------------------------------- the applier */

/* A physical line ended: it is the current run's. */
static void line_ended(caplog_parser *p, uint32_t count)
{
    p->run->lines += count;
    p->lines_read += count;
    p->line_no += count;
}

int caplog_apply(caplog_parser *p, const caplog_tokens *in)
{
    if (p->finished)
        return -1;
    for (size_t off = 0; off < in->used;) {
        const char *r = in->buf + off;
        token_head h;
        memcpy(&h, r, sizeof h);
        off += h.size;
        const char *body = r + sizeof h;
        uint16_t at[KEY_COUNT];
        key_marks km = {h.count, at};
        if (h.kind >= TOK_HOOK && !(h.flags & TOKEN_GLUED))
            p->segment_malformed = false; /* a new segment */
        switch ((token_kind)h.kind) {
        case TOK_LINE_ENDS:
            line_ended(p, h.count);
            continue;
        case TOK_TRUNCATED:
            p->run->truncated_lines++;
            break;
        case TOK_LAST_CUT:
            p->lines_read++; /* a last line without its newline: cut, so ignored */
            break;
        case TOK_HOOK:
            on_hook_line(p, body);
            break;
        case TOK_BAR: {
            bar_frame f;
            memcpy(&f, body, BAR_FRAME_KEPT);
            if (f.implausible)
                note_malformed(p);
            else if (f.described)
                on_described_bar(p, &f);
            else
                on_plain_bar(p, &f);
            break;
        }
        case TOK_PREFIXED: {
            line_tags tags;
            memcpy(&tags, body, LINE_TAGS_KEPT);
            size_t len = LINE_TAGS_KEPT + unpack_marks(body + LINE_TAGS_KEPT, &km);
            tags.label = h.label_len ? body + len : NULL;
            tags.label_len = h.label_len;
            const char *msg = body + len + h.label_len;
            if (h.flags & TOKEN_UNMARKED)
                km.mask = markers_in(msg, h.text_len, at);
            on_message(p, msg, &km, true, &tags);
            break;
        }
        case TOK_ENV:
            on_env_line(p, body, h.count, body + h.count, h.text_len);
            break;
        case TOK_MESSAGE: {
            const char *msg = body + unpack_marks(body, &km);
            if (h.flags & TOKEN_UNMARKED)
                km.mask = markers_in(msg, h.text_len, at);
            on_message(p, msg, &km, false, NULL);
            break;
        }
        default:
            break;
        }
        if (h.flags & TOKEN_LINE_END)
            line_ended(p, 1);
    }
    return 0;
}

/* ---------------------------------------------------------------- public API */

caplog_parser *caplog_new(void)
{
    caplog_parser *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->run = calloc(1, sizeof *p->run);
    p->lexer = caplog_lexer_new();
    p->tokens = caplog_tokens_new();
    if (!p->run || !p->lexer || !p->tokens) {
        caplog_free(p);
        return NULL;
    }
    p->line_no = 1;
    run_reset(p, 1); /* the first run owns the file's preamble, until a marker says otherwise */
    return p;
}

void caplog_free(caplog_parser *p)
{
    if (!p)
        return;
    caplog_tokens_free(p->tokens);
    caplog_lexer_free(p->lexer);
    free(p->run);
    free(p);
}

void caplog_set_callback(caplog_parser *p, caplog_on_run on_run, void *ctx)
{
    p->on_run = on_run;
    p->ctx = ctx;
}

int caplog_feed(caplog_parser *p, const char *buf, size_t len)
{
    if (p->finished)
        return -1;
    while (len) {
        size_t n = caplog_lex(p->lexer, buf, len, p->tokens);
        caplog_apply(p, p->tokens);
        buf += n;
        len -= n;
    }
    return 0;
}

int caplog_finish(caplog_parser *p)
{
    if (p->finished)
        return -1;
    caplog_lex_end(p->lexer, p->tokens); /* what caplog_feed left of a last line */
    caplog_apply(p, p->tokens);
    p->finished = true;
    /* a split still pending is dropped with its side table: that start captured nothing */
    if (p->run_content)
        env_flush(p);
    run_emit(p, p->line_no > 1 ? p->line_no - 1 : 1);
    return 0;
}

bool caplog_recognised(const caplog_parser *p)
{
    return p->recognised;
}
uint32_t caplog_runs_emitted(const caplog_parser *p)
{
    return p->runs_emitted;
}
uint64_t caplog_lines_read(const caplog_parser *p)
{
    return p->lines_read;
}

caplog_phase caplog_group_phase(const caplog_run *run, const caplog_group *g)
{
    if (g->phase != CAPLOG_PHASE_NONE || !g->kind[0] || g->role == CAPLOG_ROLE_DRAFT)
        return g->phase;
    if (run_speculative(run))
        return CAPLOG_PHASE_VERIFY;
    if (run->args.present)
        return CAPLOG_PHASE_DECODE;
    return CAPLOG_PHASE_NONE;
}

const caplog_rank *caplog_run_rank(const caplog_run *run, const char *label)
{
    for (uint32_t i = 0; i < run->n_ranks; i++) {
        const caplog_rank *r = &run->ranks[i];
        if (!strcmp(r->label, label) || (r->order == 0 && !r->label[0] && (!label[0] || !strcmp(label, "TP0"))))
            return r;
    }
    return NULL;
}

void caplog_rank_name(const char *label, char *out, size_t cap)
{
    if (!cap)
        return;
    out[0] = '\0';
    if (!label[0])
        return;
    for (const char *t = label; *t; t++) {
        bool word_start = t == label || t[-1] == ' ';
        if (word_start && t[0] == 'T' && t[1] == 'P' && is_digit(t[2])) {
            const char *e = t + 2;
            while (is_digit(*e))
                e++;
            if (*e == ' ' || *e == '\0') {
                snprintf(out, cap, "%.*s", (int)(e - t), t);
                return;
            }
        }
    }
    snprintf(out, cap, "TP0"); /* tagged, but no TP tag: tp_size 1 */
}
