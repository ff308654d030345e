#!/usr/bin/env bash
# Untrusted text stays data (issue 21): a launch line runs only what it says, a log or a file
# name cannot drive the terminal, every JSON is UTF-8, and each input is bounded before it is
# walked. Each section feeds one of the issue's reproducers.
source "$CGPLAN_TESTLIB"
set -e
CONFIGS="$CGPLAN_FIXTURES/configs"
USER_DIR="$XDG_CONFIG_HOME/cgplan/presets"
DB="$TEST_TMP/runs.db"
RC=0
cd "$TEST_TMP"

# raw CMD...: runs CMD with its stdout and stderr as bytes in raw.out and raw.err; RC its exit.
raw() {
  set +e
  "$@" >"$TEST_TMP/raw.out" 2>"$TEST_TMP/raw.err"
  RC=$?
  set -e
}
# check_bytes 'python expression over o and e (stdout and stderr bytes)' description
check_bytes() {
  if RC=$RC python3 - "$TEST_TMP/raw.out" "$TEST_TMP/raw.err" "$1" <<'PY'; then pass; else fail "$2: $1"; head -c 2000 "$TEST_TMP/raw.out" "$TEST_TMP/raw.err" >&2; fi
import os, sys
RC = int(os.environ["RC"])
o = open(sys.argv[1], "rb").read()
e = open(sys.argv[2], "rb").read()
def inert(b):  # no byte a terminal acts on: C0 but newline, DEL, C1 (as UTF-8), invalid UTF-8
    t = b.decode("utf-8")
    return not any((ord(c) < 0x20 and c != "\n") or 0x7f <= ord(c) < 0xa0 for c in t)
sys.exit(0 if eval(sys.argv[3]) else 1)
PY
}

# --- 1. launch: configs whose _name_or_path is a command are refused, naming the character
python3 - "$CONFIGS/Qwen3-8B.json" <<'PY'
import json, sys
base = json.load(open(sys.argv[1]))
for name, nop in (("subshell", "org/$(touch PWNED-subshell)"), ("semicolon", "org/m; touch PWNED-semicolon #"),
                  ("newline", "org/m\necho PWNED-newline >&2 #")):
    json.dump(dict(base, _name_or_path=nop), open("evil-%s.json" % name, "w"))
PY
for kind in subshell:"'\$'" semicolon:"';'" newline:"a newline"; do
  name=${kind%%:*} char=${kind#*:}
  expect_exit 1 "$CGPLAN" launch --model "evil-$name.json" --set gpu=h200 --set max_bs=8
  contains "$ERR" "_name_or_path" "$name: the message names the field"
  contains "$ERR" "holds $char" "$name: the message names the character"
  [ -z "$OUT" ] && pass || fail "$name: no command printed: $OUT"
  one_line "$ERR" "$name: the refusal is one line (its newline shown as \\n)"
  expect_exit 1 "$CGPLAN" model import "evil-$name.json"
  contains "$ERR" "holds $char" "$name: model import refuses it too"
  [ ! -e "$USER_DIR/evil-$name.yaml" ] && pass || fail "$name: model import wrote no preset"
done
ls PWNED-* 2>/dev/null && fail "an injection ran" || pass

# A real id stays bare; an operator's own folder name is allowed, quoted, and runs as one word.
expect_exit 0 "$CGPLAN" launch --model "$CONFIGS/Llama-3.1-8B.json" --set gpu=h200 --set max_bs=8
contains "$OUT" "--model-path Llama-3.1-8B \\" "a plain name is printed bare"
mkdir -p "odd dir" "it's \$(touch PWNED-folder)"
python3 - "$CONFIGS/Qwen3-8B.json" "it's \$(touch PWNED-folder)/config.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.pop("_name_or_path", None)
json.dump(c, open(sys.argv[2], "w"))
PY
expect_exit 0 "$CGPLAN" launch --model "it's \$(touch PWNED-folder)/config.json" --set gpu=h200 --set max_bs=8
contains "$OUT" "--model-path 'it'\"'\"'s \$(touch PWNED-folder)' \\" "the folder name is shell-quoted"
printf '%s\n' "$OUT" | sh -n && pass || fail "sh -n parses the printed command"
# Run the command as printed, with a python3 that prints its arguments one per line.
mkdir -p fakebin
printf '#!/bin/sh\nprintf "%%s\\n" "$@"\n' >fakebin/python3
chmod +x fakebin/python3
args=$(PATH="$TEST_TMP/fakebin:$PATH" sh -c "$OUT")
printf '%s\n' "$args" | grep -qxF -- "it's \$(touch PWNED-folder)" && pass || fail "the path came back as one word: $args"
ls PWNED-* 2>/dev/null && fail "the printed command ran an injection" || pass
# The same through the JSON: command and args quoted alike.
expect_exit 0 "$CGPLAN" launch --model "it's \$(touch PWNED-folder)/config.json" --set gpu=h200 --set max_bs=8 --format json
check_py "j['args'][0] == \"--model-path 'it'\\\"'\\\"'s \$(touch PWNED-folder)'\"" "the JSON's args are quoted words"
# A hand-written model preset is not refused, but its text is one word on the line and an
# inert comment above it.
mkdir -p "$USER_DIR"
sed -e 's/^name: qwen3-8b/name: evil-model/' \
    -e 's|^hf_names:.*|hf_names: ["org/m\\necho PWNED-preset >\&2 #"]|' \
    -e 's|^description:.*|description: "x\\nrm -rf / #"|' "$CGPLAN_SRC/presets/models/qwen3-8b.yaml" >"$USER_DIR/evil-model.yaml"
expect_exit 0 "$CGPLAN" launch --model evil-model --set gpu=h200 --set max_bs=8
args=$(PATH="$TEST_TMP/fakebin:$PATH" sh -c "$OUT" 2>&1)
printf '%s\n' "$args" | grep -q PWNED-preset && [ "$(printf '%s\n' "$args" | grep -c PWNED-preset)" = 1 ] &&
  printf '%s\n' "$args" | grep -qx -- "--model-path" && pass || fail "the preset's id is one argument: $args"
printf '%s\n' "$args" | grep -qx "PWNED-preset" && fail "the preset's id ran as a command" || pass
rm -f "$USER_DIR/evil-model.yaml"

# --- 2. a file name and a log's text cannot drive the terminal
NAME=$(printf '\033]0;TITLE\a\033[31m red.log')
cp "$LOGS/15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log" "$NAME" # not one the store seeds
raw "$CGPLAN" ingest --db "$DB" "$NAME"
check_bytes "inert(o) and inert(e) and b'\\\\x1b]0;TITLE\\\\x07\\\\x1b[31m red.log' in o" "the ingest line shows the name's escapes"
raw "$CGPLAN" runs list --db "$DB"
check_bytes "inert(o) and b'\\\\x1b]0;TITLE' in o" "runs list"
raw "$CGPLAN" runs list --db "$DB" --format csv
check_bytes "inert(o) and b'\\\\x1b[31m red.log' in o" "runs list --format csv"
expect_exit 0 "$CGPLAN" runs list --db "$DB" --format json
ID=$(printf '%s' "$OUT" | python3 -c 'import json,sys; print([r["id"] for r in json.load(sys.stdin)["runs"] if r["source"].endswith("red.log")][0])')
raw "$CGPLAN" runs show "$ID" --db "$DB"
check_bytes "inert(o) and b'source   \\\\x1b]0;TITLE' in o" "runs show"
raw "$CGPLAN" ingest --db "$DB" "$NAME"
check_bytes "inert(o) and b'already stored' in o" "the duplicate's line"
raw "$CGPLAN" ingest --db "$DB" "$NAME.missing"
check_bytes "RC == 0 or inert(e)" "an error naming the file"
[ "$RC" = 1 ] && pass || fail "a missing file: exit $RC"

# A preset named with an ESC (its file's stem): the estimate table and presets show it inert.
mkdir -p "$USER_DIR"
ESCNAME=$(printf 'e\033[31mx')
sed 's/^name: k3-dp16/name: "e\\e[31mx"/' "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" >"$USER_DIR/$ESCNAME.yaml"
raw "$CGPLAN" estimate --preset "$ESCNAME"
check_bytes "RC == 0 and inert(o) and o.startswith(b'e\\\\x1b[31mx \\xc2\\xb7 kimi-k3')" "the estimate table's preset name"
raw "$CGPLAN" presets
check_bytes "RC == 0 and inert(o) and b'e\\\\x1b[31mx' in o" "presets lists it inert"
rm -f "$USER_DIR/$ESCNAME.yaml"

# C1 controls (UTF-8 C2 9B CSI, C2 9D OSC) and invalid UTF-8 in a log's model_path
python3 - "$LOGS/k3-dp16-b200-article.log" <<'PY'
import sys
log = open(sys.argv[1], "rb").read()
open("c1.log", "wb").write(log.replace(b"moonshotai/Kimi-K3", b"org/\xc2\x9b31mred\xc2\x9d0;T\x07m", 1))
open("bad-utf8.log", "wb").write(log.replace(b"moonshotai/Kimi-K3",
    b"o\xe0\x80\xafv\xf0\x80\x80\xafs\xed\xa0\x80u\xf4\x90\x80\x80t\xe4\xb8", 1))
PY
for f in c1 bad-utf8; do
  raw "$CGPLAN" ingest --dry-run --format json --preset k3-dp16 $f.log
  check_bytes "RC == 0 and __import__('json').loads(o.decode('utf-8'))['runs'][0]['server_args']['model_path'] != ''" "$f: the dry run's JSON is UTF-8"
  raw "$CGPLAN" ingest --db "$DB" --preset k3-dp16 --format json $f.log
  ID=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["id"])' "$TEST_TMP/raw.out")
  raw "$CGPLAN" runs show "$ID" --db "$DB" --format json
  check_bytes "RC == 0 and __import__('json').loads(o.decode('utf-8')) is not None" "$f: runs show --format json is UTF-8"
  raw "$CGPLAN" runs show "$ID" --db "$DB"
  check_bytes "RC == 0 and inert(o)" "$f: runs show's table is inert"
done
raw "$CGPLAN" runs show "$ID" --db "$DB" --format json
check_bytes "'\\ufffd' in __import__('json').loads(o)['model_path']" "invalid UTF-8 became U+FFFD"
raw "$CGPLAN" ingest --dry-run --format json --preset k3-dp16 c1.log
check_bytes "__import__('json').loads(o)['runs'][0]['server_args']['model_path'] == 'org/\\\\x9b31mred\\\\x9d0;T\\\\x07m'" "C1 controls are escaped in the log's text"

# --- 3. config.json is bounded before it is walked; the same bounds as the preset loader
ms() { date +%s%N | cut -c1-13; }
# refused CONFIG FIELD description: model import, --model on estimate and launch all refuse CONFIG
# (exit 1) in well under a second, naming FIELD, and import writes nothing.
refused() {
  local t0 t1 cmd
  for cmd in "model import $1" "estimate --model $1 --set gpu=h200" "launch --model $1 --set gpu=h200"; do
    t0=$(ms)
    # shellcheck disable=SC2086 # the words of CMD
    expect_exit 1 "$CGPLAN" $cmd
    t1=$(ms)
    [ $((t1 - t0)) -lt 1000 ] && pass || fail "$3: ${cmd%% *} took $((t1 - t0)) ms"
    contains "$ERR" "$2" "$3: ${cmd%% *} names $2"
    [ -z "$OUT" ] && pass || fail "$3: ${cmd%% *} printed: $OUT"
  done
  [ ! -e "$USER_DIR/${1%.json}.yaml" ] && pass || fail "$3: no preset written"
}
python3 - "$CONFIGS" <<'PY'
import json, sys
d = sys.argv[1]
def load(n): return json.load(open("%s/%s.json" % (d, n)))
def save(n, c): json.dump(c, open(n + ".json", "w"))
q8, moe, oss = load("Qwen3-8B"), load("Qwen3-30B-A3B"), load("gpt-oss-120b")
# 17 MiB: a padding key past the cap (jansson would have loaded it whole)
open("big.json", "w").write(json.dumps(dict(q8, padding="x" * (17 << 20))))
save("layers-max", dict(q8, num_hidden_layers=4294967295))
save("layers-only", dict(moe, num_hidden_layers=4294967295, mlp_only_layers=list(range(100000))))
save("only-long", dict(moe, mlp_only_layers=list(range(100000))))
save("only-index", dict(moe, mlp_only_layers=[0, 48]))
save("sliding-over", dict(oss, num_hidden_layers=4, layer_types=["sliding_attention"] * 36))
nxt = dict(moe, architectures=["Qwen3NextForCausalLM"], linear_num_key_heads=16, linear_num_value_heads=32,
           linear_key_head_dim=128, linear_value_head_dim=128, layer_types=["linear_attention"] * 60)
save("linear-over", nxt)
save("context-max", dict(q8, max_position_embeddings=4294967295))
save("context-over", dict(q8, max_position_embeddings=16777217))
PY
refused big.json "16 MiB" "a 17 MiB config"
refused layers-max.json "num_hidden_layers: not an integer in 1..65536" "num_hidden_layers 2^32-1"
refused layers-only.json "num_hidden_layers" "num_hidden_layers 2^32-1 with a long mlp_only_layers"
refused only-long.json "mlp_only_layers" "an mlp_only_layers longer than the layers"
refused only-index.json "mlp_only_layers: not a list of layer indices 0..num_hidden_layers - 1" "an index past the layers"
refused sliding-over.json "layer_types: not a list of one kind per layer (36 entries for num_hidden_layers 4)" "sliding layers past the count"
refused linear-over.json "layer_types" "linear layers past the count"
refused context-max.json "max_position_embeddings: not an integer in 1..16777216" "max_position_embeddings 2^32-1"
refused context-over.json "max_position_embeddings" "max_position_embeddings one past the knob"
# The largest context the knob takes still imports (refused above it, never clamped to it).
python3 -c 'import json,sys; c=json.load(open(sys.argv[1])); c["max_position_embeddings"]=16777216; json.dump(c, open("context-edge.json","w"))' "$CONFIGS/Qwen3-8B.json"
expect_exit 0 "$CGPLAN" estimate --model context-edge.json --set gpu=h200 --format json
check_py "j['knobs']['context_len'] == 16777216" "the knob's maximum is kept as it is"

# Every fixture config imports, and what import writes loads (presets reports no problem) and plans.
i=0
for f in "$CONFIGS"/*.json; do
  case $f in *.hf_quant_config.json) continue ;; esac # a quantisation sidecar, not a model config
  # an architecture the importer does not read is refused by name (the catalog's hand-written
  # presets carry those); every other fixture imports, and the written preset loads and plans
  arch=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1])).get('architectures', ['?'])[0])" "$f")
  set +e; CGPLAN_PRESETS="$TEST_TMP/probe" "$CGPLAN" model import "$f" --name "fixture-probe" >/dev/null 2>"$TEST_TMP/probe.err"; set -e
  if grep -q "is not one cgplan reads" "$TEST_TMP/probe.err"; then
    grep -q "'$arch'" "$TEST_TMP/probe.err" && pass || fail "$(basename "$f"): the refusal names $arch"
    continue
  fi
  i=$((i + 1))
  expect_exit 0 "$CGPLAN" model import "$f" --name "fixture-$i"
  [ -f "$USER_DIR/fixture-$i.yaml" ] && pass || fail "$(basename "$f"): no preset written"
  expect_exit 0 "$CGPLAN" estimate --model "fixture-$i" --set gpu=b200 --format json
  check_py "j['total_bytes'] > 0" "$(basename "$f"): the imported preset plans"
done
[ "$i" -ge 11 ] && pass || fail "only $i fixture configs found"
expect_exit 0 "$CGPLAN" presets --format json
check_py "len([p for p in j['presets'] if p['name'].startswith('fixture-')]) == $i" "every imported preset is listed"
[ -z "$ERR" ] && pass || fail "presets reports a problem: $ERR"
rm -f "$USER_DIR"/fixture-*.yaml

# --- 4. a FIFO named like a preset (or a config) is refused, never waited on
mkdir -p "$USER_DIR" fifo-dir
mkfifo "$USER_DIR/x.yaml" fifo-dir/y.yaml fifo-dir/config.json
expect_exit 1 timeout 10 "$CGPLAN" presets
contains "$ERR" "x.yaml:1:1: not a regular file" "presets names the FIFO in the user folder"
expect_exit 0 timeout 10 "$CGPLAN" estimate --preset k3-dp16 --format json
check_py "j['preset'] == 'k3-dp16'" "the other presets load beside the FIFO"
expect_exit 1 timeout 10 "$CGPLAN" estimate --preset fifo-dir/y.yaml
contains "$ERR" "not a regular file" "a FIFO given by path"
expect_exit 1 timeout 10 "$CGPLAN" model import fifo-dir/config.json
contains "$ERR" "not a regular file" "a FIFO as the config"
rm -f "$USER_DIR/x.yaml"

# --- 5. the store path is a file path, never an SQLite URI
LOG15="$LOGS/15-tp4-pcie-qwq32b-plain-tqdm-end-avail-before-usage.log"
mkdir -p uri && cd uri
for db in 'file:real.db' 'file:real.db?vfs=unix-none'; do
  CGPLAN_DB="$db" expect_exit 1 "$CGPLAN" ingest "$LOG15"
  contains "$ERR" "not an SQLite URI" "CGPLAN_DB=$db refused"
  expect_exit 1 "$CGPLAN" runs list --db "$db"
  contains "$ERR" "./$db for a file of that name" "--db $db refused, with the way to name such a file"
done
CGPLAN_DB=':memory:' expect_exit 1 "$CGPLAN" ingest "$LOG15"
contains "$ERR" "in-memory database, which keeps nothing" "CGPLAN_DB=:memory: refused"
[ -z "$(ls)" ] && pass || fail "a refused store path created: $(ls)"
expect_exit 0 "$CGPLAN" ingest --db ./file:real.db "$LOG15"
[ -f 'file:real.db' ] && [ ! -e real.db ] && pass || fail "./file:real.db is the file of that name: $(ls)"
cd "$TEST_TMP"

# --- 6. the planner's s writes YAML through model import's escaping
mkdir -p "$USER_DIR"
sed "s/^name: k3-dp16/name: 'x\"y: z'/" "$CGPLAN_SRC/presets/deployments/k3-dp16.yaml" >"$USER_DIR/x\"y: z.yaml"
expect_exit 0 "$CGPLAN" tui --snapshot 120x40 --db "$DB" --preset 'x"y: z' --keys "s Enter"
# the name s offers is one it takes: the plan's with each character a name may not hold as '-'
contains "$OUT" 'saved as preset x-y--z-saved' "s saved the plan"
[ -f "$USER_DIR/x-y--z-saved.yaml" ] && pass || fail "s wrote no x-y--z-saved.yaml"
expect_exit 0 "$CGPLAN" estimate --preset 'x-y--z-saved' --format json
check_py "j['preset'] == 'x-y--z-saved' and j['knobs']['world'] == 16" "the saved preset loads back"
expect_exit 0 "$CGPLAN" presets
[ -z "$ERR" ] && pass || fail "a saved or imported preset does not load: $ERR"
# model import's own text: a folder name with DEL and C1 NEL, quoted so libyaml takes it
odd=$(printf 'm\177x\302\205y')
mkdir -p "$odd"
cp "$CONFIGS/Qwen3-8B.json" "$odd/config.json"
expect_exit 0 "$CGPLAN" model import "$odd/config.json" --name odd-folder
expect_exit 0 "$CGPLAN" estimate --model odd-folder --set gpu=h200 --format json
check_py "j['total_bytes'] > 0" "the imported preset with DEL and NEL in its texts loads"
expect_exit 0 "$CGPLAN" presets --format json
check_py "[p for p in j['presets'] if p['name'] == 'odd-folder'][0]['description'].startswith('imported from m\\x7fx\\x85y')" "the description keeps the bytes, escaped"
rm -f "$USER_DIR/odd-folder.yaml" "$USER_DIR/x\"y: z.yaml" "$USER_DIR/x-y--z-saved.yaml"

# --- 7. model import --name of 64 characters or more is refused, never cut to 63
n63=$(printf 'n%.0s' $(seq 63)) n64=$(printf 'n%.0s' $(seq 64))
expect_exit 0 "$CGPLAN" model import "$CONFIGS/Qwen3-8B.json" --name "$n63"
[ -f "$USER_DIR/$n63.yaml" ] && pass || fail "a 63-character --name is a name"
before=$(cksum <"$USER_DIR/$n63.yaml")
for form in "--name $n64" "--name=${n64}nnnn"; do
  # shellcheck disable=SC2086 # the option's words
  expect_exit 2 "$CGPLAN" model import "$CONFIGS/Llama-3.1-8B.json" $form
  contains "$ERR" "characters; a preset name has at most 63" "${form%% *}: refused as too long"
done
[ "$(cksum <"$USER_DIR/$n63.yaml")" = "$before" ] && pass || fail "the 63-character user preset was replaced"
[ "$(ls "$USER_DIR" | grep -c '^nnn')" = 1 ] && pass || fail "a cut name was written: $(ls "$USER_DIR")"
rm -f "$USER_DIR/$n63.yaml"

finish
