/* caplog.h — a streaming parser of SGLang start-up logs (../shared/design/LOGS.md).
 *
 * Feed bytes in chunks of any size; every server start found in them is handed to a callback as
 * one self-contained caplog_run (fixed size, no pointers: copy it with memcpy). Memory is
 * constant whatever the input size: one line buffer, a token buffer, the run being built and a
 * few tables. Pure C11 (libc + libm; SSE2 intrinsics where the compiler targets it); no global
 * mutable state.
 *
 * Values copied from a log are GiB as printed ("GB" in SGLang's text). A value the log does not
 * give is NaN for doubles (test it with caplog_known()) and -1 for integer counts. */
#ifndef CGPLAN_CAPLOG_H
#define CGPLAN_CAPLOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "engine.h"

#define CAPLOG_LINE_MAX (64 * 1024)           /* longer segments are counted as truncated, not read */
#define CAPLOG_MAX_GROUPS 32                  /* per run; more are counted in dropped_groups */
#define CAPLOG_MAX_BUCKETS ENGINE_MAX_BUCKETS /* sizes and bars per group */
#define CAPLOG_MAX_RANKS 64
#define CAPLOG_MAX_ENV 32
#define CAPLOG_LABEL_MAX 48 /* "DP15 PP0 ATTN_CP0 MOE_DP0 TP127 EP127" */
#define CAPLOG_KIND_MAX 48
#define CAPLOG_ARCH_MAX 64 /* a model class name: "KimiK25ForConditionalGeneration" */
#define CAPLOG_STR_MAX 192
#define CAPLOG_ENV_KEY_MAX 96
#define CAPLOG_ENV_VALUE_MAX 160
#define CAPLOG_RAW_ARGS_MAX 4096 /* server_args text kept verbatim, truncated */
#define CAPLOG_MAX_HOOK_TERMS 32  /* per run; more are counted in dropped_hook_lines */
#define CAPLOG_HOOK_TERM_MAX 32   /* "moe.masked_gemm" */
#define CAPLOG_HOOK_KEY "[cgplan-hook] " /* the lines hook/cgplan_capture_hook.py prints */

/* Plausibility bounds. A number outside them is a corrupted or foreign line, not a measurement:
 * the line counts as malformed and the value is not kept (so it never reaches the store, a
 * calibration or a knob). A log may state more than the planner's sliders offer (max_bs 2048, a
 * 32M context: stored as stated), so each bound lies beyond its knob's range (test_caplog
 * checks) and far beyond any real deployment, and well inside the types that hold it. */
#define CAPLOG_GIB_MAX 65536.0                /* any GiB value: 64 TiB, hundreds of GPUs' memory */
#define CAPLOG_SECONDS_MAX 1e6                /* a capture's elapsed time: 11 days */
#define CAPLOG_BS_MAX 65536                   /* a captured bs (SGLang's grids stop at a few thousand) */
#define CAPLOG_NUM_TOKENS_MAX (1 << 30)       /* a captured num_tokens; context_length */
#define CAPLOG_RANKS_MAX 65536                /* tp/dp/dcp/ep sizes */
#define CAPLOG_TAG_MAX 65535                  /* a rank tag's number (TP0 .. TP65535) */
#define CAPLOG_SPEC_MAX 1024                  /* speculative steps, top-k, draft tokens, tokens per request */
#define CAPLOG_REQUESTS_MAX (1 << 24)         /* max_running_requests */
#define CAPLOG_KV_TOKENS_MAX (INT64_C(1) << 40) /* a KV pool's token count */
#define CAPLOG_BAR_TOTAL_MAX 1048576          /* the n of a progress bar's i/n */
/* a capture's "Registering N cuda graph addresses": custom all-reduce's rank_data holds 131072 */
#define CAPLOG_GRAPH_ADDRESSES_MAX (1 << 24)

typedef enum { CAPLOG_ROLE_NONE, CAPLOG_ROLE_TARGET, CAPLOG_ROLE_DRAFT } caplog_role;
typedef enum {
    CAPLOG_PHASE_NONE,
    CAPLOG_PHASE_DECODE,
    CAPLOG_PHASE_VERIFY,
    CAPLOG_PHASE_EXTEND,
    CAPLOG_PHASE_PREFILL
} caplog_phase;
extern const char *const caplog_role_names[3];  /* NULL, "target", "draft" */
extern const char *const caplog_phase_names[5]; /* NULL, "decode", "verify", "extend", "prefill" */

/* One progress-bar entry: the free memory reported by the first frame naming a bucket, i.e.
 * measured before that bucket was captured. */
typedef struct {
    uint32_t size;   /* bs (or num_tokens for piecewise); 0: unknown (old bar, no list) */
    int32_t index;   /* position in capture order (0 = largest bucket); -1: unknown */
    int32_t counter; /* the frame's i in "i/n"; -1: none */
    double avail_gib;
    double increment_gib; /* this bucket's cost: bar k - bar k+1, last: bar - end avail; NaN */
} caplog_bar;

typedef struct {
    char kind[CAPLOG_KIND_MAX]; /* lower-case as CLI.md names it; "" for a bars-only group */
    caplog_role role;
    caplog_phase phase;                /* NONE for legacy "cuda graph": see caplog_group_phase() */
    int32_t step;                      /* multi-layer EAGLE step=K; -1: none */
    char rank_label[CAPLOG_LABEL_MAX]; /* the rank the numbers come from: "TP0", "DP0 TP0 EP0" */
    int32_t rank_tp;                   /* its TP number (0 when untagged) */
    /* The rank whose begin line the begin values are: rank_label's, or, when that rank printed
     * none, the lowest rank that did (a log that kept TP0's bars but lost its begin line). */
    char begin_rank_label[CAPLOG_LABEL_MAX];
    uint32_t first_line;               /* physical line of the first line that named the group */
    double begin_avail_gib;
    int32_t tokens_per_req;             /* num_tokens_per_req= / num_tokens_per_bs=; -1: none */
    bool sizes_are_num_tokens;          /* prefill / piecewise: sizes[] holds num_tokens, not bs */
    uint32_t n_sizes;                   /* 0: the log states no list */
    uint32_t sizes[CAPLOG_MAX_BUCKETS]; /* capture order, largest first */
    uint32_t n_bars;
    caplog_bar bars[CAPLOG_MAX_BUCKETS];
    uint32_t bar_total;      /* n of the bars' "i/n"; 0: unknown */
    bool captured;           /* some progress bar (even a plain one) was seen */
    bool has_begin, has_end; /* from the rank the numbers come from */
    double end_elapsed_s, end_usage_gib, end_avail_gib;
    bool failed;
    char failure[CAPLOG_STR_MAX]; /* the failure text, "" if none or not given */
    /* N of "Registering N cuda graph addresses", which custom all-reduce prints as the capture
     * ends (sglang custom_all_reduce.py capture()): one address per all-reduce node of the group's
     * graphs, (2L + 1) x graphs in every public log. The lowest rank's that printed it; -1: none. */
    int32_t registered_addresses;
    /* layers (LOGS.md): NaN when a bounding value is unknown, or when the log's values cannot
     * give it (then NOTE says why) */
    double static_gib, largest_gib, buckets_gib, total_gib;
    char note[CAPLOG_STR_MAX]; /* why a layer is unknown or where it comes from; "" if nothing to say */
    /* cgplan's capture hook (hook/cgplan_capture_hook.py) around this group's captures: how many
     * it reported, and its first, the largest bucket (capture runs largest first), from its graph's
     * creation (before the warm-up runs that create lazy buffers) to the end of its capture. Bytes. */
    uint32_t hook_captures;
    uint32_t hook_size;        /* the size its caller captured; 0: not known */
    int64_t hook_torch_bytes;  /* torch.cuda.memory_reserved() after - before: the pool's tensors */
    int64_t hook_device_bytes; /* mem_get_info() free before - after: torch's and everything else's */
    uint32_t dropped_sizes, dropped_bars;
} caplog_group;

typedef struct {
    char label[CAPLOG_LABEL_MAX];   /* tags as printed; "" for untagged lines (rank 0) */
    int32_t tp;                     /* TP number, 0 when absent */
    uint64_t order;                 /* sort key: (tp, dp, pp, attn_cp, moe_dp, ep); 0 = the bars' rank */
    bool has_data;                  /* at least one value below is known */
    double weights_begin_avail_gib; /* Load weight begin */
    double weights_end_avail_gib;   /* Load weight end */
    double weights_usage_gib;
    int64_t kv_tokens;            /* #tokens; -1: not printed */
    double kv_gib;                /* K + V or KV size, summed over pools (SWA) */
    double state_gib;             /* Mamba / linear-attention conv + ssm state */
    double pool_avail_gib;        /* the rank's first Memory pool end */
    int64_t max_total_num_tokens; /* scheduler summary; -1 */
    double available_gpu_mem_gib; /* scheduler summary */
} caplog_rank;

typedef struct {
    bool has;
    int64_t v;
} caplog_opt_int;
typedef struct {
    bool has;
    double v;
} caplog_opt_real;
typedef struct {
    bool has;
    char v[CAPLOG_STR_MAX];
} caplog_opt_str;
typedef struct {
    bool has;
    bool v;
} caplog_opt_bool;
typedef struct {
    bool has;
    uint32_t n; /* as the flag lists it (ascending); more than the cap are dropped */
    uint32_t v[CAPLOG_MAX_BUCKETS];
} caplog_opt_list;

/* The server_args fields the planner knows, under SGLang's names. Absent or None => !has. */
typedef struct {
    bool present; /* a server_args= line was read */
    caplog_opt_str model_path;
    caplog_opt_int tp_size, dp_size, dcp_size, ep_size, cuda_graph_max_bs;
    caplog_opt_list cuda_graph_bs;
    caplog_opt_str speculative_algorithm;
    caplog_opt_int speculative_num_steps, speculative_eagle_topk, speculative_num_draft_tokens;
    caplog_opt_int context_length;
    caplog_opt_bool enable_dp_attention;
    caplog_opt_str moe_a2a_backend, attention_backend;
    caplog_opt_real mem_fraction_static;
    caplog_opt_int max_running_requests;
    /* the pools' own flags: a hybrid model's state and sliding-window pools follow them */
    caplog_opt_bool disable_radix_cache, disable_hybrid_swa_memory;
    caplog_opt_str disaggregation_mode;
    caplog_opt_real swa_full_tokens_ratio, mamba_full_memory_ratio;
    char raw[CAPLOG_RAW_ARGS_MAX]; /* the ServerArgs(...) text, truncated */
} caplog_server_args;

/* One row per field above (raw and present aside): the parser fills a field through its row
 * and writers walk the rows in order, so a field's name, type and place are written once. */
typedef enum {
    CAPLOG_ARG_INT,  /* caplog_opt_int */
    CAPLOG_ARG_REAL, /* caplog_opt_real */
    CAPLOG_ARG_STR,  /* caplog_opt_str */
    CAPLOG_ARG_BOOL, /* caplog_opt_bool */
    CAPLOG_ARG_LIST  /* caplog_opt_list */
} caplog_arg_type;
typedef struct {
    const char *name; /* SGLang's ServerArgs name */
    caplog_arg_type type;
    size_t offset;   /* of the caplog_opt_* field in caplog_server_args */
    double min, max; /* INT, REAL, LIST items: the plausible range; a value outside is malformed */
} caplog_server_arg_info;
size_t caplog_server_arg_count(void);
const caplog_server_arg_info *caplog_server_arg_at(size_t i); /* NULL past the count */

typedef struct {
    char key[CAPLOG_ENV_KEY_MAX];
    char value[CAPLOG_ENV_VALUE_MAX];
} caplog_env;

/* One server start. About 1.2 MiB: allocate copies on the heap. */
typedef struct {
    uint32_t first_line, last_line; /* 1-based physical lines */
    caplog_server_args args;
    /* The model class of the first Load weight end ("type=DeepseekV3ForCausalLM"); "" when no
     * such line names it. A draft model's load comes later and is not this. */
    char architecture[CAPLOG_ARCH_MAX];
    uint32_t n_env;
    caplog_env env[CAPLOG_MAX_ENV];
    uint32_t n_groups;
    caplog_group groups[CAPLOG_MAX_GROUPS];
    uint32_t n_ranks; /* every rank that printed a line, with or without memory values */
    caplog_rank ranks[CAPLOG_MAX_RANKS];
    uint32_t dropped_groups, dropped_env;
    uint32_t dropped_rank_lines; /* lines from ranks beyond CAPLOG_MAX_RANKS, not read */
    uint64_t lines;              /* physical lines attributed to the run */
    uint64_t unknown_lines;      /* segments (lines or \r frames) no rule matched */
    uint64_t truncated_lines;    /* segments longer than CAPLOG_LINE_MAX */
    uint64_t malformed_lines;    /* known lines whose values could not be read */
    uint32_t first_malformed_line;
    /* The hook's per-term bytes from its memory snapshot of the largest size: what was allocated
     * in that window and is still held, by the source file that allocated it (engine_terms[] keys,
     * "unattributed" for the rest). Kept from the lowest rank that printed hook lines. */
    bool has_hook;
    int32_t hook_rank;
    uint32_t n_hook_terms, dropped_hook_lines;
    struct {
        char term[CAPLOG_HOOK_TERM_MAX];
        uint64_t bytes;
        uint32_t size;
    } hook_terms[CAPLOG_MAX_HOOK_TERMS];
} caplog_run;

typedef struct caplog_parser caplog_parser;
typedef void (*caplog_on_run)(const caplog_run *run, void *ctx);

caplog_parser *caplog_new(void); /* NULL when out of memory */
void caplog_free(caplog_parser *p);
/* RUN is valid only during the call; copy what must outlive it. */
void caplog_set_callback(caplog_parser *p, caplog_on_run on_run, void *ctx);
/* Any chunking; '\n' and '\r' end a segment. Returns 0, or -1 after caplog_finish(). */
int caplog_feed(caplog_parser *p, const char *buf, size_t len);
/* End of input: a last line without its newline is ignored; the run so far is emitted.
 * Returns 0, or -1 if already finished. */
int caplog_finish(caplog_parser *p);

/* The two stages of caplog_feed, for a caller that runs them on two threads. The lexer cuts the
 * bytes into segments and reads what each says by itself (a bar frame's numbers, a prefix's
 * tags, which keys a message holds) into a buffer of tokens; caplog_apply runs the parser's state
 * machine on them, in the order they were lexed. A lexer and a parser share nothing, so one
 * thread may lex the next bytes while another applies the tokens before them:
 *
 *     while (more input) { n = caplog_lex(lx, buf, len, t); caplog_apply(p, t); buf += n; len -= n; }
 *     caplog_lex_end(lx, t); caplog_apply(p, t); caplog_finish(p);
 *
 * gives what caplog_feed and caplog_finish give. A token buffer is about 256 KiB, whatever the
 * input. */
typedef struct caplog_lexer caplog_lexer;
typedef struct caplog_tokens caplog_tokens;
caplog_lexer *caplog_lexer_new(void); /* NULL when out of memory */
void caplog_lexer_free(caplog_lexer *lx);
caplog_tokens *caplog_tokens_new(void); /* NULL when out of memory */
void caplog_tokens_free(caplog_tokens *t);
/* Replaces T's tokens by those of BUF's first bytes; returns how many it took, LEN or fewer when
 * T is full (lex the rest into the next buffer). A segment cut at LEN waits in LX. */
size_t caplog_lex(caplog_lexer *lx, const char *buf, size_t len, caplog_tokens *t);
/* caplog_lex that may read CAPLOG_LEX_PAD bytes past BUF + LEN (readable, whatever they hold: the
 * caller's to provide): a line that lies whole in BUF is read where it lies, not copied. BUF is
 * never written, so it may be a read-only mapping of the file. */
#define CAPLOG_LEX_PAD 64
size_t caplog_lex_in_place(caplog_lexer *lx, const char *buf, size_t len, caplog_tokens *t);
/* DEFER: the lines LX lexes from now on leave finding their keys to caplog_apply (their text goes
 * with them). The runs are the same either way; a caller with a thread per stage moves that work
 * to the applier while the applier waits for tokens, so neither waits long for the other. */
void caplog_lexer_defer_marks(caplog_lexer *lx, bool defer);
/* End of input: T gets what LX holds of a last line without its newline (ignored, but counted). */
void caplog_lex_end(caplog_lexer *lx, caplog_tokens *t);
/* Returns 0, or -1 after caplog_finish(). */
int caplog_apply(caplog_parser *p, const caplog_tokens *t);

/* After finish: the input held something SGLang prints (a capture group, a memory line or
 * server_args). False for an empty file, a vLLM log, binary data. */
bool caplog_recognised(const caplog_parser *p);
uint32_t caplog_runs_emitted(const caplog_parser *p);
uint64_t caplog_lines_read(const caplog_parser *p); /* physical lines, the ignored last included */

static inline bool caplog_known(double v)
{
    return v == v;
}

/* The group's phase with the run's speculative settings applied: legacy "cuda graph" is
 * verify when speculative_algorithm is set, decode when server_args says it is not. */
caplog_phase caplog_group_phase(const caplog_run *run, const caplog_group *g);
/* The bar of bucket position INDEX (0 = largest), or NULL. */
const caplog_bar *caplog_group_bar_at(const caplog_group *g, int32_t index);
/* The name CLI.md gives a rank: "TPn" from its tags ("DP3 TP3 EP3" gives "TP3"; tags without a
 * TP tag, as recent releases print at tp_size 1, give "TP0"), "" for an untagged line. */
void caplog_rank_name(const char *label, char *out, size_t cap);
/* The rank with this label ("" or "TP0" find untagged rank 0), or NULL. */
const caplog_rank *caplog_run_rank(const caplog_run *run, const char *label);

#endif
