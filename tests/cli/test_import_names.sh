#!/usr/bin/env bash
# Import names (issue 19, item 5): an owner--name[.config].json (AIConfigurator's convention) is
# the model owner/name: the preset is named from the name alone, --model owner/name finds it and
# launch loads owner/name; --hf-id replaces the id; a _name_or_path that is a local path is not
# launched; an architecture cgplan does not read is refused with the nearest one it does.
source "$CGPLAN_TESTLIB"
set -e
CONFIGS="$CGPLAN_FIXTURES/configs"
USER_DIR="$XDG_CONFIG_HOME/cgplan/presets"

# --- owner--name.config.json: named tiny-qwen, hf_names [acme-lab/Tiny-Qwen] (an id no built-in claims)
cp "$CONFIGS/Qwen3-8B.json" "$TEST_TMP/acme-lab--Tiny-Qwen.config.json"
expect_exit 0 "$CGPLAN" model import "$TEST_TMP/acme-lab--Tiny-Qwen.config.json"
[ -f "$USER_DIR/tiny-qwen.yaml" ] && pass || fail "tiny-qwen.yaml: the name without owner and .config"
contains "$(cat "$USER_DIR/tiny-qwen.yaml")" 'hf_names: ["acme-lab/Tiny-Qwen"]' "hf_names holds owner/name alone"
expect_exit 0 "$CGPLAN" estimate --model acme-lab/Tiny-Qwen --set gpu=h200 --set tp=8 --format json
check_py "j['model'] == 'tiny-qwen' and j['total_bytes'] > 0" "--model owner/name finds the import"
expect_exit 0 "$CGPLAN" launch --model acme-lab/Tiny-Qwen --set gpu=h200 --set tp=8
contains "$OUT" "--model-path acme-lab/Tiny-Qwen \\" "launch loads owner/name"
expect_exit 0 "$CGPLAN" launch --model acme-lab/tiny-qwen --set gpu=h200 --set tp=8
contains "$OUT" "--model-path acme-lab/Tiny-Qwen \\" "ids match without case; the id's own case is launched"

# --- AIConfigurator's own files end in _config.json: the same name and id
cp "$CONFIGS/Qwen3-8B.json" "$TEST_TMP/acme-lab--Small-Qwen_config.json"
expect_exit 0 "$CGPLAN" model import "$TEST_TMP/acme-lab--Small-Qwen_config.json"
contains "$(cat "$USER_DIR/small-qwen.yaml")" 'hf_names: ["acme-lab/Small-Qwen"]' "_config.json: owner/name"

# --- --hf-id replaces the id the file name gives (and --name the preset's name)
expect_exit 0 "$CGPLAN" model import "$TEST_TMP/acme-lab--Tiny-Qwen.config.json" --name tuned-qwen --hf-id acme-lab/Tiny-Qwen-SFT
contains "$(cat "$USER_DIR/tuned-qwen.yaml")" 'hf_names: ["acme-lab/Tiny-Qwen-SFT"]' "--hf-id is the one id"
expect_exit 0 "$CGPLAN" launch --model acme-lab/Tiny-Qwen-SFT --set gpu=h200 --set tp=8
contains "$OUT" "--model-path acme-lab/Tiny-Qwen-SFT \\" "launch loads the --hf-id"
expect_exit 0 "$CGPLAN" model import "$CONFIGS/Qwen3-8B.json" --name eq-qwen --hf-id=acme-lab/Eq-Qwen
contains "$(cat "$USER_DIR/eq-qwen.yaml")" 'hf_names: ["acme-lab/Eq-Qwen"]' "--hf-id=ID"
for id in Tiny-Qwen /models/tiny a/b/c 'acme/x;touch PWNED' acme/-x; do
  expect_exit 2 "$CGPLAN" model import "$CONFIGS/Qwen3-8B.json" --name refused-id --hf-id "$id"
  contains "$ERR" "--hf-id" "--hf-id $id: the option is named"
  contains "$ERR" "owner/name" "--hf-id $id: what is expected"
done
[ ! -e "$USER_DIR/refused-id.yaml" ] && pass || fail "a refused --hf-id writes no preset"
ls PWNED 2>/dev/null && fail "an --hf-id ran" || pass
expect_exit 2 "$CGPLAN" model import "$CONFIGS/Qwen3-8B.json" --hf-id
contains "$ERR" "--hf-id needs a value" "--hf-id without a value"

# --- a _name_or_path that is a local path is not an id: the file name's id is launched
expect_exit 0 "$CGPLAN" model import "$CONFIGS/nvidia--Llama-3.1-70B-Instruct-FP8.json" --name local-nop
contains "$(cat "$USER_DIR/local-nop.yaml")" 'hf_names: ["nvidia/Llama-3.1-70B-Instruct-FP8"]' "/opt/... is not kept"
expect_exit 0 "$CGPLAN" launch --model local-nop --set gpu=h200 --set tp=8
contains "$OUT" "--model-path nvidia/Llama-3.1-70B-Instruct-FP8 \\" "launch loads the id, not the build path"

# --- on the fly too: --model owner--name.config.json launches owner/name
expect_exit 0 "$CGPLAN" launch --model "$TEST_TMP/acme-lab--Tiny-Qwen.config.json" --set gpu=h200 --set tp=8
contains "$OUT" "--model-path acme-lab/Tiny-Qwen \\" "--model PATH.json launches owner/name"

# --- an architecture cgplan does not read: refused, naming it and the nearest one it reads
printf '{"architectures": ["Qwen2MoeForCausalLM"], "vocab_size": 151936}' >"$TEST_TMP/qwen2-moe.json"
expect_exit 1 "$CGPLAN" model import "$TEST_TMP/qwen2-moe.json"
one_line "$ERR" "the refusal is one line"
contains "$ERR" "'Qwen2MoeForCausalLM' is not one cgplan reads" "names the class"
contains "$ERR" "the nearest name it reads is 'Qwen3MoeForCausalLM'" "names the nearest known class"

finish
