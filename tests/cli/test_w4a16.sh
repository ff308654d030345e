#!/usr/bin/env bash
# W4A16 group-128 checkpoints (AWQ, GPTQ, compressed-tensors): a real AWQ export of Qwen2.5-72B-Instruct with its
# unpadded MLP (LDCC--Qwen2.5-72B-Instruct-ko-AWQ.json, 29568 rows) plans on one GPU but not split: each GPU's
# down_proj rows must be whole groups of 128 (SGLang's marlin_utils.py verify_marlin_supports_shape; the AWQ and
# GPTQ kernels raise "The input size is not aligned with the quantized weight shape"), so tp 2, 4 and 8 are
# blocked and search keeps tp 1; the same config padded to 29696 (Qwen's fix for its 72B AWQ / GPTQ checkpoints,
# QwenLM/Qwen3-VL issue #230) splits eight ways. What the importer does not count is refused, file and key named.
source "$CGPLAN_TESTLIB"
set -e
LDCC="$CGPLAN_FIXTURES/configs/LDCC--Qwen2.5-72B-Instruct-ko-AWQ.json"

expect_exit 0 "$CGPLAN" estimate --model "$LDCC" --set gpu=h200 --set tp=1 --format json
check_py "'quant_group_split' not in [w['code'] for w in j['warnings']]" "29568 rows whole on one GPU: no split"
# FP16 embedding and LM head, 80 layers x (2 x 64 x 128 + 2 x 8 x 128 + 3 x 29568) x 8192 weights at 4156/8000 B
# (each term truncated to whole bytes: within 8)
check_py "0 <= 2 * 152064 * 8192 * 2 + 80 * (2 * 64 * 128 + 2 * 8 * 128 + 3 * 29568) * 8192 * 4156 // 8000 - j['budget']['weights_bytes'] <= 8" \
  "the AWQ weights on one GPU: 41.46 GB"
for tp in 2 4 8; do
  expect_exit 0 "$CGPLAN" estimate --model "$LDCC" --set gpu=h200 --set tp=$tp --format json
  check_py "[(w['severity'], 'down_proj' in w['message'] and '%d a GPU' % (29568 // $tp) in w['message']) for w in j['warnings'] if w['code'] == 'quant_group_split'] == [('blocking', True)]" \
    "tp $tp: down_proj's $((29568 / tp)) rows a GPU are not whole groups of 128"
done
expect_exit 3 "$CGPLAN" estimate --model "$LDCC" --set gpu=h200 --set tp=8 --check
expect_exit 0 "$CGPLAN" search --model "$LDCC" --set gpu=h200 --gpus 8 --format json
check_py "j['layouts'] and all(l['tp'] == 1 for l in j['layouts'])" "search on 8 GPUs keeps tp 1 (8 replicas)"

# --- padded to 29696 = 232 x 128: 3712 = 29 x 128 rows a GPU at tp 8
python3 -c "import json, sys; c = json.load(open(sys.argv[1])); c['intermediate_size'] = 29696; json.dump(c, open(sys.argv[2], 'w'))" \
  "$LDCC" "$TEST_TMP/padded-72b-awq.json"
expect_exit 0 "$CGPLAN" estimate --model "$TEST_TMP/padded-72b-awq.json" --set gpu=h200 --set tp=8 --format json
check_py "'quant_group_split' not in [w['code'] for w in j['warnings']]" "29696 rows split eight ways: whole groups"

# --- refusals name the file, the key and its value, and what cgplan counts (exit 1)
python3 -c "import json, sys; c = json.load(open(sys.argv[1])); c['quantization_config'] = {'quant_method': 'gptq', 'bits': 4, 'group_size': 128, 'desc_act': True, 'sym': True}; json.dump(c, open(sys.argv[2], 'w'))" \
  "$LDCC" "$TEST_TMP/act-order-gptq.json"
expect_exit 1 "$CGPLAN" model import "$TEST_TMP/act-order-gptq.json"
contains "$ERR" "$TEST_TMP/act-order-gptq.json: quantization_config.desc_act: true; expected false" "desc_act true refused by name"
python3 -c "import json, sys; c = json.load(open(sys.argv[1])); c['quantization_config']['group_size'] = 64; json.dump(c, open(sys.argv[2], 'w'))" \
  "$LDCC" "$TEST_TMP/awq-g64.json"
expect_exit 1 "$CGPLAN" estimate --model "$TEST_TMP/awq-g64.json" --set gpu=h200
contains "$ERR" "quantization_config.group_size: 64; expected 128" "group 64 refused with the group counted"
finish
