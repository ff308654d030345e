#!/usr/bin/env bash
# cgplan model import and --model PATH.json: a Hugging Face config.json becomes a model preset in
# the user directory (named from the file or its folder; replacing and shadowing said on stderr),
# and --model takes a config on the fly.
source "$CGPLAN_TESTLIB"
set -e
CONFIGS="$CGPLAN_FIXTURES/configs"
USER_DIR="$XDG_CONFIG_HOME/cgplan/presets"

# --- import by file name: DeepSeek-V3.json -> deepseek-v3, shadowing the built-in
expect_exit 0 "$CGPLAN" model import "$CONFIGS/DeepSeek-V3.json"
[ -f "$USER_DIR/deepseek-v3.yaml" ] && pass || fail "deepseek-v3.yaml written into $USER_DIR"
contains "$OUT" "deepseek-v3" "stdout names the preset"
contains "$ERR" "shadows the built-in" "stderr says it shadows the built-in"
expect_exit 0 "$CGPLAN" presets --format json
check_py "[p for p in j['presets'] if p['name']=='deepseek-v3'][0]['origin'].endswith('/deepseek-v3.yaml')" "the user preset wins"

# --- again: replaced, said so
expect_exit 0 "$CGPLAN" model import "$CONFIGS/DeepSeek-V3.json"
contains "$ERR" "replaced the user preset 'deepseek-v3'" "stderr says it replaced the user preset"

# --- a folder's config.json is named from the folder; --name overrides
mkdir -p "$TEST_TMP/Qwen3-8B-Local"
cp "$CONFIGS/Qwen3-8B.json" "$TEST_TMP/Qwen3-8B-Local/config.json"
expect_exit 0 "$CGPLAN" model import "$TEST_TMP/Qwen3-8B-Local/config.json"
[ -f "$USER_DIR/qwen3-8b-local.yaml" ] && pass || fail "qwen3-8b-local.yaml from the folder name"
[ -z "$ERR" ] && pass || fail "a new name says nothing on stderr: $ERR"
expect_exit 0 "$CGPLAN" model import "$CONFIGS/gpt-oss-120b.json" --name my-oss
[ -f "$USER_DIR/my-oss.yaml" ] && pass || fail "--name my-oss"
contains "$(cat "$USER_DIR/my-oss.yaml")" "expert_dtype: mxfp4" "MXFP4 experts written"

# --- the imported preset estimates like any other, and by its folder name as an HF id
expect_exit 0 "$CGPLAN" estimate --model my-oss --set gpu=h200 --format json
check_py "j['total_bytes'] > 0" "estimate from the imported preset"
expect_exit 0 "$CGPLAN" estimate --model /ckpt/Qwen3-8B-Local --set gpu=h200 --format json
check_py "j['total_bytes'] > 0" "the folder name is one of its hf_names"

# --- --model PATH.json: imported on the fly, nothing written
expect_exit 0 "$CGPLAN" estimate --model "$CONFIGS/Kimi-K3.json" --set gpu=b200 --set world=8 --format json
check_py "j['total_bytes'] > 0" "estimate from a config.json"
[ ! -f "$USER_DIR/kimi-k3.yaml" ] && pass || fail "--model PATH.json writes nothing"

# --- errors: one line, the file and the field named
printf '{"architectures": ["MysteryForCausalLM"]}' > "$TEST_TMP/mystery.json"
expect_exit 1 "$CGPLAN" model import "$TEST_TMP/mystery.json"
one_line "$ERR" "unknown architecture: one line"
contains "$ERR" "$TEST_TMP/mystery.json" "names the file"
contains "$ERR" "architectures[0]: 'MysteryForCausalLM'" "names the field"
printf '{"architectures": ["Qwen3ForCausalLM"], "vocab_size": 151936}' > "$TEST_TMP/short.json"
expect_exit 1 "$CGPLAN" model import "$TEST_TMP/short.json"
contains "$ERR" "hidden_size: missing" "a missing field is named"
expect_exit 1 "$CGPLAN" estimate --model "$TEST_TMP/short.json" --set gpu=h200
contains "$ERR" "hidden_size: missing" "--model PATH.json names the field too"
expect_exit 2 "$CGPLAN" model import
expect_exit 2 "$CGPLAN" model import "$CONFIGS/Qwen3-8B.json" --name "../evil"
contains "$ERR" "--name" "a bad name says how to fix it"
expect_exit 2 "$CGPLAN" model import "$CONFIGS/Qwen3-8B.json" --name h200
contains "$ERR" "another kind" "a GPU's name is refused"
expect_exit 2 "$CGPLAN" model frobnicate
expect_exit 0 "$CGPLAN" model --help
contains "$OUT" "model import" "help"

finish
