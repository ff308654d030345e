/* preset_schema.c — the three kinds of preset (model, gpu, deployment): the keys each takes,
 * which are required, their ranges, and how they fill the engine structs.
 *
 * A deployment's knob keys are the engine's knob table (engine_knobs) and go through its own
 * parser (engine_knob_set_text), so YAML and --set share one parser and one set of range
 * rules. */
#include "preset_internal.h"
#include "preset_yaml.h"
#include "weights.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODEL_KV_BYTES_DEFAULT 2  /* BF16 KV */
#define MODEL_KV_BYTES_MAX 8      /* the widest element (FP64); more is a typo */
#define MODEL_DRAFT_LAYERS_MAX 64 /* an MTP draft has a layer or a few (K3: 1); more is a typo */
#define KNOB_ITEM_MAX 64 /* one list item as "[N]" for the engine: a batch size has a few digits, more is refused */
#define COUNT_OF(a) (sizeof(a) / sizeof((a)[0]))

const char *const preset_kind_names[PRESET_DEPLOYMENT + 1] = {
    [PRESET_MODEL] = "model", [PRESET_GPU] = "gpu", [PRESET_DEPLOYMENT] = "deployment"};
static const char *const attn_kind_names[] = {"mla", "gqa", "dsv4"}; /* indexed by engine_attn_kind */
_Static_assert(COUNT_OF(attn_kind_names) == ATTN_DSV4 + 1, "attn_kind_names is indexed by engine_attn_kind");

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
    M_ARCHITECTURE,
    M_TRUST_REMOTE_CODE,
    M_VOCAB,
    M_HIDDEN,
    M_LAYERS,
    M_CONTEXT_LEN,
    M_TIE_EMBEDDINGS,
    M_ATTENTION,
    M_INTERMEDIATE,
    M_DENSE_LAYERS,
    M_MOE,
    M_DTYPE,
    M_DENSE_DTYPE,
    M_EXPERT_DTYPE,
    M_ATTENTION_DTYPE,
    M_PARAM_COUNT,
    M_LINEAR_STATE,
    M_VISION,
    M_DRAFT_LAYERS,
    M_DRAFT_SEPARATE,
    M_DRAFT_MODEL_PATH,
    M_COEFFICIENTS,
    M_COUNT
};
static const char *const model_keys[M_COUNT] = {
    "kind",
    "name",
    "description",
    "hf_names",
    "architecture",
    "trust_remote_code",
    "vocab",
    "hidden",
    "layers",
    "context_len",
    "tie_embeddings",
    "attention",
    "intermediate",
    "dense_layers",
    "moe",
    "dtype",
    "dense_dtype",
    "expert_dtype",
    "attention_dtype",
    "param_count",
    "linear_state_bytes_per_request",
    "vision",
    "draft_layers",
    "draft_separate",
    "draft_model_path",
    "coefficients",
};

/* attention: the keys every kind takes, then each kind's own (one table of names, indexed by A_*). */
enum {
    A_KIND,
    A_HEADS,
    A_KV_BYTES,
    A_FULL_ATTN_LAYERS,
    A_LINEAR_ATTN_LAYERS,
    A_LINEAR_ATTN_LAYER_PARAMS,
    A_SHARED, /* the first kind-specific key */
    A_KV_LORA_RANK = A_SHARED,
    A_QK_ROPE_DIM,
    A_Q_LORA_RANK,
    A_QK_NOPE_DIM,
    A_V_HEAD_DIM,
    A_KV_HEADS,
    A_HEAD_DIM,
    A_SLIDING_WINDOW,
    A_SWA_LAYERS,
    A_ATTENTION_CHUNK,
    A_COMPRESS_RATIOS,
    A_O_LORA_RANK,
    A_O_GROUPS,
    A_INDEX_HEADS,
    A_INDEX_HEAD_DIM,
    A_INDEX_TOPK,
    A_HC_MULT,
    A_FULL_KV_HEADS,
    A_FULL_HEAD_DIM,
    A_OUTPUT_GATE,
    A_COUNT
};
static const char *const attention_key_names[A_COUNT] = {
    "kind",           "heads",           "kv_bytes",    "full_attn_layers", "linear_attn_layers",
    "linear_attn_layer_params",          "kv_lora_rank", "qk_rope_dim",     "q_lora_rank",
    "qk_nope_dim",    "v_head_dim",      "kv_heads",    "head_dim",         "sliding_window",
    "swa_layers",     "attention_chunk_size", "compress_ratios", "o_lora_rank", "o_groups",
    "index_heads",    "index_head_dim",  "index_topk",  "hc_mult",          "full_kv_heads",
    "full_head_dim",  "output_gate"};
/* Each kind's own keys, after the shared ones (indexed by engine_attn_kind). */
static const struct {
    unsigned char keys[A_COUNT - A_SHARED];
    size_t n;
} attention_kind_keys[] = {
    [ATTN_MLA] = {{A_KV_LORA_RANK, A_QK_ROPE_DIM, A_Q_LORA_RANK, A_QK_NOPE_DIM, A_V_HEAD_DIM}, 5},
    [ATTN_GQA] = {{A_KV_HEADS, A_HEAD_DIM, A_SLIDING_WINDOW, A_SWA_LAYERS, A_ATTENTION_CHUNK, A_FULL_KV_HEADS,
                   A_FULL_HEAD_DIM, A_OUTPUT_GATE},
                  8},
    [ATTN_DSV4] = {{A_HEAD_DIM, A_QK_ROPE_DIM, A_Q_LORA_RANK, A_SLIDING_WINDOW, A_COMPRESS_RATIOS, A_O_LORA_RANK,
                    A_O_GROUPS, A_INDEX_HEADS, A_INDEX_HEAD_DIM, A_INDEX_TOPK, A_HC_MULT},
                   11},
};
_Static_assert(COUNT_OF(attention_kind_keys) == ATTN_DSV4 + 1, "attention_kind_keys is indexed by engine_attn_kind");

enum {
    E_NUM_EXPERTS,
    E_DISPATCH_HIDDEN,
    E_MOE_INTERMEDIATE,
    E_TOP_K,
    E_SHARED_EXPERTS,
    E_SHARED_INTERMEDIATE,
    E_COUNT
};
static const char *const moe_keys[E_COUNT] = {"num_experts", "dispatch_hidden",  "moe_intermediate",
                                              "top_k",       "shared_experts",   "shared_intermediate"};

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

/* compress_ratios: config.json's list, one entry per layer (MTP layers included), each 0 (sliding
 * window only), 4 or 128; kept as the count of each. */
static int parse_compress_ratios(preset_yaml_doc *p, yaml_node_t *n, engine_model *m)
{
    const char *expected = "a list of 0, 4 or 128, one per layer (config compress_ratios)";
    if (n->type != YAML_SEQUENCE_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, n->start_mark, "compress_ratios: got %s; expected %s",
                                 preset_yaml_describe(n, buf, sizeof buf), expected);
    }
    uint32_t *count_of[] = {&m->dsv4_swa_only_layers, &m->dsv4_c4_layers, &m->dsv4_c128_layers};
    for (yaml_node_item_t *it = n->data.sequence.items.start; it < n->data.sequence.items.top; it++) {
        yaml_node_t *item = preset_yaml_node(p, *it);
        uint32_t ratio;
        if (preset_yaml_get_u32(p, item, "compress_ratios", 0, 128, &ratio))
            return -1;
        if (ratio != 0 && ratio != 4 && ratio != 128)
            return preset_yaml_error(p, item->start_mark, "compress_ratios: got %u; expected %s", ratio, expected);
        (*count_of[ratio == 0 ? 0 : ratio == 4 ? 1 : 2])++;
    }
    if (m->dsv4_swa_only_layers + m->dsv4_c4_layers + m->dsv4_c128_layers < m->layers)
        return preset_yaml_error(p, n->start_mark, "compress_ratios: %u entries for %u layers; expected %s",
                                 m->dsv4_swa_only_layers + m->dsv4_c4_layers + m->dsv4_c128_layers, m->layers,
                                 expected);
    return 0;
}

static int parse_attention(preset_yaml_doc *p, yaml_node_t *map, engine_model *m)
{
    if (map->type != YAML_MAPPING_NODE) {
        char buf[PRESET_QUOTED_MAX];
        return preset_yaml_error(p, map->start_mark,
                                 "attention: got %s; expected a mapping with kind: mla, gqa or dsv4",
                                 preset_yaml_describe(map, buf, sizeof buf));
    }
    yaml_node_t *kind_node = preset_yaml_peek(p, map, "kind");
    int kind = ATTN_MLA;
    if (preset_yaml_need(p, map, "attention", "kind", kind_node, "mla, gqa or dsv4"))
        return -1;
    if (preset_yaml_get_choice(p, kind_node, "attention kind", attn_kind_names, COUNT_OF(attn_kind_names), &kind))
        return -1;
    const char *names[A_COUNT];
    yaml_node_t *got[A_COUNT], *v[A_COUNT] = {0};
    size_t nkeys = A_SHARED;
    for (size_t i = 0; i < A_SHARED; i++)
        names[i] = attention_key_names[i];
    for (size_t i = 0; i < attention_kind_keys[kind].n; i++)
        names[nkeys++] = attention_key_names[attention_kind_keys[kind].keys[i]];
    char what[48];
    snprintf(what, sizeof what, "attention (kind: %s)", attn_kind_names[kind]);
    if (preset_yaml_collect(p, map, what, names, nkeys, got))
        return -1;
    for (size_t i = 0; i < A_SHARED; i++)
        v[i] = got[i];
    for (size_t i = 0; i < attention_kind_keys[kind].n; i++)
        v[attention_kind_keys[kind].keys[i]] = got[A_SHARED + i];
    if (preset_yaml_need(p, map, what, "heads", v[A_HEADS], "the query heads (num_attention_heads)"))
        return -1;
    bool mla = kind == ATTN_MLA, gqa = kind == ATTN_GQA, dsv4 = kind == ATTN_DSV4;
    if (mla &&
        (preset_yaml_need(p, map, what, "kv_lora_rank", v[A_KV_LORA_RANK], "an integer (config kv_lora_rank)") ||
         preset_yaml_need(p, map, what, "qk_rope_dim", v[A_QK_ROPE_DIM], "an integer (config qk_rope_head_dim)")))
        return -1;
    if (gqa && (preset_yaml_need(p, map, what, "kv_heads", v[A_KV_HEADS], "an integer (num_key_value_heads)") ||
                preset_yaml_need(p, map, what, "head_dim", v[A_HEAD_DIM], "an integer (head_dim)")))
        return -1;
    if (dsv4 && (preset_yaml_need(p, map, what, "head_dim", v[A_HEAD_DIM], "an integer (head_dim: 512)") ||
                 preset_yaml_need(p, map, what, "qk_rope_dim", v[A_QK_ROPE_DIM], "an integer (qk_rope_head_dim)") ||
                 preset_yaml_need(p, map, what, "q_lora_rank", v[A_Q_LORA_RANK], "an integer (q_lora_rank)") ||
                 preset_yaml_need(p, map, what, "sliding_window", v[A_SLIDING_WINDOW], "an integer (sliding_window)") ||
                 preset_yaml_need(p, map, what, "compress_ratios", v[A_COMPRESS_RATIOS], "config compress_ratios") ||
                 preset_yaml_need(p, map, what, "o_lora_rank", v[A_O_LORA_RANK], "an integer (o_lora_rank)") ||
                 preset_yaml_need(p, map, what, "o_groups", v[A_O_GROUPS], "an integer (o_groups)") ||
                 preset_yaml_need(p, map, what, "index_heads", v[A_INDEX_HEADS], "an integer (index_n_heads)") ||
                 preset_yaml_need(p, map, what, "index_head_dim", v[A_INDEX_HEAD_DIM], "an integer (index_head_dim)")))
        return -1;
    m->attn_kind = (engine_attn_kind)kind;
    m->kv_bytes = MODEL_KV_BYTES_DEFAULT;
    m->full_attn_layers = m->layers; /* every layer holds KV unless said otherwise */
    if (dsv4) {
        m->kv_heads = 1; /* one MQA head (MQALayer asserts num_key_value_heads == 1) */
        m->index_topk = 512; /* C4_TOPK, the backend's default when the config has no index_topk */
        m->hc_mult = 1;
    }
    if (preset_yaml_get_u32(p, v[A_HEADS], "heads", 1, UINT32_MAX, &m->heads) ||
        preset_yaml_get_u32(p, v[A_KV_BYTES], "kv_bytes", 1, MODEL_KV_BYTES_MAX, &m->kv_bytes) ||
        preset_yaml_get_u32(p, v[A_FULL_ATTN_LAYERS], "full_attn_layers", 0, m->layers, &m->full_attn_layers) ||
        preset_yaml_get_u32(p, v[A_KV_LORA_RANK], "kv_lora_rank", 1, UINT32_MAX, &m->kv_lora_rank) ||
        preset_yaml_get_u32(p, v[A_QK_ROPE_DIM], "qk_rope_dim", 0, UINT32_MAX, &m->qk_rope_dim) ||
        preset_yaml_get_u32(p, v[A_KV_HEADS], "kv_heads", 1, m->heads, &m->kv_heads) ||
        preset_yaml_get_u32(p, v[A_HEAD_DIM], "head_dim", 1, UINT32_MAX, &m->head_dim) ||
        preset_yaml_get_u32(p, v[A_Q_LORA_RANK], "q_lora_rank", 0, UINT32_MAX, &m->q_lora_rank) ||
        preset_yaml_get_u32(p, v[A_QK_NOPE_DIM], "qk_nope_dim", 1, UINT32_MAX, &m->qk_nope_dim) ||
        preset_yaml_get_u32(p, v[A_V_HEAD_DIM], "v_head_dim", 1, UINT32_MAX, &m->v_head_dim) ||
        preset_yaml_get_u32(p, v[A_SLIDING_WINDOW], "sliding_window", 1, UINT32_MAX, &m->sliding_window) ||
        preset_yaml_get_u32(p, v[A_SWA_LAYERS], "swa_layers", 0, m->layers, &m->swa_layers) ||
        preset_yaml_get_u32(p, v[A_ATTENTION_CHUNK], "attention_chunk_size", 1, UINT32_MAX, &m->attention_chunk) ||
        preset_yaml_get_u32(p, v[A_LINEAR_ATTN_LAYERS], "linear_attn_layers", 0, m->layers, &m->linear_attn_layers) ||
        preset_yaml_get_size(p, v[A_LINEAR_ATTN_LAYER_PARAMS], "linear_attn_layer_params",
                             &m->linear_attn_layer_params) ||
        preset_yaml_get_u32(p, v[A_O_LORA_RANK], "o_lora_rank", 1, UINT32_MAX, &m->o_lora_rank) ||
        preset_yaml_get_u32(p, v[A_O_GROUPS], "o_groups", 1, m->heads, &m->o_groups) ||
        preset_yaml_get_u32(p, v[A_INDEX_HEADS], "index_heads", 1, UINT32_MAX, &m->index_heads) ||
        preset_yaml_get_u32(p, v[A_INDEX_HEAD_DIM], "index_head_dim", 1, UINT32_MAX, &m->index_head_dim) ||
        preset_yaml_get_u32(p, v[A_INDEX_TOPK], "index_topk", 1, UINT32_MAX, &m->index_topk) ||
        preset_yaml_get_u32(p, v[A_HC_MULT], "hc_mult", 1, 64, &m->hc_mult) ||
        preset_yaml_get_u32(p, v[A_FULL_KV_HEADS], "full_kv_heads", 1, m->heads, &m->full_kv_heads) ||
        preset_yaml_get_u32(p, v[A_FULL_HEAD_DIM], "full_head_dim", 1, UINT32_MAX, &m->full_head_dim) ||
        preset_yaml_get_bool(p, v[A_OUTPUT_GATE], "output_gate", &m->attn_output_gate))
        return -1;
    if (dsv4) {
        if (m->qk_rope_dim >= m->head_dim)
            return preset_yaml_error(p, v[A_QK_ROPE_DIM]->start_mark,
                                     "qk_rope_dim %u is not below head_dim %u; expected the RoPE part of the head",
                                     m->qk_rope_dim, m->head_dim);
        if (m->heads % m->o_groups)
            return preset_yaml_error(p, v[A_O_GROUPS]->start_mark,
                                     "o_groups %u does not divide the %u heads; expected a divisor (config o_groups)",
                                     m->o_groups, m->heads);
        return parse_compress_ratios(p, v[A_COMPRESS_RATIOS], m);
    }
    /* Every layer is one kind: full attention, sliding-window or linear; without
     * full_attn_layers, the layers that are neither are full. */
    uint64_t other = (uint64_t)m->swa_layers + m->linear_attn_layers;
    if (!v[A_FULL_ATTN_LAYERS] && other <= m->layers)
        m->full_attn_layers = m->layers - (uint32_t)other;
    if (m->full_attn_layers + other > m->layers) {
        yaml_node_t *at = v[A_LINEAR_ATTN_LAYERS] ? v[A_LINEAR_ATTN_LAYERS]
                          : v[A_SWA_LAYERS]       ? v[A_SWA_LAYERS]
                                                  : v[A_FULL_ATTN_LAYERS];
        return preset_yaml_error(p, at->start_mark,
                                 "full_attn_layers %u + swa_layers %u + linear_attn_layers %u exceed the %u layers; "
                                 "expected each layer counted once",
                                 m->full_attn_layers, m->swa_layers, m->linear_attn_layers, m->layers);
    }
    if (m->swa_layers && !m->sliding_window)
        return preset_yaml_error(p, v[A_SWA_LAYERS]->start_mark,
                                 "swa_layers without sliding_window; expected sliding_window: the window in tokens");
    /* full_kv_heads / full_head_dim: the full-attention layers' own shape (Gemma 4's global KV
     * heads and head size), beside the sliding layers' kv_heads and head_dim */
    yaml_node_t *full_shape = v[A_FULL_KV_HEADS] ? v[A_FULL_KV_HEADS] : v[A_FULL_HEAD_DIM];
    if (full_shape && (!m->full_attn_layers || !m->swa_layers))
        return preset_yaml_error(
            p, full_shape->start_mark,
            "%s on a model without both full-attention and sliding-window layers; expected it only where the full "
            "layers' shape differs from the sliding ones' (kv_heads, head_dim)",
            v[A_FULL_KV_HEADS] ? "full_kv_heads" : "full_head_dim");
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
        preset_yaml_get_u32(p, v[E_TOP_K], "top_k", 1, m->num_experts, &m->top_k) ||
        preset_yaml_get_u32(p, v[E_SHARED_EXPERTS], "shared_experts", 0, UINT32_MAX, &m->shared_experts) ||
        preset_yaml_get_u32(p, v[E_SHARED_INTERMEDIATE], "shared_intermediate", 1, UINT32_MAX,
                            &m->shared_intermediate))
        return -1;
    if (m->shared_intermediate && !m->shared_experts)
        return preset_yaml_error(p, v[E_SHARED_INTERMEDIATE]->start_mark,
                                 "shared_intermediate without shared_experts; expected shared_experts: N as well");
    return 0;
}

/* vision: {params, attn_tp_params, tp_params}: a VL model's vision tower and projector, every
 * parameter, and the parts split over the attention TP group and over tp (the rest is whole on
 * every GPU); model_import.c computes them from the config's vision_config. */
enum { V_PARAMS, V_ATTN_TP_PARAMS, V_TP_PARAMS, V_COUNT };
static const char *const vision_keys[V_COUNT] = {"params", "attn_tp_params", "tp_params"};

static int parse_vision(preset_yaml_doc *p, yaml_node_t *map, engine_model *m)
{
    yaml_node_t *v[V_COUNT];
    if (preset_yaml_collect(p, map, "vision", vision_keys, V_COUNT, v) ||
        preset_yaml_need(p, map, "vision", "params", v[V_PARAMS],
                         "the vision tower's parameters (`cgplan model import` counts them from vision_config)") ||
        preset_yaml_get_size(p, v[V_PARAMS], "params", &m->vision_params) ||
        preset_yaml_get_size(p, v[V_ATTN_TP_PARAMS], "attn_tp_params", &m->vision_attn_tp_params) ||
        preset_yaml_get_size(p, v[V_TP_PARAMS], "tp_params", &m->vision_tp_params))
        return -1;
    if (m->vision_attn_tp_params > m->vision_params ||
        m->vision_tp_params > m->vision_params - m->vision_attn_tp_params)
        return preset_yaml_error(p, map->start_mark,
                                 "vision: attn_tp_params %llu + tp_params %llu exceed params %llu; expected parts of "
                                 "the tower that sum to at most its parameters",
                                 (unsigned long long)m->vision_attn_tp_params, (unsigned long long)m->vision_tp_params,
                                 (unsigned long long)m->vision_params);
    return 0;
}

/* A dtype key: one of engine_dtype_names. */
static int get_dtype(preset_yaml_doc *p, const yaml_node_t *n, const char *key, engine_dtype *out)
{
    int t = (int)*out;
    if (preset_yaml_get_choice(p, n, key, engine_dtype_names, DTYPE_COUNT, &t))
        return -1;
    *out = (engine_dtype)t;
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
        preset_yaml_need(p, root, what, "attention", v[M_ATTENTION], "a mapping with kind: mla or gqa"))
        return -1;
    const engine_knob_info *ctx_knob = &engine_knobs[KNOB_CONTEXT_LEN];
    if (preset_yaml_get_text(p, v[M_DESCRIPTION], "description", m->description, sizeof m->description) ||
        parse_hf_names(p, v[M_HF_NAMES], m) ||
        preset_yaml_get_text(p, v[M_ARCHITECTURE], "architecture", m->architecture, sizeof m->architecture) ||
        preset_yaml_get_bool(p, v[M_TRUST_REMOTE_CODE], "trust_remote_code", &m->trust_remote_code) ||
        preset_yaml_get_u32(p, v[M_VOCAB], "vocab", 1, UINT32_MAX, &m->vocab) ||
        preset_yaml_get_u32(p, v[M_HIDDEN], "hidden", 1, UINT32_MAX, &m->hidden) ||
        preset_yaml_get_u32(p, v[M_LAYERS], "layers", 1, UINT32_MAX, &m->layers) ||
        preset_yaml_get_u64(p, v[M_CONTEXT_LEN], "context_len", (uint64_t)ctx_knob->min, (uint64_t)ctx_knob->max,
                            &m->context_len) ||
        preset_yaml_get_bool(p, v[M_TIE_EMBEDDINGS], "tie_embeddings", &m->tie_embeddings) ||
        parse_attention(p, v[M_ATTENTION], m) ||
        preset_yaml_get_u32(p, v[M_INTERMEDIATE], "intermediate", 1, UINT32_MAX, &m->intermediate) ||
        preset_yaml_get_u32(p, v[M_DENSE_LAYERS], "dense_layers", 0, m->layers, &m->dense_layers) ||
        (v[M_MOE] && parse_moe(p, v[M_MOE], m)) ||
        preset_yaml_get_size(p, v[M_LINEAR_STATE], "linear_state_bytes_per_request",
                             &m->linear_state_bytes_per_request) ||
        (v[M_VISION] && parse_vision(p, v[M_VISION], m)) ||
        preset_yaml_get_u32(p, v[M_DRAFT_LAYERS], "draft_layers", 0, MODEL_DRAFT_LAYERS_MAX, &m->draft_layers) ||
        preset_yaml_get_bool(p, v[M_DRAFT_SEPARATE], "draft_separate", &m->draft_separate) ||
        preset_yaml_get_text(p, v[M_DRAFT_MODEL_PATH], "draft_model_path", m->draft_model_path,
                             sizeof m->draft_model_path))
        return -1;
    /* Weight dtypes: unquantised weights follow dtype; the routed experts follow the dense ones
     * unless said otherwise (an FP8 block checkpoint quantises both). */
    m->dtype = DTYPE_BF16;
    if (get_dtype(p, v[M_DTYPE], "dtype", &m->dtype))
        return -1;
    m->dense_dtype = m->dtype;
    if (get_dtype(p, v[M_DENSE_DTYPE], "dense_dtype", &m->dense_dtype))
        return -1;
    m->expert_dtype = m->dense_dtype;
    if (get_dtype(p, v[M_EXPERT_DTYPE], "expert_dtype", &m->expert_dtype))
        return -1;
    /* attention_dtype: attention's weights where the checkpoint quantises them apart from the
     * dense MLP (nvidia's Gemma 4 31B NVFP4: attention excluded, BF16); else dense_dtype */
    m->attn_dtype = m->dense_dtype;
    m->attn_dtype_set = v[M_ATTENTION_DTYPE] != NULL;
    if (get_dtype(p, v[M_ATTENTION_DTYPE], "attention_dtype", &m->attn_dtype))
        return -1;
    if (v[M_DENSE_LAYERS] && !m->num_experts)
        return preset_yaml_error(p, v[M_DENSE_LAYERS]->start_mark,
                                 "dense_layers on a model without moe:; expected it only beside moe: (a dense model's "
                                 "layers are all dense)");
    if (v[M_EXPERT_DTYPE] && !m->num_experts)
        return preset_yaml_error(p, v[M_EXPERT_DTYPE]->start_mark,
                                 "expert_dtype on a model without moe:; expected dense_dtype for a dense model");
    /* param_count: the file's, else counted from the config (0 when a field the count needs is
     * missing). */
    if (v[M_PARAM_COUNT]) {
        if (preset_yaml_get_size(p, v[M_PARAM_COUNT], "param_count", &m->param_count))
            return -1;
    } else {
        m->param_count = engine_model_param_count(m);
    }
    /* A coefficient the file lacks is unknown for this model: never another model's number
     * (the estimate shows the term as unknown until a calibration gives it). */
    memset(m->coef, 0, sizeof m->coef);
    if (parse_coefficients(p, v[M_COEFFICIENTS], it->coef_own, m->coef))
        return -1;
    m->coef_borrowed = false;
    for (int i = 0; i < COEF_COUNT; i++) {
        m->coef_missing[i] = !it->coef_own[i];
        m->coef_borrowed |= m->coef_missing[i];
    }
    return 0;
}

/* ---- gpu ---- */

enum { G_KIND, G_NAME, G_DESCRIPTION, G_CUDA_TOTAL, G_SMI_MIB, G_UE8M0, G_ARCH, G_LINK, G_P2P, G_NODE_BYTES, G_COUNT };
static const char *const gpu_keys[G_COUNT] = {
    "kind", "name", "description", "cuda_total_bytes", "nvidia_smi_mib", "ue8m0_scales", "arch", "link", "p2p",
    "node_bytes"};

/* node_bytes: {value, low, high, source}: a measured bytes-per-kernel-node figure
 * (bench/gpu/node_cost.py prints one), with its range and where it was measured. */
enum { NB_VALUE, NB_LOW, NB_HIGH, NB_SOURCE, NB_COUNT };
static const char *const node_bytes_keys[NB_COUNT] = {"value", "low", "high", "source"};

static int parse_node_bytes(preset_yaml_doc *p, yaml_node_t *map, engine_gpu *g)
{
    yaml_node_t *v[NB_COUNT];
    if (!map)
        return 0;
    if (preset_yaml_collect(p, map, "node_bytes", node_bytes_keys, NB_COUNT, v) ||
        preset_yaml_need(p, map, "node_bytes", "value", v[NB_VALUE], "the measured bytes per kernel node") ||
        preset_yaml_need(p, map, "node_bytes", "source", v[NB_SOURCE], "where and how it was measured"))
        return -1;
    engine_range *r = &g->node_bytes;
    if (preset_yaml_get_size(p, v[NB_VALUE], "value", &r->expected))
        return -1;
    r->low = r->high = r->expected;
    if (preset_yaml_get_size(p, v[NB_LOW], "low", &r->low) || preset_yaml_get_size(p, v[NB_HIGH], "high", &r->high) ||
        preset_yaml_get_text(p, v[NB_SOURCE], "source", g->node_bytes_source, sizeof g->node_bytes_source))
        return -1;
    if (r->expected < 256 || r->expected > ENGINE_MIB || r->low > r->expected || r->high < r->expected)
        return preset_yaml_error(p, map->start_mark,
                                 "node_bytes: value %llu with low %llu and high %llu; expected 256 B .. 1 MiB with "
                                 "low <= value <= high",
                                 (unsigned long long)r->expected, (unsigned long long)r->low,
                                 (unsigned long long)r->high);
    return 0;
}

/* arch: is required, as nothing else tells Hopper from Blackwell from AMD for the default attention
 * backend. An older preset's "other" (any NVIDIA part outside Hopper and SM100) still reads, as
 * the generic sm80. */
static int parse_gpu_arch(preset_yaml_doc *p, yaml_node_t *root, yaml_node_t *node, engine_gpu_arch *out)
{
    char expected[PRESET_LIST_MAX];
    size_t used = (size_t)snprintf(expected, sizeof expected, "one of");
    for (int i = 0; i < GPU_ARCH_COUNT && used < sizeof expected; i++)
        used +=
            (size_t)snprintf(expected + used, sizeof expected - used, "%s %s", i ? "," : "", engine_gpu_arch_names[i]);
    if (preset_yaml_need(p, root, "the gpu preset", "arch", node, expected))
        return -1;
    if (node->type == YAML_SCALAR_NODE && strcmp(preset_yaml_text(node), "other") == 0) {
        *out = ENGINE_GPU_ARCH_OTHER_ALIAS;
        return 0;
    }
    int arch = 0;
    if (preset_yaml_get_choice(p, node, "arch", engine_gpu_arch_names, GPU_ARCH_COUNT, &arch))
        return -1;
    *out = (engine_gpu_arch)arch;
    return 0;
}

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
    /* Asked after the values so a bad value is still the message it was. */
    if (parse_gpu_arch(p, root, v[G_ARCH], &g->arch))
        return -1;
    int link = (int)engine_gpu_default_link(g->arch);
    if (preset_yaml_get_choice(p, v[G_LINK], "link", engine_gpu_link_names, GPU_LINK_COUNT, &link))
        return -1;
    g->link = (engine_gpu_link)link;
    g->p2p = true;
    if (preset_yaml_get_bool(p, v[G_P2P], "p2p", &g->p2p) || parse_node_bytes(p, v[G_NODE_BYTES], g))
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
            bool digits = *s != '\0' && strlen(s) + sizeof "[]" <= sizeof one;
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
        if (f == D_WEIGHTS) /* attention_backend, a2a and the rest are knobs of the table */
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
    if (preset_yaml_get_text(p, v[D_DESCRIPTION], "description", d->description, sizeof d->description) ||
        preset_yaml_get_text(p, v[D_MODEL], "model", dep->model, sizeof dep->model) ||
        preset_yaml_get_text(p, v[D_GPU], "gpu", dep->gpu, sizeof dep->gpu) ||
        preset_yaml_get_size(p, v[D_WEIGHTS], "weights_bytes", &d->weights_bytes) ||
        preset_yaml_get_size(p, v[D_STATE], "state_pool_bytes", &d->state_pool_bytes) ||
        preset_yaml_get_size(p, v[D_OTHER], "other_runtime_bytes", &d->other_runtime_bytes) ||
        preset_yaml_get_size(p, v[D_PRE_LOAD], "pre_load_free_bytes", &d->pre_load_free_bytes) ||
        preset_yaml_get_size(p, v[D_MARGIN], "margin_bytes", &d->margin_bytes) ||
        parse_coefficients(p, v[D_COEFFICIENTS], dep->coef_set, dep->coef))
        return -1;
    dep->model_mark = preset_yaml_mark(v[D_MODEL]->start_mark);
    dep->gpu_mark = preset_yaml_mark(v[D_GPU]->start_mark);

    /* Bases before the knobs that must divide them (tp, dp, dcp), then the rest. */
    engine_knob_id order[KNOB_COUNT];
    engine_knob_apply_order(order);
    for (int i = 0; i < KNOB_COUNT; i++) {
        if (engine_knobs[order[i]].type == KNOB_TYPE_NAME)
            continue;
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
        d->knob_origin[order[i]] = ORIGIN_PRESET;
    }
    /* The measured figures above are the preset's own layout's: a plan that moves tp, dp, ep or
     * dcp computes them from the model instead (budget.c plan_weights). */
    engine_measured_layout_record(d);
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
    out->knob_origin[KNOB_GPU] = ORIGIN_PRESET;
    /* The deployment's coefficients override the model's; what neither gives is unknown. */
    out->model.coef_borrowed = false;
    for (int i = 0; i < COEF_COUNT; i++) {
        if (dep->coef_set[i])
            out->model.coef[i] = dep->coef[i];
        out->model.coef_missing[i] = !dep->coef_set[i] && !model->coef_own[i];
        out->model.coef_borrowed |= out->model.coef_missing[i];
    }
    if (!dep->has_context_len)
        out->knobs.context_len = model->u.model.context_len;
}
