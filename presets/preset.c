/* preset.c — the schemas of the three kinds (which keys each takes and how they fill the engine
 * structs) and the catalog of built-in and user presets. The libyaml reading is preset_yaml.c.
 *
 * A deployment's knob keys are the engine's knob table (engine_knobs) and go through its own
 * parser (engine_knob_set_text), so YAML and --set share one parser and one set of range
 * rules. */
#include "preset_internal.h"
#include "preset_yaml.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#define MODEL_KV_BYTES_DEFAULT 2  /* BF16 KV */
#define MODEL_KV_BYTES_MAX 8      /* the widest element (FP64); more is a typo */
#define MODEL_DRAFT_LAYERS_MAX 64 /* an MTP draft has a layer or a few (K3: 1); more is a typo */
#define KNOB_ITEM_MAX 64 /* one list item as "[N]" for the engine: a batch size has a few digits, more is refused */
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *const preset_kind_names[PRESET_DEPLOYMENT + 1] = {
    [PRESET_MODEL] = "model", [PRESET_GPU] = "gpu", [PRESET_DEPLOYMENT] = "deployment"};
static const char *const a2a_names[] = {"deepep", "none"};   /* indexed by engine_a2a */
static const char *const attn_kind_names[] = {"mla", "gqa"}; /* indexed by engine_attn_kind */
_Static_assert(COUNT_OF(a2a_names) == A2A_NONE + 1, "a2a_names is indexed by engine_a2a");
_Static_assert(COUNT_OF(attn_kind_names) == ATTN_GQA + 1, "attn_kind_names is indexed by engine_attn_kind");

/* `coefficients:` (models and deployments): any of engine_coef_names, each a size. */
static int parse_coefficients(preset_yaml_doc *p, yaml_node_t *map, bool set[COEF_COUNT], uint64_t coef[COEF_COUNT])
{
    yaml_node_t *v[COEF_COUNT];
    if (!map)
        return 0;
    if (preset_yaml_collect(p, map, "coefficients", engine_coef_names, COEF_COUNT, v))
        return -1;
    for (int i = 0; i < COEF_COUNT; i++)
        if (v[i]) {
            if (preset_yaml_get_size(p, v[i], engine_coef_names[i], &coef[i]))
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

static int parse_hf_names(preset_yaml_doc *p, yaml_node_t *n, engine_model *m)
{
    char expected[PRESET_PHRASE_MAX];
    snprintf(expected, sizeof expected, "a list of at most %d Hugging Face names like [org/Model]",
             ENGINE_MAX_HF_NAMES);
    if (!n)
        return 0;
    if (n->type == YAML_SCALAR_NODE) { /* one name without brackets */
        if (preset_yaml_get_text(p, n, "hf_names", m->hf_names[0], sizeof m->hf_names[0]))
            return -1;
        m->n_hf_names = 1;
        return 0;
    }
    if (n->type != YAML_SEQUENCE_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, n->start_mark, "hf_names: got %s; expected %s",
                                 preset_yaml_describe(n, buf, sizeof buf), expected);
    }
    m->n_hf_names = 0;
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = preset_yaml_node(p, *it);
        if (m->n_hf_names == ENGINE_MAX_HF_NAMES)
            return preset_yaml_error(p, item->start_mark, "hf_names: more than %d names; expected %s",
                                     ENGINE_MAX_HF_NAMES, expected);
        if (preset_yaml_get_text(p, item, "hf_names", m->hf_names[m->n_hf_names], sizeof m->hf_names[0]))
            return -1;
        if (!m->hf_names[m->n_hf_names][0])
            return preset_yaml_error(p, item->start_mark, "hf_names: an empty name; expected %s", expected);
        m->n_hf_names++;
    }
    return 0;
}

static int parse_attention(preset_yaml_doc *p, yaml_node_t *map, engine_model *m)
{
    if (map->type != YAML_MAPPING_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, map->start_mark, "attention: got %s; expected a mapping with kind: mla or gqa",
                                 preset_yaml_describe(map, buf, sizeof buf));
    }
    yaml_node_t *kind_node = preset_yaml_peek(p, map, "kind");
    int kind = ATTN_MLA;
    if (preset_yaml_need(p, map, "attention", "kind", kind_node, "mla or gqa"))
        return -1;
    if (preset_yaml_get_choice(p, kind_node, "attention kind", attn_kind_names, COUNT_OF(attn_kind_names), &kind))
        return -1;
    yaml_node_t *got[ATTN_KIND_KEYS], *v[A_COUNT] = {0};
    bool mla = kind == ATTN_MLA;
    const char *what = mla ? "attention (kind: mla)" : "attention (kind: gqa)";
    if (preset_yaml_collect(p, map, what, mla ? mla_keys : gqa_keys, ATTN_KIND_KEYS, got))
        return -1;
    for (int i = 0; i < ATTN_SHARED_KEYS; i++)
        v[i] = got[i];
    v[mla ? A_KV_LORA_RANK : A_KV_HEADS] = got[ATTN_SHARED_KEYS];
    v[mla ? A_QK_ROPE_DIM : A_HEAD_DIM] = got[ATTN_SHARED_KEYS + 1];
    if (preset_yaml_need(p, map, what, "heads", v[A_HEADS], "the query heads (num_attention_heads)"))
        return -1;
    if (mla &&
        (preset_yaml_need(p, map, what, "kv_lora_rank", v[A_KV_LORA_RANK], "an integer (config kv_lora_rank)") ||
         preset_yaml_need(p, map, what, "qk_rope_dim", v[A_QK_ROPE_DIM], "an integer (config qk_rope_head_dim)")))
        return -1;
    if (!mla && (preset_yaml_need(p, map, what, "kv_heads", v[A_KV_HEADS], "an integer (num_key_value_heads)") ||
                 preset_yaml_need(p, map, what, "head_dim", v[A_HEAD_DIM], "an integer (head_dim)")))
        return -1;
    m->attn_kind = (engine_attn_kind)kind;
    m->kv_bytes = MODEL_KV_BYTES_DEFAULT;
    m->full_attn_layers = m->layers; /* every layer holds KV unless said otherwise */
    if (preset_yaml_get_u32(p, v[A_HEADS], "heads", 1, UINT32_MAX, &m->heads) ||
        preset_yaml_get_u32(p, v[A_KV_BYTES], "kv_bytes", 1, MODEL_KV_BYTES_MAX, &m->kv_bytes) ||
        preset_yaml_get_u32(p, v[A_FULL_ATTN_LAYERS], "full_attn_layers", 0, m->layers, &m->full_attn_layers) ||
        preset_yaml_get_u32(p, v[A_KV_LORA_RANK], "kv_lora_rank", 1, UINT32_MAX, &m->kv_lora_rank) ||
        preset_yaml_get_u32(p, v[A_QK_ROPE_DIM], "qk_rope_dim", 0, UINT32_MAX, &m->qk_rope_dim) ||
        preset_yaml_get_u32(p, v[A_KV_HEADS], "kv_heads", 1, m->heads, &m->kv_heads) ||
        preset_yaml_get_u32(p, v[A_HEAD_DIM], "head_dim", 1, UINT32_MAX, &m->head_dim))
        return -1;
    return 0;
}

static int parse_moe(preset_yaml_doc *p, yaml_node_t *map, engine_model *m)
{
    yaml_node_t *v[E_COUNT];
    if (preset_yaml_collect(p, map, "moe", moe_keys, E_COUNT, v) ||
        preset_yaml_need(p, map, "moe", "num_experts", v[E_NUM_EXPERTS],
                         "the routed experts, redundant ones included") ||
        preset_yaml_need(p, map, "moe", "moe_intermediate", v[E_MOE_INTERMEDIATE],
                         "an integer (moe_intermediate_size)") ||
        preset_yaml_need(p, map, "moe", "top_k", v[E_TOP_K], "an integer (num_experts_per_tok)"))
        return -1;
    m->dispatch_hidden = m->hidden; /* a latent MoE dispatches at routed_expert_hidden_size */
    if (preset_yaml_get_u32(p, v[E_NUM_EXPERTS], "num_experts", 1, UINT32_MAX, &m->num_experts) ||
        preset_yaml_get_u32(p, v[E_DISPATCH_HIDDEN], "dispatch_hidden", 1, UINT32_MAX, &m->dispatch_hidden) ||
        preset_yaml_get_u32(p, v[E_MOE_INTERMEDIATE], "moe_intermediate", 1, UINT32_MAX, &m->moe_intermediate) ||
        preset_yaml_get_u32(p, v[E_TOP_K], "top_k", 1, m->num_experts, &m->top_k))
        return -1;
    return 0;
}

static int parse_model(preset_yaml_doc *p, yaml_node_t *root, preset_item *it)
{
    yaml_node_t *v[M_COUNT];
    engine_model *m = &it->u.model;
    const char *what = "the model preset";
    if (preset_yaml_collect(p, root, what, model_keys, M_COUNT, v) ||
        preset_yaml_need(p, root, what, "vocab", v[M_VOCAB], "an integer (config vocab_size)") ||
        preset_yaml_need(p, root, what, "hidden", v[M_HIDDEN], "an integer (config hidden_size)") ||
        preset_yaml_need(p, root, what, "layers", v[M_LAYERS], "an integer (config num_hidden_layers)") ||
        preset_yaml_need(p, root, what, "context_len", v[M_CONTEXT_LEN], "an integer (max_position_embeddings)") ||
        preset_yaml_need(p, root, what, "attention", v[M_ATTENTION], "a mapping with kind: mla or gqa") ||
        preset_yaml_need(p, root, what, "moe", v[M_MOE], "a mapping with num_experts, moe_intermediate, top_k"))
        return -1;
    const engine_knob_info *ctx_knob = &engine_knobs[KNOB_CONTEXT_LEN];
    if (preset_yaml_get_text(p, v[M_DESCRIPTION], "description", m->description, sizeof m->description) ||
        parse_hf_names(p, v[M_HF_NAMES], m) || preset_yaml_get_u32(p, v[M_VOCAB], "vocab", 1, UINT32_MAX, &m->vocab) ||
        preset_yaml_get_u32(p, v[M_HIDDEN], "hidden", 1, UINT32_MAX, &m->hidden) ||
        preset_yaml_get_u32(p, v[M_LAYERS], "layers", 1, UINT32_MAX, &m->layers) ||
        preset_yaml_get_u64(p, v[M_CONTEXT_LEN], "context_len", (uint64_t)ctx_knob->min, (uint64_t)ctx_knob->max,
                            &m->context_len) ||
        parse_attention(p, v[M_ATTENTION], m) || parse_moe(p, v[M_MOE], m) ||
        preset_yaml_get_size(p, v[M_LINEAR_STATE], "linear_state_bytes_per_request",
                             &m->linear_state_bytes_per_request) ||
        preset_yaml_get_u32(p, v[M_DRAFT_LAYERS], "draft_layers", 0, MODEL_DRAFT_LAYERS_MAX, &m->draft_layers))
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

static int parse_gpu(preset_yaml_doc *p, yaml_node_t *root, preset_item *it)
{
    yaml_node_t *v[G_COUNT];
    engine_gpu *g = &it->u.gpu;
    const char *what = "the gpu preset";
    if (preset_yaml_collect(p, root, what, gpu_keys, G_COUNT, v) ||
        preset_yaml_need(p, root, what, "cuda_total_bytes", v[G_CUDA_TOTAL],
                         "what torch.cuda.mem_get_info() reports as total, like 178.35 GiB") ||
        preset_yaml_need(p, root, what, "ue8m0_scales", v[G_UE8M0],
                         "true on Blackwell (packed UE8M0 scales), else false"))
        return -1;
    if (preset_yaml_get_text(p, v[G_DESCRIPTION], "description", g->description, sizeof g->description) ||
        preset_yaml_get_size(p, v[G_CUDA_TOTAL], "cuda_total_bytes", &g->cuda_total_bytes) ||
        preset_yaml_get_u32(p, v[G_SMI_MIB], "nvidia_smi_mib", 0, UINT32_MAX, &g->nvidia_smi_mib) ||
        preset_yaml_get_bool(p, v[G_UE8M0], "ue8m0_scales", &g->ue8m0_scales))
        return -1;
    if (g->cuda_total_bytes == 0)
        return preset_yaml_error(p, v[G_CUDA_TOTAL]->start_mark,
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
static char *knob_text(preset_yaml_doc *p, const yaml_node_t *n, const engine_knob_info *info,
                       const engine_deployment *d)
{
    char why[ENGINE_TEXT_MAX];
    if (n->type == YAML_SEQUENCE_NODE && info->type == KNOB_TYPE_LIST_OR_AUTO) {
        size_t count = (size_t)(n->data.sequence.items.top - n->data.sequence.items.start);
        if (count == 0) {
            preset_yaml_error(p, n->start_mark, "%s: the list is empty; expected 'auto' or a list like [1, 2, 4]",
                              info->name);
            return NULL;
        }
        engine_deployment *scratch = malloc(sizeof *scratch);
        if (!scratch) {
            preset_yaml_error(p, n->start_mark, "%s: out of memory", info->name);
            return NULL;
        }
        size_t i = 0;
        for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++, i++) {
            yaml_node_t *item = preset_yaml_node(p, *it);
            char buf[PRESET_QUOTED_MAX], one[KNOB_ITEM_MAX];
            if (i == ENGINE_MAX_BUCKETS) {
                preset_yaml_error(p, item->start_mark, "%s: more than %d sizes; expected at most %d", info->name,
                                  ENGINE_MAX_BUCKETS, ENGINE_MAX_BUCKETS);
                break;
            }
            if (preset_yaml_expect_scalar(p, item, info->name, "an integer batch size"))
                break;
            const char *s = preset_yaml_text(item);
            bool digits = *s != '\0' && strlen(s) < sizeof one - 2;
            for (const char *q = s; digits && *q; q++)
                digits = isdigit((unsigned char)*q);
            if (!digits) {
                preset_yaml_error(p, item->start_mark, "%s: got %s; expected an integer batch size in %s", info->name,
                                  preset_yaml_describe(item, buf, sizeof buf), info->range);
                break;
            }
            /* One item at a time through the engine's own rule, so the error stands at the item. */
            *scratch = *d;
            snprintf(one, sizeof one, "[%s]", s);
            if (engine_knob_set_text(scratch, info->id, one, NULL, why, sizeof why) != 0) {
                preset_yaml_error(p, item->start_mark, "%s", why);
                break;
            }
        }
        free(scratch);
        return i < count ? NULL : preset_yaml_join_list(p, n, info->name);
    }
    char expected[PRESET_PHRASE_MAX];
    snprintf(expected, sizeof expected, "%s%s", info->type == KNOB_TYPE_LIST_OR_AUTO ? "'auto' or a list: " : "",
             info->range);
    if (preset_yaml_expect_scalar(p, n, info->name, expected))
        return NULL;
    char *text = strdup(preset_yaml_text(n));
    if (!text)
        preset_yaml_error(p, n->start_mark, "%s: out of memory", info->name);
    return text;
}

_Static_assert(D_FIXED + KNOB_COUNT <= PRESET_MAX_KEYS, "raise PRESET_MAX_KEYS for the deployment keys");

static int parse_deployment(preset_yaml_doc *p, yaml_node_t *root, preset_item *it)
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
    if (preset_yaml_collect(p, root, what, keys, nkeys, got))
        return -1;
    for (size_t i = 0; i < nkeys; i++) {
        if (knob_of[i] >= 0)
            knob_node[knob_of[i]] = got[i];
        else
            v[fixed_of[i]] = got[i];
    }
    if (preset_yaml_need(p, root, what, "model", v[D_MODEL], "the name of a model preset") ||
        preset_yaml_need(p, root, what, "gpu", v[D_GPU], "the name of a GPU preset") ||
        preset_yaml_need(p, root, what, "weights_bytes", v[D_WEIGHTS],
                         "the per-GPU weights after load (the log's \"Load weight end ... mem usage\"), like 150 GiB"))
        return -1;

    parsed_deployment *dep = &it->u.dep;
    engine_deployment *d = &dep->d;
    engine_deployment_defaults(d);
    int backend = d->backend, a2a = d->a2a;
    if (preset_yaml_get_text(p, v[D_DESCRIPTION], "description", d->description, sizeof d->description) ||
        preset_yaml_get_text(p, v[D_MODEL], "model", dep->model, sizeof dep->model) ||
        preset_yaml_get_text(p, v[D_GPU], "gpu", dep->gpu, sizeof dep->gpu) ||
        preset_yaml_get_choice(p, v[D_BACKEND], "attention_backend", engine_backend_names, BACKEND_COUNT, &backend) ||
        preset_yaml_get_choice(p, v[D_A2A], "a2a", a2a_names, COUNT_OF(a2a_names), &a2a) ||
        preset_yaml_get_size(p, v[D_WEIGHTS], "weights_bytes", &d->weights_bytes) ||
        preset_yaml_get_size(p, v[D_STATE], "state_pool_bytes", &d->state_pool_bytes) ||
        preset_yaml_get_size(p, v[D_OTHER], "other_runtime_bytes", &d->other_runtime_bytes) ||
        preset_yaml_get_size(p, v[D_PRE_LOAD], "pre_load_free_bytes", &d->pre_load_free_bytes) ||
        preset_yaml_get_size(p, v[D_MARGIN], "margin_bytes", &d->margin_bytes) ||
        parse_coefficients(p, v[D_COEFFICIENTS], dep->coef_set, dep->coef))
        return -1;
    d->backend = (engine_backend)backend;
    d->a2a = (engine_a2a)a2a;
    dep->model_mark = preset_yaml_mark(v[D_MODEL]->start_mark);
    dep->gpu_mark = preset_yaml_mark(v[D_GPU]->start_mark);

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
            return preset_yaml_error(p, n->start_mark, "%s", why);
    }
    dep->has_context_len = knob_node[KNOB_CONTEXT_LEN] != NULL;
    it->entry.world = d->knobs.world;
    it->entry.dp = d->knobs.dp;
    it->entry.dcp = d->knobs.dcp;
    it->entry.mtp = d->knobs.mtp;
    it->entry.max_bs = d->knobs.max_bs;
    preset_copy_text(it->entry.model, sizeof it->entry.model, dep->model);
    preset_copy_text(it->entry.gpu, sizeof it->entry.gpu, dep->gpu);
    return 0;
}

/* ---- One file. ---- */

/* The root mapping ROOT: its kind, its name (the file's stem STEM), then the keys of that kind. */
static int parse_root(preset_yaml_doc *p, const char *stem, yaml_node_t *root, preset_item *it)
{
    yaml_node_t *kind_node = preset_yaml_peek(p, root, "kind");
    int kind = 0;
    if (preset_yaml_need(p, root, "the preset", "kind", kind_node, "model, gpu or deployment") ||
        preset_yaml_get_choice(p, kind_node, "kind", preset_kind_names, COUNT_OF(preset_kind_names), &kind))
        return -1;
    it->entry.kind = (preset_kind)kind;
    it->kind_mark = preset_yaml_mark(kind_node->start_mark);
    yaml_node_t *name_node = preset_yaml_peek(p, root, "name");
    if (!name_node)
        return preset_yaml_error(p, root->start_mark,
                                 "the preset has no 'name' key; expected name: %s (the file's stem)", stem);
    if (preset_yaml_expect_scalar(p, name_node, "name", "the file's stem"))
        return -1;
    if (strcmp(preset_yaml_text(name_node), stem) != 0) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, name_node->start_mark,
                                 "name: got %s; expected name: %s (a preset's name is its file's stem)",
                                 preset_yaml_describe(name_node, buf, sizeof buf), stem);
    }
    if (strlen(stem) >= ENGINE_NAME_MAX)
        return preset_yaml_error(p, name_node->start_mark,
                                 "name: '%.*s...' is too long; expected at most %d characters", PRESET_PREVIEW, stem,
                                 ENGINE_NAME_MAX - 1);
    int rc = -1;
    switch (it->entry.kind) {
    case PRESET_MODEL:
        rc = parse_model(p, root, it);
        break;
    case PRESET_GPU:
        rc = parse_gpu(p, root, it);
        break;
    case PRESET_DEPLOYMENT:
        rc = parse_deployment(p, root, it);
        break;
    }
    if (rc != 0)
        return rc;
    preset_copy_text(it->entry.name, sizeof it->entry.name, stem);
    preset_copy_text(it->entry.origin, sizeof it->entry.origin, p->origin);
    const char *description = it->entry.kind == PRESET_MODEL ? it->u.model.description
                              : it->entry.kind == PRESET_GPU ? it->u.gpu.description
                                                             : it->u.dep.d.description;
    preset_copy_text(it->entry.description, sizeof it->entry.description, description);
    char *name = it->entry.kind == PRESET_MODEL ? it->u.model.name
                 : it->entry.kind == PRESET_GPU ? it->u.gpu.name
                                                : it->u.dep.d.name;
    preset_copy_text(name, ENGINE_NAME_MAX, stem);
    return 0;
}

int preset_parse_text(const char *origin, const char *stem, const char *text, size_t len, preset_item *it, char *msg,
                      size_t msglen)
{
    preset_yaml_doc p;
    memset(it, 0, sizeof *it);
    yaml_node_t *root =
        preset_yaml_open(&p, origin, text, len, msg, msglen, "a mapping with kind: model, gpu or deployment");
    int rc = root ? parse_root(&p, stem, root, it) : -1;
    preset_yaml_close(&p);
    return rc;
}

/* ---- A deployment with its model and GPU. ---- */

void preset_assemble_deployment(const preset_item *dep_item, const preset_item *model, const preset_item *gpu,
                                engine_deployment *out)
{
    const parsed_deployment *dep = &dep_item->u.dep;
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
}

/* ---- The catalog. ---- */

#define PRESET_FILE_MAX ((size_t)1 << 20) /* a preset is a few hundred bytes; refuse junk */
#define PRESET_SUFFIX ".yaml"
#define PRESET_SUFFIX_LEN (sizeof PRESET_SUFFIX - 1)
#define CATALOG_INITIAL_ITEMS 16   /* room for the built-in presets before the first realloc */
#define CATALOG_INITIAL_PROBLEMS 4 /* a broken file is rare */

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

/* ---- One file. ---- */

/* Reads a whole file. Returns a malloc'd NUL-terminated buffer or NULL with the reason in MSG. */
static char *read_file(const char *path, size_t *len, char *msg, size_t msglen)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        preset_set_err(msg, msglen, "%s:1:1: cannot open: %s; expected a readable preset file", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        preset_set_err(msg, msglen, "%s:1:1: not a regular file; expected a preset file", path);
        fclose(f);
        return NULL;
    }
    char *buf = malloc(PRESET_FILE_MAX + 1);
    if (!buf) {
        preset_set_err(msg, msglen, "%s: out of memory", path);
        fclose(f);
        return NULL;
    }
    size_t n = fread(buf, 1, PRESET_FILE_MAX + 1, f);
    bool failed = ferror(f);
    fclose(f);
    if (failed) {
        preset_set_err(msg, msglen, "%s:1:1: cannot read; expected a readable preset file", path);
        free(buf);
        return NULL;
    }
    if (n > PRESET_FILE_MAX) {
        preset_set_err(msg, msglen, "%s:1:1: the file is larger than %zu bytes; expected a preset of a few lines", path,
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
    if (!it || !origin || preset_parse_text(path, stem, text, len, it, msg, msglen) != 0) {
        if (!it || !origin)
            preset_set_err(msg, msglen, "%s: out of memory", path);
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
    if (preset_parse_text(origin, stem, file->text, strlen(file->text), it, msg, sizeof msg) != 0) {
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
        preset_set_err(msg, sizeof msg, "%s: cannot read the preset directory: %s; expected a readable directory", dir,
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
        preset_copy_text(err, errlen, problem->message);
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
        snprintf(other, sizeof other, " ('%s' is a %s preset)", name, preset_kind_names[it->entry.kind]);
    preset_set_err(err, errlen, "no %s preset named '%s'%s; expected one of: %s", preset_kind_names[kind], name, other,
                   list);
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
        preset_set_err(err, errlen, "no %s preset given; expected one of: %s", preset_kind_names[kind], list);
        return 2;
    }
    if (!looks_like_path(name_or_path))
        return lookup(c, name_or_path, kind, out, err, errlen);
    char msg[PRESET_MSG_MAX];
    preset_item *it = load_file(name_or_path, msg, sizeof msg);
    if (!it) {
        preset_copy_text(err, errlen, msg);
        return 1;
    }
    if (it->entry.kind != kind) {
        preset_set_err(err, errlen, "%s:%zu:%zu: kind: %s; expected a %s preset here", it->origin, it->kind_mark.line,
                       it->kind_mark.col, preset_kind_names[it->entry.kind], preset_kind_names[kind]);
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
        preset_set_err(err, errlen, "%s:%zu:%zu: %s '%s' does not load: %s", dep->origin, at.line, at.col,
                       preset_kind_names[kind], name, why);
    else
        preset_set_err(err, errlen, "%s:%zu:%zu: %s", dep->origin, at.line, at.col, why);
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
    preset_assemble_deployment(it, model, gpu, out);
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
