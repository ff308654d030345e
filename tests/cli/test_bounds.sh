#!/usr/bin/env bash
# Sizes and dimensions beyond what the engine computes without overflow are refused with
# "value too large" (issue 11, item 4), never turned into a number.
source "$CGPLAN_TESTLIB"
set -e
P="$XDG_CONFIG_HOME/cgplan/presets"
mkdir -p "$P"
# weights_bytes 2^63 on a real GPU: the KV pool would be a signed overflow.
sed 's/^weights_bytes:.*/weights_bytes: 9223372036854775808/; s/^name: k3-dp16/name: huge-weights/' \
  "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" > "$P/huge-weights.yaml"
expect_exit 1 "$CGPLAN" estimate --preset huge-weights
contains "$ERR" "value too large" "weights_bytes 2^63 refused"
contains "$ERR" "weights_bytes" "names the field"
[ -z "$OUT" ] && pass || fail "no estimate printed for weights_bytes 2^63"
# A model whose hidden size is 4294967295: largest_growth and every product would wrap.
sed 's/^hidden:.*/hidden: 4294967295/; s/^name: kimi-k3/name: huge-model/' "$CGPLAN_SRC/presets/models/kimi-k3.yaml" > "$P/huge-model.yaml"
sed 's/^model: kimi-k3/model: huge-model/; s/^name: k3-dp16/name: huge-dims/' "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" > "$P/huge-dims.yaml"
expect_exit 1 "$CGPLAN" estimate --preset huge-dims --format json
contains "$ERR" "value too large" "hidden 4294967295 refused"
contains "$ERR" "hidden" "names hidden"
expect_exit 1 "$CGPLAN" estimate --model huge-model --set gpu=b200
contains "$ERR" "value too large" "--model with huge dimensions refused"
# A config.json with a huge vocab is refused by the import too.
cat > "$TEST_TMP/huge.json" <<'JSON'
{"architectures": ["Qwen3ForCausalLM"], "vocab_size": 4294967295, "hidden_size": 4096, "num_hidden_layers": 36,
 "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128, "intermediate_size": 12288,
 "max_position_embeddings": 40960, "torch_dtype": "bfloat16"}
JSON
expect_exit 1 "$CGPLAN" model import "$TEST_TMP/huge.json"
contains "$ERR" "value too large" "import refuses a 2^32 vocab"
# --set refuses what it used to read as something else (issue 11, finding 6).
for bad in 'buckets=[1, 2]junk' 'buckets=[1, 2' 'buckets=1,2]' 'mem_fraction_static=0x1.ccp-1' 'mem_fraction_static=inf' \
           'mem_fraction_static=nan' 'max_bs=12abc' 'context_len=1e3'; do
  expect_exit 2 "$CGPLAN" estimate --preset k3-dp16 --set "$bad"
done
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16 --set 'buckets=1 2 4' --format json
check_py "j['knobs']['buckets'][:3] == [1, 2, 4]" "SGLang's space-separated list still reads"
# A sweep cut at its point limit says so.
expect_exit 0 "$CGPLAN" sweep --preset k3-dp16 --vary context_len=1:100000:1 --format csv
contains "$ERR" "more than 4096 points" "a cut sweep says so"
# Within bounds, the built-ins still estimate.
expect_exit 0 "$CGPLAN" estimate --preset k3-dp16
finish
