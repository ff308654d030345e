/* test_model_import.c — the config.json importer and the weight count: each real config in
 * tests/fixtures/configs imports to the numbers of its built-in preset; the architectures
 * without a stored config import a config written from their preset's cited numbers; every
 * family's parameter count is within 2% of its published total; the weights per GPU follow
 * the layout; bad configs are errors that name the file and the field. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model_import.h"
#include "preset.h"
#include "weights.h"

#define CONFIGS CGPLAN_FIXTURES "/configs/"
#define GB 1e9

static preset_catalog *builtins(void)
{
    setenv("CGPLAN_PRESETS", "/nonexistent/cgplan-test", 1); /* the built-ins only */
    preset_catalog *c = preset_catalog_open();
    assert_non_null(c);
    return c;
}

static void load_builtin(preset_catalog *c, const char *name, engine_model *m)
{
    char err[1024] = "";
    int rc = preset_load_model(c, name, m, err, sizeof err);
    if (rc != 0)
        fail_msg("%s: %s", name, err);
}

static void import_ok(const char *path, engine_model *m)
{
    char err[1024] = "";
    if (preset_model_from_config_json(path, m, err, sizeof err) != 0)
        fail_msg("%s", err);
}

/* What a row may leave out of the comparison, each with its reason at the row. */
enum {
    SAME_ALL = 0,
    SKIP_DRAFT = 1,  /* draft_layers */
    SKIP_DTYPES = 2, /* dtype, dense_dtype, expert_dtype */
    SKIP_STATE = 4,  /* linear_state_bytes_per_request */
};

/* Every field the importer sets equals the preset's, but those SKIP names; param_count (the
 * vision tower's with it) and the tower's split exactly. */
static void assert_same_model(const engine_model *a, const engine_model *b, int skip)
{
    assert_string_equal(a->architecture, b->architecture);
    assert_int_equal(a->trust_remote_code, b->trust_remote_code);
    assert_int_equal(a->vocab, b->vocab);
    assert_int_equal(a->hidden, b->hidden);
    assert_int_equal(a->layers, b->layers);
    assert_int_equal(a->context_len, b->context_len);
    assert_int_equal(a->tie_embeddings, b->tie_embeddings);
    assert_int_equal(a->attn_kind, b->attn_kind);
    assert_int_equal(a->heads, b->heads);
    assert_int_equal(a->kv_lora_rank, b->kv_lora_rank);
    assert_int_equal(a->qk_rope_dim, b->qk_rope_dim);
    assert_int_equal(a->q_lora_rank, b->q_lora_rank);
    assert_int_equal(a->qk_nope_dim, b->qk_nope_dim);
    assert_int_equal(a->v_head_dim, b->v_head_dim);
    assert_int_equal(a->full_attn_layers, b->full_attn_layers);
    assert_int_equal(a->kv_heads, b->kv_heads);
    assert_int_equal(a->head_dim, b->head_dim);
    assert_int_equal(a->sliding_window, b->sliding_window);
    assert_int_equal(a->swa_layers, b->swa_layers);
    assert_int_equal(a->attention_chunk, b->attention_chunk);
    assert_int_equal(a->linear_attn_layers, b->linear_attn_layers);
    assert_int_equal(a->linear_attn_layer_params, b->linear_attn_layer_params);
    assert_int_equal(a->kv_bytes, b->kv_bytes);
    assert_int_equal(a->intermediate, b->intermediate);
    assert_int_equal(a->dense_layers, b->dense_layers);
    assert_int_equal(a->num_experts, b->num_experts);
    assert_int_equal(a->dispatch_hidden, b->dispatch_hidden);
    assert_int_equal(a->moe_intermediate, b->moe_intermediate);
    assert_int_equal(a->top_k, b->top_k);
    assert_int_equal(a->shared_experts, b->shared_experts);
    assert_int_equal(a->shared_intermediate, b->shared_intermediate);
    assert_int_equal(a->full_kv_heads, b->full_kv_heads);
    assert_int_equal(a->full_head_dim, b->full_head_dim);
    assert_int_equal(a->attn_output_gate, b->attn_output_gate);
    /* DeepSeek-V4's own (0 elsewhere) */
    assert_int_equal(a->o_lora_rank, b->o_lora_rank);
    assert_int_equal(a->o_groups, b->o_groups);
    assert_int_equal(a->index_heads, b->index_heads);
    assert_int_equal(a->index_head_dim, b->index_head_dim);
    assert_int_equal(a->index_topk, b->index_topk);
    assert_int_equal(a->hc_mult, b->hc_mult);
    assert_int_equal(a->dsv4_swa_only_layers, b->dsv4_swa_only_layers);
    assert_int_equal(a->dsv4_c4_layers, b->dsv4_c4_layers);
    assert_int_equal(a->dsv4_c128_layers, b->dsv4_c128_layers);
    if (!(skip & SKIP_DTYPES)) {
        assert_int_equal(a->dtype, b->dtype);
        assert_int_equal(a->dense_dtype, b->dense_dtype);
        assert_int_equal(a->expert_dtype, b->expert_dtype);
        assert_int_equal(a->attn_dtype_set, b->attn_dtype_set);
        assert_int_equal(engine_attn_dtype(a), engine_attn_dtype(b));
    }
    assert_int_equal(a->param_count, b->param_count);
    assert_int_equal(a->vision_params, b->vision_params);
    assert_int_equal(a->vision_attn_tp_params, b->vision_attn_tp_params);
    assert_int_equal(a->vision_tp_params, b->vision_tp_params);
    if (!(skip & SKIP_STATE))
        assert_int_equal(a->linear_state_bytes_per_request, b->linear_state_bytes_per_request);
    if (!(skip & SKIP_DRAFT))
        assert_int_equal(a->draft_layers, b->draft_layers);
}

/* Each stored config and the built-in preset written from it. */
static const struct {
    const char *file, *preset;
    int skip;
} real_configs[] = {
    {"DeepSeek-V3.json", "deepseek-v3", SAME_ALL},
    {"deepseek-ai--DeepSeek-V3.1.json", "deepseek-v3.1", SAME_ALL},
    {"nvidia--DeepSeek-V3.1-NVFP4.json", "deepseek-v3.1-nvfp4", SAME_ALL}, /* with its hf_quant_config.json */
    {"deepseek-ai--DeepSeek-V3.2.json", "deepseek-v3.2", SAME_ALL},
    {"nvidia--DeepSeek-V3.2-NVFP4.json", "deepseek-v3.2-nvfp4", SAME_ALL},
    /* deepseek-ai's own: FP8 blocks with expert_dtype fp4 (MXFP4 routed experts) */
    {"deepseek-ai--DeepSeek-V4-Flash.json", "deepseek-v4-flash", SAME_ALL},
    {"deepseek-ai--DeepSeek-V4-Pro.json", "deepseek-v4-pro", SAME_ALL},
    /* sgl-project's conversions: no expert_dtype, the experts FP8 with the rest */
    {"sgl-project--DeepSeek-V4-Flash-FP8.json", "deepseek-v4-flash-fp8", SAME_ALL},
    {"sgl-project--DeepSeek-V4-Pro-FP8.json", "deepseek-v4-pro-fp8", SAME_ALL},
    /* nvidia's: expert_dtype fp4 under moe_quant_algo NVFP4 gives NVFP4 experts, not MXFP4 */
    {"nvidia--DeepSeek-V4-Flash-NVFP4.json", "deepseek-v4-flash-nvfp4", SAME_ALL},
    {"nvidia--DeepSeek-V4-Pro-NVFP4.json", "deepseek-v4-pro-nvfp4", SAME_ALL},
    {"Kimi-K2-Instruct.json", "kimi-k2", SAME_ALL},
    {"Kimi-K2.5.json", "kimi-k2.5", SAME_ALL},
    {"nvidia--Kimi-K2.5-NVFP4.json", "kimi-k2.5-nvfp4", SAME_ALL},
    {"nvidia--Kimi-K2.6-NVFP4.json", "kimi-k2.6-nvfp4", SAME_ALL},
    {"nvidia--Kimi-K2.7-Code-NVFP4.json", "kimi-k2.7-code-nvfp4", SAME_ALL},
    /* K3's config says no MTP layer: the preset adds the separate draft checkpoint. Its KDA
     * state the preset does not give (test_linear_state checks the import's). */
    {"Kimi-K3.json", "kimi-k3", SKIP_DRAFT | SKIP_STATE},
    {"GLM-5.json", "glm-5", SAME_ALL},
    {"zai-org--GLM-5-FP8.json", "glm-5-fp8", SAME_ALL}, /* FP8 attention: its exclusions are norms */
    {"zai-org--GLM-5.1.json", "glm-5.1", SAME_ALL},
    {"zai-org--GLM-5.1-FP8.json", "glm-5.1-fp8", SAME_ALL},
    {"nvidia--GLM-5.1-NVFP4.json", "glm-5.1-nvfp4", SAME_ALL},
    {"zai-org--GLM-5.2.json", "glm-5.2", SAME_ALL},
    {"zai-org--GLM-5.2-FP8.json", "glm-5.2-fp8", SAME_ALL},
    {"nvidia--GLM-5.2-NVFP4.json", "glm-5.2-nvfp4", SAME_ALL},
    {"zai-org--GLM-4.7-Flash.json", "glm-4.7-flash", SAME_ALL},
    /* The stored copy is trimmed (no num_nextn_predict_layers): the preset takes the GLM-4.5
     * family's MTP layer. */
    {"zai-org--GLM-4.7-FP8.json", "glm-4.7", SKIP_DRAFT},
    {"Qwen--Qwen2.5-1.5B.json", "qwen2.5-1.5b", SAME_ALL},
    {"Qwen--Qwen2.5-7B.json", "qwen2.5-7b", SAME_ALL},
    {"Qwen--Qwen2.5-32B.json", "qwen2.5-32b", SAME_ALL},
    {"Qwen--Qwen2.5-72B.json", "qwen2.5-72b", SAME_ALL},
    {"deepseek-ai--DeepSeek-R1-Distill-Qwen-32B.json", "deepseek-r1-distill-qwen-32b", SAME_ALL},
    {"Qwen--Qwen3-1.7B.json", "qwen3-1.7b", SAME_ALL},
    {"Qwen3-8B.json", "qwen3-8b", SAME_ALL},
    {"Qwen--Qwen3-32B-FP8.json", "qwen3-32b-fp8", SAME_ALL},
    {"Qwen3-30B-A3B.json", "qwen3-30b-a3b", SAME_ALL},
    {"Qwen3-30B-A3B-FP8.json", "qwen3-30b-a3b-fp8", SAME_ALL},
    {"nvidia--Qwen3-30B-A3B-NVFP4.json", "qwen3-30b-a3b-nvfp4", SAME_ALL},
    {"nvidia--Qwen3-235B-A22B-NVFP4.json", "qwen3-235b-a22b-nvfp4", SAME_ALL},
    {"Qwen--Qwen3-Coder-480B-A35B-Instruct.json", "qwen3-coder-480b-a35b", SAME_ALL},
    {"Qwen--Qwen3-VL-2B-Instruct.json", "qwen3-vl-2b", SAME_ALL},
    {"Qwen--Qwen3-VL-4B-Instruct.json", "qwen3-vl-4b", SAME_ALL},
    {"Qwen--Qwen3-VL-8B-Instruct.json", "qwen3-vl-8b", SAME_ALL},
    {"Qwen--Qwen3-VL-32B-Instruct.json", "qwen3-vl-32b", SAME_ALL},
    {"Qwen--Qwen3-VL-32B-Thinking.json", "qwen3-vl-32b", SAME_ALL},
    {"Qwen--Qwen3-VL-30B-A3B-Instruct.json", "qwen3-vl-30b-a3b", SAME_ALL},
    {"Qwen--Qwen3-VL-235B-A22B-Instruct.json", "qwen3-vl-235b-a22b", SAME_ALL},
    {"Qwen--Qwen3.5-27B.json", "qwen3.5-27b", SAME_ALL},
    {"Qwen--Qwen3.5-35B-A3B.json", "qwen3.5-35b-a3b", SAME_ALL},
    {"Qwen--Qwen3.5-122B-A10B.json", "qwen3.5-122b-a10b", SAME_ALL},
    {"Qwen--Qwen3.5-397B-A17B.json", "qwen3.5-397b-a17b", SAME_ALL},
    {"nvidia--Qwen3.5-397B-A17B-NVFP4.json", "qwen3.5-397b-a17b-nvfp4", SAME_ALL},
    {"Qwen--Qwen3.6-35B-A3B.json", "qwen3.6-35b-a3b", SAME_ALL},
    /* nvidia's mixed FP8 / NVFP4 export of the BF16 preset's model: its dtypes are its own
     * (test_quantization_formats). */
    {"nvidia--Qwen3.6-27B-NVFP4.json", "qwen3.6-27b", SKIP_DTYPES},
    {"Llama-3.1-8B.json", "llama-3.1-8b", SAME_ALL},
    {"meta-llama--Llama-3.2-1B.json", "llama-3.2-1b", SAME_ALL},
    {"meta-llama--Llama-3.2-3B.json", "llama-3.2-3b", SAME_ALL},
    {"meta-llama--Meta-Llama-3.1-405B.json", "llama-3.1-405b", SAME_ALL},
    {"nvidia--Llama-3.1-70B-Instruct-FP8.json", "llama-3.1-70b-instruct-fp8", SAME_ALL},
    {"Llama-4-Scout-17B-16E-Instruct.json", "llama-4-scout", SAME_ALL},
    {"mistralai--Mistral-7B-v0.3.json", "mistral-7b-v0.3", SAME_ALL},
    /* AWQ W4A16 group 128 exports: FP16 (QwQ: BF16) around int4_g128_zp linear layers */
    {"TechxGenus--Mistral-Large-Instruct-2411-AWQ.json", "mistral-large-2411-awq", SAME_ALL},
    {"kaitchup--QwQ-32B-AWQ-4bit.json", "qwq-32b-awq", SAME_ALL},
    {"Qwen--Qwen2.5-VL-7B-Instruct.json", "qwen2.5-vl-7b", SAME_ALL}, /* the tower counted from vision_config */
    {"mistralai--Mixtral-8x7B-v0.1.json", "mixtral-8x7b", SAME_ALL},
    {"mistralai--Mixtral-8x22B-v0.1.json", "mixtral-8x22b", SAME_ALL},
    {"microsoft--Phi-4-mini-instruct.json", "phi-4-mini", SAME_ALL}, /* auto_map, yet no remote code */
    {"MiniMaxAI--MiniMax-M2.5.json", "minimax-m2.5", SAME_ALL},
    {"MiniMaxAI--MiniMax-M2.7.json", "minimax-m2.7", SAME_ALL},
    {"gpt-oss-120b.json", "gpt-oss-120b", SAME_ALL},
    {"Hunyuan-A13B.json", "hunyuan-a13b", SAME_ALL},             /* moe_topk etc. as per-layer lists */
    {"granite-4.0-h-350m.json", "granite-4.0-h-350m", SAME_ALL}, /* no experts: the shared MLP is dense */
    {"google--gemma-4-26B-A4B.json", "gemma-4-26b-a4b", SAME_ALL},
    {"nvidia--Gemma-4-26B-A4B-NVFP4.json", "gemma-4-26b-a4b-nvfp4", SAME_ALL}, /* NVFP4 experts only */
    {"nvidia--Gemma-4-31B-IT-NVFP4.json", "gemma-4-31b-nvfp4", SAME_ALL},      /* BF16 attention, NVFP4 MLP */
};

static void test_real_configs_match_builtins(void **state)
{
    (void)state;
    preset_catalog *c = builtins();
    for (size_t i = 0; i < sizeof real_configs / sizeof real_configs[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, CONFIGS "%s", real_configs[i].file);
        engine_model got, want;
        import_ok(path, &got);
        load_builtin(c, real_configs[i].preset, &want);
        print_message("%-48s %s\n", real_configs[i].file, real_configs[i].preset);
        assert_same_model(&got, &want, real_configs[i].skip);
        for (int k = 0; k < COEF_COUNT; k++)
            assert_true(got.coef_missing[k]); /* an import has no coefficients */
    }
    preset_catalog_free(c);
}

/* The architectures without a stored config.json: a config written from the numbers the preset
 * cites imports to that preset. */
static const struct {
    const char *preset, *json;
} written_configs[] = {
    {"qwq-32b", "{\"architectures\": [\"Qwen2ForCausalLM\"], \"vocab_size\": 152064, \"hidden_size\": 5120,"
                " \"num_hidden_layers\": 64, \"max_position_embeddings\": 40960, \"num_attention_heads\": 40,"
                " \"num_key_value_heads\": 8, \"intermediate_size\": 27648, \"tie_word_embeddings\": false,"
                " \"torch_dtype\": \"bfloat16\", \"use_sliding_window\": false, \"sliding_window\": 32768}"},
    {"qwen3-next-80b-a3b",
     "{\"architectures\": [\"Qwen3NextForCausalLM\"], \"vocab_size\": 151936, \"hidden_size\": 2048,"
     " \"num_hidden_layers\": 48, \"max_position_embeddings\": 262144, \"num_attention_heads\": 16,"
     " \"num_key_value_heads\": 2, \"head_dim\": 256, \"intermediate_size\": 5120, \"num_experts\": 512,"
     " \"num_experts_per_tok\": 10, \"moe_intermediate_size\": 512, \"shared_expert_intermediate_size\": 512,"
     " \"decoder_sparse_step\": 1, \"mlp_only_layers\": [], \"full_attention_interval\": 4,"
     " \"linear_num_key_heads\": 16, \"linear_num_value_heads\": 32, \"linear_key_head_dim\": 128,"
     " \"linear_value_head_dim\": 128, \"linear_conv_kernel_dim\": 4, \"tie_word_embeddings\": false,"
     " \"torch_dtype\": \"bfloat16\"}"},
    {"glm-4.5", "{\"architectures\": [\"Glm4MoeForCausalLM\"], \"vocab_size\": 151552, \"hidden_size\": 5120,"
                " \"num_hidden_layers\": 92, \"max_position_embeddings\": 131072, \"num_attention_heads\": 96,"
                " \"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 12288,"
                " \"first_k_dense_replace\": 3, \"n_routed_experts\": 160, \"moe_intermediate_size\": 1536,"
                " \"num_experts_per_tok\": 8, \"n_shared_experts\": 1, \"num_nextn_predict_layers\": 1,"
                " \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\"}"},
    /* Gemma 3 as google/gemma-3-27b-it's config has it: text_config without vocab_size,
     * max_position_embeddings, sliding_window_pattern or tie_word_embeddings (Gemma3TextConfig's
     * 262208, 131072, 6 and true); 12B with the pattern written; 4B without the head counts
     * either (its 8 / 4 of 256 are the defaults too). The SigLIP vision_config is maxtext's
     * (AI-Hypercomputer/maxtext @ e591f30c hf_model_configs.py gemma3_*_config), the same for all
     * three. */
    {"gemma-3-27b", "{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"model_type\": \"gemma3\","
                    " \"text_config\": {\"head_dim\": 128, \"hidden_size\": 5376, \"intermediate_size\": 21504,"
                    " \"model_type\": \"gemma3_text\", \"num_attention_heads\": 32, \"num_hidden_layers\": 62,"
                    " \"num_key_value_heads\": 16, \"query_pre_attn_scalar\": 168, \"sliding_window\": 1024},"
                    " \"torch_dtype\": \"bfloat16\","
                    " \"vision_config\": {\"hidden_size\": 1152, \"image_size\": 896, \"intermediate_size\": 4304,"
                    " \"model_type\": \"siglip_vision_model\", \"num_attention_heads\": 16, \"num_hidden_layers\": 27,"
                    " \"patch_size\": 14, \"vision_use_head\": false}}"},
    {"gemma-3-12b", "{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"text_config\": {\"head_dim\": 256,"
                    " \"hidden_size\": 3840, \"intermediate_size\": 15360, \"num_attention_heads\": 16,"
                    " \"num_hidden_layers\": 48, \"num_key_value_heads\": 8, \"sliding_window\": 1024,"
                    " \"sliding_window_pattern\": 6}, \"torch_dtype\": \"bfloat16\","
                    " \"vision_config\": {\"hidden_size\": 1152, \"image_size\": 896, \"intermediate_size\": 4304,"
                    " \"model_type\": \"siglip_vision_model\", \"num_attention_heads\": 16, \"num_hidden_layers\": 27,"
                    " \"patch_size\": 14, \"vision_use_head\": false}}"},
    {"gemma-3-4b", "{\"architectures\": [\"Gemma3ForConditionalGeneration\"], \"text_config\": {\"hidden_size\": 2560,"
                   " \"intermediate_size\": 10240, \"num_hidden_layers\": 34, \"sliding_window\": 1024},"
                   " \"torch_dtype\": \"bfloat16\","
                   " \"vision_config\": {\"hidden_size\": 1152, \"image_size\": 896, \"intermediate_size\": 4304,"
                   " \"model_type\": \"siglip_vision_model\", \"num_attention_heads\": 16, \"num_hidden_layers\": 27,"
                   " \"patch_size\": 14, \"vision_use_head\": false}}"},
    /* Qwen2.5-VL 3B, 32B and 72B from the numbers their presets cite (Pai-Megatron-Patch's run script and
     * vision config: the tower's MLP 3420 beside the 36-layer model, 3456 beside the others) */
    {"qwen2.5-vl-3b",
     "{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"], \"hidden_size\": 2048,"
     " \"intermediate_size\": 11008, \"max_position_embeddings\": 128000, \"num_attention_heads\": 16,"
     " \"num_hidden_layers\": 36, \"num_key_value_heads\": 2, \"tie_word_embeddings\": true,"
     " \"torch_dtype\": \"bfloat16\", \"vision_config\": {\"depth\": 32, \"hidden_size\": 1280,"
     " \"intermediate_size\": 3420, \"num_heads\": 16, \"in_chans\": 3, \"out_hidden_size\": 2048,"
     " \"patch_size\": 14, \"spatial_merge_size\": 2, \"temporal_patch_size\": 2}, \"vocab_size\": 151936}"},
    {"qwen2.5-vl-32b",
     "{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"], \"hidden_size\": 5120,"
     " \"intermediate_size\": 27648, \"max_position_embeddings\": 128000, \"num_attention_heads\": 40,"
     " \"num_hidden_layers\": 64, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false,"
     " \"torch_dtype\": \"bfloat16\", \"vision_config\": {\"depth\": 32, \"hidden_size\": 1280,"
     " \"intermediate_size\": 3456, \"num_heads\": 16, \"in_chans\": 3, \"out_hidden_size\": 5120,"
     " \"patch_size\": 14, \"spatial_merge_size\": 2, \"temporal_patch_size\": 2}, \"vocab_size\": 152064}"},
    {"qwen2.5-vl-72b",
     "{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"], \"hidden_size\": 8192,"
     " \"intermediate_size\": 29568, \"max_position_embeddings\": 128000, \"num_attention_heads\": 64,"
     " \"num_hidden_layers\": 80, \"num_key_value_heads\": 8, \"tie_word_embeddings\": false,"
     " \"torch_dtype\": \"bfloat16\", \"vision_config\": {\"depth\": 32, \"hidden_size\": 1280,"
     " \"intermediate_size\": 3456, \"num_heads\": 16, \"in_chans\": 3, \"out_hidden_size\": 8192,"
     " \"patch_size\": 14, \"spatial_merge_size\": 2, \"temporal_patch_size\": 2}, \"vocab_size\": 152064}"},
    /* Mistral Large 2 as NarrativAI/Cakrawala-123B's config.json (a fine-tune of Mistral-Large-Instruct-2411)
     * has its keys (mistral-large-2.yaml) */
    {"mistral-large-2",
     "{\"_name_or_path\": \"mistralai/Mistral-Large-Instruct-2411\", \"architectures\": [\"MistralForCausalLM\"],"
     " \"attention_dropout\": 0.0, \"bos_token_id\": 1, \"eos_token_id\": 2, \"head_dim\": 128, \"hidden_act\": "
     "\"silu\","
     " \"hidden_size\": 12288, \"initializer_range\": 0.02, \"intermediate_size\": 28672,"
     " \"max_position_embeddings\": 131072, \"model_type\": \"mistral\", \"num_attention_heads\": 96,"
     " \"num_hidden_layers\": 88, \"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-05, \"rope_theta\": 1000000.0,"
     " \"sliding_window\": null, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
     " \"transformers_version\": \"4.46.3\", \"use_cache\": false, \"vocab_size\": 32768}"},
    /* Devstral 2 from its params.json (devstral-2-123b.yaml) as transformers' converter writes it: a
     * Ministral3Config, FP8 with only lm_head left out */
    {"devstral-2-123b",
     "{\"architectures\": [\"Ministral3ForCausalLM\"], \"model_type\": \"ministral3\", \"head_dim\": 128,"
     " \"hidden_size\": 12288, \"intermediate_size\": 28672, \"max_position_embeddings\": 262144,"
     " \"num_attention_heads\": 96, \"num_hidden_layers\": 88, \"num_key_value_heads\": 8,"
     " \"vocab_size\": 131072, \"tie_word_embeddings\": false, \"torch_dtype\": \"bfloat16\","
     " \"quantization_config\": {\"quant_method\": \"fp8\", \"activation_scheme\": \"static\","
     " \"modules_to_not_convert\": [\"lm_head\"]}}"},
    /* Grok-2 from the numbers grok-2.yaml cites; grok.py's residual_moe MLP of intermediate_size
     * beside experts of moe_intermediate_size. */
    {"grok-2", "{\"architectures\": [\"Grok1ForCausalLM\"], \"vocab_size\": 131072, \"hidden_size\": 8192,"
               " \"num_hidden_layers\": 64, \"max_position_embeddings\": 131072, \"num_attention_heads\": 64,"
               " \"num_key_value_heads\": 8, \"head_dim\": 128, \"num_local_experts\": 8,"
               " \"num_experts_per_tok\": 2, \"intermediate_size\": 32768, \"moe_intermediate_size\": 16384,"
               " \"residual_moe\": true, \"torch_dtype\": \"bfloat16\"}"},
    /* Phi-4 14B from the numbers phi-4.yaml cites (Phi3ForCausalLM, untied). */
    {"phi-4", "{\"architectures\": [\"Phi3ForCausalLM\"], \"hidden_size\": 5120, \"num_hidden_layers\": 40,"
              " \"num_attention_heads\": 40, \"num_key_value_heads\": 10, \"intermediate_size\": 17920,"
              " \"vocab_size\": 100352, \"max_position_embeddings\": 16384, \"tie_word_embeddings\": false,"
              " \"torch_dtype\": \"bfloat16\"}"},
    /* LFM2-1.2B as its Hub config.json has it (the keys the importer reads, verbatim): the MLP
     * width is block_ff_dim 12288 auto-adjusted to 8192; no tie_word_embeddings (Lfm2Config: true). */
    {"lfm2-1.2b", "{\"architectures\": [\"Lfm2ForCausalLM\"], \"block_auto_adjust_ff_dim\": true,"
                  " \"block_ff_dim\": 12288, \"block_ffn_dim_multiplier\": 1.0, \"block_multiple_of\": 256,"
                  " \"conv_L_cache\": 3, \"conv_bias\": false, \"full_attn_idxs\": [2, 5, 8, 10, 12, 14],"
                  " \"hidden_size\": 2048, \"max_position_embeddings\": 128000, \"model_type\": \"lfm2\","
                  " \"num_attention_heads\": 32, \"num_hidden_layers\": 16, \"num_key_value_heads\": 8,"
                  " \"vocab_size\": 65536, \"torch_dtype\": \"bfloat16\"}"},
    /* LFM2-8B-A1B from the numbers lfm2-8b-a1b.yaml cites (num_dense_layers and the tie left to
     * Lfm2MoeConfig's defaults, 2 and true); its dense MLP is intermediate_size as is. */
    {"lfm2-8b-a1b",
     "{\"architectures\": [\"Lfm2MoeForCausalLM\"], \"vocab_size\": 65536, \"hidden_size\": 2048,"
     " \"intermediate_size\": 7168, \"num_hidden_layers\": 24, \"num_attention_heads\": 32,"
     " \"num_key_value_heads\": 8, \"layer_types\": [\"conv\", \"conv\", \"full_attention\", \"conv\","
     " \"conv\", \"conv\", \"full_attention\", \"conv\", \"conv\", \"conv\", \"full_attention\", \"conv\","
     " \"conv\", \"conv\", \"full_attention\", \"conv\", \"conv\", \"conv\", \"full_attention\", \"conv\","
     " \"conv\", \"full_attention\", \"conv\", \"conv\"], \"conv_L_cache\": 3,"
     " \"max_position_embeddings\": 128000, \"num_experts\": 32, \"num_experts_per_tok\": 4,"
     " \"moe_intermediate_size\": 1792, \"torch_dtype\": \"bfloat16\"}"},
    /* ERNIE 4.5 from the numbers ernie-4.5-21b-a3b.yaml and ernie-4.5-300b-a47b.yaml cite (the
     * quoted keys; head_dim null as the 21B config writes it). */
    {"ernie-4.5-21b-a3b", "{\"architectures\": [\"Ernie4_5_MoeForCausalLM\"], \"hidden_size\": 2560,"
                          " \"intermediate_size\": 12288, \"max_position_embeddings\": 131072,"
                          " \"moe_intermediate_size\": 1536, \"moe_k\": 6, \"moe_layer_end_index\": 27,"
                          " \"moe_layer_interval\": 1, \"moe_layer_start_index\": 1, \"moe_num_experts\": 64,"
                          " \"moe_num_shared_experts\": 2, \"num_attention_heads\": 20, \"num_hidden_layers\": 28,"
                          " \"num_key_value_heads\": 4, \"head_dim\": null, \"rms_norm_eps\": 1e-05,"
                          " \"rope_theta\": 500000.0, \"vocab_size\": 103424, \"tie_word_embeddings\": true,"
                          " \"torch_dtype\": \"bfloat16\"}"},
    {"ernie-4.5-300b-a47b",
     "{\"architectures\": [\"Ernie4_5_MoeForCausalLM\"], \"hidden_size\": 8192,"
     " \"intermediate_size\": 28672, \"max_position_embeddings\": 131072, \"num_attention_heads\": 64,"
     " \"num_key_value_heads\": 8, \"num_hidden_layers\": 54, \"vocab_size\": 103424,"
     " \"rope_theta\": 500000.0, \"moe_num_experts\": 64, \"moe_num_shared_experts\": 0,"
     " \"moe_layer_start_index\": 3, \"moe_layer_end_index\": 53, \"moe_intermediate_size\": 3584,"
     " \"moe_k\": 8, \"moe_layer_interval\": 1, \"tie_word_embeddings\": true,"
     " \"torch_dtype\": \"bfloat16\"}"},
    /* Granite 4.0-H from the numbers granite-4.0-h-tiny.yaml and granite-4.0-h-small.yaml cite
     * (Small: the quoted keys, GraniteMoeHybridConfig's defaults written in for the rest). */
    {"granite-4.0-h-tiny",
     "{\"architectures\": [\"GraniteMoeHybridForCausalLM\"], \"hidden_size\": 1536,"
     " \"num_hidden_layers\": 40, \"num_attention_heads\": 12, \"num_key_value_heads\": 4,"
     " \"intermediate_size\": 512, \"shared_intermediate_size\": 1024, \"num_local_experts\": 64,"
     " \"num_experts_per_tok\": 6, \"vocab_size\": 100352, \"tie_word_embeddings\": true,"
     " \"mamba_d_state\": 128, \"mamba_n_groups\": 1, \"mamba_n_heads\": 48, \"mamba_d_head\": 64,"
     " \"mamba_expand\": 2, \"mamba_d_conv\": 4, \"mamba_chunk_size\": 256,"
     " \"max_position_embeddings\": 131072, \"layer_types\": [\"mamba\", \"mamba\", \"mamba\","
     " \"mamba\", \"mamba\", \"attention\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\","
     " \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"attention\", \"mamba\", \"mamba\", \"mamba\","
     " \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"attention\", \"mamba\","
     " \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\","
     " \"attention\", \"mamba\", \"mamba\", \"mamba\", \"mamba\"], \"torch_dtype\": \"bfloat16\"}"},
    {"granite-4.0-h-small",
     "{\"architectures\": [\"GraniteMoeHybridForCausalLM\"], \"hidden_size\": 4096,"
     " \"num_hidden_layers\": 40, \"num_attention_heads\": 32, \"num_key_value_heads\": 8,"
     " \"num_local_experts\": 72, \"num_experts_per_tok\": 10, \"shared_intermediate_size\": 1536,"
     " \"intermediate_size\": 768, \"mamba_d_state\": 128, \"mamba_d_conv\": 4, \"mamba_expand\": 2,"
     " \"mamba_n_heads\": 128, \"mamba_d_head\": 64, \"tie_word_embeddings\": true,"
     " \"vocab_size\": 100352, \"layer_types\": [\"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\","
     " \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\","
     " \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\","
     " \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\","
     " \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"mamba\", \"attention\","
     " \"attention\", \"attention\", \"attention\"], \"torch_dtype\": \"bfloat16\","
     " \"max_position_embeddings\": 131072}"},
};

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

static void test_written_configs_match_builtins(void **state)
{
    (void)state;
    preset_catalog *c = builtins();
    char dir[] = "/tmp/cgplan-test-import-XXXXXX";
    assert_non_null(mkdtemp(dir));
    for (size_t i = 0; i < sizeof written_configs / sizeof written_configs[0]; i++) {
        char path[256];
        snprintf(path, sizeof path, "%s/config.json", dir);
        write_text(path, written_configs[i].json);
        engine_model got, want;
        import_ok(path, &got);
        load_builtin(c, written_configs[i].preset, &want);
        print_message("%s\n", written_configs[i].preset);
        assert_same_model(&got, &want, SAME_ALL);
        unlink(path);
    }
    rmdir(dir);
    preset_catalog_free(c);
}

/* Published totals (model cards and release notes): DeepSeek-V3 671B (the MTP layer aside);
 * Kimi K2 1.04T (its tech report); Kimi K3 2.78T (models.md 1.2); Qwen3 model cards 0.6B, 8.2B,
 * 32.8B, 30.5B, 235B; Qwen3-Next 80B; QwQ-32B 32.5B; Llama 3.1 8.03B and 70.6B; Llama 4 Scout
 * 109B and Maverick 400B (Meta's card: the vision encoder is in the total); GLM-4.5 355B,
 * GLM-5 744B (Z.ai's release notes); gpt-oss-20b 21B and gpt-oss-120b 117B (OpenAI's card); Gemma 3
 * 4.3B, 12.2B and 27.4B with the vision encoder (the Gemma 3 presets cite the model card). */
static const struct {
    const char *preset;
    double published;
} totals[] = {
    {"deepseek-v3", 671e9},       {"kimi-k2", 1.04e12},      {"kimi-k2-thinking", 1.04e12},
    {"kimi-k3", 2.78e12},         {"qwen3-0.6b", 0.6e9},     {"qwen3-8b", 8.2e9},
    {"qwen3-32b", 32.8e9},        {"qwen3-30b-a3b", 30.5e9}, {"qwen3-235b-a22b", 235e9},
    {"qwen3-next-80b-a3b", 80e9}, {"qwq-32b", 32.5e9},       {"llama-3.1-8b", 8.03e9},
    {"llama-3.1-70b", 70.6e9},    {"llama-4-scout", 109e9},  {"llama-4-maverick", 400e9},
    {"glm-4.5", 355e9},           {"glm-4.6", 355e9},        {"glm-5", 744e9},
    {"gpt-oss-20b", 21e9},        {"gpt-oss-120b", 117e9},   {"lfm2-1.2b", 1.17e9},
    {"lfm2-8b-a1b", 8.3e9},       {"gemma-3-4b", 4.3e9},     {"gemma-3-12b", 12.2e9},
    {"gemma-3-27b", 27.4e9}, /* LiquidAI's and Google's cards */
    /* Qwen3.5's cards give the total in the name (vision encoder and attention output gates in) */
    {"qwen3.5-27b", 27e9},        {"qwen3.5-35b-a3b", 35e9}, {"qwen3.5-122b-a10b", 122e9},
    {"qwen3.5-397b-a17b", 397e9},
};

static void test_param_counts_match_published_totals(void **state)
{
    (void)state;
    preset_catalog *c = builtins();
    for (size_t i = 0; i < sizeof totals / sizeof totals[0]; i++) {
        engine_model m;
        load_builtin(c, totals[i].preset, &m);
        double n = (double)engine_model_param_count(&m);
        double off = fabs(n - totals[i].published) / totals[i].published;
        print_message("%-20s %8.2fB counted, %8.2fB published (%+.1f%%)\n", totals[i].preset, n / 1e9,
                      totals[i].published / 1e9, 100 * (n - totals[i].published) / totals[i].published);
        if (off > 0.02)
            fail_msg("%s: %.2fB counted vs %.2fB published", totals[i].preset, n / 1e9, totals[i].published / 1e9);
        assert_int_equal(m.param_count, (uint64_t)n); /* the loader fills it */
    }
    preset_catalog_free(c);
}

static void test_weights_per_gpu(void **state)
{
    (void)state;
    preset_catalog *c = builtins();
    engine_model m;
    bool known = false;

    /* Dense BF16: 2 bytes a parameter on one GPU. */
    load_builtin(c, "qwen3-8b", &m);
    uint64_t one = engine_weight_bytes_per_gpu(&m, 1, 1, false, 1, &known);
    assert_true(known);
    assert_int_equal(one, 2 * engine_model_param_count(&m));
    /* TP2 halves everything: 8 KV heads split evenly. */
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 2, 1, false, 1, NULL), one / 2);
    /* TP16 > 8 KV heads: each GPU keeps a whole KV head, so more than a 16th. */
    assert_true(engine_weight_bytes_per_gpu(&m, 16, 1, false, 1, NULL) > one / 16);

    /* Measured: QwQ-32B BF16 on TP4, SGLang "Load weight end ... mem usage=15.54 GB" (GiB;
     * bench/data/deployments.json, log 15-tp4-pcie-qwq32b). Within 3%. */
    load_builtin(c, "qwq-32b", &m);
    double qwq = (double)engine_weight_bytes_per_gpu(&m, 4, 1, false, 1, &known) / (1 << 30);
    assert_true(known);
    assert_true(fabs(qwq - 15.54) / 15.54 < 0.03);

    /* DeepSeek-V3 FP8 on 8 GPUs: ~670 GB of FP8 over 8, MLA's q_a/kv_a whole on each. */
    load_builtin(c, "deepseek-v3", &m);
    double tp8 = (double)engine_weight_bytes_per_gpu(&m, 8, 1, false, 1, &known) / GB;
    assert_true(known);
    assert_true(tp8 > 84 && tp8 < 86);
    /* EP8 moves experts, not bytes (8 whole experts' worth per GPU either way). */
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 8, 1, false, 8, NULL),
                     engine_weight_bytes_per_gpu(&m, 8, 1, false, 1, NULL));
    /* DP attention replicates attention and dense layers per DP rank: more per GPU. */
    uint64_t dp8 = engine_weight_bytes_per_gpu(&m, 8, 8, true, 8, &known);
    assert_true(known);
    assert_true(dp8 > engine_weight_bytes_per_gpu(&m, 8, 1, false, 8, NULL));

    /* gpt-oss-120b on one GPU: MXFP4 experts (4.25 bits), the rest BF16: about 65 GB. */
    load_builtin(c, "gpt-oss-120b", &m);
    double oss = (double)engine_weight_bytes_per_gpu(&m, 1, 1, false, 1, NULL) / GB;
    assert_true(oss > 63 && oss < 66);

    /* K3 over TP8 / EP8, times 8: the 1.56 TB checkpoint (models.md 1.3), within 2%. */
    load_builtin(c, "kimi-k3", &m);
    double k3 = (double)engine_weight_bytes_per_gpu(&m, 8, 1, false, 8, NULL) * 8 / 1e12;
    assert_true(fabs(k3 - 1.56) / 1.56 < 0.02);

    /* The deployment presets' estimates from the checkpoints' composition: K3 DP16 150 GiB
     * (k3-dp16.yaml), DeepSeek-V3 DP16 on 16 GPUs 48 GiB (dsv3-h200-dp16.yaml). */
    double k3_dp16 = (double)engine_weight_bytes_per_gpu(&m, 16, 16, true, 16, NULL) / (1 << 30);
    assert_true(fabs(k3_dp16 - 150) / 150 < 0.02);
    engine_model dsv3;
    load_builtin(c, "deepseek-v3", &dsv3);
    double dsv3_dp16 = (double)engine_weight_bytes_per_gpu(&dsv3, 16, 16, true, 16, NULL) / (1 << 30);
    assert_true(fabs(dsv3_dp16 - 48) / 48 < 0.03);

    /* Impossible layouts are unknown. */
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 8, 3, true, 1, &known), 0);
    assert_false(known);
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 8, 1, false, 3, &known), 0);
    assert_false(known);
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 0, 1, false, 1, &known), 0);
    assert_false(known);
    preset_catalog_free(c);
}

/* A Qwen3-MoE config; %s: more keys. */
#define QWEN_MOE_CONFIG                                                                                                \
    "{\"architectures\": [\"Qwen3MoeForCausalLM\"], \"vocab_size\": 151936, \"hidden_size\": 2048,"                    \
    " \"num_hidden_layers\": 48, \"max_position_embeddings\": 40960, \"num_attention_heads\": 32,"                     \
    " \"num_key_value_heads\": 4, \"head_dim\": 128, \"num_experts\": 128,"                                            \
    " \"moe_intermediate_size\": 768, \"num_experts_per_tok\": 8%s}"

static void test_quantization_formats(void **state)
{
    (void)state;
    engine_model m;
    import_ok(CONFIGS "DeepSeek-V3.json", &m); /* fp8 block, nothing excluded */
    assert_int_equal(m.dense_dtype, DTYPE_FP8);
    assert_int_equal(m.expert_dtype, DTYPE_FP8);
    assert_int_equal(m.dtype, DTYPE_BF16);
    import_ok(CONFIGS "Kimi-K2.5.json", &m); /* compressed-tensors int4, attention ignored */
    assert_int_equal(m.dense_dtype, DTYPE_BF16);
    assert_int_equal(m.expert_dtype, DTYPE_INT4);
    import_ok(CONFIGS "Kimi-K3.json", &m); /* compressed-tensors mxfp4-pack-quantized */
    assert_int_equal(m.expert_dtype, DTYPE_MXFP4);
    import_ok(CONFIGS "gpt-oss-120b.json", &m); /* mxfp4, self_attn not converted */
    assert_int_equal(m.dense_dtype, DTYPE_BF16);
    assert_int_equal(m.expert_dtype, DTYPE_MXFP4);
    import_ok(CONFIGS "Qwen3-30B-A3B-FP8.json", &m); /* routers and norms not converted */
    assert_int_equal(m.dense_dtype, DTYPE_FP8);
    assert_int_equal(m.expert_dtype, DTYPE_FP8);

    /* modelopt NVFP4 in the config, and (without one) in hf_quant_config.json beside it. */
    char dir[] = "/tmp/cgplan-test-quant-XXXXXX", path[256], side[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    snprintf(side, sizeof side, "%s/hf_quant_config.json", dir);

    char text[2048];
    snprintf(text, sizeof text, QWEN_MOE_CONFIG,
             ", \"quantization_config\": {\"quant_method\": \"modelopt\", \"quant_algo\": \"NVFP4\","
             " \"ignore\": [\"lm_head\", \"model.layers.0.self_attn*\"]}");
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.expert_dtype, DTYPE_NVFP4);
    assert_int_equal(m.dense_dtype, DTYPE_BF16);
    snprintf(text, sizeof text, QWEN_MOE_CONFIG, "");
    write_text(path, text);
    write_text(side, "{\"producer\": {\"name\": \"modelopt\"}, \"quantization\": {\"quant_algo\": \"NVFP4\","
                     " \"exclude_modules\": [\"lm_head\", \"model.layers.0.mlp.gate\"]}}");
    import_ok(path, &m);
    assert_int_equal(m.expert_dtype, DTYPE_NVFP4);
    assert_int_equal(m.dense_dtype, DTYPE_NVFP4); /* attention was not excluded */
    unlink(side);

    /* An exclusion inside self_attn keeps attention unquantised only when it is a projection
     * or the whole module: GLM-5-FP8 lists q_a_layernorm, kv_a_layernorm, indexer.k_norm and
     * indexers_proj, and its MLA projections are FP8 (the importer read BF16 attention). */
    import_ok(CONFIGS "zai-org--GLM-5-FP8.json", &m);
    assert_int_equal(m.dense_dtype, DTYPE_FP8);
    assert_int_equal(m.expert_dtype, DTYPE_FP8);
    static const struct {
        const char *entry;
        engine_dtype dense;
    } entries[] = {
        {"model.layers.0.self_attn.q_a_layernorm", DTYPE_FP8},
        {"model.layers.0.self_attn.indexer.k_norm", DTYPE_FP8},
        {"model.layers.0.self_attn.indexers_proj", DTYPE_FP8},
        {"model.layers.0.self_attn.q_proj", DTYPE_BF16},
        {"model.layers.*.self_attn", DTYPE_BF16},
        {"re:.*self_attn\\\\.(q|k|v)_proj.*", DTYPE_BF16},
    };
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        char quant[256];
        snprintf(quant, sizeof quant,
                 ", \"quantization_config\": {\"quant_method\": \"fp8\", \"modules_to_not_convert\": [\"%s\"]}",
                 entries[i].entry);
        snprintf(text, sizeof text, QWEN_MOE_CONFIG, quant);
        write_text(path, text);
        import_ok(path, &m);
        if (m.dense_dtype != entries[i].dense)
            fail_msg("%s: dense_dtype %s", entries[i].entry, engine_dtype_names[m.dense_dtype]);
        assert_int_equal(m.expert_dtype, DTYPE_FP8);
    }

    /* A NAME.json kept outside its checkpoint has its modelopt block in NAME.hf_quant_config.json
     * (tests/fixtures/configs keeps nvidia's so). */
    import_ok(CONFIGS "nvidia--Qwen3-30B-A3B-NVFP4.json", &m);
    assert_int_equal(m.expert_dtype, DTYPE_NVFP4);
    assert_int_equal(m.dense_dtype, DTYPE_NVFP4); /* only the routers and lm_head excluded */
    import_ok(CONFIGS "nvidia--Llama-3.1-70B-Instruct-FP8.json", &m);
    assert_int_equal(m.dense_dtype, DTYPE_FP8);

    /* modelopt MIXED_PRECISION: nvidia's Qwen3.6-27B export has FP8 attention and linear
     * attention, W4A16_NVFP4 MLPs; a dense model's MLP holds most of dense_dtype's weights. */
    import_ok(CONFIGS "nvidia--Qwen3.6-27B-NVFP4.json", &m);
    assert_int_equal(m.dense_dtype, DTYPE_NVFP4);
    assert_int_equal(m.dtype, DTYPE_BF16);

    /* An unknown format is an error naming the field. */
    char err[1024] = "";
    snprintf(text, sizeof text, QWEN_MOE_CONFIG, ", \"quantization_config\": {\"quant_method\": \"bitsandbytes\"}");
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "quantization_config.quant_method"));
    unlink(path);
    rmdir(dir);
}

/* Imports CONFIG into M, or returns the error (ERR, ERRLEN). */
static int import_text(const char *path, const char *config, engine_model *m, char *err, size_t errlen)
{
    write_text(path, config);
    err[0] = '\0';
    return preset_model_from_config_json(path, m, err, errlen);
}

/* The refusal of CONFIG names the file, the key with its value, and what cgplan counts instead. */
static void refused(const char *path, const char *config, const char *key_value, const char *expected)
{
    engine_model m;
    char err[1024];
    if (import_text(path, config, &m, err, sizeof err) != -1)
        fail_msg("imported, wanted \"%s\" refused: %s", key_value, config);
    if (!strstr(err, path) || !strstr(err, key_value) || !strstr(err, expected))
        fail_msg("\"%s\" / \"%s\" not in: %s", key_value, expected, err);
}

/* W4A16 group 128 checkpoints: AWQ, GPTQ and compressed-tensors pack-quantized as SGLang's
 * Marlin kernels hold them (engine_dtype_bits_x1000: 4.125 bits, 4.15625 with zero points), and
 * what they cannot count refused by name. */
static void test_w4a16_formats(void **state)
{
    (void)state;
    engine_model m;
    char err[1024];
    import_ok(CONFIGS "TechxGenus--Mistral-Large-Instruct-2411-AWQ.json", &m); /* awq, zero_point, float16 */
    assert_int_equal(m.dtype, DTYPE_FP16);
    assert_int_equal(m.dense_dtype, DTYPE_INT4_G128_ZP);
    import_ok(CONFIGS "kaitchup--QwQ-32B-AWQ-4bit.json", &m); /* awq under bfloat16 */
    assert_int_equal(m.dtype, DTYPE_BF16);
    assert_int_equal(m.dense_dtype, DTYPE_INT4_G128_ZP);
    import_ok(CONFIGS "Kimi-K2.5.json", &m); /* compressed-tensors group 32 stays int4 */
    assert_int_equal(m.expert_dtype, DTYPE_INT4);
    assert_int_equal(engine_dtype_bits_x1000(DTYPE_INT4_G128), 4125);
    assert_int_equal(engine_dtype_bits_x1000(DTYPE_INT4_G128_ZP), 4156);
    assert_string_equal(engine_dtype_names[DTYPE_INT4_G128], "int4_g128");
    assert_string_equal(engine_dtype_names[DTYPE_INT4_G128_ZP], "int4_g128_zp");

    char dir[] = "/tmp/cgplan-test-w4a16-XXXXXX", path[256], text[4096];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    static const struct {
        const char *quant;
        engine_dtype dense, experts;
    } ok[] = {
        /* AutoAWQ's own key names (AWQConfig.from_config reads w_bit and q_group_size too) */
        {"{\"quant_method\": \"awq\", \"w_bit\": 4, \"q_group_size\": 128, \"zero_point\": true}", DTYPE_INT4_G128_ZP,
         DTYPE_INT4_G128_ZP},
        /* the router (mlp.gate) is unquantised anyway; lm_head too */
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128, \"zero_point\": true,"
         " \"modules_to_not_convert\": [\"lm_head\", \"mlp.gate\"]}",
         DTYPE_INT4_G128_ZP, DTYPE_INT4_G128_ZP},
        /* attention left FP16 by the export: dense_dtype with it, the experts still 4-bit */
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 128, \"zero_point\": true,"
         " \"modules_to_not_convert\": [\"self_attn\"]}",
         DTYPE_BF16, DTYPE_INT4_G128_ZP},
        /* GPTQ symmetric without act-order: gptq_marlin drops qzeros */
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 128, \"desc_act\": false, \"sym\": true,"
         " \"lm_head\": false, \"dynamic\": {}}",
         DTYPE_INT4_G128, DTYPE_INT4_G128},
        /* GPTQ asymmetric: the exllama kernel keeps the zero points */
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 128, \"desc_act\": false, \"sym\": false}",
         DTYPE_INT4_G128_ZP, DTYPE_INT4_G128_ZP},
        /* llm-compressor's W4A16 scheme (RedHatAI's quantized.w4a16), act-order by weight */
        {"{\"quant_method\": \"compressed-tensors\", \"format\": \"pack-quantized\", \"ignore\": [\"lm_head\"],"
         " \"config_groups\": {\"group_0\": {\"targets\": [\"Linear\"], \"weights\": {\"num_bits\": 4,"
         " \"type\": \"int\", \"symmetric\": true, \"strategy\": \"group\", \"group_size\": 128,"
         " \"actorder\": \"weight\"}}}}",
         DTYPE_INT4_G128, DTYPE_INT4_G128},
        {"{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\": {\"weights\":"
         " {\"num_bits\": 4, \"type\": \"int\", \"symmetric\": false, \"group_size\": 128}}}}",
         DTYPE_INT4_G128_ZP, DTYPE_INT4_G128_ZP},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        char quant[1024];
        snprintf(quant, sizeof quant, ", \"quantization_config\": %s", ok[i].quant);
        snprintf(text, sizeof text, QWEN_MOE_CONFIG, quant);
        if (import_text(path, text, &m, err, sizeof err) != 0)
            fail_msg("%s: %s", ok[i].quant, err);
        if (m.dense_dtype != ok[i].dense || m.expert_dtype != ok[i].experts)
            fail_msg("%s: dense %s, experts %s", ok[i].quant, engine_dtype_names[m.dense_dtype],
                     engine_dtype_names[m.expert_dtype]);
    }

    static const struct {
        const char *quant, *key_value, *expected;
    } bad[] = {
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 128, \"desc_act\": true, \"sym\": true}",
         "quantization_config.desc_act: true", "expected false"},
        {"{\"quant_method\": \"gptq\", \"bits\": 8, \"group_size\": 128, \"desc_act\": false, \"sym\": true}",
         "quantization_config.bits: 8", "the nearest is fp8"},
        {"{\"quant_method\": \"awq\", \"bits\": 4, \"group_size\": 64, \"zero_point\": true}",
         "quantization_config.group_size: 64", "expected 128"},
        {"{\"quant_method\": \"awq\", \"w_bit\": 3, \"q_group_size\": 128, \"zero_point\": true}",
         "quantization_config.w_bit: 3", "expected 4"},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": -1, \"desc_act\": false, \"sym\": true}",
         "quantization_config.group_size: -1", "expected 128"},
        {"{\"quant_method\": \"awq\", \"group_size\": 128, \"zero_point\": true}", "quantization_config.bits: absent",
         "expected 4"},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 128, \"desc_act\": false, \"sym\": true,"
         " \"lm_head\": true}",
         "quantization_config.lm_head: true", "expected false"},
        {"{\"quant_method\": \"gptq\", \"bits\": 4, \"group_size\": 128, \"desc_act\": false, \"sym\": true,"
         " \"dynamic\": {\"-:.*mlp.*\": {}}}",
         "quantization_config.dynamic", "per-module overrides"},
        {"{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\": {\"weights\":"
         " {\"num_bits\": 4, \"type\": \"int\", \"symmetric\": true, \"group_size\": 64}}}}",
         "quantization_config.config_groups.weights.group_size: 64", "32 (int4) or 128 (int4_g128)"},
        {"{\"quant_method\": \"compressed-tensors\", \"config_groups\": {\"group_0\": {\"weights\":"
         " {\"num_bits\": 4, \"type\": \"int\", \"symmetric\": true, \"group_size\": 128, \"actorder\": \"group\"}}}}",
         "quantization_config.config_groups.weights.actorder: \"group\"", "act-order by group"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char quant[1024];
        snprintf(quant, sizeof quant, ", \"quantization_config\": %s", bad[i].quant);
        snprintf(text, sizeof text, QWEN_MOE_CONFIG, quant);
        refused(path, text, bad[i].key_value, bad[i].expected);
    }
    unlink(path);
    rmdir(dir);

    /* The weights: the embedding and LM head stay FP16, every linear layer of the decoder takes
     * 4.156 bits. Mistral Large 2411 AWQ on one GPU: 2 x 32768 x 12288 x 2 B plus 88 x (2 x 96 x
     * 128 + 2 x 8 x 128 + 3 x 28672) x 12288 parameters x 4156 / 8000 B; at TP 8 the vocabulary,
     * the 96 query heads, the 8 KV heads and the MLP split eight ways. */
    preset_catalog *c = builtins();
    load_builtin(c, "mistral-large-2411-awq", &m);
    uint64_t linear = 88ull * (2 * 96 * 128 + 2 * 8 * 128 + 3 * 28672) * 12288;
    uint64_t embed = 2ull * 32768 * 12288 * 2;
    uint64_t tp1 = engine_weight_bytes_per_gpu(&m, 1, 1, false, 1, NULL);
    assert_true(tp1 >= embed + linear * 4156 / 8000 - 8 && tp1 <= embed + linear * 4156 / 8000);
    uint64_t tp8 = engine_weight_bytes_per_gpu(&m, 8, 1, false, 1, NULL);
    assert_true(tp8 >= (embed + linear * 4156 / 8000) / 8 - 8 && tp8 <= (embed + linear * 4156 / 8000) / 8 + 8);
    /* 64.9 GB on one GPU where the BF16 release needs 245.2 GB */
    assert_true(tp1 > 64.8 * GB && tp1 < 65.0 * GB);
    preset_catalog_free(c);
}

/* The state SGLang's mamba cache keeps per request for each linear-attention layer
 * (mamba_utils.py mamba_cache_per_req at attention TP 1): the BF16 conv state and the
 * recurrent state in mamba_ssm_dtype (float32 unless the config says otherwise). */
static void test_linear_state(void **state)
{
    (void)state;
    engine_model m;
    /* Qwen3.5-35B-A3B, 30 Gated DeltaNet layers: conv (2 x 16 x 128 + 32 x 128) x (4 - 1) x 2 B
     * = 49,152 and recurrent 32 x 128 x 128 x 4 B = 2,097,152; its MTP layer is the draft. */
    import_ok(CONFIGS "Qwen--Qwen3.5-35B-A3B.json", &m);
    assert_int_equal(m.linear_attn_layers, 30);
    assert_int_equal(m.linear_state_bytes_per_request, 30ull * (49152 + 2097152));
    assert_int_equal(m.draft_layers, 1);
    /* Kimi-K3, 69 KDA layers of 96 heads x 128: conv (4 - 1) x 3 x 12,288 x 2 B = 221,184 and
     * recurrent 96 x 128 x 128 x 4 B = 6,291,456 (the kimi-k3 preset gives none). */
    import_ok(CONFIGS "Kimi-K3.json", &m);
    assert_int_equal(m.linear_attn_layers, 69);
    assert_int_equal(m.linear_state_bytes_per_request, 69ull * (221184 + 6291456));

    /* Qwen3-Next, 36 layers: conv (2 x 16 x 128 + 32 x 128) x (4 - 1) x 2 B = 49,152 and
     * recurrent 32 x 128 x 128 x 4 B = 2,097,152, the preset's 77,266,944 (test_written_configs);
     * a BF16 recurrent state halves that part, and mtp_num_hidden_layers is the draft. */
    char dir[] = "/tmp/cgplan-test-state-XXXXXX", path[256], text[2048];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    for (size_t i = 0; i < sizeof written_configs / sizeof written_configs[0]; i++)
        if (strcmp(written_configs[i].preset, "qwen3-next-80b-a3b") == 0) {
            size_t n = strlen(written_configs[i].json);
            snprintf(text, sizeof text, "%.*s, \"mamba_ssm_dtype\": \"bfloat16\", \"mtp_num_hidden_layers\": 1}",
                     (int)(n - 1), written_configs[i].json);
        }
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.linear_state_bytes_per_request, 36ull * (49152 + 2097152 / 2));
    assert_int_equal(m.draft_layers, 1);
    /* qwen3_next.py: attn_output_gate (default true) widens q_proj by heads x head_dim; false drops
     * that gate from each of the 12 gated-attention layers: 16 x 256 x 2048 parameters each */
    assert_true(m.attn_output_gate);
    uint64_t gated = engine_model_param_count(&m);
    for (size_t i = 0; i < sizeof written_configs / sizeof written_configs[0]; i++)
        if (strcmp(written_configs[i].preset, "qwen3-next-80b-a3b") == 0) {
            size_t n = strlen(written_configs[i].json);
            snprintf(text, sizeof text, "%.*s, \"attn_output_gate\": false}", (int)(n - 1), written_configs[i].json);
        }
    write_text(path, text);
    import_ok(path, &m);
    assert_false(m.attn_output_gate);
    assert_int_equal(gated - engine_model_param_count(&m), 12ull * 16 * 256 * 2048);

    /* LFM2-1.2B, 10 short-conv layers (SGLang configs/lfm2.py: conv state hidden x
     * (conv_L_cache - 1), no SSM state): 2048 x 2 x 2 B = 8,192 each; layer_types instead of
     * full_attn_idxs counts the same, and a conv_L_cache of 4 makes three columns. */
    for (size_t i = 0; i < sizeof written_configs / sizeof written_configs[0]; i++)
        if (strcmp(written_configs[i].preset, "lfm2-1.2b") == 0)
            write_text(path, written_configs[i].json);
    import_ok(path, &m);
    assert_int_equal(m.linear_attn_layers, 10);
    assert_int_equal(m.full_attn_layers, 6);
    assert_int_equal(m.intermediate, 8192);
    assert_int_equal(m.linear_state_bytes_per_request, 10ull * 2048 * 2 * 2);
    write_text(path, "{\"architectures\": [\"Lfm2ForCausalLM\"], \"vocab_size\": 65536, \"hidden_size\": 1024,"
                     " \"num_hidden_layers\": 4, \"max_position_embeddings\": 4096, \"num_attention_heads\": 16,"
                     " \"num_key_value_heads\": 8, \"intermediate_size\": 6656, \"block_auto_adjust_ff_dim\": false,"
                     " \"conv_L_cache\": 4, \"layer_types\": [\"conv\", \"full_attention\", \"conv\", \"conv\"]}");
    import_ok(path, &m);
    assert_int_equal(m.linear_attn_layers, 3);
    assert_int_equal(m.intermediate, 6656);
    assert_int_equal(m.linear_state_bytes_per_request, 3ull * 1024 * 3 * 2);
    unlink(path);
    rmdir(dir);
}

/* Python's json writes NaN and Infinity (Nemotron-H's time_step_limit); jansson reads none of
 * them at any flag. The import reads them as strings: a key nothing reads is ignored, a key the
 * import reads is refused by name, and the same words inside strings are left alone. */
static void test_nonfinite_floats(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-inf-XXXXXX", path[256], err[1024];
    engine_model m;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_text(path, "{\"architectures\": [\"Qwen3ForCausalLM\"], \"vocab_size\": 151936, \"hidden_size\": 4096,"
                     " \"num_hidden_layers\": 36, \"max_position_embeddings\": 40960, \"num_attention_heads\": 32,"
                     " \"num_key_value_heads\": 8, \"head_dim\": 128, \"intermediate_size\": 12288,"
                     " \"time_step_limit\": [0.0, Infinity], \"time_step_floor\": -Infinity, \"eps\": NaN,"
                     " \"_name_or_path\": \"Qwen/Qwen3-8B\", \"note\": \"NaN \\\" Infinity\"}");
    import_ok(path, &m);
    assert_int_equal(m.layers, 36);
    assert_string_equal(m.hf_names[0], "Qwen/Qwen3-8B"); /* the strings after the tokens are intact */
    write_text(path, "{\"architectures\": [\"Qwen3ForCausalLM\"], \"vocab_size\": 151936, \"hidden_size\": 4096,"
                     " \"num_hidden_layers\": 36, \"max_position_embeddings\": Infinity}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "max_position_embeddings: not an integer"));
    unlink(path);
    rmdir(dir);
}

/* A VL model's vision tower is in param_count and in the weights. The totals the Hugging Face
 * pages give (safetensors), 8.77B for Qwen3-VL-8B (haimaker.ai's card: 8.8B) and 31.07B for
 * Qwen3-VL-30B-A3B (free2aitools.com, from the Hub), within 0.5%; the tower (0.4-0.7B) whole at
 * TP 1 and, at TP 4, its attention-TP part a quarter each, the patch embedding whole on every GPU
 * (qwen3_vl.py). */
static void test_vision_tower_in_weights(void **state)
{
    (void)state;
    static const struct {
        const char *file;
        double published;
    } vl[] = {{"Qwen--Qwen3-VL-8B-Instruct.json", 8.77e9}, {"Qwen--Qwen3-VL-30B-A3B-Instruct.json", 31.07e9}};
    for (size_t i = 0; i < sizeof vl / sizeof vl[0]; i++) {
        engine_model m;
        char path[512];
        snprintf(path, sizeof path, CONFIGS "%s", vl[i].file);
        import_ok(path, &m);
        double n = (double)m.param_count;
        print_message("%s: %.3fB counted, %.2fB published\n", vl[i].file, n / 1e9, vl[i].published / 1e9);
        assert_true(fabs(n - vl[i].published) / vl[i].published < 0.005);
        assert_int_equal(m.param_count, engine_model_param_count(&m));
        assert_true(m.vision_params > 400000000ull && m.vision_params < 700000000ull);
        assert_int_equal(m.vision_tp_params, 0);
        /* the patch embedding: 3 channels x 2 frames x 16 x 16 x 1152 */
        assert_int_equal(m.vision_params - m.vision_attn_tp_params, 3 * 2 * 16 * 16 * 1152);
        assert_int_equal(engine_weight_bytes_per_gpu(&m, 1, 1, false, 1, NULL), 2 * m.param_count);
        engine_model text = m;
        text.vision_params = text.vision_attn_tp_params = 0;
        uint64_t tp4 = engine_weight_bytes_per_gpu(&m, 4, 1, false, 1, NULL);
        assert_int_equal(tp4, engine_weight_bytes_per_gpu(&text, 4, 1, false, 1, NULL) +
                                  2 * (m.vision_attn_tp_params / 4 + (m.vision_params - m.vision_attn_tp_params)));
        /* DP attention: the tower's attention-TP part over tp / dp */
        uint64_t dp2 = engine_weight_bytes_per_gpu(&m, 4, 2, true, 1, NULL);
        assert_int_equal(dp2, engine_weight_bytes_per_gpu(&text, 4, 2, true, 1, NULL) +
                                  2 * (m.vision_attn_tp_params / 2 + (m.vision_params - m.vision_attn_tp_params)));
    }
}

/* The other towers, counted as their SGLang model files build them. Qwen2.5-VL's (qwen2_5_vl.py;
 * the 7B's vision_config, NVIDIA/TensorRT-LLM @ 03dd9bb8
 * tests/unittest/_torch/modeling/test_modeling_qwen2_5vl.py, with depth 32 as its note gives the
 * full model): the Conv3d 1,505,280 and each block's matrices 19,686,400 (a model print of the
 * 3B's tower gives 1,505,280 and 19,702,200 a block with its biases and norms), the merger
 * 5120^2 + 5120 x 3584; attention over attn_tp, MLP and merger over tp. Gemma 3's SigLIP
 * (siglip.py, gemma3_mm.py) and Kimi K2.5's MoonViT (kimi_k25.py) from their configs. */
static void test_vision_tower_kinds(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-vision-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    write_text(path, "{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"], \"hidden_size\": 3584,"
                     " \"intermediate_size\": 18944, \"max_position_embeddings\": 128000, \"num_attention_heads\": 28,"
                     " \"num_hidden_layers\": 28, \"num_key_value_heads\": 4, \"tie_word_embeddings\": false,"
                     " \"torch_dtype\": \"bfloat16\", \"vision_config\": {\"depth\": 32, \"hidden_act\": \"silu\","
                     " \"hidden_size\": 1280, \"intermediate_size\": 3420, \"num_heads\": 16, \"in_chans\": 3,"
                     " \"out_hidden_size\": 3584, \"patch_size\": 14, \"spatial_merge_size\": 2,"
                     " \"spatial_patch_size\": 14, \"window_size\": 112, \"fullatt_block_indexes\": [7, 15, 23, 31],"
                     " \"tokens_per_second\": 2, \"temporal_patch_size\": 2}, \"vocab_size\": 152064}");
    engine_model m;
    import_ok(path, &m);
    assert_int_equal(m.vision_params, 1505280ull + 32ull * 19686400 + 5120ull * 5120 + 5120ull * 3584);
    assert_int_equal(m.vision_attn_tp_params, 32ull * 4 * 1280 * 1280);
    assert_int_equal(m.vision_tp_params, 32ull * 3 * 1280 * 3420 + 5120ull * 5120 + 5120ull * 3584);
    assert_int_equal(m.layers, 28); /* the text model's keys at the top level */
    assert_int_equal(m.intermediate, 18944);
    engine_model text = m;
    text.vision_params = text.vision_attn_tp_params = text.vision_tp_params = 0;
    /* DP attention at tp 4, dp 2: attention over 2, MLP and merger over 4, the patch embedding whole */
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 4, 2, true, 1, NULL),
                     engine_weight_bytes_per_gpu(&text, 4, 2, true, 1, NULL) +
                         2 * (m.vision_attn_tp_params / 2 + m.vision_tp_params / 4 + 1505280));
    /* in_channels, as Qwen2_5_VLVisionConfig names it, is read; in_chans is not one of its keys */
    write_text(path,
               "{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"], \"text_config\": {\"hidden_size\": 2048,"
               " \"intermediate_size\": 11008, \"max_position_embeddings\": 128000, \"num_attention_heads\": 16,"
               " \"num_hidden_layers\": 36, \"num_key_value_heads\": 2, \"vocab_size\": 151936},"
               " \"tie_word_embeddings\": true, \"vision_config\": {\"depth\": 32, \"hidden_size\": 1280,"
               " \"intermediate_size\": 3420, \"in_channels\": 1, \"in_chans\": 3, \"out_hidden_size\": 2048,"
               " \"patch_size\": 14}}");
    import_ok(path, &m);
    assert_int_equal(m.layers, 36); /* transformers' re-saved layout: the text keys under text_config */
    assert_true(m.tie_embeddings);
    assert_int_equal(m.vision_params - m.vision_attn_tp_params - m.vision_tp_params, 2 * 14 * 14 * 1280);
    /* a config transformers saved again keeps only the vision keys that differ from
     * Qwen2_5_VLVisionConfig's defaults (Qwen/Qwen2.5-VL-7B-Instruct-AWQ's: hidden_size, in_chans,
     * model_type, spatial_patch_size, tokens_per_second, torch_dtype): depth 32, MLP 3420, patch 14
     * and out 3584 come from the class, the 7B's tower again */
    write_text(path,
               "{\"architectures\": [\"Qwen2_5_VLForConditionalGeneration\"], \"hidden_size\": 3584,"
               " \"intermediate_size\": 18944, \"max_position_embeddings\": 128000, \"num_attention_heads\": 28,"
               " \"num_hidden_layers\": 28, \"num_key_value_heads\": 4, \"vision_config\": {\"hidden_size\": 1280,"
               " \"in_chans\": 3, \"model_type\": \"qwen2_5_vl\", \"spatial_patch_size\": 14, \"tokens_per_second\": 2,"
               " \"torch_dtype\": \"float32\"}, \"vocab_size\": 152064}");
    import_ok(path, &m);
    assert_int_equal(m.vision_params, 1505280ull + 32ull * 19686400 + 5120ull * 5120 + 5120ull * 3584);
    unlink(path);
    rmdir(dir);

    /* Kimi K2.5's MoonViT: 27 x 4 x 1152^2 attention over attn_tp; the rest whole: the patch and
     * 64 x 64 position embeddings, 27 MLP2s of 2 x 1152 x 4304, the projector 4608^2 + 4608 x 7168 */
    import_ok(CONFIGS "Kimi-K2.5.json", &m);
    assert_int_equal(m.vision_attn_tp_params, 27ull * 4 * 1152 * 1152);
    assert_int_equal(m.vision_tp_params, 0);
    assert_int_equal(m.vision_params, 3ull * 14 * 14 * 1152 + 64ull * 64 * 1152 + 27ull * 2 * 1152 * 4304 +
                                          27ull * 4 * 1152 * 1152 + 4608ull * 4608 + 4608ull * 7168);

    /* Mistral 3's Pixtral tower: Ministral-3-3B-Instruct-2512's config as mlc-ai/mlc-llm @ 79d603f0
     * python/mlc_llm/model/model_preset.py holds it (ministral3_3b_2512). Attention 24 x 4 x 1024^2 over
     * attn_tp, the gated MLPs 24 x 3 x 1024 x 4096 over tp; the Conv2d, the patch merger (4096 -> 1024) and
     * linear_1 / linear_2 (1024 -> 3072 -> 3072) whole. 420.0M: a published count of Mistral Small 3.2's
     * tower, the same one with linear_1 / linear_2 at 5120, is 438,958,080 with norms (the rows' 51,200). */
    char dir2[] = "/tmp/cgplan-test-pixtral-XXXXXX";
    assert_non_null(mkdtemp(dir2));
    snprintf(path, sizeof path, "%s/config.json", dir2);
    write_text(path,
               "{\"architectures\": [\"Mistral3ForConditionalGeneration\"], \"dtype\": \"bfloat16\","
               " \"image_token_index\": 10, \"model_type\": \"ministral3\", \"multimodal_projector_bias\": false,"
               " \"projector_hidden_act\": \"gelu\", \"spatial_merge_size\": 2, \"text_config\": {"
               "\"attention_dropout\": 0.0, \"head_dim\": 128, \"hidden_act\": \"silu\", \"hidden_size\": 3072,"
               " \"initializer_range\": 0.02, \"intermediate_size\": 9216, \"max_position_embeddings\": 262144,"
               " \"model_type\": \"ministral3\", \"num_attention_heads\": 32, \"num_hidden_layers\": 26,"
               " \"num_key_value_heads\": 8, \"rms_norm_eps\": 1e-05, \"sliding_window\": null,"
               " \"tie_word_embeddings\": true, \"use_cache\": true, \"vocab_size\": 131072},"
               " \"transformers_version\": \"5.0.0.dev0\", \"vision_config\": {\"attention_dropout\": 0.0,"
               " \"head_dim\": 64, \"hidden_act\": \"silu\", \"hidden_size\": 1024, \"image_size\": 1540,"
               " \"initializer_range\": 0.02, \"intermediate_size\": 4096, \"model_type\": \"pixtral\","
               " \"num_attention_heads\": 16, \"num_channels\": 3, \"num_hidden_layers\": 24, \"patch_size\": 14},"
               " \"vision_feature_layer\": -1}");
    import_ok(path, &m);
    assert_string_equal(m.architecture, "Mistral3ForConditionalGeneration");
    assert_int_equal(m.layers, 26);
    assert_int_equal(m.hidden, 3072);
    assert_int_equal(m.head_dim, 128);
    assert_true(m.tie_embeddings);
    assert_int_equal(m.vision_attn_tp_params, 24ull * 4 * 1024 * 1024);
    assert_int_equal(m.vision_tp_params, 24ull * 3 * 1024 * 4096);
    assert_int_equal(m.vision_params - m.vision_attn_tp_params - m.vision_tp_params,
                     3ull * 14 * 14 * 1024 + 4096ull * 1024 + 1024ull * 3072 + 3072ull * 3072);
    /* Mistral Small 4's text model (MLA + MoE) under the same class is refused, named */
    char err[1024] = "";
    write_text(path,
               "{\"architectures\": [\"Mistral3ForConditionalGeneration\"], \"text_config\": {\"hidden_size\": 4096,"
               " \"num_hidden_layers\": 36, \"vocab_size\": 131072, \"max_position_embeddings\": 262144,"
               " \"num_attention_heads\": 32, \"kv_lora_rank\": 256, \"n_routed_experts\": 128,"
               " \"intermediate_size\": 12288}}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "text_config.kv_lora_rank: not a key of a dense GQA model"));
    unlink(path);
    rmdir(dir2);
}

/* Gemma 3 with layer_types (newer transformers write it): the full_attention entries are the
 * global layers, whatever the pattern. */
static void test_gemma3_layer_types(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-gemma-XXXXXX", path[256], text[4096];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    int n = snprintf(text, sizeof text,
                     "{\"architectures\": [\"Gemma3ForCausalLM\"], \"vocab_size\": 262144, \"hidden_size\": 1152,"
                     " \"intermediate_size\": 6912, \"num_hidden_layers\": 26, \"num_attention_heads\": 4,"
                     " \"num_key_value_heads\": 1, \"head_dim\": 256, \"max_position_embeddings\": 32768,"
                     " \"sliding_window\": 512, \"sliding_window_pattern\": 2, \"layer_types\": [");
    for (int i = 0; i < 26; i++) /* every 6th global, as Gemma 3 1B; the pattern key disagrees */
        n += snprintf(text + n, sizeof text - (size_t)n, "%s\"%s\"", i ? ", " : "",
                      (i + 1) % 6 ? "sliding_attention" : "full_attention");
    snprintf(text + n, sizeof text - (size_t)n, "]}");
    write_text(path, text);
    engine_model m;
    import_ok(path, &m);
    assert_int_equal(m.full_attn_layers, 4);
    assert_int_equal(m.swa_layers, 22);
    assert_int_equal(m.sliding_window, 512);
    assert_true(m.tie_embeddings); /* Gemma3Config's default */
    assert_int_equal(m.heads, 4);
    assert_int_equal(m.kv_heads, 1);
    unlink(path);
    rmdir(dir);
}

/* Gemma 4 (google/gemma-4-26B-A4B's config.json, byte for byte): the sliding layers' shape from
 * num_key_value_heads x head_dim, the full layers' from num_global_key_value_heads x
 * global_head_dim (SGLang's config parser swaps them in as head_dim / num_key_value_heads), the
 * count of each from layer_types; enable_moe_block's dense MLP beside the experts as a shared
 * expert. The parameters as gemma4_causal.py holds them: v in the full layers too (k_eq_v loads
 * k_proj into it). The NVFP4 exports keep their BF16 modules so: the 26B its attention and dense
 * MLP (experts FP4), the 31B its attention alone (attention_dtype). The E-series' per-layer
 * embeddings are refused, naming the key; so is a layer_types list that does not name every layer.
 * The vision tower as gemma4_vision.py / gemma4_mm.py build it (sglang 8905cbd42): 27 layers of a
 * fused q / k / v of 48 heads x 72, o_proj and a gated MLP of 4304 on width 1152, all over tp (the
 * Clippable* wrappers' linear.py layers take tp_size's default, not attn_tp_size); the patch
 * embedder's 768 x 1152, the 2 x 10240 x 1152 position table and embed_vision's 1152 x the text
 * width whole; BF16 in the NVFP4 exports (their ignore lists name model.vision_tower* and
 * model.embed_vision*). */
static void test_gemma4(void **state)
{
    (void)state;
    engine_model m;
    import_ok(CONFIGS "google--gemma-4-26B-A4B.json", &m);
    assert_string_equal(m.name, "gemma-4-26b-a4b");
    assert_string_equal(m.hf_names[0], "google/gemma-4-26B-A4B");
    assert_int_equal(m.attn_kind, ATTN_GQA);
    assert_int_equal(m.vocab, 262144);
    assert_int_equal(m.hidden, 2816);
    assert_int_equal(m.layers, 30);
    assert_int_equal(m.context_len, 262144);
    assert_true(m.tie_embeddings);
    assert_int_equal(m.heads, 16);
    assert_int_equal(m.kv_heads, 8);
    assert_int_equal(m.head_dim, 256);
    assert_int_equal(m.full_kv_heads, 2);
    assert_int_equal(m.full_head_dim, 512);
    assert_int_equal(engine_full_kv_heads(&m), 2);
    assert_int_equal(engine_full_head_dim(&m), 512);
    assert_int_equal(m.swa_layers, 25);
    assert_int_equal(m.full_attn_layers, 5);
    assert_int_equal(m.sliding_window, 1024);
    assert_int_equal(m.num_experts, 128);
    assert_int_equal(m.top_k, 8);
    assert_int_equal(m.moe_intermediate, 704);
    assert_int_equal(m.shared_experts, 1);
    assert_int_equal(m.shared_intermediate, 2112);
    assert_int_equal(m.dense_layers, 0);
    assert_int_equal(m.dtype, DTYPE_BF16);
    assert_false(m.attn_dtype_set);
    uint64_t h = 2816, v = 262144;
    uint64_t want = v * h + 25 * (2 * 16 * 256 * h + 2 * 8 * 256 * h) + 5 * (2 * 16 * 512 * h + 2 * 2 * 512 * h) +
                    30 * 3 * h * 2112 + 30 * 128 * 3 * h * 704 + 30 * 128 * h;             /* 25,246,859,264 */
    uint64_t vw = 1152, tower_layers = 27 * (vw * 48 * 72 + 16 * 72 * vw + 3 * vw * 4304); /* 544,942,080 */
    uint64_t tower_whole = 3 * 16 * 16 * vw + 2 * 10240 * vw + vw * h;                     /* 27,721,728 */
    assert_int_equal(m.vision_tp_params, tower_layers);
    assert_int_equal(m.vision_attn_tp_params, 0);
    assert_int_equal(m.vision_params, tower_layers + tower_whole); /* 572,663,808 */
    assert_int_equal(m.param_count, want + m.vision_params);       /* 25,819,523,072 */
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 1, 1, false, 1, NULL), 2 * m.param_count);
    engine_model text_only = m;
    text_only.vision_params = text_only.vision_tp_params = 0;
    /* TP 8: the layers an eighth each, the rest whole; with DP attention (attn_tp 4) still over tp */
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 8, 1, false, 1, NULL),
                     engine_weight_bytes_per_gpu(&text_only, 8, 1, false, 1, NULL) +
                         2 * (tower_layers / 8 + tower_whole));
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 8, 2, true, 1, NULL),
                     engine_weight_bytes_per_gpu(&text_only, 8, 2, true, 1, NULL) +
                         2 * (tower_layers / 8 + tower_whole));
    /* Gemma's nn.Embedding is whole on every TP rank (the tied head is the same matrix): at TP 8 a
     * GPU holds all 262,144 rows, 1,291,845,632 B more than a vocab-parallel one would */
    engine_model vocab_parallel = m;
    snprintf(vocab_parallel.architecture, sizeof vocab_parallel.architecture, "VocabParallelForCausalLM");
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 8, 1, false, 1, NULL) -
                         engine_weight_bytes_per_gpu(&vocab_parallel, 8, 1, false, 1, NULL),
                     (v - v / 8) * h * 2);

    import_ok(CONFIGS "nvidia--Gemma-4-26B-A4B-NVFP4.json", &m);
    assert_int_equal(m.expert_dtype, DTYPE_NVFP4);
    assert_int_equal(m.dense_dtype, DTYPE_BF16); /* self_attn, mlp and router excluded per layer */
    assert_false(m.attn_dtype_set);
    assert_int_equal(m.dtype, DTYPE_BF16); /* the tower's */
    assert_int_equal(m.vision_params, tower_layers + tower_whole);
    import_ok(CONFIGS "nvidia--Gemma-4-31B-IT-NVFP4.json", &m);
    assert_int_equal(m.num_experts, 0);
    assert_int_equal(m.intermediate, 21504);
    assert_int_equal(m.kv_heads, 16);
    assert_int_equal(m.full_kv_heads, 4);
    assert_int_equal(m.full_head_dim, 512);
    assert_int_equal(m.swa_layers, 50);
    assert_int_equal(m.full_attn_layers, 10);
    assert_int_equal(m.dense_dtype, DTYPE_NVFP4); /* the MLP */
    assert_true(m.attn_dtype_set);
    assert_int_equal(engine_attn_dtype(&m), DTYPE_BF16); /* self_attn excluded alone */
    /* 31,381,727,232 parameters: 8.58B of attention at 2 B, 20.81B of MLP at NVFP4's 4.5 bits,
     * the tied embedding and the 575,612,928 of the tower (embed_vision to 5376) at 2 B */
    h = 5376;
    uint64_t attn = 50 * (2 * 32 * 256 * h + 2 * 16 * 256 * h) + 10 * (2 * 32 * 512 * h + 2 * 4 * 512 * h);
    uint64_t mlp = 60 * 3 * h * 21504;
    uint64_t tower = tower_layers + 3 * 16 * 16 * vw + 2 * 10240 * vw + vw * h;
    assert_int_equal(m.vision_params, tower);
    assert_int_equal(m.vision_tp_params, tower_layers);
    assert_int_equal(m.param_count, v * h + attn + mlp + tower);
    assert_int_equal(engine_weight_bytes_per_gpu(&m, 1, 1, false, 1, NULL),
                     2 * v * h + 2 * attn + mlp * engine_dtype_bits_x1000(DTYPE_NVFP4) / 8000 + 2 * tower);

    char dir[] = "/tmp/cgplan-test-gemma4-XXXXXX", path[256], text[4096], err[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    const char *head = "{\"architectures\": [\"Gemma4ForCausalLM\"], \"vocab_size\": 262144, \"hidden_size\": 1536,"
                       " \"num_hidden_layers\": 5, \"max_position_embeddings\": 131072, \"num_attention_heads\": 8,"
                       " \"num_key_value_heads\": 1, \"head_dim\": 256, \"global_head_dim\": 512,"
                       " \"intermediate_size\": 6144, \"sliding_window\": 512";
    const char *types = ", \"layer_types\": [\"sliding_attention\", \"sliding_attention\", \"sliding_attention\","
                        " \"sliding_attention\", \"full_attention\"]";
    /* num_global_key_value_heads absent: the full layers keep num_key_value_heads */
    snprintf(text, sizeof text, "%s%s}", head, types);
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.full_kv_heads, 1);
    assert_int_equal(m.full_head_dim, 512);
    assert_true(m.tie_embeddings); /* Gemma4TextConfig's default */
    snprintf(text, sizeof text, "%s%s, \"hidden_size_per_layer_input\": 256, \"num_kv_shared_layers\": 2}", head,
             types);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "hidden_size_per_layer_input: not 0"));
    snprintf(text, sizeof text, "%s, \"layer_types\": [\"sliding_attention\", \"full_attention\"]}", head);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "layer_types: not"));
    snprintf(text, sizeof text, "%s}", head);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "layer_types: missing"));
    /* a vision_config that omits its keys takes Gemma4VisionConfig's defaults (width 768, 16 layers,
     * MLP 3072, 12 heads and 12 KV heads of 64, patch 16, 10240 positions); embed_vision projects to
     * the text width; a bad key is named under vision_config; no vision_config, no tower */
    char text_part[1024];
    snprintf(text_part, sizeof text_part,
             "\"text_config\": {\"vocab_size\": 262144, \"hidden_size\": 1536, \"num_hidden_layers\": 5,"
             " \"max_position_embeddings\": 131072, \"num_attention_heads\": 8, \"num_key_value_heads\": 1,"
             " \"head_dim\": 256, \"intermediate_size\": 6144, \"sliding_window\": 512%s}",
             types);
    snprintf(text, sizeof text,
             "{\"architectures\": [\"Gemma4ForConditionalGeneration\"], %s,"
             " \"vision_config\": {\"model_type\": \"gemma4_vision\"}}",
             text_part);
    write_text(path, text);
    import_ok(path, &m);
    uint64_t dw = 768;
    assert_int_equal(m.vision_tp_params, 16 * (dw * 36 * 64 + 12 * 64 * dw + 3 * dw * 3072)); /* 150,994,944 */
    assert_int_equal(m.vision_attn_tp_params, 0);
    assert_int_equal(m.vision_params, m.vision_tp_params + 3 * 16 * 16 * dw + 2 * 10240 * dw + dw * 1536);
    snprintf(text, sizeof text,
             "{\"architectures\": [\"Gemma4ForConditionalGeneration\"], %s,"
             " \"vision_config\": {\"head_dim\": 0}}",
             text_part);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "vision_config.head_dim: not an integer >= 1"));
    snprintf(text, sizeof text, "{\"architectures\": [\"Gemma4ForConditionalGeneration\"], %s}", text_part);
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.vision_params, 0);
    unlink(path);
    rmdir(dir);
}

static void test_errors_name_file_and_field(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-bad-XXXXXX", path[256], err[1024];
    engine_model m;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);

    write_text(path, "{\"architectures\": [\"MysteryForCausalLM\"]}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strstr(err, "'MysteryForCausalLM' is not one cgplan reads"));
    assert_non_null(strstr(err, "the nearest name it reads is 'MistralForCausalLM'")); /* 4 edits */
    /* A sibling of a known class is named (one edit each), and so is a long one past the edit
     * distance's reach, by its shared prefix. */
    static const char *const near[][2] = {
        {"Qwen2MoeForCausalLM", "Qwen3MoeForCausalLM"},
        {"Gemma2ForConditionalGeneration", "Gemma3ForConditionalGeneration"},
        {"deepseekv3forcausallm", "DeepseekV3ForCausalLM"}, /* without case */
        {"GraniteMoeForCausalLM", "GraniteMoeHybridForCausalLM"},
        {"Qwen3_5MoeForConditionalGenerationWithAVeryLongSuffixPastTheDistance", "Qwen3_5MoeForConditionalGeneration"},
    };
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        char text[256], want[128];
        snprintf(text, sizeof text, "{\"architectures\": [\"%s\"]}", near[i][0]);
        write_text(path, text);
        assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
        snprintf(want, sizeof want, "the nearest name it reads is '%s'", near[i][1]);
        if (!strstr(err, want))
            fail_msg("%s: %s", near[i][0], err);
    }

    write_text(path, "{\"architectures\": [\"DeepseekV3ForCausalLM\"], \"vocab_size\": 129280, \"hidden_size\": 7168,"
                     " \"num_hidden_layers\": 61, \"max_position_embeddings\": 163840, \"num_attention_heads\": 128}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "kv_lora_rank: missing"));

    write_text(path, "{\"architectures\": [\"Llama4ForConditionalGeneration\"]}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "text_config: missing"));

    write_text(path, "{\"architectures\": [\"LlamaForCausalLM\"], \"vocab_size\": \"many\"}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "vocab_size: not an integer"));

    write_text(path, "{\"architectures\": [");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_non_null(strchr(err, ':'));

    unlink(path);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    rmdir(dir);
}

static void test_names(void **state)
{
    (void)state;
    char name[64], err[256];
    preset_model_import_name("/models/DeepSeek-V3.json", name, sizeof name);
    assert_string_equal(name, "deepseek-v3");
    preset_model_import_name("/models/Qwen3-8B/config.json", name, sizeof name);
    assert_string_equal(name, "qwen3-8b");
    preset_model_import_name("/models/Qwen3-8B//config.json", name, sizeof name);
    assert_string_equal(name, "qwen3-8b");
    preset_model_import_name("config.json", name, sizeof name);
    assert_string_equal(name, "");
    preset_model_import_name("My Model (v2).json", name, sizeof name);
    assert_string_equal(name, "my-model--v2-");
    assert_int_equal(preset_model_check_name("qwen3-8b", err, sizeof err), 0);
    assert_int_equal(preset_model_check_name("", err, sizeof err), -1);
    assert_int_equal(preset_model_check_name("../x", err, sizeof err), -1);
    assert_non_null(strstr(err, "--name"));

    /* AIConfigurator's owner--name[.config].json (and its _config.json): the name alone. */
    preset_model_import_name("/x/zai-org--GLM-4.5-Air.config.json", name, sizeof name);
    assert_string_equal(name, "glm-4.5-air");
    preset_model_import_name("deepseek-ai--DeepSeek-V3_config.json", name, sizeof name);
    assert_string_equal(name, "deepseek-v3");
    preset_model_import_name("/models/zai-org--GLM-4.5-Air/config.json", name, sizeof name);
    assert_string_equal(name, "glm-4.5-air");
    /* Not an owner and a name Hugging Face allows ("--" inside one, a leading '-'): the whole stem. */
    preset_model_import_name("a--b--c.json", name, sizeof name);
    assert_string_equal(name, "a--b--c");
    preset_model_import_name("org---x.json", name, sizeof name);
    assert_string_equal(name, "org---x");

    /* hf_names: without an id, where the name came from. */
    engine_model m;
    import_ok(CONFIGS "Kimi-K2.5.json", &m);
    assert_int_equal(m.n_hf_names, 1);
    assert_string_equal(m.hf_names[0], "Kimi-K2.5");
    /* An owner--name file gives owner/name, and only that (not the stem, which it ends in). */
    import_ok(CONFIGS "zai-org--GLM-4.7-Flash.json", &m);
    assert_string_equal(m.name, "glm-4.7-flash");
    assert_int_equal(m.n_hf_names, 1);
    assert_string_equal(m.hf_names[0], "zai-org/GLM-4.7-Flash");
    /* A _name_or_path that is a local path is no id: nvidia's FP8 Llama says where it was built. */
    import_ok(CONFIGS "nvidia--Llama-3.1-70B-Instruct-FP8.json", &m);
    assert_int_equal(m.n_hf_names, 1);
    assert_string_equal(m.hf_names[0], "nvidia/Llama-3.1-70B-Instruct-FP8");
    /* One without an owner is no id either (Phi-4-mini's "Phi-4-mini-instruct"). */
    import_ok(CONFIGS "microsoft--Phi-4-mini-instruct.json", &m);
    assert_int_equal(m.n_hf_names, 1);
    assert_string_equal(m.hf_names[0], "microsoft/Phi-4-mini-instruct");

    /* _name_or_path as the config gives it, in a folder of another name. */
    static const struct {
        const char *nop;
        int n;
        const char *first, *second;
    } nops[] = {
        {"Qwen/Qwen3-8B", 2, "Qwen/Qwen3-8B", "Local-Copy"}, /* an id, then the folder */
        {"/data/ckpt/Qwen3-8B", 1, "Local-Copy", NULL},      /* absolute */
        {"./Qwen3-8B", 1, "Local-Copy", NULL},               /* relative */
        {"~/Qwen3-8B", 1, "Local-Copy", NULL},               /* home */
        {"data/ckpt/Qwen3-8B", 1, "Local-Copy", NULL},       /* deeper than owner/name */
        {"Qwen3-8B", 1, "Local-Copy", NULL},                 /* no owner */
        {"Qwen/Local-Copy", 1, "Qwen/Local-Copy", NULL},     /* the id ends in the folder's name */
    };
    char dir[] = "/tmp/cgplan-test-names-XXXXXX", folder[256], path[320], text[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(folder, sizeof folder, "%s/Local-Copy", dir);
    assert_int_equal(mkdir(folder, 0700), 0);
    snprintf(path, sizeof path, "%s/config.json", folder);
    for (size_t i = 0; i < sizeof nops / sizeof nops[0]; i++) {
        snprintf(text, sizeof text,
                 "{\"architectures\": [\"Qwen3ForCausalLM\"], \"vocab_size\": 151936, \"hidden_size\": 4096,"
                 " \"num_hidden_layers\": 36, \"max_position_embeddings\": 40960, \"num_attention_heads\": 32,"
                 " \"intermediate_size\": 12288, \"_name_or_path\": \"%s\"}",
                 nops[i].nop);
        write_text(path, text);
        import_ok(path, &m);
        if (m.n_hf_names != nops[i].n || strcmp(m.hf_names[0], nops[i].first) != 0 ||
            (nops[i].second && strcmp(m.hf_names[1], nops[i].second) != 0))
            fail_msg("_name_or_path %s: %d names, the first %s", nops[i].nop, m.n_hf_names, m.hf_names[0]);
        assert_string_equal(m.name, "local-copy");
    }
    unlink(path);
    rmdir(folder);
    rmdir(dir);

    /* --hf-id: owner/name replaces what the file and the config gave; anything else is refused. */
    import_ok(CONFIGS "zai-org--GLM-4.7-Flash.json", &m);
    assert_int_equal(preset_model_set_hf_id(&m, "my-org/GLM-4.7-Flash-ft", err, sizeof err), 0);
    assert_int_equal(m.n_hf_names, 1);
    assert_string_equal(m.hf_names[0], "my-org/GLM-4.7-Flash-ft");
    static const char *const bad_ids[] = {"GLM-4.7-Flash", "/models/glm", "a/b/c",  "org/m;rm", "org/-m",
                                          "org/m--x",      "org/",        "org/m.", "org/m x"};
    for (size_t i = 0; i < sizeof bad_ids / sizeof bad_ids[0]; i++) {
        if (preset_model_set_hf_id(&m, bad_ids[i], err, sizeof err) != -1)
            fail_msg("--hf-id %s was taken", bad_ids[i]);
        assert_non_null(strstr(err, "owner/name"));
    }
    assert_string_equal(m.hf_names[0], "my-org/GLM-4.7-Flash-ft"); /* a refused id changes nothing */
}

/* A dense model's preset needs no moe: and counts its MLP on every layer. */
static void test_dense_yaml_and_written_preset_roundtrip(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-yaml-XXXXXX", path[256], err[1024] = "";
    assert_non_null(mkdtemp(dir));
    setenv("CGPLAN_PRESETS", dir, 1);
    preset_catalog *c = preset_catalog_open();
    for (size_t i = 0; i < sizeof real_configs / sizeof real_configs[0]; i++) {
        char src[512];
        snprintf(src, sizeof src, CONFIGS "%s", real_configs[i].file);
        engine_model m, back;
        import_ok(src, &m);
        snprintf(path, sizeof path, "%s/%s.yaml", dir, m.name);
        FILE *f = fopen(path, "w");
        assert_non_null(f);
        assert_int_equal(preset_model_write_yaml(f, &m, src), 0);
        fclose(f);
        if (preset_load_model(c, path, &back, err, sizeof err) != 0)
            fail_msg("%s", err);
        assert_same_model(&m, &back, SAME_ALL);
        assert_int_equal(back.n_hf_names, m.n_hf_names);
        unlink(path);
    }
    preset_catalog_free(c);
    rmdir(dir);
    unsetenv("CGPLAN_PRESETS");
}

/* The one check the loader, model import and --model CONFIG share (issue 21): the relations
 * the loader checks key by key hold for an assembled model too, each named. */
static void test_model_check_relations(void **state)
{
    (void)state;
    engine_model good, m;
    char err[512];
    import_ok(CONFIGS "gpt-oss-120b.json", &good);
    assert_int_equal(engine_model_check(&good, err, sizeof err), 0);
    m = good;
    m.context_len = 16777217; /* one past the context_len knob */
    assert_int_equal(engine_model_check(&m, err, sizeof err), -1);
    assert_non_null(strstr(err, "context_len 16777217"));
    m = good;
    m.context_len = 0;
    assert_int_equal(engine_model_check(&m, err, sizeof err), -1);
    m = good;
    m.swa_layers = m.layers + 1; /* the wrap a long layer_types gave: full_attn_layers 4294967232 */
    m.full_attn_layers = m.layers - m.swa_layers;
    assert_int_equal(engine_model_check(&m, err, sizeof err), -1);
    assert_non_null(strstr(err, "exceed the 36 layers"));
    m = good;
    m.linear_attn_layers = 1; /* 18 full + 18 sliding + 1 linear */
    assert_int_equal(engine_model_check(&m, err, sizeof err), -1);
    assert_non_null(strstr(err, "linear_attn_layers 1"));
    m = good;
    m.dense_layers = m.layers + 1;
    assert_int_equal(engine_model_check(&m, err, sizeof err), -1);
    assert_non_null(strstr(err, "dense_layers"));
    m = good;
    m.top_k = m.num_experts + 1;
    assert_int_equal(engine_model_check(&m, err, sizeof err), -1);
    assert_non_null(strstr(err, "top_k"));
    m = good;
    m.kv_heads = m.heads + 1;
    assert_int_equal(engine_model_check(&m, err, sizeof err), -1);
    assert_non_null(strstr(err, "kv_heads"));
}

/* The built-in preset NAME counts within 2% of its PUBLISHED total (test_param_counts' rule). */
static void assert_published_total(const char *name, double published)
{
    preset_catalog *c = builtins();
    engine_model m;
    load_builtin(c, name, &m);
    double n = (double)engine_model_param_count(&m);
    print_message("%-20s %8.2fB counted, %8.2fB published (%+.1f%%)\n", name, n / 1e9, published / 1e9,
                  100 * (n - published) / published);
    if (fabs(n - published) / published > 0.02)
        fail_msg("%s: %.2fB counted vs %.2fB published", name, n / 1e9, published / 1e9);
    assert_int_equal(m.param_count, (uint64_t)n);
    preset_catalog_free(c);
}

/* HunYuan V1 (hunyuan.py): the per-layer lists must agree, the head size comes from head_dim or
 * attention_head_dim, a config without experts is dense, and cross-layer attention (which
 * SGLang's model file cannot serve) is refused by name. */
static void test_hunyuan(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-hunyuan-XXXXXX", path[256], err[1024];
    engine_model m;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    import_ok(CONFIGS "Hunyuan-A13B.json", &m);
    assert_int_equal(m.head_dim, 128); /* attention_head_dim: the config has no head_dim */
    assert_int_equal(m.top_k, 8);
    assert_int_equal(m.shared_intermediate, 3072); /* intermediate_size x num_shared_expert 1 */
    assert_true(m.trust_remote_code);              /* auto_map to the remote "hunyuan" class */
    assert_published_total("hunyuan-a13b", 80e9);  /* Tencent's README: 80 billion in all */

    static const char base[] = "{\"architectures\": [\"HunYuanMoEV1ForCausalLM\"], \"vocab_size\": 1000,"
                               " \"hidden_size\": 512, \"num_hidden_layers\": 2, \"max_position_embeddings\": 4096,"
                               " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"head_dim\": 128,"
                               " \"intermediate_size\": 256";
    char text[1024];
    snprintf(text, sizeof text,
             "%s, \"num_experts\": 8, \"moe_topk\": [2, 2], \"moe_intermediate_size\": 64,"
             " \"use_mixed_mlp_moe\": true, \"num_shared_expert\": [2, 2]}",
             base);
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.num_experts, 8);
    assert_int_equal(m.moe_intermediate, 64);
    assert_int_equal(m.shared_experts, 1);
    assert_int_equal(m.shared_intermediate, 512); /* one shared MLP of 256 x 2 */

    snprintf(text, sizeof text, "%s, \"num_experts\": 8, \"moe_topk\": [2, 4]}", base);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(
        err, "moe_topk: not an integer >= 1 (the experts per token), or a list of one such per layer, all equal"));

    snprintf(text, sizeof text, "%s, \"num_experts\": 1}", base); /* hunyuan.py _is_moe: more than one */
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.num_experts, 0);
    assert_int_equal(m.intermediate, 256);
    assert_int_equal(m.param_count, 1000ull * 512 * 2 + 2ull * (2 * 4 * 128 * 512 + 2 * 2 * 128 * 512 + 3 * 512 * 256));

    snprintf(text, sizeof text, "%s, \"use_cla\": true, \"cla_share_factor\": 2}", base);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "use_cla: not false (or cla_share_factor 1)"));

    write_text(path, "{\"architectures\": [\"HunYuanDenseV1ForCausalLM\"], \"vocab_size\": 1000, \"hidden_size\": 512,"
                     " \"num_hidden_layers\": 2, \"max_position_embeddings\": 4096, \"num_attention_heads\": 4,"
                     " \"intermediate_size\": 256}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "head_dim: missing"));
    unlink(path);
    rmdir(dir);
}

/* ERNIE 4.5 (ernie4.py): MoE where start <= i <= end and (i - start) % interval == 0, the rest
 * dense; without moe_layer_start_index (Ernie4_5_ForCausalLM's dense configs) no layer is MoE;
 * the shared experts are one MLP of moe_intermediate_size x their count. */
static void test_ernie45(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-ernie-XXXXXX", path[256], err[1024];
    engine_model m;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    assert_published_total("ernie-4.5-21b-a3b", 21.8e9);  /* the Hub's count (Baidu's card rounds it to 21B) */
    assert_published_total("ernie-4.5-300b-a47b", 300e9); /* Baidu's card */
    static const char base[] = "{\"architectures\": [\"Ernie4_5_MoeForCausalLM\"], \"vocab_size\": 1000,"
                               " \"hidden_size\": 512, \"num_hidden_layers\": 10, \"max_position_embeddings\": 4096,"
                               " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"intermediate_size\": 256,"
                               " \"moe_num_experts\": 8, \"moe_k\": 2, \"moe_intermediate_size\": 64";
    char text[1024];
    /* layers 2, 5, 8 MoE (start 2, interval 3, end the last layer by default); 3 shared: one MLP of 192 */
    snprintf(text, sizeof text,
             "%s, \"moe_layer_start_index\": 2, \"moe_layer_interval\": 3, \"moe_num_shared_experts\": 3,"
             " \"num_nextn_predict_layers\": 1}",
             base);
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.num_experts, 8);
    assert_int_equal(m.dense_layers, 7);
    assert_int_equal(m.shared_experts, 1);
    assert_int_equal(m.shared_intermediate, 192);
    assert_int_equal(m.draft_layers, 1);
    assert_int_equal(m.head_dim, 128); /* hidden / heads */
    /* an end before the last layer: 2 and 5 */
    snprintf(text, sizeof text,
             "%s, \"moe_layer_start_index\": 2, \"moe_layer_end_index\": 6, \"moe_layer_interval\": 3}", base);
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.dense_layers, 8);
    assert_int_equal(m.shared_experts, 0);
    /* no moe_layer_start_index: dense, the MoE keys unread */
    write_text(path, "{\"architectures\": [\"Ernie4_5_ForCausalLM\"], \"vocab_size\": 1000, \"hidden_size\": 512,"
                     " \"num_hidden_layers\": 2, \"max_position_embeddings\": 4096, \"num_attention_heads\": 4,"
                     " \"num_key_value_heads\": 2, \"intermediate_size\": 256, \"tie_word_embeddings\": true}");
    import_ok(path, &m);
    assert_int_equal(m.num_experts, 0);
    assert_int_equal(m.param_count, 1000ull * 512 + 2ull * (2 * 4 * 128 * 512 + 2 * 2 * 128 * 512 + 3 * 512 * 256));
    /* MoE layers without the experts' count */
    write_text(path, "{\"architectures\": [\"Ernie4_5_MoeForCausalLM\"], \"vocab_size\": 1000, \"hidden_size\": 512,"
                     " \"num_hidden_layers\": 2, \"max_position_embeddings\": 4096, \"num_attention_heads\": 4,"
                     " \"intermediate_size\": 256, \"moe_layer_start_index\": 1}");
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "moe_num_experts: missing"));
    unlink(path);
    rmdir(dir);
}

/* Granite 4.0-H (granitemoehybrid.py, mamba.py MambaMixer2, mamba_utils.py Mamba2StateShape):
 * layer_types splits Mamba2 from attention layers (without it every sixth is attention); a
 * Mamba2 layer's parameters and its BF16 conv + float32 SSM state; no experts leaves the shared
 * MLP as the dense MLP; heads that do not make mamba_expand x hidden are refused. */
static void test_granite_hybrid(void **state)
{
    (void)state;
    char dir[] = "/tmp/cgplan-test-granite-XXXXXX", path[256], err[1024];
    engine_model m;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/config.json", dir);
    assert_published_total("granite-4.0-h-tiny", 7e9);   /* IBM: 7B total, 1B active */
    assert_published_total("granite-4.0-h-small", 32e9); /* IBM: 32B total, 9B active */
    for (size_t i = 0; i < sizeof written_configs / sizeof written_configs[0]; i++)
        if (strcmp(written_configs[i].preset, "granite-4.0-h-tiny") == 0)
            write_text(path, written_configs[i].json);
    import_ok(path, &m);
    assert_int_equal(m.full_attn_layers, 4);
    assert_int_equal(m.linear_attn_layers, 36);
    assert_int_equal(m.head_dim, 128); /* hidden 1536 / 12 heads */
    assert_true(m.tie_embeddings);
    /* in_proj 1536 x (3072 + 3328 + 48), conv1d 3328 x 4 + bias, A / D / dt_bias, norm, out_proj */
    assert_int_equal(m.linear_attn_layer_params,
                     1536ull * (3072 + 3328 + 48) + 3328 * 4 + 3328 + 3 * 48 + 3072 + 3072ull * 1536);
    /* conv (3072 + 2 x 128) x 3 x 2 B and SSM 48 x 64 x 128 x 4 B, x 36 */
    assert_int_equal(m.linear_state_bytes_per_request, 36ull * (3328 * 3 * 2 + 48 * 64 * 128 * 4));

    static const char base[] = "{\"architectures\": [\"GraniteMoeHybridForCausalLM\"], \"vocab_size\": 1000,"
                               " \"hidden_size\": 512, \"num_hidden_layers\": 12, \"max_position_embeddings\": 4096,"
                               " \"num_attention_heads\": 4, \"num_key_value_heads\": 2, \"mamba_n_heads\": 16,"
                               " \"mamba_d_head\": 64, \"mamba_d_state\": 64, \"mamba_n_groups\": 2";
    char text[1024];
    /* no experts, no layer_types: layers 5 and 11 attention, the shared MLP the dense one */
    snprintf(text, sizeof text, "%s, \"shared_intermediate_size\": 1024, \"tie_word_embeddings\": false}", base);
    write_text(path, text);
    import_ok(path, &m);
    assert_int_equal(m.num_experts, 0);
    assert_int_equal(m.intermediate, 1024);
    assert_int_equal(m.full_attn_layers, 2);
    assert_int_equal(m.linear_attn_layers, 10);
    assert_false(m.tie_embeddings);
    assert_int_equal(m.linear_state_bytes_per_request, 10ull * ((1024 + 2 * 2 * 64) * 3 * 2 + 16 * 64 * 64 * 4));

    snprintf(text, sizeof text, "%s, \"mamba_expand\": 3}", base); /* 16 x 64 is not 3 x 512 */
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "mamba_n_heads: not heads whose mamba_n_heads x mamba_d_head equals"));
    snprintf(text, sizeof text, "%s, \"layer_types\": [\"mamba\", \"conv\"]}", base);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "layer_types: not a list of \"mamba\" or \"attention\", one per layer"));
    snprintf(text, sizeof text, "%s, \"shared_intermediate_size\": 0}", base);
    write_text(path, text);
    assert_int_equal(preset_model_from_config_json(path, &m, err, sizeof err), -1);
    assert_non_null(strstr(err, "shared_intermediate_size: not above 0 when num_local_experts is 0"));
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_real_configs_match_builtins),
        cmocka_unit_test(test_written_configs_match_builtins),
        cmocka_unit_test(test_param_counts_match_published_totals),
        cmocka_unit_test(test_weights_per_gpu),
        cmocka_unit_test(test_quantization_formats),
        cmocka_unit_test(test_w4a16_formats),
        cmocka_unit_test(test_linear_state),
        cmocka_unit_test(test_nonfinite_floats),
        cmocka_unit_test(test_vision_tower_in_weights),
        cmocka_unit_test(test_vision_tower_kinds),
        cmocka_unit_test(test_gemma3_layer_types),
        cmocka_unit_test(test_gemma4),
        cmocka_unit_test(test_errors_name_file_and_field),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_dense_yaml_and_written_preset_roundtrip),
        cmocka_unit_test(test_model_check_relations),
        cmocka_unit_test(test_hunyuan),
        cmocka_unit_test(test_ernie45),
        cmocka_unit_test(test_granite_hybrid),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
