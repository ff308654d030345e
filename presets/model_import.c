/* model_import.c — engine_model from a Hugging Face config.json (see model_import.h). The keys
 * and their meaning are those of each architecture's transformers configuration class and
 * SGLang's model file (deepseek_v2.py, kimi_k3.py, glm4_moe.py, glm4_moe_lite.py, qwen2.py,
 * qwen3.py, qwen3_moe.py, qwen3_next.py, qwen3_vl.py, qwen3_5.py, qwen2_5_vl.py, llama.py, llama4.py,
 * mixtral.py, minimax_m2.py, gemma3_causal.py, gemma3_mm.py, gemma4_causal.py, siglip.py, kimi_k25.py,
 * grok.py, gpt_oss.py). */
#include "model_import.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preset_internal.h"
#include "text.h"
#include "weights.h"

#define CONFIG_JSON "config.json"
#define HF_QUANT_CONFIG "hf_quant_config.json" /* modelopt's exports keep the quantisation here */
#define CONFIG_JSON_MAX ((uint64_t)16 << 20)   /* 16 MiB: real configs are kilobytes, module lists included */
#define KV_BYTES_BF16 2
#define PHRASE_MAX 160      /* one clause of a message */
#define LLAMA4_NOPE_EVERY 4 /* llama4.py: use_rope = (layer_id + 1) % 4 != 0; the others are global NoPE */
#define HF_PART_MAX 96      /* huggingface_hub validate_repo_id: an owner or a name has at most 96 characters */
/* SGLang's mamba cache (configs/mamba_utils.py mamba2_state_dtype): the conv state is
 * SGLANG_MAMBA_CONV_DTYPE, bfloat16 unless set; the recurrent state is the config's
 * mamba_ssm_dtype, float32 unless set. */
#define MAMBA_CONV_BYTES 2
#define MAMBA_SSM_BYTES_DEFAULT 4
/* Gemma3TextConfig's defaults, which the released configs lean on: their text_config omits
 * vocab_size, max_position_embeddings and (4B) the head counts. */
#define GEMMA3_VOCAB 262208
#define GEMMA3_CONTEXT 131072
#define GEMMA3_HEADS 8
#define GEMMA3_KV_HEADS 4
#define GEMMA3_HEAD_DIM 256
#define GEMMA3_SLIDING_WINDOW 4096
#define GEMMA3_PATTERN 6  /* every 6th layer is global */
#define GROK_HEAD_DIM 128 /* grok.py: getattr(config, "head_dim", 128) */

typedef enum {
    FAM_DEEPSEEK,    /* MLA + MoE with first_k_dense_replace (DeepSeek-V3/V3.2, Kimi-K2, GLM-5, GLM-4.7-Flash) */
    FAM_KIMI_LINEAR, /* MLA + KDA layers, latent MoE (Kimi-K3, Kimi-Linear) */
    FAM_DEEPSEEK_V4, /* compressed sparse MQA (window + c4 / c128), hyper-connections, MoE everywhere */
    FAM_DENSE,       /* GQA, dense MLP (Llama, Mistral, Phi-3, Qwen2, Qwen3, Qwen3-VL) */
    FAM_QWEN_MOE,    /* GQA + MoE on every decoder_sparse_step-th layer (Qwen3-MoE, Qwen3-VL-MoE) */
    FAM_QWEN_NEXT,   /* Qwen3-MoE + Gated DeltaNet layers (Qwen3-Next, Qwen3.5 MoE) */
    FAM_QWEN35,      /* dense MLP + Gated DeltaNet layers (Qwen3.5 dense) */
    FAM_LLAMA4,      /* GQA, MoE every interleave_moe_layer_step-th layer with a shared expert */
    FAM_GLM4_MOE,    /* GQA + MoE with first_k_dense_replace */
    FAM_LOCAL_MOE,   /* GQA, num_local_experts on every layer, intermediate_size each (Mixtral, MiniMax-M2) */
    FAM_GROK,        /* GQA, local experts beside a residual dense MLP in every layer (Grok-1/2) */
    FAM_GEMMA3,      /* GQA, sliding-window layers with every Nth global, tied embeddings */
    FAM_GPT_OSS,     /* GQA, alternating sliding-window layers, MoE everywhere */
    FAM_LFM2,        /* GQA layers and short-convolution layers, dense MLP in each (LFM2) */
    FAM_LFM2_MOE,    /* LFM2's layers, MoE after num_dense_layers dense ones (LFM2-MoE) */
    FAM_HUNYUAN,     /* GQA with q/k norm; MoE in every layer with a shared MLP, or dense (HunYuan V1) */
    FAM_ERNIE45,     /* GQA; MoE from moe_layer_start_index every moe_layer_interval, shared experts (ERNIE 4.5) */
    FAM_GRANITE_H,   /* Mamba2 and NoPE GQA layers; MoE + shared MLP, or the shared MLP alone (Granite 4.0-H) */
    FAM_GEMMA4,      /* GQA, sliding layers and global ones of their own shape; a dense MLP, experts beside it */
} family;

/* The vision tower an architecture's vision_config describes (0 and 1 are the false and true
 * an arch row may still write): counted into vision_params with the split its SGLang model
 * file loads it with. */
typedef enum {
    TOWER_NONE = 0,
    TOWER_QWEN3_VL = 1, /* qwen3_vl.py Qwen3VLMoeVisionModel (Qwen3-VL, Qwen3.5) */
    TOWER_QWEN25_VL,    /* qwen2_5_vl.py Qwen2_5_VisionTransformer */
    TOWER_SIGLIP,       /* gemma3_mm.py: siglip.py SiglipVisionModel + Gemma3MultiModalProjector */
    TOWER_MOONVIT,      /* kimi_k25.py MoonViT3dPretrainedModel + K2VLMultiModalProjector */
    TOWER_PIXTRAL,      /* mistral.py Mistral3ForConditionalGeneration: pixtral.py PixtralHFVisionModel */
    TOWER_GEMMA4,       /* gemma4_mm.py: gemma4_vision.py Gemma4VisionEncoder + Gemma4MultimodalEmbedder */
} tower;

static const struct {
    const char *arch;
    family fam;
    bool nested;         /* the text model's keys are under text_config */
    tower tower;         /* the vision tower vision_config describes, counted in vision_params */
    bool native_config;  /* transformers ships the config class: an auto_map does not need remote code */
} archs[] = {
    {"DeepseekV3ForCausalLM", FAM_DEEPSEEK, false, false, false},
    {"DeepseekV32ForCausalLM", FAM_DEEPSEEK, false, false, false}, /* V3's shapes + the DSA indexer (not counted) */
    {"DeepseekV4ForCausalLM", FAM_DEEPSEEK_V4, false, false, false},
    {"KimiK25ForConditionalGeneration", FAM_DEEPSEEK, true, TOWER_MOONVIT, false},
    {"GlmMoeDsaForCausalLM", FAM_DEEPSEEK, false, false, false},
    {"Glm4MoeLiteForCausalLM", FAM_DEEPSEEK, false, false, false}, /* MLA with GLM's MoE: DeepSeek's keys */
    {"KimiK3ForConditionalGeneration", FAM_KIMI_LINEAR, true, false, false},
    {"KimiLinearForCausalLM", FAM_KIMI_LINEAR, false, false, false},
    {"Qwen2ForCausalLM", FAM_DENSE, false, false, false},
    {"Qwen3ForCausalLM", FAM_DENSE, false, false, false},
    {"LlamaForCausalLM", FAM_DENSE, false, false, false},
    /* llama.py's layer: SGLang applies no sliding window to either, whatever sliding_window says */
    {"MistralForCausalLM", FAM_DENSE, false, false, false},
    /* ministral3.py: LlamaForCausalLM's shapes (Devstral 2, Ministral 3); Mistral3ForConditionalGeneration
     * (Mistral Small 3.x, Devstral Small 2, Ministral 3): a Mistral or Ministral3 text_config and a Pixtral
     * tower (a MoE or MLA text_config, Mistral Small 4's, is refused) */
    {"Ministral3ForCausalLM", FAM_DENSE, false, false, false},
    {"Mistral3ForConditionalGeneration", FAM_DENSE, true, TOWER_PIXTRAL, false},
    {"Phi3ForCausalLM", FAM_DENSE, false, false, true}, /* fused qkv / gate_up: the same shapes */
    {"Qwen3VLForConditionalGeneration", FAM_DENSE, true, true, false},
    /* qwen2_5_vl.py: Qwen2Model beside the tower; the text keys at the top level or (configs
     * transformers re-saved) under text_config */
    {"Qwen2_5_VLForConditionalGeneration", FAM_DENSE, false, TOWER_QWEN25_VL, false},
    {"Qwen3MoeForCausalLM", FAM_QWEN_MOE, false, false, false},
    {"Qwen3VLMoeForConditionalGeneration", FAM_QWEN_MOE, true, true, false},
    {"Qwen3NextForCausalLM", FAM_QWEN_NEXT, false, false, false},
    {"Qwen3_5MoeForConditionalGeneration", FAM_QWEN_NEXT, true, true, false},
    {"Qwen3_5MoeForCausalLM", FAM_QWEN_NEXT, false, false, false},
    {"Qwen3_5ForConditionalGeneration", FAM_QWEN35, true, true, false},
    {"Qwen3_5ForCausalLM", FAM_QWEN35, false, false, false},
    {"Llama4ForConditionalGeneration", FAM_LLAMA4, true, false, false},
    {"Glm4MoeForCausalLM", FAM_GLM4_MOE, false, false, false},
    {"MixtralForCausalLM", FAM_LOCAL_MOE, false, false, false},
    {"MiniMaxM2ForCausalLM", FAM_LOCAL_MOE, false, false, false},
    {"Grok1ForCausalLM", FAM_GROK, false, false, false},
    {"Gemma3ForConditionalGeneration", FAM_GEMMA3, true, TOWER_SIGLIP, false},
    {"Gemma3ForCausalLM", FAM_GEMMA3, false, false, false},
    {"GptOssForCausalLM", FAM_GPT_OSS, false, false, false},
    {"Lfm2ForCausalLM", FAM_LFM2, false, false, true},
    {"Lfm2MoeForCausalLM", FAM_LFM2_MOE, false, false, true},
    /* model_type "hunyuan" (the released configs) is remote code; transformers' hunyuan_v1_moe is another */
    {"HunYuanMoEV1ForCausalLM", FAM_HUNYUAN, false, false, false},
    {"HunYuanDenseV1ForCausalLM", FAM_HUNYUAN, false, false, false},
    {"Ernie4_5_MoeForCausalLM", FAM_ERNIE45, false, false, true},
    {"Ernie4_5_ForCausalLM", FAM_ERNIE45, false, false, true},
    {"GraniteMoeHybridForCausalLM", FAM_GRANITE_H, false, false, true},
    {"Gemma4ForConditionalGeneration", FAM_GEMMA4, true, TOWER_GEMMA4, false},
    {"Gemma4ForCausalLM", FAM_GEMMA4, false, false, false},
};
#define N_ARCHS (sizeof archs / sizeof archs[0])

typedef struct {
    const char *path;
    json_t *root, *cfg; /* cfg: the text model's object (root, or root.text_config) */
    const char *prefix; /* "" or "text_config." in messages */
    char *err;
    size_t errlen;
    bool attn_own_dtype; /* the family keeps attention's dtype apart when a checkpoint excludes it alone */
} ctx;

/* ---- Reading fields. ---- */

static json_t *field(ctx *c, const char *key)
{
    json_t *v = json_object_get(c->cfg, key);
    return json_is_null(v) ? NULL : v;
}

static int missing(ctx *c, const char *key, const char *expected)
{
    return preset_set_err(c->err, c->errlen, "%s: %s%s: missing; expected %s (a Hugging Face config.json of the model)",
                          c->path, c->prefix, key, expected);
}

static int bad(ctx *c, const char *key, const char *expected)
{
    return preset_set_err(c->err, c->errlen, "%s: %s%s: not %s; fix the config or import another", c->path, c->prefix,
                          key, expected);
}

/* An integer in MIN..MAX at KEY. REQUIRED: else DFLT when absent or null. */
static int get_u32_in(ctx *c, const char *key, bool required, uint32_t min, uint32_t max, uint32_t dflt,
                      const char *what, uint32_t *out)
{
    json_t *v = field(c, key);
    if (!v) {
        if (required)
            return missing(c, key, what);
        *out = dflt;
        return 0;
    }
    if (!json_is_integer(v) || json_integer_value(v) < (json_int_t)min || json_integer_value(v) > (json_int_t)max) {
        char expected[PHRASE_MAX];
        if (max == UINT32_MAX)
            snprintf(expected, sizeof expected, "an integer >= %u (%s)", min, what);
        else
            snprintf(expected, sizeof expected, "an integer in %u..%u (%s)", min, max, what);
        return bad(c, key, expected);
    }
    *out = (uint32_t)json_integer_value(v);
    return 0;
}

/* An integer in MIN..UINT32_MAX at KEY (engine_model_check bounds it once the model is whole). */
static int get_u32(ctx *c, const char *key, bool required, uint32_t min, uint32_t dflt, const char *what, uint32_t *out)
{
    return get_u32_in(c, key, required, min, UINT32_MAX, dflt, what, out);
}

static int get_bool(ctx *c, const char *key, bool dflt, bool *out)
{
    json_t *v = field(c, key);
    if (!v) {
        v = json_object_get(c->root, key); /* nested configs keep tie_word_embeddings outside too */
        if (!v || json_is_null(v)) {
            *out = dflt;
            return 0;
        }
    }
    if (!json_is_boolean(v))
        return bad(c, key, "true or false");
    *out = json_is_true(v);
    return 0;
}

/* The length of the array at KEY (0 when absent); -1 when it is not an array. */
static int array_len(ctx *c, json_t *obj, const char *key, const char *what, size_t *out)
{
    json_t *v = json_object_get(obj, key);
    *out = 0;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_array(v))
        return bad(c, key, what);
    *out = json_array_size(v);
    return 0;
}

/* How many strings of layer_types equal TYPE, into *N; a list longer than the LAYERS (each entry
 * is one layer's kind) is refused before it is walked. */
static int count_layer_type(ctx *c, json_t *types, uint32_t layers, const char *type, uint32_t *n)
{
    if (json_array_size(types) > layers) {
        char expected[PHRASE_MAX];
        snprintf(expected, sizeof expected, "a list of one kind per layer (%zu entries for num_hidden_layers %u)",
                 json_array_size(types), layers);
        return bad(c, "layer_types", expected);
    }
    *n = 0;
    size_t i;
    json_t *t;
    json_array_foreach(types, i, t) if (json_is_string(t) && strcmp(json_string_value(t), type) == 0)(*n)++;
    return 0;
}

/* BYTES (a product of config sizes, formed in floating point so that it cannot wrap; exact
 * below 2^53) into *OUT, or refused at KEY past ENGINE_SIZE_MAX. */
static int state_bytes(ctx *c, const char *key, double bytes, uint64_t *out)
{
    if (bytes > (double)ENGINE_SIZE_MAX)
        return bad(c, key, "a size whose linear-attention state per request is at most 1 PiB");
    *out = (uint64_t)bytes;
    return 0;
}

/* ---- dtypes. ---- */

static int torch_dtype(ctx *c, engine_dtype *out)
{
    json_t *v = field(c, "torch_dtype");
    if (!v)
        v = field(c, "dtype");
    if (!v)
        v = json_object_get(c->root, "torch_dtype");
    if (!v || json_is_null(v))
        v = json_object_get(c->root, "dtype");
    *out = DTYPE_BF16; /* what the Hub's checkpoints nearly all are; the config may say so */
    if (!v || json_is_null(v))
        return 0;
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    if (strcmp(s, "bfloat16") == 0)
        *out = DTYPE_BF16;
    else if (strcmp(s, "float16") == 0)
        *out = DTYPE_FP16;
    else if (strcmp(s, "float32") == 0)
        *out = DTYPE_FP32;
    else
        return bad(c, "torch_dtype", "bfloat16, float16 or float32");
    return 0;
}

/* A quantization_config value cgplan does not count: the file, the key, the value as the config
 * writes it and the nearest it counts. Returns -1. */
static int quant_refused(ctx *c, const char *key, json_t *value, const char *expected)
{
    char shown[PHRASE_MAX];
    if (json_is_integer(value))
        snprintf(shown, sizeof shown, "%lld", (long long)json_integer_value(value));
    else if (json_is_string(value))
        snprintf(shown, sizeof shown, "\"%.100s\"", json_string_value(value));
    else if (json_is_boolean(value))
        snprintf(shown, sizeof shown, "%s", json_is_true(value) ? "true" : "false");
    else
        snprintf(shown, sizeof shown, "%s", value ? "a value of another type" : "absent");
    return preset_set_err(c->err, c->errlen,
                          "%s: quantization_config.%s: %s; expected %s; fix the config or import another", c->path, key,
                          shown, expected);
}

/* The first integer among KEYS in Q (NULL-terminated), its key in *KEY; NULL when none is. */
static json_t *quant_int(json_t *q, const char *const keys[], const char **key)
{
    *key = keys[0];
    for (size_t i = 0; keys[i]; i++) {
        json_t *v = json_object_get(q, keys[i]);
        if (v && !json_is_null(v)) {
            *key = keys[i];
            return v;
        }
    }
    return NULL;
}

/* W4A16 group 128 checkpoints (engine.h DTYPE_INT4_G128, DTYPE_INT4_G128_ZP): 4-bit weights in
 * groups of 128 input rows, as SGLang loads them (sgl-project/sglang 8905cbd42,
 * layers/quantization/awq/awq.py, gptq/gptq.py, compressed_tensors_wNa16.py; the Marlin kernels
 * on CUDA from SM80). What they leave out of these bytes is refused by name: act-order (GPTQ
 * desc_act, compressed-tensors actorder "group"), where gptq_marlin keeps a g_idx and its sort
 * order per input row and repeats a row-parallel layer's scales whole on every rank
 * (marlin_utils.py marlin_repeat_scales_on_all_ranks); a quantised LM head; other bit widths and
 * group sizes (Kimi's compressed-tensors group 32 is int4). */
static int w4a16_g128(ctx *c, json_t *q, const char *method, bool zero_points, engine_dtype *out)
{
    static const char *const bits_keys[] = {"bits", "w_bit", NULL}; /* AWQConfig.from_config reads both */
    static const char *const group_keys[] = {"group_size", "q_group_size", NULL};
    const char *bkey, *gkey;
    json_t *bits = quant_int(q, bits_keys, &bkey), *group = quant_int(q, group_keys, &gkey);
    char expected[PHRASE_MAX];
    if (!bits)
        return quant_refused(c, "bits", NULL, "4 (the weights' bits)");
    if (!json_is_integer(bits) || json_integer_value(bits) != 4) {
        snprintf(expected, sizeof expected,
                 "4: cgplan counts %s at 4 bits (int4_g128%s); an 8-bit checkpoint has no dtype here, the nearest "
                 "is fp8",
                 method, zero_points ? "_zp" : "");
        return quant_refused(c, bkey, bits, expected);
    }
    if (!group)
        return quant_refused(c, "group_size", NULL, "128 (the rows a scale covers)");
    if (!json_is_integer(group) || json_integer_value(group) != 128) {
        snprintf(expected, sizeof expected,
                 "128: cgplan counts %s in groups of 128 (int4_g128%s); the nearest is group 128, or a "
                 "compressed-tensors W4A16 group 32 (int4)",
                 method, zero_points ? "_zp" : "");
        return quant_refused(c, gkey, group, expected);
    }
    json_t *lm_head = json_object_get(q, "lm_head");
    if (json_is_true(lm_head))
        return quant_refused(c, "lm_head", lm_head,
                             "false: a quantised LM head is not counted (cgplan holds it in the model dtype)");
    *out = zero_points ? DTYPE_INT4_G128_ZP : DTYPE_INT4_G128;
    return 0;
}

/* AWQ (quant_method awq): awq_marlin (or awq) keeps qzeros whatever zero_point says
 * (awq_marlin.py create_weights registers them; awq_kernels.py repacks them to the same size). */
static int awq_dtype(ctx *c, json_t *q, engine_dtype *out)
{
    return w4a16_g128(c, q, "AWQ", true, out);
}

/* GPTQ (quant_method gptq): symmetric is what gptq_marlin serves, qzeros replaced by an empty
 * tensor; sym false falls back to the GPTQ (exllama) kernel, which keeps them. */
static int gptq_dtype(ctx *c, json_t *q, engine_dtype *out)
{
    json_t *desc_act = json_object_get(q, "desc_act"), *sym = json_object_get(q, "sym");
    json_t *dynamic = json_object_get(q, "dynamic");
    if (json_is_true(desc_act))
        return quant_refused(c, "desc_act", desc_act,
                             "false: act-order keeps a g_idx and its sort order per input row and repeats the "
                             "row-parallel layers' scales on every rank (gptq_marlin), which cgplan does not count");
    if (json_is_object(dynamic) && json_object_size(dynamic) > 0)
        return quant_refused(c, "dynamic", dynamic,
                             "{} or absent: per-module overrides (GPTQModel's dynamic) are not counted");
    return w4a16_g128(c, q, "GPTQ", json_is_false(sym), out);
}

/* The weights' dtype of a compressed-tensors config: config_groups.*.weights. */
static int compressed_tensors_dtype(ctx *c, json_t *q, engine_dtype *out)
{
    json_t *groups = json_object_get(q, "config_groups");
    const char *key;
    json_t *g;
    json_object_foreach(groups, key, g)
    {
        json_t *w = json_object_get(g, "weights");
        json_t *bits = json_object_get(w, "num_bits"), *type = json_object_get(w, "type");
        json_t *gs = json_object_get(w, "group_size");
        const char *t = json_is_string(type) ? json_string_value(type) : "";
        json_int_t nb = json_is_integer(bits) ? json_integer_value(bits) : 0;
        json_int_t group = json_is_integer(gs) ? json_integer_value(gs) : 0;
        if (nb == 4 && strcmp(t, "int") == 0) {
            /* W4A16 pack-quantized: group 32 (Kimi-K2-Thinking, K2.5) is int4; group 128
             * (llm-compressor's W4A16 scheme, RedHatAI's quantized.w4a16) int4_g128, with a zero
             * point per group where symmetric is false (compressed_tensors_wNa16.py) */
            json_t *actorder = json_object_get(w, "actorder"), *sym = json_object_get(w, "symmetric");
            if (json_is_string(actorder) && strcmp(json_string_value(actorder), "group") == 0)
                return quant_refused(c, "config_groups.weights.actorder", actorder,
                                     "null or \"weight\": act-order by group keeps a g_idx per input row and repeats "
                                     "the row-parallel layers' scales on every rank, which cgplan does not count");
            if (group == 32)
                *out = DTYPE_INT4;
            else if (group == 128)
                *out = json_is_false(sym) ? DTYPE_INT4_G128_ZP : DTYPE_INT4_G128;
            else
                return quant_refused(c, "config_groups.weights.group_size", gs,
                                     "32 (int4) or 128 (int4_g128): the 4-bit integer groups cgplan counts");
        } else if (nb == 4 && strcmp(t, "float") == 0)
            *out = group == 16 ? DTYPE_NVFP4 : DTYPE_MXFP4; /* FP4 with FP8 scales per 16, or E8M0 per 32 */
        else if (nb == 8 && strcmp(t, "float") == 0)
            *out = DTYPE_FP8;
        else
            return bad(c, "quantization_config.config_groups.weights",
                       "4-bit int, 4-bit float or 8-bit float weights (the dtypes cgplan knows)");
        return 0; /* the first group: the checkpoints here have one */
    }
    return missing(c, "quantization_config.config_groups", "the weights' num_bits and type");
}

/* Does any exclusion entry name NEEDLE (and not AVOID)? */
static bool excluded(json_t *lists[], size_t nlists, const char *needle, const char *avoid)
{
    for (size_t l = 0; l < nlists; l++) {
        size_t i;
        json_t *e;
        json_array_foreach(lists[l], i, e)
        {
            const char *s = json_is_string(e) ? json_string_value(e) : "";
            if (strstr(s, needle) && !(avoid && strstr(s, avoid)))
                return true;
        }
    }
    return false;
}

/* Does an exclusion entry keep attention's projections unquantised? An entry naming self_attn
 * does when it is the module (or a glob or regex over all of it) or one of its projections; not
 * when it is a norm or the DSA indexer inside it (GLM-5-FP8 lists q_a_layernorm and
 * indexer.k_norm, its attention being FP8). */
static bool attention_excluded(json_t *lists[], size_t nlists)
{
    for (size_t l = 0; l < nlists; l++) {
        size_t i;
        json_t *e;
        json_array_foreach(lists[l], i, e)
        {
            const char *s = json_is_string(e) ? json_string_value(e) : "";
            const char *at = strstr(s, "self_attn");
            if (!at)
                continue;
            const char *rest = at + strlen("self_attn");
            if (*rest == '\\')
                rest++; /* a regex's "self_attn\\.q_proj" */
            if (!*rest || *rest == '*' || strncmp(rest, ".*", 2) == 0)
                return true; /* the whole module: "layers.*.self_attn", "self_attn*", "re:.*self_attn.*" */
            if (*rest == '.' && strstr(rest, "proj") && !strstr(rest, "norm") && !strstr(rest, "indexer"))
                return true; /* "self_attn.q_a_proj", "self_attn.kv_b_proj" */
        }
    }
    return false;
}

/* The length of the non-finite float token at P (NaN, Infinity, -Infinity), or 0. */
static size_t nonfinite_at(const char *p, size_t left)
{
    static const char *const tokens[] = {"-Infinity", "Infinity", "NaN"};
    for (size_t t = 0; t < sizeof tokens / sizeof tokens[0]; t++) {
        size_t n = strlen(tokens[t]);
        if (left >= n && memcmp(p, tokens[t], n) == 0)
            return n;
    }
    return 0;
}

/* Python's json writes NaN, Infinity and -Infinity for the floats JSON has no number for
 * (Nemotron-H's time_step_limit [0.0, Infinity]); jansson refuses them at any flag. Outside
 * strings they become strings: the file parses, no key the import reads is such a float, and
 * one that were is refused as "not an integer", named. Returns the new text (malloc'd, *OUT_LEN
 * its length), or NULL when there is nothing to quote or no memory (jansson then names the
 * token). */
static char *quote_nonfinite(const char *text, size_t len, size_t *out_len)
{
    size_t extra = 0;
    bool in_string = false;
    for (size_t i = 0; i < len; i++) {
        size_t n = 0;
        if (in_string) {
            if (text[i] == '\\')
                i++; /* an escaped quote stays inside */
            else
                in_string = text[i] != '"';
        } else if (text[i] == '"')
            in_string = true;
        else if ((n = nonfinite_at(text + i, len - i))) {
            extra += 2;
            i += n - 1;
        }
    }
    char *out = extra ? malloc(len + extra + 1) : NULL;
    if (!out)
        return NULL;
    size_t o = 0;
    in_string = false;
    for (size_t i = 0; i < len; i++) {
        size_t n = 0;
        if (in_string) {
            if (text[i] == '\\' && i + 1 < len)
                out[o++] = text[i++];
            else
                in_string = text[i] != '"';
        } else if (text[i] == '"')
            in_string = true;
        else
            n = nonfinite_at(text + i, len - i);
        if (n) {
            out[o++] = '"';
            memcpy(out + o, text + i, n);
            o += n;
            out[o++] = '"';
            i += n - 1;
        } else
            out[o++] = text[i];
    }
    out[o] = '\0';
    *out_len = o;
    return out;
}

/* Reads the JSON file PATH, or NULL. A regular file of at most CONFIG_JSON_MAX bytes, checked
 * before a byte is read (jansson would load any size whole, and a FIFO would block the open). */
static json_t *load_json(const char *path, char *err, size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        preset_set_err(err, errlen, "%s: %s; expected a Hugging Face config.json", path, strerror(errno));
        return NULL;
    }
    struct stat st;
    json_t *j = NULL;
    char *text = NULL;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        preset_set_err(err, errlen, "%s: not a regular file; expected a Hugging Face config.json", path);
        goto done;
    }
    if ((uint64_t)st.st_size > CONFIG_JSON_MAX) {
        preset_set_err(err, errlen,
                       "%s: %lld bytes, more than the %d MiB a config.json may have (real ones, quantised module "
                       "lists included, are far smaller); expected a Hugging Face config.json",
                       path, (long long)st.st_size, (int)(CONFIG_JSON_MAX >> 20));
        goto done;
    }
    size_t size = (size_t)st.st_size, got = 0;
    text = malloc(size + 1);
    if (!text) {
        preset_set_err(err, errlen, "%s: out of memory", path);
        goto done;
    }
    while (got <= size) { /* one byte past the size: a file that grew is seen */
        ssize_t n = read(fd, text + got, size + 1 - got);
        if (n == 0)
            break;
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            preset_set_err(err, errlen, "%s: %s", path, strerror(errno));
            goto done;
        }
        got += (size_t)n;
    }
    if (got > size) { /* it grew since the size was checked */
        preset_set_err(err, errlen, "%s: the file changed while it was read; try again", path);
        goto done;
    }
    json_error_t je;
    char *quoted = quote_nonfinite(text, got, &got);
    if (quoted) {
        free(text);
        text = quoted;
    }
    j = json_loadb(text, got, JSON_REJECT_DUPLICATES, &je);
    if (!j)
        preset_set_err(err, errlen, "%s:%d:%d: %s; expected a Hugging Face config.json", path, je.line, je.column,
                       je.text);
    else if (!json_is_object(j)) {
        preset_set_err(err, errlen, "%s:1:1: not a JSON object; expected a Hugging Face config.json", path);
        json_decref(j);
        j = NULL;
    }
done:
    free(text);
    close(fd);
    return j;
}

/* The quantisation block modelopt writes beside the config, if any (owned by the caller):
 * hf_quant_config.json in a checkpoint's folder, or NAME.hf_quant_config.json beside a
 * NAME.json kept outside one (as tests/fixtures/configs keeps nvidia's). */
static json_t *sibling_quant_config(const char *path)
{
    char side[ENGINE_TEXT_MAX * 4];
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t n = strlen(base);
    if (strcmp(base, CONFIG_JSON) != 0 && n > 5 && strcmp(base + n - 5, ".json") == 0)
        snprintf(side, sizeof side, "%.*s." HF_QUANT_CONFIG, (int)(base - path + n - 5), path);
    else
        snprintf(side, sizeof side, "%.*s%s", (int)(base - path), path, HF_QUANT_CONFIG);
    if (access(side, F_OK) != 0 && strcmp(base, CONFIG_JSON) != 0)
        snprintf(side, sizeof side, "%.*s%s", (int)(base - path), path, HF_QUANT_CONFIG);
    if (access(side, F_OK) != 0)
        return NULL;
    char ignored[8];
    json_t *j = load_json(side, ignored, sizeof ignored);
    json_t *q = j ? json_object_get(j, "quantization") : NULL;
    if (q)
        json_incref(q);
    json_decref(j);
    return q;
}

/* A modelopt quant_algo's weight dtype: 0, or -1 for one cgplan does not know. */
static int modelopt_dtype(const char *algo, engine_dtype *out)
{
    if (strcmp(algo, "NVFP4") == 0 || strcmp(algo, "W4A16_NVFP4") == 0)
        *out = DTYPE_NVFP4; /* W4A16: the same FP4 weights, BF16 activations */
    else if (strcmp(algo, "FP8") == 0)
        *out = DTYPE_FP8;
    else
        return -1;
    return 0;
}

/* modelopt's MIXED_PRECISION: quantized_layers gives each module's quant_algo (nvidia's
 * Qwen3.6-27B-NVFP4: FP8 attention, W4A16_NVFP4 MLP); a module it does not list keeps the
 * model dtype. dense_dtype is one dtype for attention and the dense MLP: the larger part
 * decides, the MLP of a dense model (about twice its attention), the attention of an MoE. */
static int mixed_precision_dtypes(ctx *c, json_t *q, engine_model *m)
{
    json_t *layers = json_object_get(q, "quantized_layers");
    if (!json_is_object(layers))
        return missing(c, "quantization_config.quantized_layers", "each module's quant_algo (MIXED_PRECISION)");
    engine_dtype attn = m->dtype, mlp = m->dtype, experts = m->dtype;
    const char *name;
    json_t *v;
    json_object_foreach(layers, name, v)
    {
        json_t *a = json_object_get(v, "quant_algo");
        engine_dtype t;
        if (!json_is_string(a) || modelopt_dtype(json_string_value(a), &t) != 0)
            return bad(c, "quantization_config.quantized_layers.*.quant_algo",
                       "NVFP4, W4A16_NVFP4 or FP8 (the modelopt formats cgplan knows)");
        if (strstr(name, "self_attn"))
            attn = t;
        else if (strstr(name, "experts") && !strstr(name, "shared_expert"))
            experts = t;
        else if (strstr(name, "mlp."))
            mlp = t;
    }
    m->dense_dtype = m->num_experts ? attn : mlp;
    m->expert_dtype = m->num_experts ? experts : m->dense_dtype; /* as the loader reads a dense preset */
    return 0;
}

static int weight_dtypes(ctx *c, engine_model *m)
{
    if (torch_dtype(c, &m->dtype))
        return -1;
    m->dense_dtype = m->expert_dtype = m->dtype;
    json_t *q = field(c, "quantization_config");
    if (!q)
        q = json_object_get(c->root, "quantization_config");
    json_t *owned = NULL;
    if (!q || json_is_null(q))
        q = owned = sibling_quant_config(c->path);
    if (!q)
        return 0;
    int rc = 0;
    engine_dtype t = m->dtype;
    json_t *method = json_object_get(q, "quant_method"), *algo = json_object_get(q, "quant_algo");
    const char *mth = json_is_string(method) ? json_string_value(method) : "";
    const char *alg = json_is_string(algo) ? json_string_value(algo) : "";
    if (strcmp(mth, "fp8") == 0 || strcmp(mth, "fbgemm_fp8") == 0)
        t = DTYPE_FP8;
    else if (strcmp(mth, "mxfp4") == 0)
        t = DTYPE_MXFP4;
    else if (strcmp(mth, "compressed-tensors") == 0)
        rc = compressed_tensors_dtype(c, q, &t);
    else if (strcmp(mth, "awq") == 0)
        rc = awq_dtype(c, q, &t);
    else if (strcmp(mth, "gptq") == 0)
        rc = gptq_dtype(c, q, &t);
    else if (strcmp(mth, "modelopt") == 0 || (!*mth && *alg)) { /* hf_quant_config.json has no quant_method */
        if (strcmp(alg, "MIXED_PRECISION") == 0) {
            rc = mixed_precision_dtypes(c, q, m);
            json_decref(owned);
            return rc;
        }
        if (modelopt_dtype(alg, &t) != 0)
            rc = bad(c, "quantization_config.quant_algo",
                     "NVFP4, FP8 or MIXED_PRECISION (the modelopt formats cgplan knows)");
    } else
        rc = bad(c, "quantization_config.quant_method",
                 "fp8, fbgemm_fp8, mxfp4, compressed-tensors, modelopt, awq or gptq (the formats cgplan knows)");
    if (rc == 0) {
        json_t *lists[] = {json_object_get(q, "modules_to_not_convert"), json_object_get(q, "ignore"),
                           json_object_get(q, "exclude_modules")};
        size_t n = sizeof lists / sizeof lists[0];
        /* Attention, dense MLP and shared experts share dense_dtype: attention decides. */
        m->dense_dtype = attention_excluded(lists, n) ? m->dtype : t;
        if (c->attn_own_dtype && attention_excluded(lists, n) && !excluded(lists, n, ".mlp", NULL)) {
            /* attention excluded, the MLP quantised (nvidia's Gemma-4-31B-IT-NVFP4): each its own */
            m->attn_dtype = m->dtype;
            m->attn_dtype_set = true;
            m->dense_dtype = t;
        }
        m->expert_dtype = excluded(lists, n, "experts", "shared_expert") ? m->dtype : t;
        /* DeepSeek-V4's config: expert_dtype "fp4" beside an FP8 quantization_config, the routed
         * experts in the checkpoint's native FP4 (e2m1 with UE8M0 scales per 32: MXFP4) */
        json_t *experts = field(c, "expert_dtype");
        if (json_is_string(experts) && strcmp(json_string_value(experts), "fp4") == 0)
            m->expert_dtype = DTYPE_MXFP4;
        /* nvidia's DeepSeek-V4 NVFP4 exports keep that FP8 block beside modelopt's fields: the
         * routed experts requantised to NVFP4 (moe_quant_algo, group 16), the rest as shipped */
        json_t *moe_algo = json_object_get(q, "moe_quant_algo");
        if (json_is_string(moe_algo) && strcmp(json_string_value(moe_algo), "NVFP4") == 0)
            m->expert_dtype = DTYPE_NVFP4;
    }
    json_decref(owned);
    return rc;
}

/* ---- The architectures. ---- */

static int gqa(ctx *c, engine_model *m)
{
    m->attn_kind = ATTN_GQA;
    if (get_u32(c, "num_attention_heads", true, 1, 0, "the query heads", &m->heads) ||
        get_u32(c, "num_key_value_heads", false, 1, m->heads, "the KV heads", &m->kv_heads) ||
        get_u32(c, "head_dim", false, 1, m->hidden / m->heads, "the head size", &m->head_dim))
        return -1;
    if (!m->head_dim)
        return missing(c, "head_dim", "an integer (hidden_size / num_attention_heads is 0)");
    return 0;
}

static int mla(ctx *c, engine_model *m)
{
    m->attn_kind = ATTN_MLA;
    return get_u32(c, "num_attention_heads", true, 1, 0, "the query heads", &m->heads) ||
                   get_u32(c, "kv_lora_rank", true, 1, 0, "the MLA latent rank", &m->kv_lora_rank) ||
                   get_u32(c, "qk_rope_head_dim", true, 0, 0, "the rotary part of a head", &m->qk_rope_dim) ||
                   get_u32(c, "qk_nope_head_dim", true, 1, 0, "the non-rotary part of a head", &m->qk_nope_dim) ||
                   get_u32(c, "v_head_dim", true, 1, 0, "the value head size", &m->v_head_dim) ||
                   get_u32(c, "q_lora_rank", false, 1, 0, "the query LoRA rank; null: none", &m->q_lora_rank)
               ? -1
               : 0;
}

static int deepseek(ctx *c, engine_model *m)
{
    uint32_t freq = 1;
    if (mla(c, m) || get_u32(c, "intermediate_size", true, 1, 0, "the dense MLP's width", &m->intermediate) ||
        get_u32(c, "first_k_dense_replace", false, 0, 0, "the leading dense layers", &m->dense_layers) ||
        get_u32(c, "n_routed_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
        get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "n_shared_experts", false, 0, 0, "the shared experts", &m->shared_experts) ||
        get_u32(c, "num_nextn_predict_layers", false, 0, 0, "the MTP layers", &m->draft_layers) ||
        get_u32(c, "moe_layer_freq", false, 1, 1, "1", &freq))
        return -1;
    if (freq != 1)
        return bad(c, "moe_layer_freq", "1 (every layer after first_k_dense_replace is MoE; cgplan reads no other)");
    return 0;
}

/* DeepSeek-V4 (models/deepseek_v4.py, configs/deepseek_v4.py): one MQA head of head_dim, the
 * per-layer compress_ratios (0, 4 or 128, MQALayer asserts it; the list runs on over the MTP
 * layers), the grouped output projection, the c4 indexer, hc_mult residual copies; every layer
 * MoE (weight_dtypes reads expert_dtype). */
static int deepseek_v4(ctx *c, engine_model *m)
{
    m->attn_kind = ATTN_DSV4;
    m->kv_heads = 1;
    if (get_u32(c, "num_attention_heads", true, 1, 0, "the query heads", &m->heads) ||
        get_u32_in(c, "num_key_value_heads", false, 1, 1, 1, "1 (one MQA head)", &m->kv_heads) ||
        get_u32(c, "head_dim", true, 1, 0, "the MQA head size (512)", &m->head_dim) ||
        get_u32(c, "qk_rope_head_dim", true, 0, 0, "the rotary part of the head", &m->qk_rope_dim) ||
        get_u32(c, "q_lora_rank", true, 1, 0, "the query LoRA rank", &m->q_lora_rank) ||
        get_u32(c, "o_lora_rank", true, 1, 0, "the output LoRA rank", &m->o_lora_rank) ||
        get_u32_in(c, "o_groups", true, 1, m->heads, 0, "the output groups, dividing the heads", &m->o_groups) ||
        get_u32(c, "sliding_window", true, 1, 0, "the attention window", &m->sliding_window) ||
        get_u32(c, "index_n_heads", true, 1, 0, "the indexer's heads", &m->index_heads) ||
        get_u32(c, "index_head_dim", true, 1, 0, "the indexer's head size", &m->index_head_dim) ||
        get_u32_in(c, "index_topk", false, 1, 1u << 20, 512, "the indexer's top-k (512)", &m->index_topk) ||
        get_u32_in(c, "hc_mult", true, 1, 64, 0, "the hyper-connection copies", &m->hc_mult) ||
        get_u32(c, "n_routed_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
        get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "n_shared_experts", false, 0, 0, "the shared experts", &m->shared_experts) ||
        get_u32(c, "num_nextn_predict_layers", false, 0, 0, "the MTP layers", &m->draft_layers))
        return -1;
    if (m->heads % m->o_groups)
        return bad(c, "o_groups", "a divisor of num_attention_heads");
    if (m->qk_rope_dim >= m->head_dim)
        return bad(c, "qk_rope_head_dim", "below head_dim");
    json_t *ratios = field(c, "compress_ratios");
    if (!ratios)
        return missing(c, "compress_ratios", "a list of 0, 4 or 128 per layer");
    if (!json_is_array(ratios) || json_array_size(ratios) < m->layers ||
        json_array_size(ratios) > (size_t)m->layers + ENGINE_COUNT_MAX)
        return bad(c, "compress_ratios", "a list of 0, 4 or 128, one per layer (MTP layers after)");
    size_t i;
    json_t *r;
    json_array_foreach(ratios, i, r)
    {
        json_int_t v = json_is_integer(r) ? json_integer_value(r) : -1;
        if (v != 0 && v != 4 && v != 128)
            return bad(c, "compress_ratios", "entries of 0, 4 or 128 (MQALayer asserts them)");
        (*(v == 0 ? &m->dsv4_swa_only_layers : v == 4 ? &m->dsv4_c4_layers : &m->dsv4_c128_layers))++;
    }
    return 0;
}

static int kimi_linear(ctx *c, engine_model *m)
{
    json_t *lin = field(c, "linear_attn_config");
    if (!lin || !json_is_object(lin))
        return missing(c, "linear_attn_config", "an object with full_attn_layers, kda_layers, num_heads, head_dim");
    size_t full = 0, kda = 0;
    if (mla(c, m) || get_u32(c, "intermediate_size", true, 1, 0, "the dense MLP's width", &m->intermediate) ||
        get_u32(c, "first_k_dense_replace", false, 0, 0, "the leading dense layers", &m->dense_layers) ||
        get_u32(c, "num_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
        get_u32(c, "num_experts_per_token", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "num_shared_experts", false, 0, 0, "the shared experts", &m->shared_experts) ||
        get_u32(c, "routed_expert_hidden_size", false, 1, m->hidden, "the latent MoE width", &m->dispatch_hidden) ||
        get_u32(c, "num_nextn_predict_layers", false, 0, 0, "the MTP layers", &m->draft_layers) ||
        array_len(c, lin, "full_attn_layers", "a list of layer numbers", &full) ||
        array_len(c, lin, "kda_layers", "a list of layer numbers", &kda))
        return -1;
    ctx sub = *c;
    sub.cfg = lin;
    sub.prefix = c->cfg == c->root ? "linear_attn_config." : "text_config.linear_attn_config.";
    uint32_t heads, head_dim, kernel;
    bool full_rank_gate;
    if (get_u32(&sub, "num_heads", true, 1, 0, "the KDA heads", &heads) ||
        get_u32(&sub, "head_dim", true, 1, 0, "the KDA head size", &head_dim) ||
        get_u32(&sub, "short_conv_kernel_size", false, 1, 4, "the short convolution", &kernel) ||
        get_bool(&sub, "use_full_rank_gate", false, &full_rank_gate))
        return -1;
    if (full + kda != m->layers)
        return bad(c, "linear_attn_config", "full_attn_layers and kda_layers that together list every layer");
    m->full_attn_layers = (uint32_t)full;
    m->linear_attn_layers = (uint32_t)kda;
    /* One KDA layer (kimi_linear.py KimiDeltaAttention): q, k, v, o over heads x head_dim; the
     * forget gate full rank or through head_dim; the output gate through head_dim; beta per
     * head; a short convolution over q, k and v. */
    uint64_t h = m->hidden, hd = (uint64_t)heads * head_dim;
    uint64_t low_rank = h * head_dim + (uint64_t)head_dim * hd;
    m->linear_attn_layer_params =
        4 * h * hd + (full_rank_gate ? h * hd : low_rank) + low_rank + h * heads + 3 * hd * kernel;
    /* Per request, every KDA layer (KimiLinearStateShape at attention TP 1, mamba_utils.py): the
     * conv state, (kernel - 1) x the q, k and v channels, and the recurrent state, heads x
     * head_dim x head_dim, at mamba2_state_dtype's defaults (the config's dtype is not read). */
    double conv = (kernel - 1) * 3.0 * hd * MAMBA_CONV_BYTES;
    double ssm = (double)hd * head_dim * MAMBA_SSM_BYTES_DEFAULT;
    return state_bytes(&sub, "num_heads", (conv + ssm) * m->linear_attn_layers, &m->linear_state_bytes_per_request);
}

/* Qwen3-MoE's layer rule: MoE where (i + 1) % decoder_sparse_step == 0, unless in mlp_only_layers. */
static int qwen_moe(ctx *c, engine_model *m)
{
    uint32_t step = 1;
    if (gqa(c, m) || get_u32(c, "num_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
        get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "decoder_sparse_step", false, 1, 1, "the MoE layer interval", &step) ||
        get_u32(c, "intermediate_size", false, 1, 0, "the dense MLP's width", &m->intermediate) ||
        get_u32(c, "shared_expert_intermediate_size", false, 0, 0, "the shared expert's width",
                &m->shared_intermediate))
        return -1;
    json_t *only = field(c, "mlp_only_layers");
    if (only && !json_is_array(only))
        return bad(c, "mlp_only_layers", "a list of layer indices");
    /* One pass over the list, each entry a layer (the layers were bounded where read): it was a
     * loop over the layers for each entry, hours for a long list. */
    if (json_array_size(only) > m->layers)
        return bad(c, "mlp_only_layers", "a list of at most num_hidden_layers layer indices");
    bool *dense_only = calloc(m->layers, sizeof *dense_only);
    if (!dense_only)
        return preset_set_err(c->err, c->errlen, "%s: out of memory", c->path);
    size_t k;
    json_t *e;
    json_array_foreach(only, k, e)
    {
        if (!json_is_integer(e) || json_integer_value(e) < 0 || json_integer_value(e) >= (json_int_t)m->layers) {
            free(dense_only);
            return bad(c, "mlp_only_layers", "a list of layer indices 0..num_hidden_layers - 1");
        }
        dense_only[json_integer_value(e)] = true;
    }
    uint32_t dense = 0;
    for (uint32_t i = 0; i < m->layers; i++)
        dense += dense_only[i] || (i + 1) % step != 0;
    free(dense_only);
    m->dense_layers = dense; /* placement does not matter for the weights or the KV */
    if (dense && !m->intermediate)
        return missing(c, "intermediate_size", "the dense layers' MLP width");
    m->shared_experts = m->shared_intermediate ? 1 : 0;
    return 0;
}

/* The recurrent state's bytes per element: the config's mamba_ssm_dtype (SGLang reads it from
 * text_config or the root), float32 without one. */
static int mamba_ssm_bytes(ctx *c, uint32_t *out)
{
    json_t *v = field(c, "mamba_ssm_dtype");
    if (!v)
        v = json_object_get(c->root, "mamba_ssm_dtype");
    *out = MAMBA_SSM_BYTES_DEFAULT;
    if (!v || json_is_null(v))
        return 0;
    const char *s = json_is_string(v) ? json_string_value(v) : "";
    if (strcmp(s, "float32") == 0)
        *out = 4;
    else if (strcmp(s, "bfloat16") == 0 || strcmp(s, "float16") == 0)
        *out = 2;
    else
        return bad(c, "mamba_ssm_dtype", "float32, bfloat16 or float16");
    return 0;
}

/* The Gated DeltaNet layers of Qwen3-Next and Qwen3.5 (qwen3_next.py; Qwen3.5 splits
 * in_proj_qkvz into in_proj_qkv and in_proj_z, the same shapes): which layers, their
 * parameters, the state each request keeps, and the MTP layers. */
static int gated_deltanet(ctx *c, engine_model *m)
{
    json_t *types = field(c, "layer_types");
    uint32_t interval = 0, nk, nv, dk, dv, kernel, ssm_bytes;
    if (types && json_is_array(types)) {
        if (count_layer_type(c, types, m->layers, "linear_attention", &m->linear_attn_layers))
            return -1;
    } else if (get_u32(c, "full_attention_interval", true, 1, 0, "every how many layers one is full attention",
                       &interval))
        return -1;
    else
        m->linear_attn_layers = m->layers - m->layers / interval;
    if (get_u32(c, "linear_num_key_heads", true, 1, 0, "the Gated DeltaNet key heads", &nk) ||
        get_u32(c, "linear_num_value_heads", true, 1, 0, "the Gated DeltaNet value heads", &nv) ||
        get_u32(c, "linear_key_head_dim", true, 1, 0, "the key head size", &dk) ||
        get_u32(c, "linear_value_head_dim", true, 1, 0, "the value head size", &dv) ||
        get_u32(c, "linear_conv_kernel_dim", false, 1, 4, "the convolution kernel", &kernel) ||
        get_u32(c, "mtp_num_hidden_layers", false, 0, 0, "the MTP layers", &m->draft_layers) ||
        mamba_ssm_bytes(c, &ssm_bytes))
        return -1;
    m->full_attn_layers = m->layers - m->linear_attn_layers;
    /* One Gated DeltaNet layer (qwen3_next.py): in_proj_qkvz, in_proj_ba, the convolution over
     * q, k and v, dt_bias and A_log per value head, the gated norm, out_proj. */
    uint64_t h = m->hidden, key_dim = (uint64_t)nk * dk, value_dim = (uint64_t)nv * dv;
    m->linear_attn_layer_params = h * (2 * key_dim + 2 * value_dim) + h * 2 * nv + (2 * key_dim + value_dim) * kernel +
                                  2 * (uint64_t)nv + dv + value_dim * h;
    /* Per request, every linear layer (Qwen3NextConfig.mamba2_cache_params at attention TP 1;
     * mamba_utils.py mamba_cache_per_req): the conv state, q, k and v channels x (kernel - 1),
     * and the recurrent state, value heads x value dim x key dim. */
    double conv = (2.0 * key_dim + value_dim) * (kernel - 1) * MAMBA_CONV_BYTES;
    double ssm = (double)value_dim * dk * ssm_bytes;
    return state_bytes(c, "linear_num_value_heads", (conv + ssm) * m->linear_attn_layers,
                       &m->linear_state_bytes_per_request);
}

/* LFM2 (SGLang models/lfm2.py; configs/lfm2.py Lfm2Config). Layers are "full_attention" (GQA) or
 * "conv" / "short_conv" (layer_types, else every layer in full_attn_idxs is attention); every layer
 * has the SwiGLU MLP. */
static int lfm2(ctx *c, engine_model *m, bool moe)
{
    uint32_t ff, multiple, kernel, attn = 0;
    bool auto_adjust = false;
    json_t *types = field(c, "layer_types"), *idxs = field(c, "full_attn_idxs");
    if (gqa(c, m) || get_u32(c, "block_ff_dim", false, 1, 0, "the MLP's width before adjustment", &ff) ||
        (!ff && get_u32(c, "intermediate_size", true, 1, 0, "the MLP's width before adjustment", &ff)) ||
        get_u32(c, "block_multiple_of", false, 1, 256, "the MLP width's multiple", &multiple) ||
        (!moe && get_bool(c, "block_auto_adjust_ff_dim", true, &auto_adjust)) ||
        get_u32(c, "conv_L_cache", false, 2, 3, "the short convolution's length", &kernel))
        return -1;
    if (types && json_is_array(types)) {
        if (count_layer_type(c, types, m->layers, "full_attention", &attn))
            return -1;
    } else if (idxs && json_is_array(idxs) && json_array_size(idxs) <= m->layers)
        attn = (uint32_t)json_array_size(idxs);
    else
        return missing(c, "layer_types", "a list of \"full_attention\" / \"conv\" per layer (or full_attn_idxs)");
    /* Lfm2MLP (models/lfm2.py; lfm2_moe.py's dense MLP takes intermediate_size as is): with
     * block_auto_adjust_ff_dim the width is int(2 * ff / 3), and
     * with a block_ffn_dim_multiplier int(multiplier * that) rounded up to block_multiple_of. */
    if (auto_adjust) {
        ff = (uint32_t)(2.0 * ff / 3);
        json_t *mult = field(c, "block_ffn_dim_multiplier");
        if (mult) {
            if (!json_is_number(mult) || json_number_value(mult) <= 0 || json_number_value(mult) > 64)
                return bad(c, "block_ffn_dim_multiplier", "a number in (0, 64]");
            ff = (uint32_t)(json_number_value(mult) * ff);
            ff = (ff + multiple - 1) / multiple * multiple;
        }
    }
    m->intermediate = ff;
    m->full_attn_layers = attn;
    m->linear_attn_layers = m->layers - attn;
    /* One ShortConv layer (models/lfm2.py Lfm2ShortConv): in_proj hidden -> 3 x hidden (B, C, x),
     * the depthwise conv weight hidden x conv_L_cache (conv_bias false in the released configs),
     * out_proj hidden x hidden. */
    uint64_t h = m->hidden;
    m->linear_attn_layer_params = 4 * h * h + h * kernel;
    /* Per request, every conv layer (configs/lfm2.py mamba2_cache_params: Mamba2StateShape with
     * intermediate_size = hidden, state_size 0, conv_kernel = conv_L_cache): the conv state only,
     * hidden x (conv_L_cache - 1) in SGLANG_MAMBA_CONV_DTYPE; no SSM state. */
    return state_bytes(c, "hidden_size", (double)h * (kernel - 1) * MAMBA_CONV_BYTES * m->linear_attn_layers,
                       &m->linear_state_bytes_per_request);
}

/* A key HunYuan writes as one integer or as a list with an entry per layer (moe_topk,
 * moe_intermediate_size, num_shared_expert; hunyuan.py takes config.X[layer_id] from a list):
 * cgplan keeps one value per model, so a list must hold at least one entry per layer, all equal. */
static int per_layer_u32(ctx *c, uint32_t layers, const char *key, bool required, uint32_t min, uint32_t dflt,
                         const char *what, uint32_t *out)
{
    json_t *v = field(c, key);
    if (!json_is_array(v))
        return get_u32(c, key, required, min, dflt, what, out);
    char expected[PHRASE_MAX];
    snprintf(expected, sizeof expected, "an integer >= %u (%s), or a list of one such per layer, all equal", min, what);
    size_t i;
    json_t *e;
    if (json_array_size(v) < layers || json_array_size(v) > (size_t)layers + ENGINE_COUNT_MAX)
        return bad(c, key, expected);
    json_array_foreach(v, i, e)
    {
        if (!json_is_integer(e) || json_integer_value(e) < (json_int_t)min || json_integer_value(e) > UINT32_MAX ||
            json_integer_value(e) != json_integer_value(json_array_get(v, 0)))
            return bad(c, key, expected);
    }
    *out = (uint32_t)json_integer_value(json_array_get(v, 0));
    return 0;
}

/* HunYuan V1 (SGLang models/hunyuan.py): GQA whose head size is head_dim, else attention_head_dim
 * (get_head_dim: neither is an error), q and k normalised after RoPE (use_qk_norm). With
 * num_experts > 1 (_is_moe) every layer is HunYuanSparseMoeBlock: num_experts of
 * moe_intermediate_size (else intermediate_size), top moe_topk, and with use_mixed_mlp_moe one
 * shared MLP of intermediate_size x num_shared_expert; else every layer a dense MLP of
 * intermediate_size. Cross-layer attention (use_cla with cla_share_factor > 1) is refused:
 * HunYuanModel never hands a "cross" layer the KV it would share (prev_kv_states stays None, and
 * HunYuanAttention asserts it), so SGLang cannot serve such a model; Hunyuan-A13B has use_cla false. */
static int hunyuan(ctx *c, engine_model *m)
{
    uint32_t attention_head_dim = 0, experts = 0, cla_factor = 1, mixed = 0, shared = 0;
    bool cla = false;
    m->attn_kind = ATTN_GQA;
    if (get_u32(c, "num_attention_heads", true, 1, 0, "the query heads", &m->heads) ||
        get_u32(c, "num_key_value_heads", false, 1, m->heads, "the KV heads", &m->kv_heads) ||
        get_u32(c, "attention_head_dim", false, 1, 0, "the head size", &attention_head_dim) ||
        get_u32(c, "head_dim", false, 1, attention_head_dim, "the head size", &m->head_dim) ||
        get_u32(c, "intermediate_size", true, 1, 0, "the MLP's (and the shared MLP's unit) width", &m->intermediate) ||
        get_u32(c, "num_experts", false, 0, 0, "the routed experts; 0 or 1: a dense model", &experts) ||
        get_bool(c, "use_cla", false, &cla) ||
        get_u32(c, "cla_share_factor", false, 1, 1, "the layers sharing one KV", &cla_factor))
        return -1;
    if (!m->head_dim)
        return missing(c, "head_dim", "the head size (hunyuan.py reads head_dim, else attention_head_dim)");
    if (cla && cla_factor > 1)
        return bad(c, "use_cla",
                   "false (or cla_share_factor 1): SGLang's hunyuan.py never passes a cross-attention layer the KV "
                   "it shares, so it cannot serve cross-layer attention");
    if (experts <= 1)
        return 0;
    m->num_experts = experts;
    json_t *flag = field(c, "use_mixed_mlp_moe");
    if (flag && !json_is_boolean(flag) && !json_is_integer(flag))
        return bad(c, "use_mixed_mlp_moe", "true, false or an integer (a shared MLP beside the experts when > 0)");
    mixed = json_is_true(flag) || (json_is_integer(flag) && json_integer_value(flag) > 0);
    if (per_layer_u32(c, m->layers, "moe_topk", true, 1, 0, "the experts per token", &m->top_k) ||
        per_layer_u32(c, m->layers, "moe_intermediate_size", false, 1, m->intermediate, "an expert's width",
                      &m->moe_intermediate) ||
        (mixed && per_layer_u32(c, m->layers, "num_shared_expert", false, 0, 1,
                                "the shared MLP's width in intermediate_size units", &shared)))
        return -1;
    if (shared) { /* one HunYuanMLP of intermediate_size x num_shared_expert */
        m->shared_experts = 1;
        m->shared_intermediate = m->intermediate * shared;
    }
    return 0;
}

/* ERNIE 4.5 (SGLang models/ernie4.py, which serves Ernie4_5_ForCausalLM and
 * Ernie4_5_MoeForCausalLM): Llama's attention (head_dim, else hidden / heads); layer i is MoE when
 * moe_layer_start_index <= i <= moe_layer_end_index and (i - start) % moe_layer_interval == 0
 * (start defaults to num_hidden_layers: no MoE; end to the last layer), the others a dense MLP of
 * intermediate_size. A MoE layer has moe_num_experts of moe_intermediate_size, top moe_k, and with
 * moe_num_shared_experts one shared MLP of moe_intermediate_size x that count. The MTP layers
 * (num_nextn_predict_layers) are the draft's: the target skips model.mtp_* weights. */
static int ernie45(ctx *c, engine_model *m)
{
    uint32_t start, end, interval, experts = 0, shared = 0;
    if (gqa(c, m) || get_u32(c, "intermediate_size", true, 1, 0, "the dense MLP's width", &m->intermediate) ||
        get_u32(c, "moe_layer_start_index", false, 0, m->layers, "the first MoE layer", &start) ||
        get_u32(c, "moe_layer_end_index", false, 0, m->layers - 1, "the last MoE layer", &end) ||
        get_u32(c, "moe_layer_interval", false, 1, 1, "the MoE layer interval", &interval) ||
        get_u32(c, "num_nextn_predict_layers", false, 0, 0, "the MTP layers", &m->draft_layers))
        return -1;
    uint32_t moe = 0;
    for (uint64_t i = start; i <= end && i < m->layers; i += interval) /* (i - start) % interval == 0 */
        moe++;
    if (!moe)
        return 0;
    if (get_u32(c, "moe_num_experts", true, 1, 0, "the routed experts", &experts) ||
        get_u32(c, "moe_k", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
        get_u32(c, "moe_num_shared_experts", false, 0, 0, "the shared experts", &shared))
        return -1;
    m->num_experts = experts;
    m->dense_layers = m->layers - moe; /* placement does not matter for the weights or the KV */
    if (shared) {                      /* one Ernie4MLP of moe_intermediate_size x moe_num_shared_experts */
        m->shared_experts = 1;
        m->shared_intermediate = m->moe_intermediate * shared;
    }
    return 0;
}

/* Granite 4.0-H (SGLang models/granitemoehybrid.py, configs/granitemoehybrid.py): layer_types
 * names each layer "mamba" or "attention" (without it, GraniteMoeHybridConfig makes every sixth
 * attention); the attention's head size is hidden / heads (the model reads no head_dim). Every
 * layer has GraniteMoeMoE (num_local_experts of intermediate_size, top num_experts_per_tok) when
 * num_local_experts > 0, and GraniteMoeSharedMLP of shared_intermediate_size when that is > 0:
 * with no experts the shared MLP is the dense MLP. A Mamba2 layer (layers/attention/mamba/mamba.py
 * MambaMixer2): in_proj hidden -> intermediate (gate) + conv_dim + heads (dt), the depthwise conv1d
 * over conv_dim = intermediate + 2 x n_groups x d_state (bias with mamba_conv_bias), A, D and
 * dt_bias per head, the gated RMSNorm over intermediate, out_proj intermediate -> hidden;
 * intermediate = mamba_expand x hidden = mamba_n_heads x mamba_d_head, which the config class
 * enforces. The state per request (Mamba2StateShape.create at attention TP 1, mamba_cache_per_req):
 * the conv state conv_dim x (d_conv - 1) in BF16 and the SSM state heads x d_head x d_state; the
 * config passes no dtype to Mamba2CacheParams, so it is mamba2_state_dtype's default, float32
 * (mamba_ssm_dtype is not read). */
static int granite_hybrid(ctx *c, engine_model *m)
{
    uint32_t experts, shared, d_state, d_conv, expand, d_head, n_heads, groups, inter, attn = 0, mamba = 0;
    bool conv_bias, proj_bias;
    m->attn_kind = ATTN_GQA;
    if (get_u32(c, "num_attention_heads", true, 1, 0, "the query heads", &m->heads) ||
        get_u32(c, "num_key_value_heads", false, 1, m->heads, "the KV heads", &m->kv_heads) ||
        get_u32(c, "num_local_experts", false, 0, 0, "the routed experts; 0: the shared MLP alone", &experts) ||
        get_u32(c, "intermediate_size", false, 1, 8192, "an expert's width", &inter) ||
        get_u32(c, "shared_intermediate_size", false, 0, 8192, "the shared MLP's width", &shared) ||
        get_u32(c, "mamba_d_state", false, 1, 128, "the SSM state size", &d_state) ||
        get_u32(c, "mamba_d_conv", false, 2, 4, "the convolution kernel", &d_conv) ||
        get_u32(c, "mamba_expand", false, 1, 2, "the Mamba intermediate size over hidden_size", &expand) ||
        get_u32(c, "mamba_d_head", false, 1, 64, "the Mamba head size", &d_head) ||
        get_u32(c, "mamba_n_heads", false, 1, 64, "the Mamba heads", &n_heads) ||
        get_u32(c, "mamba_n_groups", false, 1, 1, "the B / C groups", &groups) ||
        get_bool(c, "mamba_conv_bias", true, &conv_bias) || get_bool(c, "mamba_proj_bias", false, &proj_bias))
        return -1;
    m->head_dim = m->hidden / m->heads;
    if (!m->head_dim)
        return bad(c, "num_attention_heads", "at most hidden_size (the head size is hidden_size / heads)");
    if ((uint64_t)expand * m->hidden != (uint64_t)n_heads * d_head)
        return bad(c, "mamba_n_heads",
                   "heads whose mamba_n_heads x mamba_d_head equals mamba_expand x hidden_size (the config class "
                   "refuses any other)");
    json_t *types = field(c, "layer_types");
    if (types) {
        if (!json_is_array(types) || json_array_size(types) != m->layers)
            return bad(c, "layer_types", "a list of \"mamba\" or \"attention\", one per layer");
        size_t i;
        json_t *t;
        json_array_foreach(types, i, t)
        {
            const char *s = json_is_string(t) ? json_string_value(t) : "";
            if (strcmp(s, "attention") == 0)
                attn++;
            else if (strcmp(s, "mamba") == 0)
                mamba++;
            else
                return bad(c, "layer_types", "a list of \"mamba\" or \"attention\", one per layer");
        }
    } else {
        attn = m->layers / 6; /* GraniteMoeHybridConfig: attention where (i + 1) % 6 == 0 */
        mamba = m->layers - attn;
    }
    m->full_attn_layers = attn;
    m->linear_attn_layers = mamba;
    if (experts) {
        m->num_experts = experts;
        m->moe_intermediate = inter;
        if (get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k))
            return -1;
        m->shared_experts = shared ? 1 : 0;
        m->shared_intermediate = shared;
    } else if (!shared)
        return bad(c, "shared_intermediate_size",
                   "above 0 when num_local_experts is 0 (the shared MLP is then the layer's only MLP)");
    else
        m->intermediate = shared;
    uint64_t h = m->hidden, in = (uint64_t)expand * h, conv_dim = in + 2ull * groups * d_state;
    uint64_t proj_out = in + conv_dim + n_heads;
    m->linear_attn_layer_params = h * proj_out + (proj_bias ? proj_out : 0) + conv_dim * d_conv +
                                  (conv_bias ? conv_dim : 0) + 3ull * n_heads + in + in * h + (proj_bias ? h : 0);
    double conv = (double)conv_dim * (d_conv - 1) * MAMBA_CONV_BYTES;
    double ssm = (double)n_heads * d_head * d_state * MAMBA_SSM_BYTES_DEFAULT;
    return state_bytes(c, "mamba_d_state", (conv + ssm) * mamba, &m->linear_state_bytes_per_request);
}

/* The gated attention layers' output gate (qwen3_next.py / qwen3_5.py: attn_output_gate, true
 * unless the config says otherwise): q_proj yields it beside q. */
static int output_gate(ctx *c, engine_model *m)
{
    return get_bool(c, "attn_output_gate", true, &m->attn_output_gate);
}

static int qwen_next(ctx *c, engine_model *m)
{
    return qwen_moe(c, m) || gated_deltanet(c, m) || output_gate(c, m) ? -1 : 0;
}

/* Qwen3.5 dense: the Gated DeltaNet layers with a dense MLP. */
static int qwen35(ctx *c, engine_model *m)
{
    return gqa(c, m) || get_u32(c, "intermediate_size", true, 1, 0, "the MLP's width", &m->intermediate) ||
                   gated_deltanet(c, m) || output_gate(c, m)
               ? -1
               : 0;
}

static int llama4(ctx *c, engine_model *m)
{
    uint32_t step = 1, chunk = 0;
    if (gqa(c, m) || get_u32(c, "num_local_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "intermediate_size", true, 1, 0, "an expert's (and the shared expert's) width",
                &m->moe_intermediate) ||
        get_u32(c, "intermediate_size_mlp", true, 1, 0, "the dense layers' MLP width", &m->intermediate) ||
        get_u32(c, "interleave_moe_layer_step", false, 1, 1, "the MoE layer interval", &step) ||
        get_u32(c, "attention_chunk_size", false, 1, 0, "the chunked-attention window", &chunk))
        return -1;
    /* llama4.py: MoE where (layer_id + 1) % interleave_moe_layer_step == 0, each with one shared
     * expert of intermediate_size. */
    m->dense_layers = m->layers - m->layers / step;
    m->shared_experts = 1;
    m->shared_intermediate = m->moe_intermediate;
    if (chunk) { /* the RoPE layers attend within chunks; every fourth layer is global */
        /* Chunked (local) attention is not a sliding window: each query sees its own chunk only.
         * attention_chunk carries it (FA3 sizes its local-attention tables by it); sliding_window
         * also gets it because model_runner.py hands it to the backends as their
         * sliding_window_size (v0.4.9.post4, 2272c2a5b), as FlashInfer's two wrappers follow. */
        m->attention_chunk = chunk;
        m->sliding_window = chunk;
        m->swa_layers = m->layers - m->layers / LLAMA4_NOPE_EVERY;
        m->full_attn_layers = m->layers - m->swa_layers;
    }
    return 0;
}

static int glm4_moe(ctx *c, engine_model *m)
{
    return gqa(c, m) || get_u32(c, "intermediate_size", true, 1, 0, "the dense MLP's width", &m->intermediate) ||
                   get_u32(c, "first_k_dense_replace", false, 0, 0, "the leading dense layers", &m->dense_layers) ||
                   get_u32(c, "n_routed_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
                   get_u32(c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
                   get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k) ||
                   get_u32(c, "n_shared_experts", false, 0, 0, "the shared experts", &m->shared_experts) ||
                   get_u32(c, "num_nextn_predict_layers", false, 0, 0, "the MTP layers", &m->draft_layers)
               ? -1
               : 0;
}

/* Mixtral and MiniMax-M2: num_local_experts on every layer, intermediate_size each expert's
 * width; MiniMax-M2's shared_intermediate_size (0 in M2.5 and M2.7) a shared expert's. */
static int local_moe(ctx *c, engine_model *m)
{
    if (gqa(c, m) || get_u32(c, "num_local_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
        get_u32(c, "shared_intermediate_size", false, 0, 0, "the shared expert's width", &m->shared_intermediate))
        return -1;
    m->shared_experts = m->shared_intermediate ? 1 : 0;
    /* attn_type_list: 1 is full (softmax) attention; MiniMax-Text-01's 0 (lightning attention)
     * is a linear kind minimax_m2.py does not build. */
    json_t *types = field(c, "attn_type_list");
    size_t i;
    json_t *t;
    if (types && (!json_is_array(types) || json_array_size(types) > m->layers))
        return bad(c, "attn_type_list", "a list of one attention kind per layer");
    json_array_foreach(types, i, t)
    {
        if (!json_is_integer(t) || json_integer_value(t) != 1)
            return bad(c, "attn_type_list",
                       "1 on every layer (full attention; cgplan reads no lightning-attention layer)");
    }
    return 0;
}

/* grok.py: num_local_experts of moe_intermediate_size (else intermediate_size); with
 * residual_moe, a dense MLP of intermediate_size beside them in every layer, which cgplan holds
 * as a shared expert (both run on every token). */
static int grok(ctx *c, engine_model *m)
{
    uint32_t width = 0;
    bool residual = false;
    m->attn_kind = ATTN_GQA;
    if (get_u32(c, "num_attention_heads", true, 1, 0, "the query heads", &m->heads) ||
        get_u32(c, "num_key_value_heads", false, 1, m->heads, "the KV heads", &m->kv_heads) ||
        get_u32(c, "head_dim", false, 1, GROK_HEAD_DIM, "the head size", &m->head_dim) ||
        get_u32(c, "num_local_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k) ||
        get_u32(c, "intermediate_size", true, 1, 0, "the residual MLP's (or, without one, an expert's) width",
                &width) ||
        get_u32(c, "moe_intermediate_size", false, 1, width, "an expert's width", &m->moe_intermediate) ||
        get_bool(c, "residual_moe", false, &residual))
        return -1;
    if (residual) {
        m->shared_experts = 1;
        m->shared_intermediate = width;
    }
    return 0;
}

/* Gemma 3 (gemma3_causal.py): a layer is sliding unless layer_types says full_attention, or,
 * without it, unless (i + 1) % sliding_window_pattern == 0. Gemma3TextConfig's defaults stand in
 * for the keys the released configs omit. GeGLU: three matrices, as SwiGLU. */
static int gemma3(ctx *c, engine_model *m)
{
    uint32_t window, pattern, full = 0;
    m->attn_kind = ATTN_GQA;
    if (get_u32(c, "num_attention_heads", false, 1, GEMMA3_HEADS, "the query heads", &m->heads) ||
        get_u32(c, "num_key_value_heads", false, 1, GEMMA3_KV_HEADS, "the KV heads", &m->kv_heads) ||
        get_u32(c, "head_dim", false, 1, GEMMA3_HEAD_DIM, "the head size", &m->head_dim) ||
        get_u32(c, "intermediate_size", true, 1, 0, "the MLP's width", &m->intermediate) ||
        get_u32(c, "sliding_window", false, 1, GEMMA3_SLIDING_WINDOW, "the sliding window", &window) ||
        get_u32(c, "sliding_window_pattern", false, 1, GEMMA3_PATTERN, "every how many layers one is global", &pattern))
        return -1;
    json_t *types = field(c, "layer_types");
    if (types && json_is_array(types)) {
        if (count_layer_type(c, types, m->layers, "full_attention", &full))
            return -1;
    } else
        full = m->layers / pattern;
    m->sliding_window = window;
    m->swa_layers = m->layers - full;
    m->full_attn_layers = full;
    return 0;
}

/* Gemma 4 (gemma4_causal.py; SGLang's config parser, utils/hf_transformers/config.py, swaps
 * the global keys in as head_dim / num_key_value_heads and keeps the sliding ones as swa_*):
 * layer_types names each layer's kind; the sliding layers take num_key_value_heads x head_dim,
 * the full ones num_global_key_value_heads (null: num_key_value_heads) x global_head_dim. With
 * enable_moe_block every layer runs its dense MLP of intermediate_size beside num_experts of
 * moe_intermediate_size (top_k_experts), held as a shared expert as Grok's residual MLP is.
 * KV-shared layers (num_kv_shared_layers) keep their slot: get_hybrid_layer_ids counts every
 * entry of layer_types and the pool sizes each. The E-series' per-layer embeddings
 * (hidden_size_per_layer_input) and double-wide shared-layer MLPs are refused: their weights
 * have no key here. GeGLU: three matrices, as SwiGLU. */
static int gemma4(ctx *c, engine_model *m)
{
    uint32_t window = 0, full = 0, swa = 0, ple = 0, shared_kv = 0;
    bool moe = false, double_wide = false;
    m->attn_kind = ATTN_GQA;
    if (get_u32(c, "num_attention_heads", true, 1, 0, "the query heads", &m->heads) ||
        get_u32(c, "num_key_value_heads", true, 1, 0, "the sliding layers' KV heads", &m->kv_heads) ||
        get_u32(c, "head_dim", true, 1, 0, "the sliding layers' head size", &m->head_dim) ||
        get_u32(c, "num_global_key_value_heads", false, 1, m->kv_heads, "the full layers' KV heads",
                &m->full_kv_heads) ||
        get_u32(c, "global_head_dim", false, 1, m->head_dim, "the full layers' head size", &m->full_head_dim) ||
        get_u32(c, "intermediate_size", true, 1, 0, "the dense MLP's width", &m->intermediate) ||
        get_u32(c, "sliding_window", true, 1, 0, "the sliding window", &window) ||
        get_u32(c, "hidden_size_per_layer_input", false, 0, 0, "the per-layer input width", &ple) ||
        get_u32(c, "num_kv_shared_layers", false, 0, 0, "the KV-shared layers", &shared_kv) ||
        get_bool(c, "use_double_wide_mlp", false, &double_wide) || get_bool(c, "enable_moe_block", false, &moe))
        return -1;
    if (ple)
        return bad(c, "hidden_size_per_layer_input",
                   "0 (the E-series' per-layer embeddings are not modelled; write its preset by hand or plan a "
                   "Gemma 4 without them)");
    if (double_wide && shared_kv)
        return bad(c, "use_double_wide_mlp", "false (KV-shared layers with a doubled MLP are not modelled)");
    json_t *types = field(c, "layer_types");
    if (!types || !json_is_array(types))
        return missing(c, "layer_types", "a list of sliding_attention or full_attention, one per layer");
    if (count_layer_type(c, types, m->layers, "full_attention", &full) ||
        count_layer_type(c, types, m->layers, "sliding_attention", &swa))
        return -1;
    if (full + swa != m->layers) {
        char expected[PHRASE_MAX];
        snprintf(expected, sizeof expected,
                 "sliding_attention or full_attention for each of the %u layers (%u and %u counted)", m->layers, swa,
                 full);
        return bad(c, "layer_types", expected);
    }
    m->sliding_window = window;
    m->swa_layers = swa;
    m->full_attn_layers = full;
    if (!full || !swa || (m->full_kv_heads == m->kv_heads && m->full_head_dim == m->head_dim))
        m->full_kv_heads = m->full_head_dim = 0; /* one shape for every layer */
    if (moe) {
        if (get_u32(c, "num_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
            get_u32(c, "top_k_experts", true, 1, 0, "the experts per token", &m->top_k) ||
            get_u32(c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate))
            return -1;
        m->shared_experts = 1;
        m->shared_intermediate = m->intermediate;
        m->intermediate = 0;
    }
    c->attn_own_dtype = true;
    return 0;
}

/* A vision tower's parameters (matrices and embeddings, as weights.h counts the decoder) and
 * the parts SGLang splits over the attention TP group and over tp; the rest is whole on every
 * GPU. Formed in floating point so that no product can wrap (exact below 2^53, as every real
 * tower is). */
typedef struct {
    double total, attn_tp, tp;
} tower_parts;

/* The Qwen3-VL vision tower (Qwen3.5 has the same; qwen3_vl.py Qwen3VLMoeVisionModel): the
 * patch embedding (a Conv3d over in_channels x temporal_patch_size x patch_size^2, whole on every
 * GPU), the position embedding, depth blocks of qkv, proj and a two-matrix MLP, the merger and
 * one more per deepstack_visual_indexes entry, each fc1 over the 2x2 merged patches and fc2 to
 * out_hidden_size; all but the patch embedding over the attention TP group (VisionAttention,
 * Qwen3_VisionMLP, the mergers and the vocab-parallel pos_embed take attn_tp_size). */
static int qwen3_vl_tower(ctx *sub, json_t *vc, tower_parts *out)
{
    uint32_t h, depth, inter, patch, temporal, channels, positions, out_hidden, merge;
    size_t deepstack = 0;
    if (get_u32(sub, "hidden_size", true, 1, 0, "the vision tower's width", &h) ||
        get_u32_in(sub, "depth", true, 1, (uint32_t)ENGINE_COUNT_MAX, 0, "the vision blocks", &depth) ||
        get_u32(sub, "intermediate_size", true, 1, 0, "the vision MLP's width", &inter) ||
        get_u32(sub, "patch_size", true, 1, 0, "the patch size", &patch) ||
        get_u32(sub, "temporal_patch_size", false, 1, 2, "the temporal patch size", &temporal) ||
        get_u32(sub, "in_channels", false, 1, 3, "the image channels", &channels) ||
        get_u32(sub, "num_position_embeddings", false, 0, 0, "the position embeddings", &positions) ||
        get_u32(sub, "out_hidden_size", true, 1, 0, "the width the merger projects to", &out_hidden) ||
        get_u32(sub, "spatial_merge_size", false, 1, 2, "the patches merged per side", &merge) ||
        array_len(sub, vc, "deepstack_visual_indexes", "a list of block indices", &deepstack))
        return -1;
    if (deepstack > depth)
        return bad(sub, "deepstack_visual_indexes", "a list of at most depth block indices");
    double w = h, merged = w * merge * merge;
    double block = w * 3 * w + w * w + 2 * w * inter;
    double merger = merged * merged + merged * out_hidden;
    double patch_embed = (double)channels * temporal * patch * patch * w;
    out->attn_tp = (double)positions * w + depth * block + (1.0 + (double)deepstack) * merger;
    out->total = patch_embed + out->attn_tp;
    return 0;
}

/* The Qwen2.5-VL vision tower (qwen2_5_vl.py Qwen2_5_VisionTransformer): the Conv3d patch
 * embedding (whole on every GPU); depth blocks of VisionAttention qkv and proj (attn_tp) and a
 * gated MLP, gate, up and down over intermediate_size (Qwen2_5_VLMLP, over tp); the merger
 * (Qwen2_5_VisionPatchMerger, over tp): hidden x merge^2 to itself, then to out_hidden_size. A key
 * the vision_config omits takes Qwen2_5_VLVisionConfig's default (depth 32, width 3584, MLP 3420,
 * patch 14, 2 frames, 2 x 2 merge, out 3584): transformers writes only the keys that differ when it
 * saves a config again (Qwen's own AWQ release keeps 4 of them); in_chans, which the released
 * configs also write, is not a key of that class and is ignored as it ignores it. */
static int qwen25_vl_tower(ctx *sub, tower_parts *out)
{
    uint32_t h, depth, inter, patch, temporal, channels, out_hidden, merge;
    if (get_u32(sub, "hidden_size", false, 1, 3584, "the vision tower's width", &h) ||
        get_u32_in(sub, "depth", false, 1, (uint32_t)ENGINE_COUNT_MAX, 32, "the vision blocks", &depth) ||
        get_u32(sub, "intermediate_size", false, 1, 3420, "the vision MLP's width", &inter) ||
        get_u32(sub, "patch_size", false, 1, 14, "the patch size", &patch) ||
        get_u32(sub, "temporal_patch_size", false, 1, 2, "the temporal patch size", &temporal) ||
        get_u32(sub, "in_channels", false, 1, 3, "the image channels", &channels) ||
        get_u32(sub, "out_hidden_size", false, 1, 3584, "the width the merger projects to", &out_hidden) ||
        get_u32(sub, "spatial_merge_size", false, 1, 2, "the patches merged per side", &merge))
        return -1;
    double w = h, merged = w * merge * merge;
    out->attn_tp = depth * 4 * w * w;
    out->tp = depth * 3 * w * inter + merged * merged + merged * out_hidden;
    out->total = (double)channels * temporal * patch * patch * w + out->attn_tp + out->tp;
    return 0;
}

/* Gemma 3's SigLIP tower (siglip.py SiglipVisionModel, SiglipVisionConfig's defaults for the
 * keys a vision_config omits) and gemma3_mm.py's projector: the Conv2d patch embedding and the
 * projector's mm_input_projection_weight (hidden x the text width, an nn.Parameter) whole on
 * every GPU; the position embedding ((image_size / patch_size)^2 rows, vocab-parallel) and each
 * layer's fc1 / fc2 over tp; each layer's VisionAttention qkv and out over attn_tp. */
static int siglip_tower(ctx *sub, uint32_t text_hidden, tower_parts *out)
{
    uint32_t h, layers, inter, patch, image, channels;
    if (get_u32(sub, "hidden_size", false, 1, 768, "the vision tower's width", &h) ||
        get_u32_in(sub, "num_hidden_layers", false, 1, (uint32_t)ENGINE_COUNT_MAX, 12, "the vision layers", &layers) ||
        get_u32(sub, "intermediate_size", false, 1, 3072, "the vision MLP's width", &inter) ||
        get_u32(sub, "patch_size", false, 1, 16, "the patch size", &patch) ||
        get_u32(sub, "image_size", false, 1, 224, "the image size", &image) ||
        get_u32(sub, "num_channels", false, 1, 3, "the image channels", &channels))
        return -1;
    double w = h, side = (double)(image / patch);
    out->attn_tp = layers * 4 * w * w;
    out->tp = side * side * w + layers * 2 * w * inter;
    out->total = (double)channels * patch * patch * w + w * text_hidden + out->attn_tp + out->tp;
    return 0;
}

/* Kimi K2.5's MoonViT (kimi_k25.py): the Conv2d patch embedding over 3 channels, the learnt
 * init_pos_emb_height x init_pos_emb_width position embedding, vt_num_hidden_layers layers of
 * VisionAttention (attn_tp) and an MLP2 fc0 / fc1 (built without tensor parallelism: whole), and
 * K2VLMultiModalProjector's ReplicatedLinear linear_1 (merged width to itself) and linear_2 (to
 * text_hidden_size), the merged width vt_hidden_size x merge_kernel_size's product. */
static int moonvit_tower(ctx *sub, json_t *vc, uint32_t text_hidden, tower_parts *out)
{
    uint32_t h, layers, inter, patch, pos_h, pos_w, text;
    if (get_u32(sub, "vt_hidden_size", true, 1, 0, "the vision tower's width", &h) ||
        get_u32_in(sub, "vt_num_hidden_layers", true, 1, (uint32_t)ENGINE_COUNT_MAX, 0, "the vision layers", &layers) ||
        get_u32(sub, "vt_intermediate_size", true, 1, 0, "the vision MLP's width", &inter) ||
        get_u32(sub, "patch_size", false, 1, 14, "the patch size", &patch) ||
        get_u32(sub, "init_pos_emb_height", false, 1, 14, "the position embedding's rows", &pos_h) ||
        get_u32(sub, "init_pos_emb_width", false, 1, 14, "the position embedding's columns", &pos_w) ||
        get_u32(sub, "text_hidden_size", false, 1, text_hidden, "the language model's width", &text))
        return -1;
    json_t *kernel = json_object_get(vc, "merge_kernel_size");
    double merge = 4; /* [2, 2] */
    if (kernel && !json_is_null(kernel)) {
        json_t *kh = json_array_get(kernel, 0), *kw = json_array_get(kernel, 1);
        if (!json_is_array(kernel) || json_array_size(kernel) != 2 || !json_is_integer(kh) || !json_is_integer(kw) ||
            json_integer_value(kh) < 1 || json_integer_value(kw) < 1 || json_integer_value(kh) > 64 ||
            json_integer_value(kw) > 64)
            return bad(sub, "merge_kernel_size", "a pair of integers in 1..64 (the patches merged per side)");
        merge = (double)json_integer_value(kh) * (double)json_integer_value(kw);
    }
    double w = h, merged = w * merge;
    out->attn_tp = layers * 4 * w * w;
    out->total = 3.0 * patch * patch * w + (double)pos_h * pos_w * w + layers * 2 * w * inter + out->attn_tp +
                 merged * merged + merged * text;
    return 0;
}

/* Mistral 3's Pixtral tower (pixtral.py PixtralHFVisionModel, PixtralVisionConfig's defaults for
 * the keys a vision_config omits) and transformers' Mistral3MultiModalProjector, which mistral.py
 * builds: the Conv2d patch embedding (whole on every GPU); num_hidden_layers of VisionAttention
 * q, k, v, o (attn_tp) and a gated MLP, gate_up and down over intermediate_size (PixtralHFMLP, over
 * tp); the projector's nn.Linear patch merger (hidden x spatial_merge_size^2 to hidden), linear_1
 * (to the text width) and linear_2 (text width to itself), whole. */
static int pixtral_tower(ctx *sub, uint32_t text_hidden, tower_parts *out)
{
    uint32_t h, layers, inter, patch, channels, merge;
    if (get_u32(sub, "hidden_size", false, 1, 1024, "the vision tower's width", &h) ||
        get_u32_in(sub, "num_hidden_layers", false, 1, (uint32_t)ENGINE_COUNT_MAX, 24, "the vision layers", &layers) ||
        get_u32(sub, "intermediate_size", false, 1, 4096, "the vision MLP's width", &inter) ||
        get_u32(sub, "patch_size", false, 1, 16, "the patch size", &patch) ||
        get_u32(sub, "num_channels", false, 1, 3, "the image channels", &channels))
        return -1;
    ctx top = *sub; /* Mistral3Config keeps spatial_merge_size beside vision_config */
    top.cfg = sub->root;
    top.prefix = "";
    if (get_u32_in(&top, "spatial_merge_size", false, 1, 64, 2, "the patches merged per side", &merge))
        return -1;
    double w = h, t = text_hidden, merged = w * merge * merge;
    out->attn_tp = layers * 4 * w * w;
    out->tp = layers * 3 * w * inter;
    out->total = (double)channels * patch * patch * w + merged * w + w * t + t * t + out->attn_tp + out->tp;
    return 0;
}

/* Gemma 4's vision encoder (gemma4_vision.py Gemma4VisionEncoder, Gemma4VisionConfig's defaults
 * for the keys a vision_config omits) and gemma4_mm.py's embed_vision: the patch embedder's
 * nn.Linear over 3 x patch_size^2 pixels and its nn.Parameter position table (2 x
 * position_embedding_size rows), and embed_vision's ReplicatedLinear (output_proj_dims, else the
 * width, to the text width), whole on every GPU; num_hidden_layers of a fused q / k / v over
 * head_dim-wide heads, o_proj, and a gated MLP (gate_up, down over intermediate_size). The
 * Clippable* wrappers size their splits by attn_tp_size, but the QKVParallelLinear,
 * MergedColumnParallelLinear and RowParallelLinear inside take no tp_size and so shard over
 * linear.py's default, the whole tp group: all of a layer is over tp. */
static int gemma4_vision_tower(ctx *sub, uint32_t text_hidden, tower_parts *out)
{
    uint32_t h, layers, inter, heads, kv_heads, head_dim, patch, positions, proj;
    if (get_u32(sub, "hidden_size", false, 1, 768, "the vision tower's width", &h) ||
        get_u32_in(sub, "num_hidden_layers", false, 1, (uint32_t)ENGINE_COUNT_MAX, 16, "the vision layers", &layers) ||
        get_u32(sub, "intermediate_size", false, 1, 3072, "the vision MLP's width", &inter) ||
        get_u32(sub, "num_attention_heads", false, 1, 12, "the vision query heads", &heads) ||
        get_u32(sub, "num_key_value_heads", false, 1, 12, "the vision KV heads", &kv_heads) ||
        get_u32(sub, "head_dim", false, 1, 64, "the vision head size", &head_dim) ||
        get_u32(sub, "patch_size", false, 1, 16, "the patch size", &patch) ||
        get_u32(sub, "position_embedding_size", false, 1, 10240, "the position table's rows per axis", &positions) ||
        get_u32(sub, "output_proj_dims", false, 1, h, "the width embed_vision projects from", &proj))
        return -1;
    double w = h, hd = head_dim;
    double attn = w * (heads + 2.0 * kv_heads) * hd + (double)heads * hd * w;
    out->tp = layers * (attn + 3 * w * inter);
    out->total = 3.0 * patch * patch * w + 2.0 * positions * w + (double)proj * text_hidden + out->tp;
    return 0;
}

/* The vision tower of KIND from the config's vision_config into M's vision_params and its
 * split; none without a vision_config. */
static int vision_tower(ctx *c, tower kind, engine_model *m)
{
    json_t *vc = json_object_get(c->root, "vision_config");
    if (kind == TOWER_NONE || !json_is_object(vc))
        return 0;
    ctx sub = *c;
    sub.cfg = vc;
    sub.prefix = "vision_config.";
    tower_parts t = {0, 0, 0};
    int rc = kind == TOWER_QWEN3_VL    ? qwen3_vl_tower(&sub, vc, &t)
             : kind == TOWER_QWEN25_VL ? qwen25_vl_tower(&sub, &t)
             : kind == TOWER_SIGLIP    ? siglip_tower(&sub, m->hidden, &t)
             : kind == TOWER_PIXTRAL   ? pixtral_tower(&sub, m->hidden, &t)
             : kind == TOWER_GEMMA4    ? gemma4_vision_tower(&sub, m->hidden, &t)
                                       : moonvit_tower(&sub, vc, m->hidden, &t);
    if (rc)
        return -1;
    if (t.total > (double)ENGINE_SIZE_MAX)
        return bad(&sub, "hidden_size", "the width of a vision tower of at most 2^50 parameters");
    m->vision_params = (uint64_t)t.total;
    m->vision_attn_tp_params = (uint64_t)t.attn_tp;
    m->vision_tp_params = (uint64_t)t.tp;
    return 0;
}

static int gpt_oss(ctx *c, engine_model *m)
{
    uint32_t window = 0;
    if (gqa(c, m) || get_u32(c, "num_local_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
        get_u32(c, "intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
        get_u32(c, "sliding_window", false, 1, 0, "the sliding window", &window))
        return -1;
    if (field(c, "num_experts_per_tok")) {
        if (get_u32(c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k))
            return -1;
    } else if (get_u32(c, "experts_per_token", true, 1, 0, "the experts per token", &m->top_k))
        return -1;
    json_t *types = field(c, "layer_types");
    if (types && json_is_array(types) && window) {
        m->sliding_window = window;
        if (count_layer_type(c, types, m->layers, "sliding_attention", &m->swa_layers))
            return -1;
        m->full_attn_layers = m->layers - m->swa_layers;
    }
    return 0;
}

/* ---- Names. ---- */

/* The last path component of PATH before its file name, and the file name. */
static void split_path(const char *path, const char **dir, size_t *dir_len, const char **base)
{
    const char *slash = strrchr(path, '/');
    *base = slash ? slash + 1 : path;
    *dir = NULL;
    *dir_len = 0;
    if (!slash)
        return;
    const char *end = slash;
    while (end > path && end[-1] == '/')
        end--;
    const char *start = end;
    while (start > path && start[-1] != '/')
        start--;
    *dir = start;
    *dir_len = (size_t)(end - start);
}

/* One part of a Hugging Face id (huggingface_hub validate_repo_id): 1 to 96 of [A-Za-z0-9._-],
 * starting and ending with a letter, digit or '_', with no "--" or "..". */
static bool hf_part(const char *s, size_t n)
{
    if (n == 0 || n > HF_PART_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        bool word = isalnum(ch) || ch == '_';
        if (!word && ch != '.' && ch != '-')
            return false;
        if ((i == 0 || i == n - 1) && !word)
            return false;
        if (i && (ch == '-' || ch == '.') && s[i - 1] == (char)ch)
            return false;
    }
    return true;
}

/* Is ID owner/name, each part a Hugging Face one? */
static bool hf_id_plausible(const char *id)
{
    const char *slash = strchr(id, '/');
    return slash && hf_part(id, (size_t)(slash - id)) && hf_part(slash + 1, strlen(slash + 1));
}

/* A _name_or_path that names a place on disk: absolute, relative, under ~, or deeper than
 * owner/name. */
static bool local_path(const char *s)
{
    const char *slash = strchr(s, '/');
    return s[0] == '/' || s[0] == '.' || s[0] == '~' || (slash && strchr(slash + 1, '/'));
}

/* Where the preset is named from: the file's stem (without .json, and without AIConfigurator's
 * .config or _config), or the folder's name for a plain config.json; "" when there is none. An
 * "owner--name" stem (AIConfigurator's convention and many mirrors') also gives the id
 * owner/name (ID, "" otherwise) and the name alone as the stem. */
typedef struct {
    char stem[ENGINE_TEXT_MAX];
    char id[ENGINE_TEXT_MAX];
} source_names;

static void source_name(const char *path, source_names *out)
{
    const char *dir, *base;
    size_t dir_len, n;
    split_path(path, &dir, &dir_len, &base);
    out->stem[0] = out->id[0] = '\0';
    const char *from = base;
    if (strcmp(base, CONFIG_JSON) == 0) {
        if (!dir || !dir_len || (dir_len == 1 && dir[0] == '.'))
            return;
        from = dir;
        n = dir_len;
    } else {
        n = strlen(base);
        if (n > 5 && strcmp(base + n - 5, ".json") == 0)
            n -= 5;
        if (n > 7 && (strncmp(base + n - 7, ".config", 7) == 0 || strncmp(base + n - 7, "_config", 7) == 0))
            n -= 7;
    }
    snprintf(out->stem, sizeof out->stem, "%.*s", (int)n, from);
    const char *sep = strstr(out->stem, "--");
    if (sep && hf_part(out->stem, (size_t)(sep - out->stem)) && hf_part(sep + 2, strlen(sep + 2))) {
        snprintf(out->id, sizeof out->id, "%.*s/%s", (int)(sep - out->stem), out->stem, sep + 2);
        memmove(out->stem, sep + 2, strlen(sep + 2) + 1);
    }
}

void preset_model_import_name(const char *path, char *buf, size_t len)
{
    source_names src;
    source_name(path, &src);
    size_t i = 0;
    for (; src.stem[i] && i + 1 < len; i++) {
        unsigned char ch = (unsigned char)tolower((unsigned char)src.stem[i]);
        buf[i] = isalnum(ch) || ch == '.' || ch == '_' || ch == '-' ? (char)ch : '-';
    }
    if (len)
        buf[i < len ? i : len - 1] = '\0';
}

int preset_model_check_name(const char *name, char *err, size_t errlen)
{
    size_t n = strlen(name);
    if (n >= ENGINE_NAME_MAX)
        return preset_set_err(err, errlen,
                              "'%.24s...' is %zu characters; a preset name has at most %d (give a shorter --name)",
                              name, n, ENGINE_NAME_MAX - 1);
    bool ok = n > 0 && n < ENGINE_NAME_MAX && name[0] != '.' && name[0] != '-';
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)name[i]) || name[i] == '.' || name[i] == '_' || name[i] == '-';
    if (!ok)
        return preset_set_err(err, errlen,
                              "'%s' is not a preset name; expected 1 to %d of letters, digits, '.', '_' and '-', "
                              "not starting with '.' or '-' (give --name NAME)",
                              name, ENGINE_NAME_MAX - 1);
    return 0;
}

int preset_model_set_hf_id(engine_model *m, const char *id, char *err, size_t errlen)
{
    if (!hf_id_plausible(id) || strlen(id) >= sizeof m->hf_names[0])
        return preset_set_err(err, errlen,
                              "'%s' is not a Hugging Face id; expected owner/name, each 1 to %d of letters, digits, "
                              "'.', '_' and '-' (no '--' or '..', at most %zu bytes in all)",
                              id, HF_PART_MAX, sizeof m->hf_names[0] - 1);
    snprintf(m->hf_names[0], sizeof m->hf_names[0], "%s", id);
    m->n_hf_names = 1;
    return 0;
}

/* Adds ID to M's hf_names unless it is there (Hugging Face ids match without case). */
static void add_hf_name(engine_model *m, const char *id)
{
    for (int i = 0; i < m->n_hf_names; i++)
        if (strcasecmp(m->hf_names[i], id) == 0)
            return;
    if (m->n_hf_names < ENGINE_MAX_HF_NAMES)
        snprintf(m->hf_names[m->n_hf_names++], sizeof m->hf_names[0], "%s", id);
}

/* hf_names: the id of an owner--name file (or folder), then _name_or_path when it is a
 * Hugging Face id, then the stem or folder name unless an id ends in it (--model matches an
 * id's last component; `launch` prints the first). A _name_or_path that is a local path says
 * where the checkpoint was built, not what to load: ignored. One that a shell would read is
 * refused, as `launch` prints it (issue 21); one that fits no id is ignored. */
static int import_hf_names(ctx *c, engine_model *m)
{
    source_names src;
    source_name(c->path, &src);
    if (src.id[0] && strlen(src.id) < sizeof m->hf_names[0])
        add_hf_name(m, src.id);
    json_t *nop = json_object_get(c->root, "_name_or_path");
    const char *id = json_is_string(nop) ? json_string_value(nop) : "";
    if (*id && !local_path(id)) {
        const char *unsafe = engine_shell_unsafe(id);
        if (unsafe) {
            char what[PHRASE_MAX];
            engine_char_name(unsafe, what, sizeof what);
            return preset_set_err(c->err, c->errlen,
                                  "%s: _name_or_path: '%s' holds %s, which a shell would read; expected a Hugging "
                                  "Face id of letters, digits and @%%+=:,./_- (fix or remove the key)",
                                  c->path, id, what);
        }
        if (hf_id_plausible(id)) {
            if (strlen(id) >= sizeof m->hf_names[0])
                return preset_set_err(c->err, c->errlen,
                                      "%s: _name_or_path: longer than %zu bytes; expected a Hugging Face id", c->path,
                                      sizeof m->hf_names[0] - 1);
            add_hf_name(m, id);
        }
    }
    bool named = false;
    for (int i = 0; i < m->n_hf_names && !named; i++)
        named = strcasecmp(strchr(m->hf_names[i], '/') + 1, src.stem) == 0; /* so far, ids only */
    if (src.stem[0] && !named)
        add_hf_name(m, src.stem);
    return 0;
}

static size_t shared_prefix(const char *a, const char *b)
{
    size_t n = 0;
    while (a[n] && tolower((unsigned char)a[n]) == tolower((unsigned char)b[n]))
        n++;
    return n;
}

/* The known architecture nearest ARCH: the least edit distance, ties (and names too long to
 * compare) to the longest shared prefix. */
static const char *nearest_arch(const char *arch)
{
    size_t best = 0;
    for (size_t i = 1; i < N_ARCHS; i++) {
        size_t d = engine_edit_distance(arch, archs[i].arch, true),
               bd = engine_edit_distance(arch, archs[best].arch, true);
        if (d < bd || (d == bd && shared_prefix(arch, archs[i].arch) > shared_prefix(arch, archs[best].arch)))
            best = i;
    }
    return archs[best].arch;
}

/* ---- The import. ---- */

int preset_model_from_config_json(const char *path, engine_model *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    json_t *root = load_json(path, err, errlen);
    if (!root)
        return -1;
    ctx c = {.path = path, .root = root, .cfg = root, .prefix = "", .err = err, .errlen = errlen};
    int rc = -1;
    json_t *a = json_object_get(root, "architectures");
    json_t *a0 = json_is_array(a) ? json_array_get(a, 0) : NULL;
    if (!json_is_string(a0)) {
        missing(&c, "architectures", "a list whose first entry names the architecture, like [\"Qwen3ForCausalLM\"]");
        goto done;
    }
    const char *arch = json_string_value(a0);
    size_t k = 0;
    while (k < N_ARCHS && strcmp(archs[k].arch, arch) != 0)
        k++;
    if (k == N_ARCHS) {
        preset_set_err(
            err, errlen,
            "%s: architectures[0]: '%s' is not one cgplan reads; the nearest name it reads is '%s' (the "
            "README lists the %zu it reads by family); a model preset written by hand takes any architecture",
            path, arch, nearest_arch(arch), N_ARCHS);
        goto done;
    }
    family fam = archs[k].fam;
    if (archs[k].nested || json_is_object(json_object_get(root, "text_config"))) {
        c.cfg = json_object_get(root, "text_config");
        c.prefix = "text_config.";
        if (!json_is_object(c.cfg)) {
            c.cfg = root;
            c.prefix = "";
            missing(&c, "text_config", "an object with the text model's keys");
            goto done;
        }
    }
    engine_model *m = out;
    snprintf(m->architecture, sizeof m->architecture, "%s", arch);
    /* Custom code in the repository (auto_map) is what SGLang's --trust-remote-code is for,
     * unless transformers ships the config class (it then loads without the code). */
    m->trust_remote_code = json_object_get(root, "auto_map") != NULL && !archs[k].native_config;
    uint32_t ctx_len = 0;
    bool gemma = fam == FAM_GEMMA3;
    /* their config classes tie by default */
    bool ties_by_default = gemma || fam == FAM_LFM2 || fam == FAM_LFM2_MOE || fam == FAM_GEMMA4;
    /* Every loop over the layers comes after this bound; the context is the context_len knob's
     * range, refused rather than clamped (the preset loader takes no other). */
    const engine_knob_info *ctx_knob = &engine_knobs[KNOB_CONTEXT_LEN];
    if (get_u32(&c, "vocab_size", !gemma, 1, GEMMA3_VOCAB, "the vocabulary", &m->vocab) ||
        get_u32(&c, "hidden_size", true, 1, 0, "the model width", &m->hidden) ||
        get_u32_in(&c, "num_hidden_layers", true, 1, (uint32_t)ENGINE_COUNT_MAX, 0, "the decoder layers", &m->layers) ||
        get_u32_in(&c, "max_position_embeddings", !gemma, (uint32_t)ctx_knob->min, (uint32_t)ctx_knob->max,
                   GEMMA3_CONTEXT, "the context length, within the context_len knob's range", &ctx_len) ||
        get_bool(&c, "tie_word_embeddings", ties_by_default, &m->tie_embeddings))
        goto done;
    m->context_len = ctx_len;
    m->kv_bytes = KV_BYTES_BF16;
    m->full_attn_layers = m->layers;
    switch (fam) {
    case FAM_DEEPSEEK:
        rc = deepseek(&c, m);
        break;
    case FAM_KIMI_LINEAR:
        rc = kimi_linear(&c, m);
        break;
    case FAM_DEEPSEEK_V4:
        rc = deepseek_v4(&c, m);
        break;
    case FAM_DENSE: {
        static const char *const not_dense[] = {"kv_lora_rank", "n_routed_experts", "num_local_experts"};
        for (size_t i = 0; i < sizeof not_dense / sizeof not_dense[0]; i++)
            if (field(&c, not_dense[i])) {
                bad(&c, not_dense[i],
                    "a key of a dense GQA model (cgplan reads this architecture as one; an MLA or "
                    "MoE text model, as Mistral Small 4's, it does not read)");
                goto done;
            }
        rc = gqa(&c, m) || get_u32(&c, "intermediate_size", true, 1, 0, "the MLP's width", &m->intermediate) ? -1 : 0;
        break;
    }
    case FAM_QWEN_MOE:
        rc = qwen_moe(&c, m);
        break;
    case FAM_QWEN_NEXT:
        rc = qwen_next(&c, m);
        break;
    case FAM_QWEN35:
        rc = qwen35(&c, m);
        break;
    case FAM_LLAMA4:
        rc = llama4(&c, m);
        break;
    case FAM_GLM4_MOE:
        rc = glm4_moe(&c, m);
        break;
    case FAM_LOCAL_MOE:
        rc = local_moe(&c, m);
        break;
    case FAM_GROK:
        rc = grok(&c, m);
        break;
    case FAM_GEMMA3:
        rc = gemma3(&c, m);
        break;
    case FAM_GEMMA4:
        rc = gemma4(&c, m);
        break;
    case FAM_GPT_OSS:
        rc = gpt_oss(&c, m);
        break;
    case FAM_LFM2:
        /* LFM2's own configs write tie_embedding (Lfm2Config reads it over tie_word_embeddings) */
        rc = get_bool(&c, "tie_embedding", m->tie_embeddings, &m->tie_embeddings) || lfm2(&c, m, false) ? -1 : 0;
        break;
    case FAM_LFM2_MOE:
        /* lfm2_moe.py: the first num_dense_layers (Lfm2MoeConfig: 2) keep the dense MLP, the
         * others route to num_experts of moe_intermediate_size (top num_experts_per_tok, no
         * shared expert); tie_word_embeddings defaults to true there too */
        rc = lfm2(&c, m, true) ||
                     get_u32(&c, "num_dense_layers", false, 0, 2, "the leading dense layers", &m->dense_layers) ||
                     get_u32(&c, "num_experts", true, 1, 0, "the routed experts", &m->num_experts) ||
                     get_u32(&c, "moe_intermediate_size", true, 1, 0, "an expert's width", &m->moe_intermediate) ||
                     get_u32(&c, "num_experts_per_tok", true, 1, 0, "the experts per token", &m->top_k)
                 ? -1
                 : 0;
        break;
    case FAM_HUNYUAN:
        rc = hunyuan(&c, m);
        break;
    case FAM_ERNIE45:
        rc = ernie45(&c, m);
        break;
    case FAM_GRANITE_H: /* GraniteMoeHybridConfig ties by default */
        rc = get_bool(&c, "tie_word_embeddings", true, &m->tie_embeddings) || granite_hybrid(&c, m) ? -1 : 0;
        break;
    }
    if (rc != 0)
        goto done;
    rc = -1;
    if (m->num_experts && !m->dispatch_hidden)
        m->dispatch_hidden = m->hidden;
    if (m->top_k > m->num_experts && m->num_experts) {
        bad(&c, "num_experts_per_tok", "at most the number of experts");
        goto done;
    }
    if (m->dense_layers > m->layers) {
        bad(&c, "first_k_dense_replace", "at most num_hidden_layers");
        goto done;
    }
    if (!m->num_experts)
        m->dense_layers = 0; /* a dense model's layers are all dense */
    if (weight_dtypes(&c, m) || vision_tower(&c, archs[k].tower, m))
        goto done;

    preset_model_import_name(path, m->name, sizeof m->name);
    if (import_hf_names(&c, m))
        goto done;
    snprintf(m->description, sizeof m->description, "imported from %.160s (%s)", path, arch);
    char why[PRESET_MSG_MAX];
    if (engine_model_check(m, why, sizeof why) != 0) { /* before any product of its sizes */
        preset_set_err(err, errlen, "%s: %s", path, why);
        goto done;
    }
    m->param_count = engine_model_param_count(m); /* the vision tower with it, as the model cards count */
    for (int i = 0; i < COEF_COUNT; i++)
        m->coef_missing[i] = true; /* unknown until calibrated: never another model's number */
    m->coef_borrowed = true;
    rc = 0;
done:
    json_decref(root);
    return rc;
}

/* ---- Writing the preset. ---- */

int preset_model_write_yaml(FILE *f, const engine_model *m, const char *source)
{
    fprintf(f, "# Imported by `cgplan model import` from ");
    preset_yaml_write_comment_text(f, source);
    fprintf(f, ".\n# No coefficients: every term comes from its mechanism; `cgplan calibrate` refines them.\n");
    fprintf(f, "kind: model\nname: %s\ndescription: ", m->name);
    preset_yaml_write_quoted(f, m->description);
    fprintf(f, "\nhf_names: [");
    for (int i = 0; i < m->n_hf_names; i++) {
        fputs(i ? ", " : "", f);
        preset_yaml_write_quoted(f, m->hf_names[i]);
    }
    fprintf(f, "]\narchitecture: %s\ntrust_remote_code: %s\n", m->architecture,
            m->trust_remote_code ? "true" : "false");
    fprintf(f, "vocab: %u\nhidden: %u\nlayers: %u\ncontext_len: %llu\ntie_embeddings: %s\n", m->vocab, m->hidden,
            m->layers, (unsigned long long)m->context_len, m->tie_embeddings ? "true" : "false");
    static const char *const kind_names[] = {[ATTN_MLA] = "mla", [ATTN_GQA] = "gqa", [ATTN_DSV4] = "dsv4"};
    fprintf(f, "attention:\n  kind: %s\n  heads: %u\n", kind_names[m->attn_kind], m->heads);
    if (m->attn_kind == ATTN_DSV4) {
        fprintf(f,
                "  head_dim: %u\n  qk_rope_dim: %u\n  q_lora_rank: %u\n  o_lora_rank: %u\n  o_groups: %u\n"
                "  sliding_window: %u\n  index_heads: %u\n  index_head_dim: %u\n  index_topk: %u\n  hc_mult: %u\n",
                m->head_dim, m->qk_rope_dim, m->q_lora_rank, m->o_lora_rank, m->o_groups, m->sliding_window,
                m->index_heads, m->index_head_dim, m->index_topk, m->hc_mult);
        /* counted by value: the planner needs no more than how many of each */
        fprintf(f, "  # compress_ratios by value: %u x 0, %u x 4, %u x 128 (config order not kept)\n  compress_ratios: [",
                m->dsv4_swa_only_layers, m->dsv4_c4_layers, m->dsv4_c128_layers);
        const uint32_t counts[] = {m->dsv4_swa_only_layers, m->dsv4_c4_layers, m->dsv4_c128_layers};
        const unsigned values[] = {0, 4, 128};
        bool first = true;
        for (size_t k = 0; k < 3; k++)
            for (uint32_t n = 0; n < counts[k]; n++, first = false)
                fprintf(f, "%s%u", first ? "" : ", ", values[k]);
        fprintf(f, "]\n");
    } else if (m->attn_kind == ATTN_MLA) {
        fprintf(f, "  kv_lora_rank: %u\n  qk_rope_dim: %u\n  qk_nope_dim: %u\n  v_head_dim: %u\n", m->kv_lora_rank,
                m->qk_rope_dim, m->qk_nope_dim, m->v_head_dim);
        if (m->q_lora_rank)
            fprintf(f, "  q_lora_rank: %u\n", m->q_lora_rank);
    } else {
        fprintf(f, "  kv_heads: %u\n  head_dim: %u\n", m->kv_heads, m->head_dim);
        if (m->swa_layers)
            fprintf(f, "  sliding_window: %u\n  swa_layers: %u\n", m->sliding_window, m->swa_layers);
        if (m->full_kv_heads)
            fprintf(f, "  full_kv_heads: %u\n", m->full_kv_heads);
        if (m->full_head_dim)
            fprintf(f, "  full_head_dim: %u\n", m->full_head_dim);
        if (m->attention_chunk)
            fprintf(f, "  attention_chunk_size: %u\n", m->attention_chunk);
        if (m->attn_output_gate)
            fprintf(f, "  output_gate: true\n");
    }
    if (m->attn_kind != ATTN_DSV4)
        fprintf(f, "  full_attn_layers: %u\n", m->full_attn_layers);
    if (m->linear_attn_layers)
        fprintf(f, "  linear_attn_layers: %u\n  linear_attn_layer_params: %llu\n", m->linear_attn_layers,
                (unsigned long long)m->linear_attn_layer_params);
    fprintf(f, "  kv_bytes: %u\n", m->kv_bytes);
    if (m->intermediate)
        fprintf(f, "intermediate: %u\n", m->intermediate);
    if (m->num_experts) {
        fprintf(f,
                "dense_layers: %u\nmoe:\n  num_experts: %u\n  dispatch_hidden: %u\n  moe_intermediate: %u\n"
                "  top_k: %u\n",
                m->dense_layers, m->num_experts, m->dispatch_hidden, m->moe_intermediate, m->top_k);
        if (m->shared_experts)
            fprintf(f, "  shared_experts: %u\n", m->shared_experts);
        if (m->shared_intermediate)
            fprintf(f, "  shared_intermediate: %u\n", m->shared_intermediate);
    }
    fprintf(f, "dtype: %s\ndense_dtype: %s\n", engine_dtype_names[m->dtype], engine_dtype_names[m->dense_dtype]);
    if (m->num_experts)
        fprintf(f, "expert_dtype: %s\n", engine_dtype_names[m->expert_dtype]);
    if (m->attn_dtype_set)
        fprintf(f, "attention_dtype: %s\n", engine_dtype_names[m->attn_dtype]);
    fprintf(f, "param_count: %llu\ndraft_layers: %u\n", (unsigned long long)m->param_count, m->draft_layers);
    if (m->linear_state_bytes_per_request)
        fprintf(f, "linear_state_bytes_per_request: %llu\n", (unsigned long long)m->linear_state_bytes_per_request);
    if (m->vision_params)
        fprintf(f, "vision:\n  params: %llu\n  attn_tp_params: %llu\n  tp_params: %llu\n",
                (unsigned long long)m->vision_params, (unsigned long long)m->vision_attn_tp_params,
                (unsigned long long)m->vision_tp_params);
    return ferror(f) ? -1 : 0;
}
