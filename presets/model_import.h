/* model_import.h — a model preset from a Hugging Face config.json (read with jansson): for
 * `cgplan model import` (which writes the preset) and `--model PATH.json` (which uses it on the
 * fly).
 *
 * Architectures read (architectures[0]; nested: the text model's keys under text_config):
 * - MLA + MoE: DeepseekV3ForCausalLM (DeepSeek-V3/R1, Kimi-K2), DeepseekV32ForCausalLM,
 *   KimiK25ForConditionalGeneration (nested), GlmMoeDsaForCausalLM (GLM-5), Glm4MoeLiteForCausalLM.
 * - MLA + KDA linear attention: KimiK3ForConditionalGeneration (nested), KimiLinearForCausalLM.
 * - DeepSeek-V4's compressed sparse attention + MoE: DeepseekV4ForCausalLM (compress_ratios by
 *   value; expert_dtype "fp4" gives MXFP4 experts beside the FP8 quantization_config).
 * - GQA dense: LlamaForCausalLM, MistralForCausalLM, Ministral3ForCausalLM,
 *   Mistral3ForConditionalGeneration (nested; a dense text model only), Phi3ForCausalLM, Qwen2ForCausalLM,
 *   Qwen2_5_VLForConditionalGeneration (the text keys at the top level or under text_config),
 *   Qwen3ForCausalLM, Qwen3VLForConditionalGeneration (nested); Gemma3ForCausalLM and
 *   Gemma3ForConditionalGeneration (nested) with their sliding-window layers; Gemma4ForCausalLM
 *   and Gemma4ForConditionalGeneration (nested): sliding layers and full ones of their own KV heads
 *   and head size (global_*), the MoE block (enable_moe_block) beside the dense MLP as a shared
 *   expert; the E-series' per-layer embeddings are refused.
 * - GQA + MoE: Qwen3MoeForCausalLM, Qwen3VLMoeForConditionalGeneration (nested),
 *   Llama4ForConditionalGeneration (nested), Glm4MoeForCausalLM, MixtralForCausalLM,
 *   MiniMaxM2ForCausalLM, Grok1ForCausalLM (the residual MLP as a shared expert),
 *   GptOssForCausalLM.
 * - Gated DeltaNet + gated attention: Qwen3NextForCausalLM, Qwen3_5MoeForConditionalGeneration
 *   (nested), Qwen3_5MoeForCausalLM, Qwen3_5ForConditionalGeneration (nested), Qwen3_5ForCausalLM.
 * - Short convolution + GQA: Lfm2ForCausalLM (LFM2), Lfm2MoeForCausalLM (LFM2-MoE); the conv
 *   layers keep a conv state, no SSM state.
 * - GQA with q/k norm, MoE + a shared MLP in every layer or dense: HunYuanMoEV1ForCausalLM,
 *   HunYuanDenseV1ForCausalLM (moe_topk and the like as one value or an equal per-layer list;
 *   use_cla with cla_share_factor > 1 refused: SGLang's hunyuan.py cannot serve it).
 * - GQA, MoE from moe_layer_start_index to moe_layer_end_index every moe_layer_interval, shared
 *   experts as one MLP: Ernie4_5_MoeForCausalLM, Ernie4_5_ForCausalLM (ERNIE 4.5).
 * - Mamba2 + NoPE GQA, MoE + a shared MLP (or the shared MLP alone) in every layer:
 *   GraniteMoeHybridForCausalLM (Granite 4.0-H); the Mamba2 layers keep a BF16 conv state and a
 *   float32 SSM state.
 * Any other is refused, naming the nearest of these.
 *
 * Linear-attention layers (Gated DeltaNet, KDA, LFM2's short conv) also give linear_state_bytes_per_request, the
 * conv and recurrent state SGLang's mamba cache keeps per request; mtp_num_hidden_layers and
 * num_nextn_predict_layers give draft_layers. The vision_config of Qwen2.5-VL, Qwen3-VL / Qwen3.5,
 * Gemma 3 (SigLIP), Kimi K2.5 (MoonViT) and Mistral 3 (Pixtral) gives vision_params and the parts SGLang splits over
 * the attention TP group and over tp (engine.h), in param_count and in the weights per GPU.
 *
 * Weight dtypes: torch_dtype (or dtype), else BF16, for what is not quantised; the
 * quantization_config (or, without one, an hf_quant_config.json beside the file) gives the
 * quantised dtype: fp8 / fbgemm_fp8 -> fp8, mxfp4 -> mxfp4, compressed-tensors 4-bit int group
 * 32 -> int4, group 128 -> int4_g128 (int4_g128_zp where symmetric is false), 4-bit float group
 * 32 -> mxfp4, group 16 -> nvfp4, 8-bit float -> fp8, modelopt NVFP4 -> nvfp4, FP8 -> fp8,
 * MIXED_PRECISION -> each module's, awq (bits / w_bit 4, group_size / q_group_size 128) ->
 * int4_g128_zp, gptq (bits 4, group_size 128) -> int4_g128, int4_g128_zp where sym is false.
 * Refused by name, with what cgplan counts instead: other bit widths and group sizes, GPTQ
 * desc_act true and compressed-tensors actorder "group" (act-order: a g_idx per input row and
 * row-parallel scales repeated on every rank), a quantised LM head (lm_head true), GPTQModel's
 * per-module dynamic overrides. Its exclusion list (modules_to_not_convert,
 * ignore, exclude_modules) decides what stays unquantised: an entry naming the attention module
 * or one of its projections (not a norm or an indexer inside it) keeps attention, dense MLP and
 * shared experts (one dtype in engine_model) unquantised (Gemma 4: attention alone, as
 * attention_dtype, where the MLP is not excluded too); one naming the routed experts keeps
 * them so; the rest (lm_head, embeddings, routers, norms, vision) are unquantised anyway. A
 * NAME.json outside its checkpoint may have its modelopt block in NAME.hf_quant_config.json.
 *
 * Names: the preset is named from the file's stem, or its folder's name for a plain
 * config.json, lower case; an "owner--name[.config].json" file (AIConfigurator's convention;
 * its "_config" too) is named from the name alone and gives hf_names [owner/name]. A
 * _name_or_path that is a Hugging Face id (owner/name) joins hf_names; a local path there is
 * ignored. The JSON may hold Python's NaN and Infinity (read as strings). */
#ifndef CGPLAN_MODEL_IMPORT_H
#define CGPLAN_MODEL_IMPORT_H

#include <stddef.h>
#include <stdio.h>

#include "engine.h"

/* Reads the config at PATH into OUT (cleared first): name from preset_model_import_name(),
 * hf_names as above (without an id from either, the stem or folder name), param_count counted
 * (engine_model_param_count, the vision tower with it). No coefficients: every coefficient is
 * missing. Returns 0, or -1 with ERR naming the file, the field and what was expected (an
 * unknown architecture with the nearest known one, a missing or malformed field, unreadable
 * JSON, a _name_or_path a shell would read). */
int preset_model_from_config_json(const char *path, engine_model *out, char *err, size_t errlen);

/* The preset name for PATH: its file name's stem unless it is plain config.json, else its
 * folder's name, without an "owner--" and a ".config" or "_config"; lower case, with anything
 * but [a-z0-9._-] as '-' ("DeepSeek-V3.json" -> "deepseek-v3", "/models/Qwen3-8B/config.json"
 * -> "qwen3-8b", "zai-org--GLM-4.5-Air.config.json" -> "glm-4.5-air"). "" when none can be
 * made. */
void preset_model_import_name(const char *path, char *buf, size_t len);

/* `--hf-id ID`: M's hf_names become [ID], over what the file name and _name_or_path gave.
 * Returns 0, or -1 with ERR when ID is not owner/name of Hugging Face characters. */
int preset_model_set_hf_id(engine_model *m, const char *id, char *err, size_t errlen);

/* Checks NAME as a preset name (a file stem): 0, or -1 with ERR saying what is allowed. */
int preset_model_check_name(const char *name, char *err, size_t errlen);

/* Writes M as a model preset (kind: model, name: M->name) to F; SOURCE is named in its header
 * comment. Returns 0, or -1 on a write error. */
int preset_model_write_yaml(FILE *f, const engine_model *m, const char *source);

#endif
