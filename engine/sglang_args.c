/* sglang_args.c — an SGLang launch line read back into knobs (`--sglang-args`, `cgplan lint`),
 * every flag with its status: what `cgplan launch` prints reads back to the same plan, and a flag
 * cgplan does not model is said, never dropped in silence.
 *
 * Flags follow python/sglang/srt/server_args.py (ServerArgs.add_cli_args): a value flag takes
 * the next word (`--cuda-graph-bs` takes every number up to the next flag), a store_true flag
 * (--enable-dp-attention, --enable-two-batch-overlap) takes none; `--flag=value` works too. The
 * rules SGLang applies after parsing are cited where they are applied (read_line_finish). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sglang_args.h"

const char *const engine_sglang_flag_status_names[SGLANG_FLAG_STATUS_COUNT] = {
    "modelled", "no_effect", "not_modelled", "unknown", "rejected"};

enum { RELEASE_FLAG_NONE = -1, RELEASE_FLAG_DECODE_GRAPH = -2 };

/* Older switches that set a knob to a fixed value (server_args.py deprecations). */
static const struct {
    const char *flag;
    engine_knob_id knob;
    const char *value;
} legacy_switches[] = {
    {"--enable-deepep-moe", KNOB_A2A, "deepep"}, /* before --moe-a2a-backend deepep */
};

/* argparse's other spellings of a flag (server_args.py add_cli_args: add_argument with two
 * names, dest the first). */
static const struct {
    const char *alias, *flag;
} flag_aliases[] = {
    {"--tensor-parallel-size", "--tp-size"},
    {"--data-parallel-size", "--dp-size"},
    {"--expert-parallel-size", "--ep-size"},
    {"--pipeline-parallel-size", "--pp-size"},
    {"--model", "--model-path"},
};

/* SGLang flags the knob table does not hold: whether each takes a value, and what it does to
 * the memory cgplan plans (server_args.py ServerArgs.add_cli_args, main 2026-07-20). */
typedef struct {
    const char *flag;
    bool takes_value;
    engine_sglang_flag_status status;
    const char *note;
} known_flag;

static const known_flag known_flags[] = {
    /* Serving, logging, tokenizer and networking: nothing on the GPU changes. */
    {"--host", true, SGLANG_FLAG_NO_EFFECT, "the HTTP server's address"},
    {"--port", true, SGLANG_FLAG_NO_EFFECT, "the HTTP server's port"},
    {"--served-model-name", true, SGLANG_FLAG_NO_EFFECT, "the name the API reports"},
    {"--tokenizer-path", true, SGLANG_FLAG_NO_EFFECT, "the tokenizer runs on the CPU"},
    {"--tokenizer-mode", true, SGLANG_FLAG_NO_EFFECT, "the tokenizer runs on the CPU"},
    {"--skip-tokenizer-init", false, SGLANG_FLAG_NO_EFFECT, "the tokenizer runs on the CPU"},
    {"--chat-template", true, SGLANG_FLAG_NO_EFFECT, "prompt formatting"},
    {"--reasoning-parser", true, SGLANG_FLAG_NO_EFFECT, "output parsing"},
    {"--tool-call-parser", true, SGLANG_FLAG_NO_EFFECT, "output parsing"},
    {"--log-level", true, SGLANG_FLAG_NO_EFFECT, "logging"},
    {"--log-level-http", true, SGLANG_FLAG_NO_EFFECT, "logging"},
    {"--log-requests", false, SGLANG_FLAG_NO_EFFECT, "logging"},
    {"--log-requests-level", true, SGLANG_FLAG_NO_EFFECT, "logging"},
    {"--enable-metrics", false, SGLANG_FLAG_NO_EFFECT, "Prometheus metrics"},
    {"--enable-cache-report", false, SGLANG_FLAG_NO_EFFECT, "usage reporting"},
    {"--show-time-cost", false, SGLANG_FLAG_NO_EFFECT, "timing logs"},
    {"--decode-log-interval", true, SGLANG_FLAG_NO_EFFECT, "logging"},
    {"--trust-remote-code", false, SGLANG_FLAG_NO_EFFECT, "lets the model's own code load"},
    {"--revision", true, SGLANG_FLAG_NO_EFFECT, "which checkpoint revision is downloaded"},
    {"--download-dir", true, SGLANG_FLAG_NO_EFFECT, "where the checkpoint is stored"},
    {"--api-key", true, SGLANG_FLAG_NO_EFFECT, "API authentication"},
    {"--random-seed", true, SGLANG_FLAG_NO_EFFECT, "sampling"},
    {"--dist-init-addr", true, SGLANG_FLAG_NO_EFFECT, "multi-node rendezvous"},
    {"--nnodes", true, SGLANG_FLAG_NO_EFFECT, "the nodes --tp-size spans (launch writes it)"},
    {"--node-rank", true, SGLANG_FLAG_NO_EFFECT, "this node's index"},
    {"--base-gpu-id", true, SGLANG_FLAG_NO_EFFECT, "which GPUs of the node"},
    {"--schedule-policy", true, SGLANG_FLAG_NO_EFFECT, "request ordering"},
    {"--schedule-conservativeness", true, SGLANG_FLAG_NO_EFFECT, "admission pace"},
    {"--stream-interval", true, SGLANG_FLAG_NO_EFFECT, "streaming"},
    {"--watchdog-timeout", true, SGLANG_FLAG_NO_EFFECT, "a timeout"},
    {"--dist-timeout", true, SGLANG_FLAG_NO_EFFECT, "a timeout"},
    {"--skip-server-warmup", false, SGLANG_FLAG_NO_EFFECT, "the warm-up request"},
    {"--max-prefill-tokens", true, SGLANG_FLAG_NO_EFFECT,
     "a prefill batch's budget, not a buffer of the decode graphs"},
    {"--max-queued-requests", true, SGLANG_FLAG_NO_EFFECT, "the waiting queue, on the CPU"},
    {"--load-format", true, SGLANG_FLAG_NO_EFFECT, "how the weights are read; the same weights are resident"},
    {"--speculative-draft-model-path", true, SGLANG_FLAG_NO_EFFECT,
     "the draft's size comes from the model preset (draft_layers)"},
    /* Known flags that move memory cgplan does not model. */
    {"--enable-torch-compile", false, SGLANG_FLAG_NOT_MODELLED,
     "torch.compile changes the captured kernels and their node count"},
    {"--torch-compile-max-bs", true, SGLANG_FLAG_NOT_MODELLED, "the sizes torch.compile compiles"},
    {"--enable-mixed-chunk", false, SGLANG_FLAG_NOT_MODELLED, "mixed prefill/decode batches"},
    {"--disable-cuda-graph", false, SGLANG_FLAG_NOT_MODELLED, "no decode graphs are captured at all"},
    {"--disable-cuda-graph-padding", false, SGLANG_FLAG_NOT_MODELLED, "padding off changes the capture list"},
    {"--enable-piecewise-cuda-graph", false, SGLANG_FLAG_NOT_MODELLED, "prefill graphs"},
    {"--disable-piecewise-cuda-graph", false, SGLANG_FLAG_NOT_MODELLED, "prefill graphs"},
    {"--piecewise-cuda-graph-max-tokens", true, SGLANG_FLAG_NOT_MODELLED, "prefill graphs"},
    {"--disable-custom-all-reduce", false, SGLANG_FLAG_NOT_MODELLED, "all-reduces move to NCCL inside the graphs"},
    {"--enable-nccl-nvls", false, SGLANG_FLAG_NOT_MODELLED, "NVLS buffers"},
    {"--enable-symm-mem", false, SGLANG_FLAG_NOT_MODELLED, "symmetric-memory buffers"},
    {"--max-total-tokens", true, SGLANG_FLAG_NOT_MODELLED,
     "caps the KV pool; the plan sizes the pool from --mem-fraction-static"},
    {"--pp-size", true, SGLANG_FLAG_NOT_MODELLED, "pipeline stages split the layers"},
    {"--moe-dense-tp-size", true, SGLANG_FLAG_NOT_MODELLED, "the dense layers' own TP"},
    {"--attn-cp-size", true, SGLANG_FLAG_NOT_MODELLED, "attention context parallel"},
    {"--ep-num-redundant-experts", true, SGLANG_FLAG_NOT_MODELLED, "redundant experts' weights"},
    {"--enable-eplb", false, SGLANG_FLAG_NOT_MODELLED, "expert rebalancing"},
    {"--enable-dp-lm-head", false, SGLANG_FLAG_NOT_MODELLED, "the LM head's layout under DP attention"},
    {"--enable-single-batch-overlap", false, SGLANG_FLAG_NOT_MODELLED, "overlap buffers"},
    {"--deepep-config", true, SGLANG_FLAG_NOT_MODELLED, "DeepEP's tuning"},
    {"--disable-overlap-schedule", false, SGLANG_FLAG_NOT_MODELLED, "the overlap scheduler's buffers"},
    {"--enable-hierarchical-cache", false, SGLANG_FLAG_NOT_MODELLED, "a host-memory KV tier"},
    {"--hybrid-kvcache-ratio", true, SGLANG_FLAG_NOT_MODELLED,
     "v0.4.9 .. v0.5.7 (PR #6563 to PR #16399): Llama 4's chunked layers in a pool of their own; the plan "
     "keeps them in the full pool, so its KV tokens are the low side"},
    {"--enable-lora", false, SGLANG_FLAG_NOT_MODELLED, "LoRA adapters' memory"},
    {"--lora-paths", true, SGLANG_FLAG_NOT_MODELLED, "LoRA adapters' memory"},
    {"--max-loras-per-batch", true, SGLANG_FLAG_NOT_MODELLED, "LoRA adapters' memory"},
    {"--cpu-offload-gb", true, SGLANG_FLAG_NOT_MODELLED, "weights offloaded to the host"},
    {"--enable-memory-saver", false, SGLANG_FLAG_NOT_MODELLED, "memory release/resume"},
    {"--decode-attention-backend", true, SGLANG_FLAG_NOT_MODELLED, "a decode backend apart from --attention-backend"},
    {"--prefill-attention-backend", true, SGLANG_FLAG_NOT_MODELLED, "a prefill backend's buffers"},
    {"--mm-attention-backend", true, SGLANG_FLAG_NOT_MODELLED, "the vision tower's attention"},
    {"--mm-enable-dp-encoder", false, SGLANG_FLAG_NOT_MODELLED,
     "the vision tower whole on every GPU (the plan splits it as the model file does without the flag)"},
    {"--enable-multimodal", false, SGLANG_FLAG_NOT_MODELLED,
     "Llama 4 loads its vision tower (the plan counts none for it; model_config.py turns multimodal off)"},
    {"--sampling-backend", true, SGLANG_FLAG_NOT_MODELLED, "the sampler's buffers"},
    {"--json-model-override-args", true, SGLANG_FLAG_NOT_MODELLED, "changes the model's config"},
    {"--is-embedding", false, SGLANG_FLAG_NOT_MODELLED, "an embedding server captures no decode graphs"},
    {"--enable-flashinfer-allreduce-fusion", false, SGLANG_FLAG_NOT_MODELLED, "fused all-reduce workspaces"},
    {"--num-continuous-decode-steps", true, SGLANG_FLAG_NOT_MODELLED, "several decode steps per schedule"},
    {"--disaggregation-mode", true, SGLANG_FLAG_NOT_MODELLED, "a prefill server captures no decode graphs"},
    {"--disaggregation-decode-extra-slots", true, SGLANG_FLAG_NOT_MODELLED,
     "a decode server's extra request slots (PR #28755, v0.5.14): the sliding-window cap takes SGLang's default, "
     "2 x the requests per worker at 32 or fewer, else 0"},
    {"--disaggregation-decode-enable-radix-cache", false, SGLANG_FLAG_NO_EFFECT,
     "a decode server keeps its radix cache (PR #19746; for hybrid models from PR #40263)"},
};

/* Environment variables beside the knob table's: cgplan models none of these. */
static const struct {
    const char *prefix; /* a NAME, or a prefix ending in '_' */
    engine_sglang_flag_status status;
    const char *note;
} known_env[] = {
    {"CUDA_VISIBLE_DEVICES", SGLANG_FLAG_NO_EFFECT, "which GPUs"},
    {"HF_TOKEN", SGLANG_FLAG_NO_EFFECT, "downloads"},
    {"HF_HOME", SGLANG_FLAG_NO_EFFECT, "downloads"},
    {"PYTHONUNBUFFERED", SGLANG_FLAG_NO_EFFECT, "logging"},
    {"SGLANG_ENABLE_POST_CAPTURE_KV_SIZING", SGLANG_FLAG_NOT_MODELLED,
     "the estimate reports its pool apart (post-capture KV sizing)"},
    /* launch prints it where DeepEP needs it (max_dispatch > 511): the queue pairs' work queues
     * are kilobytes, no graph or KV term */
    {"NVSHMEM_QP_DEPTH", SGLANG_FLAG_NO_EFFECT, "DeepEP's RDMA queue depth (the qp_depth warning says the value)"},
    {"SGLANG_", SGLANG_FLAG_NOT_MODELLED, "an SGLang environment variable cgplan does not model"},
    {"NCCL_", SGLANG_FLAG_NOT_MODELLED, "NCCL's buffers"},
    {"NVSHMEM_", SGLANG_FLAG_NOT_MODELLED, "NVSHMEM's buffers"},
    {"PYTORCH_", SGLANG_FLAG_NOT_MODELLED, "PyTorch's allocator"},
    {"TORCH_", SGLANG_FLAG_NOT_MODELLED, "PyTorch"},
};

/* The flags a release may lack (argparse refuses what it does not define): release.c holds
 * when each came; RELEASE_FLAG_DECODE_GRAPH: the -decode graph flags (PR #23906). */
static int release_flag_of(const char *flag)
{
    static const struct {
        const char *flag;
        int release_flag;
    } needs[] = {
        {"--attention-backend", ENGINE_FLAG_ATTENTION_BACKEND},
        {"--cuda-graph-max-bs", ENGINE_FLAG_CUDA_GRAPH_MAX_BS},
        {"--cuda-graph-bs", ENGINE_FLAG_CUDA_GRAPH_BS},
        {"--cuda-graph-max-bs-decode", RELEASE_FLAG_DECODE_GRAPH},
        {"--cuda-graph-bs-decode", RELEASE_FLAG_DECODE_GRAPH},
        {"--dcp-size", ENGINE_FLAG_DCP_SIZE},
        {"--speculative-algorithm", ENGINE_FLAG_SPECULATIVE},
        {"--speculative-num-steps", ENGINE_FLAG_SPECULATIVE},
        {"--speculative-eagle-topk", ENGINE_FLAG_SPECULATIVE},
        {"--speculative-num-draft-tokens", ENGINE_FLAG_SPECULATIVE},
        {"--speculative-draft-model-path", ENGINE_FLAG_SPECULATIVE},
    };
    for (size_t i = 0; i < sizeof needs / sizeof needs[0]; i++)
        if (strcmp(flag, needs[i].flag) == 0)
            return needs[i].release_flag;
    return RELEASE_FLAG_NONE;
}

static bool release_has(const engine_release *r, int release_flag)
{
    if (release_flag == RELEASE_FLAG_NONE)
        return true;
    if (release_flag == RELEASE_FLAG_DECODE_GRAPH)
        return engine_release_has_decode_graph_flags(r);
    return engine_release_has_flag(r, (engine_release_flag)release_flag);
}

static const engine_knob_info *knob_of_flag(const char *flag)
{
    for (int i = 0; i < KNOB_COUNT; i++) {
        const engine_knob_info *k = &engine_knobs[i];
        if ((k->sglang_flag && strcmp(k->sglang_flag, flag) == 0) ||
            (k->sglang_flag_alt && strcmp(k->sglang_flag_alt, flag) == 0))
            return k;
    }
    return NULL;
}

static const engine_knob_info *knob_of_env(const char *key)
{
    for (int i = 0; i < KNOB_COUNT; i++)
        if (engine_knobs[i].sglang_env && strcmp(engine_knobs[i].sglang_env, key) == 0)
            return &engine_knobs[i];
    return NULL;
}

static const known_flag *known_flag_of(const char *flag)
{
    for (size_t i = 0; i < sizeof known_flags / sizeof known_flags[0]; i++)
        if (strcmp(flag, known_flags[i].flag) == 0)
            return &known_flags[i];
    return NULL;
}

static bool is_flag(const char *w) { return w[0] == '-' && w[1] == '-' && w[2] != '\0'; }

/* NAME=VALUE with a shell variable's NAME. */
static bool is_assignment(const char *w)
{
    if (!(isalpha((unsigned char)w[0]) || w[0] == '_'))
        return false;
    for (const char *p = w; *p; p++) {
        if (*p == '=')
            return true;
        if (!(isalnum((unsigned char)*p) || *p == '_'))
            return false;
    }
    return false;
}

/* ---- The shell's split: quotes, escapes, continuations, one command. ---- */

typedef struct {
    char buf[ENGINE_SGLANG_LINE_MAX + ENGINE_SGLANG_WORDS_MAX];
    char *words[ENGINE_SGLANG_WORDS_MAX];
    int n;
} word_list;

/* Splits TEXT as sh would (without expansions): '...' keeps everything, "..." keeps all but \",
 * \\, \$ and \` escapes and \-newline, an unquoted \ keeps the next character and \-newline joins
 * lines; # starts a comment at a word's start. The command ends at an unquoted newline, ';', '&'
 * or '|' once a word other than an assignment or `export` has been read (so `export X=1` on its
 * own line, as people paste it, carries into the command after it). */
static int split_words(const char *text, word_list *out, char *err, size_t errlen)
{
    size_t used = 0;
    bool in_word = false, command_started = false;
    char quote = 0;
    out->n = 0;
#define PUTC(c)                                                                                                        \
    do {                                                                                                               \
        if (!in_word) {                                                                                                \
            if (out->n == ENGINE_SGLANG_WORDS_MAX)                                                                     \
                return engine_fail(err, errlen, "the launch line has more than %d words: shorten it",                   \
                                   ENGINE_SGLANG_WORDS_MAX);                                                           \
            out->words[out->n++] = out->buf + used;                                                                    \
            in_word = true;                                                                                            \
        }                                                                                                              \
        out->buf[used++] = (c);                                                                                        \
    } while (0)
    for (const char *p = text; *p; p++) {
        char c = *p;
        if (quote == '\'') {
            if (c == '\'')
                quote = 0;
            else
                PUTC(c);
            continue;
        }
        if (quote == '"') {
            if (c == '"')
                quote = 0;
            else if (c == '\\' && (p[1] == '"' || p[1] == '\\' || p[1] == '$' || p[1] == '`'))
                PUTC(*++p);
            else if (c == '\\' && p[1] == '\n')
                p++;
            else
                PUTC(c);
            continue;
        }
        if (c == '\'' || c == '"') {
            quote = c;
            if (!in_word) { /* "" is a word of its own */
                PUTC('\0');
                used--;
            }
            continue;
        }
        if (c == '\\') {
            if (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n')) {
                p += p[1] == '\r' ? 2 : 1;
                continue;
            }
            if (p[1] == '\0')
                break;
            PUTC(*++p);
            continue;
        }
        bool ends_command = c == '\n' || c == ';' || c == '&' || c == '|';
        if (c == ' ' || c == '\t' || c == '\r' || ends_command) {
            if (in_word) {
                out->buf[used++] = '\0';
                in_word = false;
                const char *w = out->words[out->n - 1];
                if (strcmp(w, "export") != 0 && !is_assignment(w))
                    command_started = true;
            }
            if (ends_command && command_started)
                break;
            continue;
        }
        if (c == '#' && !in_word) {
            while (p[1] && p[1] != '\n')
                p++;
            continue;
        }
        PUTC(c);
    }
#undef PUTC
    if (quote)
        return engine_fail(err, errlen, "the launch line has an unterminated %c quote: close it", quote);
    if (in_word)
        out->buf[used++] = '\0';
    return 0;
}

/* ---- The per-flag list. ---- */

/* Adds a row; returns its index, or -1 past ENGINE_SGLANG_FLAGS_MAX (counted in n_dropped). */
static int note_flag(engine_sglang_line *l, const char *flag, const char *value, engine_sglang_flag_status status,
                     const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static int note_flag(engine_sglang_line *l, const char *flag, const char *value, engine_sglang_flag_status status,
                     const char *fmt, ...)
{
    if (l->n_flags >= ENGINE_SGLANG_FLAGS_MAX) {
        l->n_dropped++;
        return -1;
    }
    engine_sglang_flag *f = &l->flags[l->n_flags];
    memset(f, 0, sizeof *f);
    snprintf(f->flag, sizeof f->flag, "%s", flag);
    snprintf(f->value, sizeof f->value, "%s", value ? value : "");
    f->status = status;
    f->read_status = status;
    f->release_flag = release_flag_of(flag);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f->note, sizeof f->note, fmt, ap);
    va_end(ap);
    return l->n_flags++;
}

static int set_knob(engine_deployment *d, engine_knob_id knob, const char *value, engine_knob_origin origin,
                    engine_warnings *adj, char *err, size_t errlen)
{
    if (engine_knob_set_text(d, knob, value, adj, err, errlen) != 0)
        return -1;
    d->knob_origin[knob] = origin;
    return 0;
}

/* --quantization: the weight formats the engine counts (engine_dtype). SGLang quantises a
 * BF16/FP16 checkpoint's linear layers online to the method (server_args.py
 * QUANTIZATION_CHOICES; layers/quantization/); a checkpoint already in the format is read as is.
 * Returns the dtype, or -1 for a method cgplan does not count. */
static int quantization_dtype(const char *method)
{
    static const struct {
        const char *method;
        engine_dtype dtype;
    } methods[] = {
        {"fp8", DTYPE_FP8},             /* Fp8Config: e4m3 weights with scales */
        {"w8a8_fp8", DTYPE_FP8},        /* W8A8Fp8Config */
        {"modelopt_fp8", DTYPE_FP8},    /* ModelOptFp8Config */
        {"mxfp4", DTYPE_MXFP4},         /* Mxfp4Config (gpt-oss experts) */
        {"modelopt_fp4", DTYPE_NVFP4},  /* ModelOptFp4Config: NVFP4 */
        {"w4afp8", DTYPE_INT4},         /* W4AFp8Config: int4 routed experts, fp8 activations */
    };
    for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
        if (strcmp(method, methods[i].method) == 0)
            return (int)methods[i].dtype;
    return -1;
}

static bool is_wide(engine_dtype t) { return t == DTYPE_BF16 || t == DTYPE_FP16 || t == DTYPE_FP32; }

static void apply_quantization(engine_deployment *d, engine_sglang_line *l, const char *value)
{
    int q = quantization_dtype(value);
    if (q < 0) {
        note_flag(l, "--quantization", value, SGLANG_FLAG_NOT_MODELLED,
                  "quantization %s: cgplan counts the weights as the model preset gives them", value);
        return;
    }
    engine_model *m = &d->model;
    /* W4AFp8 quantises the routed experts only (the dense layers stay as they are). */
    if (q != DTYPE_INT4 && is_wide(m->dense_dtype))
        m->dense_dtype = (engine_dtype)q;
    if (is_wide(m->expert_dtype))
        m->expert_dtype = (engine_dtype)q;
    note_flag(l, "--quantization", value, SGLANG_FLAG_MODELLED, "weights counted as %s (where the checkpoint is wider)",
              engine_dtype_names[q]);
}

/* --dtype: the activations' and unquantised weights' type (model_config.py _get_and_verify_dtype:
 * "auto" keeps the checkpoint's torch_dtype). */
static void apply_dtype(engine_deployment *d, engine_sglang_line *l, const char *value)
{
    static const struct {
        const char *name;
        engine_dtype dtype;
    } names[] = {{"bfloat16", DTYPE_BF16}, {"float16", DTYPE_FP16}, {"half", DTYPE_FP16},
                 {"float32", DTYPE_FP32},  {"float", DTYPE_FP32}};
    if (strcmp(value, "auto") == 0) {
        note_flag(l, "--dtype", value, SGLANG_FLAG_NO_EFFECT, "the checkpoint's own dtype");
        return;
    }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(value, names[i].name) == 0) {
            engine_model *m = &d->model;
            engine_dtype was = m->dtype;
            m->dtype = names[i].dtype;
            if (m->dense_dtype == was)
                m->dense_dtype = names[i].dtype;
            if (m->expert_dtype == was)
                m->expert_dtype = names[i].dtype;
            note_flag(l, "--dtype", value, SGLANG_FLAG_MODELLED, "unquantised weights counted as %s",
                      engine_dtype_names[names[i].dtype]);
            return;
        }
    note_flag(l, "--dtype", value, SGLANG_FLAG_UNKNOWN, "not one of SGLang's --dtype choices (auto, bfloat16, ...)");
}

/* The value of flag W at words[*i]: after '=', else the next word unless it is a flag. */
static const char *take_value(const word_list *wl, int *i, const char *eq)
{
    if (eq)
        return eq;
    if (*i + 1 < wl->n && !is_flag(wl->words[*i + 1]))
        return wl->words[++*i];
    return NULL;
}

/* argparse reads every flag before any rule runs, and keeps a repeated flag's last value; the
 * knob table checks each value against the others as it is set. So the reader holds each knob's
 * last value (PENDING) and sets them once the line is read, in the order the checks need
 * (apply_pending): the line reads the same whatever its flags' order. */
typedef struct {
    bool draft_tokens_given, chunked_given, fraction_given;
    bool decode_server; /* --disaggregation-mode decode: SGLang turns the radix cache off */
    bool decode_radix;  /* --disaggregation-decode-enable-radix-cache: unless this is given */
    long steps;
    int chunked_index; /* its row in the list, fixed at the end; -1: none */
    const char *pending[KNOB_COUNT];  /* the value text, in ARENA; NULL: not given */
    const char *pending_flag[KNOB_COUNT]; /* as written, for messages */
    int pending_row[KNOB_COUNT];      /* its row in the list; -1: past the cap */
    char arena[ENGINE_SGLANG_LINE_MAX + 8 * ENGINE_SGLANG_WORDS_MAX];
    size_t arena_used;
} read_state;

/* Holds VALUE (LEN bytes) as KNOB's; the row it replaces is marked overridden. */
static int hold(read_state *st, engine_sglang_line *l, engine_knob_id knob, const char *flag, const char *value,
                size_t len, int row, char *err, size_t errlen)
{
    if (st->arena_used + len + 72 > sizeof st->arena)
        return engine_fail(err, errlen, "the launch line's values pass %zu bytes: shorten it", sizeof st->arena);
    char *v = st->arena + st->arena_used;
    memcpy(v, value, len);
    v[len] = '\0';
    char *f = v + len + 1;
    snprintf(f, 64, "%s", flag);
    st->arena_used += len + 1 + strlen(f) + 1;
    if (st->pending[knob] && st->pending_row[knob] >= 0) {
        engine_sglang_flag *was = &l->flags[st->pending_row[knob]];
        was->status = was->read_status = SGLANG_FLAG_NO_EFFECT;
        snprintf(was->note, sizeof was->note, "given again later (%s): argparse keeps the last", flag);
    }
    st->pending[knob] = v;
    st->pending_flag[knob] = f;
    st->pending_row[knob] = row;
    return 0;
}

/* One flag at words[*i] (advanced past its values). */
static int read_flag(engine_deployment *d, const word_list *wl, int *i, engine_sglang_line *l, read_state *st,
                     char *err, size_t errlen)
{
    char flag[64];
    const char *w = wl->words[*i];
    const char *eq = strchr(w, '=');
    size_t len = eq ? (size_t)(eq - w) : strlen(w);
    if (len >= sizeof flag) {
        snprintf(flag, sizeof flag, "%.56s...", w);
        note_flag(l, flag, eq ? eq + 1 : "", SGLANG_FLAG_UNKNOWN,
                  "a flag of %zu characters: no SGLang flag is that long", len);
        return 0;
    }
    memcpy(flag, w, len);
    flag[len] = '\0';
    if (eq)
        eq++;
    for (size_t a = 0; a < sizeof flag_aliases / sizeof flag_aliases[0]; a++)
        if (strcmp(flag, flag_aliases[a].alias) == 0)
            snprintf(flag, sizeof flag, "%s", flag_aliases[a].flag);

    if (strcmp(flag, "--model-path") == 0) {
        const char *v = take_value(wl, i, eq);
        snprintf(l->model_path, sizeof l->model_path, "%s", v ? v : "");
        note_flag(l, flag, v, SGLANG_FLAG_MODELLED,
                  "the model, resolved against the catalog like --model");
        return 0;
    }
    if (strcmp(flag, "--speculative-algorithm") == 0) {
        const char *v = take_value(wl, i, eq);
        /* EAGLE-family algorithms capture target-verify graphs; NEXTN is EAGLE
         * (server_args.py _handle_speculative_decoding: "NEXTN" becomes "EAGLE"). */
        if (v && (!strcmp(v, "EAGLE") || !strcmp(v, "EAGLE3") || !strcmp(v, "NEXTN"))) {
            l->speculative = true;
            note_flag(l, flag, v, SGLANG_FLAG_MODELLED, "speculative decoding: mtp is the draft tokens");
        } else {
            note_flag(l, flag, v, SGLANG_FLAG_NOT_MODELLED,
                      "algorithm %s: cgplan models EAGLE, EAGLE3 and NEXTN only", v ? v : "(none)");
        }
        return 0;
    }
    if (strcmp(flag, "--speculative-num-steps") == 0) {
        const char *v = take_value(wl, i, eq);
        st->steps = v ? strtol(v, NULL, 10) : 0;
        note_flag(l, flag, v, SGLANG_FLAG_MODELLED, "draft steps: mtp = steps + 1 unless the draft tokens are given");
        return 0;
    }
    if (strcmp(flag, "--speculative-eagle-topk") == 0) {
        const char *v = take_value(wl, i, eq);
        bool one = v && strcmp(v, "1") == 0;
        note_flag(l, flag, v, one ? SGLANG_FLAG_MODELLED : SGLANG_FLAG_NOT_MODELLED,
                  one ? "topk 1: the chain the plan's draft graphs capture"
                      : "topk above 1 builds a draft tree; the plan captures the topk 1 chain");
        return 0;
    }
    if (strcmp(flag, "--quantization") == 0) {
        const char *v = take_value(wl, i, eq);
        apply_quantization(d, l, v ? v : "");
        return 0;
    }
    if (strcmp(flag, "--dtype") == 0) {
        const char *v = take_value(wl, i, eq);
        apply_dtype(d, l, v ? v : "");
        return 0;
    }
    if (strcmp(flag, "--chunked-prefill-size") == 0) {
        /* No term reads it (engine/terms/: the decode graphs' buffers are sized by max_bs and
         * context_len); only SGLang's default --mem-fraction-static does (budget.c
         * sglang_default_fraction, from the GPU's default chunk): status set at the end. */
        const char *v = take_value(wl, i, eq);
        st->chunked_given = true;
        st->chunked_index = note_flag(l, flag, v, SGLANG_FLAG_NO_EFFECT, "prefill chunks: no decode-graph term uses it");
        return 0;
    }
    for (size_t s = 0; s < sizeof legacy_switches / sizeof legacy_switches[0]; s++)
        if (strcmp(flag, legacy_switches[s].flag) == 0) {
            int row = note_flag(l, flag, "", SGLANG_FLAG_MODELLED, "%s %s (the older switch)",
                                engine_knobs[legacy_switches[s].knob].name, legacy_switches[s].value);
            return hold(st, l, legacy_switches[s].knob, flag, legacy_switches[s].value,
                        strlen(legacy_switches[s].value), row, err, errlen);
        }

    const engine_knob_info *k = knob_of_flag(flag);
    if (!k) {
        const known_flag *kf = known_flag_of(flag);
        if (kf) {
            const char *v = kf->takes_value ? take_value(wl, i, eq) : eq;
            /* --disaggregation-mode decode is the server the plan is (launch writes it) */
            bool decode = !strcmp(flag, "--disaggregation-mode") && v && (!strcmp(v, "decode") || !strcmp(v, "null"));
            bool decode_server = decode && !strcmp(v, "decode");
            st->decode_server |= decode_server;
            st->decode_radix |= !strcmp(flag, "--disaggregation-decode-enable-radix-cache");
            note_flag(l, flag, v, decode ? SGLANG_FLAG_NO_EFFECT : kf->status, "%s",
                      decode_server ? "a decode server, as planned; SGLang turns its radix cache off unless "
                                      "--disaggregation-decode-enable-radix-cache (a hybrid model's state "
                                      "pool follows it)"
                      : decode      ? "a decode server, as planned"
                                    : kf->note);
            return 0;
        }
        const char *v = take_value(wl, i, eq);
        note_flag(l, flag, v, SGLANG_FLAG_UNKNOWN, "not an SGLang flag: SGLang refuses it (check its spelling)");
        return 0;
    }

    char list[ENGINE_TEXT_MAX / 2] = "";
    const char *v = eq;
    size_t v_len = 0;
    if (k->type == KNOB_TYPE_BOOL && !eq) { /* a store_true switch */
        v = "on";
    } else if (k->field == KNOB_FIELD_LIST && !eq) { /* numbers up to the next flag, held joined by ',' */
        char *joined = st->arena + st->arena_used;
        size_t room = sizeof st->arena - st->arena_used, used = 0;
        joined[0] = '\0';
        while (*i + 1 < wl->n && !is_flag(wl->words[*i + 1])) {
            const char *x = wl->words[++*i];
            if (used + strlen(x) + 2 >= room)
                return engine_fail(err, errlen, "%s: its list is longer than the line's %zu bytes", flag, room - 1);
            used += (size_t)snprintf(joined + used, room - used, "%s%s", used ? "," : "", x);
        }
        snprintf(list, sizeof list, "%s", joined); /* shown as written: space-separated */
        for (char *c = strchr(list, ','); c; c = strchr(c + 1, ','))
            *c = ' ';
        v = joined;
    } else if (!v) {
        if (*i + 1 >= wl->n)
            return engine_fail(err, errlen, "%s needs a value", flag);
        v = wl->words[++*i];
    }
    v_len = strlen(v);
    bool shown_list = k->field == KNOB_FIELD_LIST && !eq;
    int row = note_flag(l, flag, shown_list ? list : k->type == KNOB_TYPE_BOOL && !eq ? "" : v, SGLANG_FLAG_MODELLED,
                        "knob %s", k->name);
    if (hold(st, l, k->id, flag, v, v_len, row, err, errlen) != 0)
        return -1;
    if (k->id == KNOB_MTP)
        st->draft_tokens_given = true;
    if (k->id == KNOB_MAX_BS)
        l->max_bs_given = true;
    if (k->id == KNOB_BUCKETS)
        l->buckets_given = true;
    if (k->id == KNOB_MAX_RUNNING_REQUESTS)
        l->max_running_given = true;
    if (k->id == KNOB_MEM_FRACTION)
        st->fraction_given = true;
    return 0;
}

/* Sets the held values: the layout first (world, then dp and whether DP attention runs, then
 * what divides them), so each check sees the line's own sizes, then the rest in table order. */
static int apply_pending(engine_deployment *d, read_state *st, engine_warnings *adj, char *err, size_t errlen)
{
    static const engine_knob_id layout_first[] = {KNOB_WORLD, KNOB_DP, KNOB_DP_ATTENTION, KNOB_DCP, KNOB_EP, KNOB_A2A};
    engine_knob_id order[KNOB_COUNT];
    int n = 0;
    for (size_t i = 0; i < sizeof layout_first / sizeof layout_first[0]; i++)
        order[n++] = layout_first[i];
    for (int k = 0; k < KNOB_COUNT; k++) {
        bool listed = false;
        for (size_t i = 0; i < sizeof layout_first / sizeof layout_first[0]; i++)
            listed |= layout_first[i] == (engine_knob_id)k;
        if (!listed)
            order[n++] = (engine_knob_id)k;
    }
    for (int i = 0; i < n; i++) {
        engine_knob_id k = order[i];
        if (!st->pending[k])
            continue;
        if (set_knob(d, k, st->pending[k], ORIGIN_SET, adj, err, errlen) != 0) {
            char why[ENGINE_TEXT_MAX];
            snprintf(why, sizeof why, "%s", err);
            return engine_fail(err, errlen, "%s %s: %s", st->pending_flag[k], st->pending[k], why);
        }
        /* --dp-size without --enable-dp-attention is dp replicas: the store_true flag defaults to
         * off (server_args.py ServerArgs.enable_dp_attention), where the knob's auto turns it on;
         * set before --dcp-size, which then divides the replicas' tp. */
        if (k == KNOB_DP && !st->pending[KNOB_DP_ATTENTION] && d->knobs.dp > 1 &&
            set_knob(d, KNOB_DP_ATTENTION, "off", ORIGIN_RELEASE, adj, err, errlen) != 0)
            return -1;
    }
    return 0;
}

/* The rules SGLang applies once every flag is parsed. */
static int read_line_finish(engine_deployment *d, engine_sglang_line *l, const read_state *st, engine_warnings *adj,
                            char *err, size_t errlen)
{
    char text[32];
    if (st->decode_server && !st->decode_radix) /* whatever else the line says of the radix cache */
        engine_plan_decode_server(d);
    /* With an algorithm but no draft tokens, SGLang picks them: topk 1 gives steps + 1
     * (speculative_hook._auto_choose_speculative_params: 3 steps for DeepSeek-like models). */
    if (l->speculative && !st->draft_tokens_given) {
        /* unsigned: strtol's LONG_MAX + 1 is a number the knob refuses, not an overflow */
        snprintf(text, sizeof text, "%llu", (unsigned long long)(st->steps > 0 ? st->steps : 3) + 1);
        if (set_knob(d, KNOB_MTP, text, ORIGIN_RELEASE, adj, err, errlen) != 0)
            return -1;
    }
    /* An explicit --cuda-graph-bs sets cuda_graph_max_bs to the list's largest size
     * (server_args.py ServerArgs._handle_gpu_memory_settings, v0.5.3rc2+: the else branch of
     * "if self.cuda_graph_bs is None"; SGLang does so even over a --cuda-graph-max-bs, which
     * cgplan keeps, as launch prints both). Set here as well as by the engine's rule. */
    if (l->buckets_given && !l->max_bs_given && !d->knobs.buckets_auto && d->knobs.n_buckets > 0) {
        uint32_t top = 0;
        for (uint32_t b = 0; b < d->knobs.n_buckets; b++)
            top = d->knobs.buckets[b] > top ? d->knobs.buckets[b] : top;
        snprintf(text, sizeof text, "%u", top);
        if (set_knob(d, KNOB_MAX_BS, text, ORIGIN_SET, adj, err, errlen) != 0)
            return -1;
    }
    /* An EAGLE-family algorithm with no --max-running-requests caps the requests (48 from PR
     * #4908; engine_release_spec_max_running_requests holds the window), and the capture list is
     * clamped to the request pool (cuda_graph_runner.py get_batch_sizes_to_capture: sizes above
     * req_to_token_pool.size dropped), so max_bs follows the pool: the engine's own capture list
     * at that pool says where. */
    uint32_t cap = engine_release_spec_max_running_requests(&d->knobs.sglang);
    if (l->speculative && !l->max_running_given && cap > 0 && d->knobs.mtp > 1) {
        snprintf(text, sizeof text, "%u", cap);
        if (set_knob(d, KNOB_MAX_RUNNING_REQUESTS, text, ORIGIN_RELEASE, adj, err, errlen) != 0)
            return -1;
        if (!l->max_bs_given && !l->buckets_given) {
            engine_deployment probe = *d;
            if (probe.knob_origin[KNOB_MAX_BS] != ORIGIN_SET) /* the tier SGLang would start from */
                probe.knobs.max_bs = engine_release_default_max_bs(&d->knobs.sglang, d->gpu.nvidia_smi_mib,
                                                                   d->knobs.world, true);
            uint32_t sizes[ENGINE_MAX_BUCKETS];
            size_t n = engine_buckets_resolve(&probe, sizes, ENGINE_MAX_BUCKETS, NULL);
            if (n > 0 && sizes[n - 1] < probe.knobs.max_bs) {
                snprintf(text, sizeof text, "%u", sizes[n - 1]);
                if (set_knob(d, KNOB_MAX_BS, text, ORIGIN_SET, adj, err, errlen) != 0)
                    return -1;
            }
        }
    }
    /* --chunked-prefill-size moves SGLang's default --mem-fraction-static (its reserve has
     * 1.5 x the chunk; budget.c takes the GPU's default chunk): without --mem-fraction-static
     * that is memory cgplan does not follow. */
    if (st->chunked_given && st->chunked_index >= 0 && engine_swa_cap_of(d).applies) {
        /* SWAChunkCapPoolConfigurator counts the chunks in flight in its sliding-window cap */
        engine_sglang_flag *f = &l->flags[st->chunked_index];
        f->status = f->read_status = SGLANG_FLAG_NOT_MODELLED;
        snprintf(f->note, sizeof f->note,
                 "the capped sliding-window pool counts 2 chunks in flight; cgplan counts the GPU's default chunk");
    } else if (st->chunked_given && !st->fraction_given && st->chunked_index >= 0) {
        engine_sglang_flag *f = &l->flags[st->chunked_index];
        f->status = f->read_status = SGLANG_FLAG_NOT_MODELLED;
        snprintf(f->note, sizeof f->note,
                 "no decode-graph term uses it, but without --mem-fraction-static it moves SGLang's default "
                 "fraction, which cgplan computes at the GPU's default chunk");
    }
    return 0;
}

static void count_statuses(engine_sglang_line *l)
{
    memset(l->n_status, 0, sizeof l->n_status);
    for (int i = 0; i < l->n_flags; i++)
        l->n_status[l->flags[i].status]++;
}

void engine_sglang_line_check_release(engine_sglang_line *l, const engine_release *r)
{
    char rel[ENGINE_RELEASE_TEXT_MAX];
    engine_release_text(r, rel, sizeof rel);
    for (int i = 0; i < l->n_flags; i++) {
        engine_sglang_flag *f = &l->flags[i];
        if (release_has(r, f->release_flag)) {
            if (f->status == SGLANG_FLAG_REJECTED) /* back to what it read as, its note too */
                memcpy(f->note, f->read_note, sizeof f->note);
            f->status = f->read_status;
            continue;
        }
        if (f->status != SGLANG_FLAG_REJECTED) {
            memcpy(f->read_note, f->note, sizeof f->read_note);
            char flag[sizeof f->flag];
            memcpy(flag, f->flag, sizeof flag);
            snprintf(f->note, sizeof f->note, "SGLang %s has no %s: it refuses the line", rel, flag);
        }
        f->status = SGLANG_FLAG_REJECTED;
    }
    count_statuses(l);
}

static int read_line(engine_deployment *d, const char *text, engine_sglang_line *l, engine_warnings *adj, char *err,
                     size_t errlen);

int engine_sglang_read_line(engine_deployment *d, const char *text, engine_sglang_line *l, engine_warnings *adj,
                            char *err, size_t errlen)
{
    if (read_line(d, text, l, adj, err, errlen) == 0)
        return 0;
    /* a quoted value may hold newlines, and the knob's message quotes it: one line, always */
    for (char *c = err; errlen && *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = ' ';
    return -1;
}

static int read_line(engine_deployment *d, const char *text, engine_sglang_line *l, engine_warnings *adj, char *err,
                     size_t errlen)
{
    memset(l, 0, sizeof *l);
    size_t len = strlen(text);
    if (len >= ENGINE_SGLANG_LINE_MAX)
        return engine_fail(err, errlen, "the launch line is %zu bytes, longer than %d: shorten it", len,
                           ENGINE_SGLANG_LINE_MAX - 1);
    word_list wl;
    if (split_words(text, &wl, err, errlen) != 0)
        return -1;
    read_state st = {.chunked_index = -1};

    /* The words before the first flag: assignments, `export`, the interpreter and the module. */
    int i = 0;
    bool python = false;
    for (; i < wl.n && !is_flag(wl.words[i]); i++) {
        const char *w = wl.words[i];
        const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
        if (is_assignment(w) && !l->program && !python) {
            char name[ENGINE_NAME_MAX];
            const char *eq = strchr(w, '=');
            snprintf(name, sizeof name, "%.*s", (int)(eq - w), w);
            const engine_knob_info *k = knob_of_env(name);
            if (k) { /* SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 */
                int row = note_flag(l, name, eq + 1, SGLANG_FLAG_MODELLED, "knob %s", k->name);
                if (hold(&st, l, k->id, name, eq + 1, strlen(eq + 1), row, err, errlen) != 0)
                    return -1;
                continue;
            }
            size_t e = 0, n_env = sizeof known_env / sizeof known_env[0];
            for (; e < n_env; e++) {
                size_t pl = strlen(known_env[e].prefix);
                if (known_env[e].prefix[pl - 1] == '_' ? strncmp(name, known_env[e].prefix, pl) == 0
                                                        : strcmp(name, known_env[e].prefix) == 0)
                    break;
            }
            if (e < n_env)
                note_flag(l, name, eq + 1, known_env[e].status, "%s", known_env[e].note);
            else
                note_flag(l, name, eq + 1, SGLANG_FLAG_NO_EFFECT, "an environment variable SGLang does not read");
            continue;
        }
        if (!strcmp(w, "export") || !strcmp(w, "env") || !strcmp(w, "nohup") || !strcmp(w, "exec"))
            continue;
        if (!strncmp(base, "python", 6)) {
            python = true;
            continue;
        }
        if (python && w[0] == '-' && !l->program) /* python3 -u -m ... */
            continue;
        if (!strcmp(w, "sglang.launch_server") || (!strcmp(base, "sglang") && i + 1 < wl.n &&
                                                   !strcmp(wl.words[i + 1], "serve"))) {
            l->program = true;
            i += strcmp(w, "sglang.launch_server") != 0;
            continue;
        }
        if (!l->program) { /* another program ("ls -la"): not a launch line, nothing read */
            l->other_program = true;
            count_statuses(l);
            return 0;
        }
        note_flag(l, w, "", SGLANG_FLAG_UNKNOWN, "a word before the flags: SGLang takes no positional argument");
    }
    for (; i < wl.n; i++) {
        const char *w = wl.words[i];
        if (is_flag(w)) {
            if (read_flag(d, &wl, &i, l, &st, err, errlen) != 0)
                return -1;
            continue;
        }
        const char *eq = strchr(w, '=');
        char name[ENGINE_NAME_MAX] = "";
        if (eq && is_assignment(w))
            snprintf(name, sizeof name, "%.*s", (int)(eq - w), w);
        const engine_knob_info *k = name[0] ? knob_of_env(name) : NULL;
        if (k) { /* an environment assignment among the flags, as --sglang-args has long taken */
            int row = note_flag(l, name, eq + 1, SGLANG_FLAG_MODELLED, "knob %s", k->name);
            if (hold(&st, l, k->id, name, eq + 1, strlen(eq + 1), row, err, errlen) != 0)
                return -1;
            continue;
        }
        note_flag(l, w, "", SGLANG_FLAG_UNKNOWN, "a word that is no flag's value: SGLang refuses it");
    }
    if (apply_pending(d, &st, adj, err, errlen) != 0 || read_line_finish(d, l, &st, adj, err, errlen) != 0)
        return -1;
    engine_sglang_line_check_release(l, &d->knobs.sglang);
    return 0;
}

int engine_apply_sglang_args(engine_deployment *d, const char *args, char *model_path, size_t model_len,
                             int *skipped, engine_warnings *adj, char *err, size_t errlen)
{
    engine_sglang_line line;
    if (engine_sglang_read_line(d, args, &line, adj, err, errlen) != 0)
        return -1;
    if (model_path && model_len)
        snprintf(model_path, model_len, "%s", line.model_path);
    if (skipped) /* what moves no knob */
        *skipped = line.n_flags - line.n_status[SGLANG_FLAG_MODELLED] + line.n_dropped;
    return 0;
}
