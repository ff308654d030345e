#!/usr/bin/env bash
# --set as SGLang's own names and spellings read it (operator issue, "small contract breaks"), the
# bucket list's max_bs (SGLang's max(cuda_graph_bs)), and no negative fraction in any answer.
source "$CGPLAN_TESTLIB"
M=(--model deepseek-v3 --set gpu=h200)
# ServerArgs field names are the knobs' aliases: the same plan as cgplan's own names
expect_exit 0 "$CGPLAN" estimate "${M[@]}" --set world=8 --set max_bs=64 --set dp=8 --set kv_dtype=fp8_e4m3 \
  --set a2a=deepep --set mtp=4 --set dp_attention=on --format json
OWN=$OUT
expect_exit 0 "$CGPLAN" estimate "${M[@]}" --set tp_size=8 --set cuda_graph_max_bs=64 --set dp_size=8 \
  --set kv_cache_dtype=fp8_e4m3 --set moe_a2a_backend=deepep --set speculative_num_draft_tokens=4 \
  --set enable_dp_attention=1 --format json
[ "$OUT" = "$OWN" ] && pass || fail "SGLang field names give the plan cgplan's names give"
check_py "j['knobs']['max_bs'] == 64 and j['knobs']['dp'] == 8 and j['knobs']['world'] == 8 and j['knobs']['mtp'] == 4" \
  "field names set their knobs"
expect_exit 0 "$CGPLAN" estimate "${M[@]}" --set SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK=128 --set tp=8 \
  --set a2a=deepep --format json
check_py "j['knobs']['max_dispatch'] == 128" "the environment variable's name is the knob's too"
# booleans: on/off, true/false, yes/no, 1/0, any case
for pair in "1 true" "0 false" "yes true" "no false" "True true" "OFF false"; do
  set -- $pair
  expect_exit 0 "$CGPLAN" estimate "${M[@]}" --set tp=8 --set dp=8 --set tbo="$1" --format json
  check_py "j['knobs']['tbo'] == $( [ "$2" = true ] && echo True || echo False )" "tbo=$1"
done
expect_exit 2 "$CGPLAN" estimate "${M[@]}" --set tp=8 --set tbo=maybe
contains "$ERR" "yes/no, 1/0" "a bad boolean names every spelling taken"
# an explicit list with no explicit max_bs: max_bs is its largest size, 6 graphs captured
expect_exit 0 "$CGPLAN" estimate "${M[@]}" --set tp=8 --set "buckets=1 2 4 8 16 32" --format json
check_py "j['knobs']['max_bs'] == 32 and j['captured_buckets'] == [1, 2, 4, 8, 16, 32]" "buckets alone set max_bs = max(list)"
# with both given, the list is cut at max_bs and max_bs appended (as before)
expect_exit 0 "$CGPLAN" estimate "${M[@]}" --set tp=8 --set max_bs=12 --set "buckets=1 2 4 8 16 32" --format json
check_py "j['knobs']['max_bs'] == 12 and j['captured_buckets'] == [1, 2, 4, 8, 12]" "max_bs given: the list is cut at it"
# --help prints a size step as a size
expect_exit 0 "$CGPLAN" --help
contains "$OUT" "step: 512 MiB" "--help: margin's step in MiB"
case "$OUT" in *e+0*) fail "--help prints a float in e-notation" ;; *) pass ;; esac
# a plan no fraction fits says so, never a negative fraction (k3-dp16 at max_bs 1024)
expect_exit 3 "$CGPLAN" solve mem_fraction_static --preset k3-dp16 --set max_bs=1024
contains "$OUT" "does not fit at any --mem-fraction-static" "solve: no fraction, in words"
contains "$OUT" "no KV pool (82.01 GiB short); this plan: 0.920, 5.35 GiB KV" "SGLang's default line: no negative pool"
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set max_bs=1024
contains "$OUT" "recommended --mem-fraction-static none (does not fit" "estimate: no negative recommended fraction"
case "$OUT$ERR" in *" -0."[0-9]*) fail "a negative fraction is printed" ;; *) pass ;; esac
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set max_bs=1024 --format json
check_py "j['budget']['recommended_mem_fraction_static'] is None and j['budget']['fits'] is False" \
  "JSON: no recommended fraction (null) where none fits"
# layouts as SGLang resolves them, each once a property-test counterexample (tests/unit/test_property.c)
# dp replicas: each replica is a server of its own and takes --max-running-requests whole
expect_exit 0 "$CGPLAN" launch --model qwen3-32b --set gpu=h200 --set tp=4 --set dp=2 --set dp_attention=off --set max_bs=7
contains "$OUT" "--max-running-requests 7 " "dp replicas: the pool per replica is max_bs"
# ... and the command spans tp x dp GPUs: two replicas of 8 are 16 GPUs, two nodes
expect_exit 0 "$CGPLAN" launch --model qwen3-32b --set gpu=h200 --set tp=8 --set dp=2 --set dp_attention=off --format json
check_py "j['gpus'] == 16 and len(j['nodes']) == 2" "dp replicas: 2 x tp 8 on two nodes"
expect_exit 0 "$CGPLAN" launch --model qwen3-32b --set gpu=h200 --set tp=8 --set dp=2 --set dp_attention=on --format json
check_py "j['gpus'] == 8 and len(j['nodes']) == 1" "DP attention: dp ranks inside tp 8, one node"
# DeepEP: SGLang sets ep_size = tp_size whatever --ep-size says (server_args.py _handle_a2a_moe)
expect_exit 0 "$CGPLAN" estimate --model deepseek-v3 --set gpu=h200 --set tp=8 --set a2a=deepep --set ep=1 --format json
check_py "[t['bytes'] for t in j['terms'] if t['id'] == 'moe.deepep_normal'] == [335709824] and \
  any('sets --ep-size to --tp-size (8)' in w['message'] for w in j['warnings'])" "ep=1 under DeepEP is ep = tp, said"
# DeepEP on a dense model: nothing to dispatch, so neither the plan nor SGLang's heuristic counts it
expect_exit 0 "$CGPLAN" estimate --model qwen2.5-72b --set gpu=h200 --set tp=8 --set a2a=deepep --format json
check_py "j['heuristic']['deepep_bytes'] == 0 and \
  any('no routed experts' in w['message'] for w in j['warnings'])" "a2a=deepep on a dense model is planned without it"
finish
